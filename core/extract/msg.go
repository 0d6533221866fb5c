package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"

	"cairn/core/humanize"
)

// Outlook .msg files are OLE compound files whose properties sit in streams
// named __substg1.0_IIIITTTT (property id, property type), with a storage
// per recipient and per attachment; an attached message is a storage of
// its own. The reader below knows the dozen properties a search index needs
// ([MS-OXMSG], [MS-OXPROPS]).

const (
	msgSubject        = 0x0037
	msgTransportHdrs  = 0x007D
	msgSenderName     = 0x0C1A
	msgSenderEmail    = 0x0C1F
	msgDisplayCc      = 0x0E03
	msgDisplayTo      = 0x0E04
	msgBody           = 0x1000
	msgBodyHTML       = 0x1013
	msgAttachData     = 0x3701
	msgAttachFilename = 0x3704
	msgAttachLongName = 0x3707
	msgSenderSMTP     = 0x5D01
	msgDisplayName    = 0x3001

	msgTypeString8  = 0x001E
	msgTypeUnicode  = 0x001F
	msgTypeBinary   = 0x0102
	msgTypeEmbedded = 0x000D
)

// maxMSGStreams bounds the streams walked in one compound file.
const maxMSGStreams = 20000

type msgNode struct {
	props    map[uint16][]byte
	types    map[uint16]uint16
	attach   map[string]*msgNode
	embedded *msgNode
}

func newMSGNode() *msgNode {
	return &msgNode{props: map[uint16][]byte{}, types: map[uint16]uint16{}, attach: map[string]*msgNode{}}
}

func (n *msgNode) str(id uint16) string {
	v, ok := n.props[id]
	if !ok {
		return ""
	}
	if n.types[id] == msgTypeUnicode {
		u := make([]uint16, len(v)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(v[2*i:])
		}
		return strings.TrimRight(string(utf16.Decode(u)), "\x00")
	}
	s, _ := decodeText(bytes.TrimRight(v, "\x00"))
	return s
}

// extractMSG reads an Outlook message: headers, body (plain text, else the
// HTML body) and attachments through the registry, like an .eml file.
func (r *Registry) extractMSG(ctx context.Context, f File, lim Limits) (*Document, error) {
	cf, err := mscfb.New(f.R)
	if err != nil {
		if sniffFile(f) != "ole" {
			return nil, fmt.Errorf("msg: not an Outlook message (not an OLE compound file; truncated or wrong extension)")
		}
		return nil, fmt.Errorf("msg: broken compound file: %w", err)
	}
	root := newMSGNode()
	streams := 0
	for entry, err := cf.Next(); err != io.EOF; entry, err = cf.Next() {
		if err != nil {
			return nil, fmt.Errorf("msg: broken compound file: %w", err)
		}
		if streams++; streams > maxMSGStreams {
			return nil, fmt.Errorf("%w: msg: more than %d streams", ErrTooLarge, maxMSGStreams)
		}
		if entry.FileInfo().IsDir() || !strings.HasPrefix(entry.Name, "__substg1.0_") || len(entry.Name) < 20 {
			continue
		}
		node := root.at(entry.Path)
		if node == nil {
			continue
		}
		id, err1 := strconv.ParseUint(entry.Name[12:16], 16, 16)
		typ, err2 := strconv.ParseUint(entry.Name[16:20], 16, 16)
		if err1 != nil || err2 != nil {
			continue
		}
		if lim.MaxFileBytes > 0 && entry.Size > lim.MaxFileBytes {
			return nil, fmt.Errorf("%w: msg: stream %s claims %s", ErrTooLarge, entry.Name, humanize.Bytes(entry.Size))
		}
		data := make([]byte, entry.Size)
		n, err := io.ReadFull(entry, data)
		if err != nil && err != io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("msg: stream %s: %w", entry.Name, err)
		}
		node.props[uint16(id)] = data[:n]
		node.types[uint16(id)] = uint16(typ)
	}
	m := r.msgMessage(ctx, root, lim)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := newBuilder(lim)
	b.message(m, 1)
	doc := b.document("msg", m.subject)
	doc.Warnings = m.warnings
	return doc, nil
}

// at finds (creating) the node for a stream whose parent storages are path.
func (n *msgNode) at(path []string) *msgNode {
	for _, c := range path {
		switch {
		case strings.HasPrefix(c, "__attach_version1.0_"):
			a := n.attach[c]
			if a == nil {
				a = newMSGNode()
				n.attach[c] = a
			}
			n = a
		case strings.HasPrefix(c, "__substg1.0_3701000D"):
			if n.embedded == nil {
				n.embedded = newMSGNode()
			}
			n = n.embedded
		default:
			return nil // recipients and named-property maps: nothing to index
		}
	}
	return n
}

func (r *Registry) msgMessage(ctx context.Context, n *msgNode, lim Limits) *message {
	m := &message{subject: n.str(msgSubject)}
	from := n.str(msgSenderName)
	if addr := firstNonEmpty(n.str(msgSenderSMTP), n.str(msgSenderEmail)); addr != "" && addr != from {
		from = strings.TrimSpace(from + " <" + addr + ">")
	}
	date := ""
	for _, l := range strings.Split(n.str(msgTransportHdrs), "\n") {
		if strings.HasPrefix(strings.ToLower(l), "date:") {
			date = strings.TrimSpace(l[5:])
			break
		}
	}
	for _, h := range [][2]string{{"From", from}, {"To", n.str(msgDisplayTo)}, {"Cc", n.str(msgDisplayCc)}, {"Date", date}, {"Subject", m.subject}} {
		if h[1] != "" {
			m.headers = append(m.headers, h)
		}
	}
	m.body = normalizeNewlines(n.str(msgBody))
	if strings.TrimSpace(m.body) == "" {
		if html, ok := n.props[msgBodyHTML]; ok {
			if n.types[msgBodyHTML] == msgTypeUnicode {
				html = []byte(n.str(msgBodyHTML))
			}
			if t, err := HTMLText(ctx, html); err == nil {
				m.body = t
			}
		}
	}
	keys := make([]string, 0, len(n.attach))
	for k := range n.attach {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := n.attach[k]
		name := firstNonEmpty(a.str(msgAttachLongName), a.str(msgAttachFilename), a.str(msgDisplayName))
		var doc *Document
		var err error
		switch {
		case a.embedded != nil:
			if lim.MaxDepth > 0 && lim.Depth+1 > lim.MaxDepth {
				err = fmt.Errorf("%w: attachments nested deeper than %d levels", ErrTooDeep, lim.MaxDepth)
				break
			}
			inner := lim
			inner.Depth++
			em := r.msgMessage(ctx, a.embedded, inner)
			b := newBuilder(inner)
			b.message(em, 1)
			doc = b.document("msg", em.subject)
			name = firstNonEmpty(name, em.subject, "attached message") + ".msg"
		case a.props[msgAttachData] != nil:
			data := a.props[msgAttachData]
			name = firstNonEmpty(name, "attachment")
			doc, err = r.ExtractNested(ctx, File{Name: name, Size: int64(len(data)), R: bytes.NewReader(data)}, lim)
		default:
			continue
		}
		if err != nil {
			m.warnings = append(m.warnings, fmt.Sprintf("attachment %s skipped: %v", name, err))
			continue
		}
		m.attachments = append(m.attachments, attachment{name: name, doc: doc})
		m.warnings = append(m.warnings, prefixAll("attachment "+name+": ", doc.Warnings)...)
	}
	return m
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
