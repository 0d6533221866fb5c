package extract

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"cairn/core/humanize"
)

// maxMboxMessages bounds the messages read from one mailbox; the rest are
// reported in a warning.
const maxMboxMessages = 20000

// extractMbox reads a Unix mailbox: messages separated by "From " lines,
// each written as a message unit (numbered from 1 in mailbox order,
// labelled with its subject) followed by its attachments. The mailbox is
// read as a stream, one message at a time and each message part by part
// (emailDocument's bounds), so a mailbox of any size costs about the text
// it keeps.
func (r *Registry) extractMbox(ctx context.Context, f File, lim Limits) (*Document, error) {
	if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, humanize.Bytes(f.Size))
	}
	mr := newMboxReader(io.NewSectionReader(f.R, 0, f.Size))
	if !mr.first() {
		return nil, fmt.Errorf("mbox: no \"From \" separator line: not a Unix mailbox")
	}
	b := newBuilder(lim)
	var warnings []string
	for i := 0; mr.next(); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == maxMboxMessages || b.full() {
			warnings = append(warnings, fmt.Sprintf("mbox: only the first %d messages were read", i))
			break
		}
		parsed, err := r.parseEmail(ctx, mr, lim)
		if _, derr := io.Copy(io.Discard, mr); derr != nil && err == nil {
			err = derr // the rest of the message, up to the next separator
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			warnings = append(warnings, fmt.Sprintf("mbox: message %d: %v", i+1, err))
			continue
		}
		b.message(parsed, i+1)
		warnings = append(warnings, prefixAll(fmt.Sprintf("message %d: ", i+1), parsed.warnings)...)
	}
	if mr.err != nil {
		warnings = append(warnings, fmt.Sprintf("mbox: %v", mr.err))
	}
	doc := b.document("mbox", strings.TrimSuffix(filepath.Base(f.Name), filepath.Ext(f.Name)))
	doc.Warnings = warnings
	return doc, nil
}

// mboxReader reads a mailbox one message at a time: Read gives the lines
// of the current message up to the next line starting with "From " that
// follows a blank line, with CRLF line ends made LF and the mboxrd quoting
// of body lines that started with "From " undone, then io.EOF; next moves
// to the following message. A line of any length is passed on in pieces.
type mboxReader struct {
	br        *bufio.Reader
	line      []byte // what is left to give of the current piece of a line
	lineStart bool   // the next piece read starts a line
	blank     bool   // the last whole line was empty
	ended     bool   // the current message has ended (a separator, or the end)
	eof       bool
	err       error
}

func newMboxReader(r io.Reader) *mboxReader {
	return &mboxReader{br: bufio.NewReaderSize(r, 64<<10), lineStart: true, blank: true, ended: true}
}

// first reports whether the mailbox starts with a separator line.
func (m *mboxReader) first() bool {
	head, _ := m.br.Peek(5)
	return bytes.Equal(head, []byte("From "))
}

// next skips what is left of the current message and its separator line;
// false when there is no message left.
func (m *mboxReader) next() bool {
	if !m.ended {
		io.Copy(io.Discard, m)
	}
	if m.eof {
		return false
	}
	// At a separator line: skip it, however long.
	for {
		piece, err := m.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err != io.EOF {
				m.err = err
			}
			m.eof = true
			if len(piece) == 0 {
				return false
			}
		}
		break
	}
	m.ended, m.lineStart, m.blank = false, true, false
	return !m.eof || m.br.Buffered() > 0
}

func (m *mboxReader) Read(p []byte) (int, error) {
	for len(m.line) == 0 {
		if m.ended {
			return 0, io.EOF
		}
		if !m.readPiece() {
			return 0, io.EOF
		}
	}
	n := copy(p, m.line)
	m.line = m.line[n:]
	return n, nil
}

// readPiece reads the next piece of a line into m.line, ending the message
// at a separator line (not consumed) or at the end of the mailbox.
func (m *mboxReader) readPiece() bool {
	if m.eof {
		m.ended = true
		return false
	}
	start := m.lineStart
	if start && m.blank {
		if head, _ := m.br.Peek(5); bytes.Equal(head, []byte("From ")) {
			m.ended = true
			return false
		}
	}
	piece, err := m.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		m.lineStart = false
	case err != nil:
		if err != io.EOF {
			m.err = err
		}
		m.eof = true
		m.lineStart = true
	default:
		m.lineStart = true
	}
	line := piece
	if start {
		// mboxrd: ">From " stands for "From ", ">>From " for ">From ".
		if t := bytes.TrimLeft(line, ">"); len(t) < len(line) && bytes.HasPrefix(t, []byte("From ")) {
			line = line[1:]
		}
	}
	if m.lineStart {
		if bytes.HasSuffix(line, []byte("\r\n")) {
			line = append(line[:len(line)-2:len(line)-2], '\n')
		}
		m.blank = start && (len(line) == 1 && line[0] == '\n')
	}
	m.line = line
	return len(line) > 0 || !m.eof
}
