package extract

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// maxMboxMessages bounds the messages read from one mailbox; the rest are
// reported in a warning.
const maxMboxMessages = 20000

// extractMbox reads a Unix mailbox: messages separated by "From " lines,
// each written as a message unit (numbered from 1 in mailbox order,
// labelled with its subject) followed by its attachments.
func (r *Registry) extractMbox(ctx context.Context, f File, lim Limits) (*Document, error) {
	raw, err := readAll(f, lim)
	if err != nil {
		return nil, err
	}
	msgs := splitMbox(raw)
	if len(msgs) == 0 {
		return nil, fmt.Errorf("mbox: no \"From \" separator line: not a Unix mailbox")
	}
	b := newBuilder(lim)
	var warnings []string
	for i, m := range msgs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == maxMboxMessages || b.full() {
			warnings = append(warnings, fmt.Sprintf("mbox: only the first %d of %d messages were read", i, len(msgs)))
			break
		}
		parsed, err := r.parseEmail(ctx, m, lim)
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
	doc := b.document("mbox", strings.TrimSuffix(filepath.Base(f.Name), filepath.Ext(f.Name)))
	doc.Warnings = warnings
	return doc, nil
}

// splitMbox cuts a mailbox into messages at lines starting with "From "
// that follow a blank line (or start the file), and undoes the mboxrd
// quoting of body lines that started with "From ".
func splitMbox(raw []byte) [][]byte {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(raw, []byte("From ")) {
		return nil
	}
	var out [][]byte
	start := -1
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\n')
		lineEnd := len(raw)
		if j >= 0 {
			lineEnd = i + j
		}
		line := raw[i:lineEnd]
		if bytes.HasPrefix(line, []byte("From ")) && (i == 0 || (i >= 2 && raw[i-2] == '\n')) {
			if start >= 0 {
				out = append(out, unquoteFrom(raw[start:i]))
			}
			start = min(lineEnd+1, len(raw)) // the separator line is not part of the message
		}
		i = lineEnd + 1
	}
	if start >= 0 && start < len(raw) {
		out = append(out, unquoteFrom(raw[start:]))
	}
	return out
}

func unquoteFrom(m []byte) []byte {
	if !bytes.Contains(m, []byte("\n>")) {
		return m
	}
	lines := bytes.Split(m, []byte("\n"))
	for i, l := range lines {
		if t := bytes.TrimLeft(l, ">"); len(t) < len(l) && bytes.HasPrefix(t, []byte("From ")) {
			lines[i] = l[1:]
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
