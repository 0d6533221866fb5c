package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"path"
	"strings"

	"cairn/core/humanize"
)

// zipArchive reads the parts of a zip-based format (DOCX, PPTX, ODF, EPUB)
// within Limits: the declared sizes of a zip are only claims, so every read
// counts the bytes that really come out of the inflater and stops at the
// per-entry ratio and at the archive's total budget. That is what defeats
// zip bombs, including ones whose headers lie.
type zipArchive struct {
	format string // "docx", ...; prefixes error messages
	zr     *zip.Reader
	byName map[string]*zip.File
	lim    Limits
	total  int64 // bytes inflated so far
	// textLeft is the character data the XML parts may still deliver: a
	// little more than MaxTextBytes, so the text is cut (with a warning)
	// and no parser holds more than that however big the parts are.
	textLeft int64
}

// minRatioBase is the size an entry may always inflate to, whatever its
// ratio: small XML parts of real documents compress 50-100x, and a cap on
// tiny entries would refuse honest files without protecting anyone.
const minRatioBase = 1 << 20

func openZip(f File, lim Limits, format string) (*zipArchive, error) {
	zr, err := zip.NewReader(f.R, f.Size)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			if k := sniffFile(f); k == "ole" {
				return nil, oleSkip(f, format)
			}
			return nil, fmt.Errorf("%s: not a zip archive (truncated or wrong extension): %w", format, err)
		}
		return nil, fmt.Errorf("%s: open zip: %w", format, err)
	}
	a := &zipArchive{format: format, zr: zr, byName: make(map[string]*zip.File, len(zr.File)), lim: lim, textLeft: -1}
	if lim.MaxTextBytes > 0 {
		a.textLeft = lim.MaxTextBytes + lim.MaxTextBytes/8
	}
	for _, zf := range zr.File {
		a.byName[strings.TrimPrefix(zf.Name, "/")] = zf
	}
	return a, nil
}

// checkDeclared refuses archives whose declared sizes already break the
// limits, before a library that inflates the parts itself sees them.
func (a *zipArchive) checkDeclared() error {
	var total uint64
	for _, zf := range a.zr.File {
		total += zf.UncompressedSize64
		if err := a.checkRatio(zf); err != nil {
			return err
		}
	}
	if a.lim.MaxUncompressed > 0 && total > uint64(a.lim.MaxUncompressed) {
		return fmt.Errorf("%w: %s: archive inflates to %s, beyond the %s limit (zip bomb?)", ErrTooLarge, a.format, humanize.Bytes(int64(min(total, 1<<62))), humanize.Bytes(a.lim.MaxUncompressed))
	}
	return nil
}

// checkRatio refuses an entry whose declared sizes break MaxRatio.
func (a *zipArchive) checkRatio(zf *zip.File) error {
	if a.lim.MaxRatio > 0 && zf.UncompressedSize64 > minRatioBase &&
		float64(zf.UncompressedSize64) > float64(zf.CompressedSize64)*a.lim.MaxRatio {
		return fmt.Errorf("%w: %s: %s inflates more than %.0f times its compressed size (zip bomb?)", ErrTooLarge, a.format, zf.Name, a.lim.MaxRatio)
	}
	return nil
}

// has reports whether the archive holds name.
func (a *zipArchive) has(name string) bool {
	_, ok := a.byName[name]
	return ok
}

// open returns a reader of entry name that fails with ErrTooLarge once the
// entry or the archive exceeds its budget. Deflated and stored entries are
// inflated here from their raw bytes, so the ratio is checked as the data
// comes: an entry is refused as soon as it has inflated more than MaxRatio
// times the compressed bytes read so far (past minRatioBase), long before
// a bomb's gigabytes exist anywhere.
func (a *zipArchive) open(name string) (io.ReadCloser, error) {
	zf, ok := a.byName[name]
	if !ok {
		return nil, fmt.Errorf("%s: %s: %w", a.format, name, errMissingPart)
	}
	if zf.Flags&0x1 != 0 {
		return nil, fmt.Errorf("%w: %s: %s is encrypted inside the zip", ErrEncrypted, a.format, name)
	}
	br := &boundedReader{a: a, zf: zf, entryLeft: -1, crc: crc32.NewIEEE()}
	switch zf.Method {
	case zip.Store, zip.Deflate:
		raw, err := zf.OpenRaw()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", a.format, name, err)
		}
		br.raw = &countingReader{r: raw}
		br.rc = io.NopCloser(br.raw)
		if zf.Method == zip.Deflate {
			br.rc = flate.NewReader(br.raw)
		}
	default:
		rc, err := zf.Open() // rare methods: archive/zip's own reader, checked at the end only
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", a.format, name, err)
		}
		br.rc, br.crc = rc, nil
	}
	if a.lim.MaxRatio > 0 {
		br.entryLeft = max(minRatioBase, int64(float64(zf.CompressedSize64)*a.lim.MaxRatio))
	}
	return br, nil
}

// read returns the whole of entry name, refusing entries larger than
// maxReadEntry: whole parts are read only to be parsed as a tree (EPUB's
// XHTML), which costs many times their size.
func (a *zipArchive) read(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, maxReadEntry+1))
	if err != nil {
		return nil, err
	}
	if n > maxReadEntry {
		return nil, fmt.Errorf("%w: %s: %s is larger than %s", ErrTooLarge, a.format, name, humanize.Bytes(maxReadEntry))
	}
	return buf.Bytes(), nil
}

// maxReadEntry bounds a part read whole; real chapters are well under 1 MB.
const maxReadEntry = 16 << 20

// xml opens entry name as a bounded XML token stream.
func (a *zipArchive) xml(ctx context.Context, name string) (*xmlStream, io.Closer, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, nil, err
	}
	s := newXMLStream(ctx, rc, a.format+": "+name)
	s.textLeft = &a.textLeft
	s.declared = func() error { return a.checkRatio(a.byName[name]) }
	return s, rc, nil
}

// anyElement reports whether part has an element named local for which
// match is true (nil: any); a missing or unreadable part has none.
func (a *zipArchive) anyElement(ctx context.Context, part, local string, match func(xml.StartElement) bool) bool {
	if !a.has(part) {
		return false
	}
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return false
	}
	defer c.Close()
	for {
		e, err := s.find(local)
		if err != nil {
			return false
		}
		if match == nil || match(e) {
			return true
		}
	}
}

// firstText returns the text of the first element named local in part
// (a title in a metadata part), or "" when there is none.
func (a *zipArchive) firstText(ctx context.Context, part, local string) string {
	if !a.has(part) {
		return ""
	}
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return ""
	}
	defer c.Close()
	if _, err := s.find(local); err != nil {
		return ""
	}
	t, _ := s.text()
	return collapseSpace(t)
}

var errMissingPart = errors.New("part missing from the archive")

type boundedReader struct {
	a         *zipArchive
	zf        *zip.File
	raw       *countingReader // compressed bytes read; nil for rare methods
	rc        io.ReadCloser
	crc       hash.Hash32 // nil when rc checks it (rare methods)
	n         int64       // bytes inflated from this entry
	entryLeft int64       // -1 = no per-entry cap
}

func (r *boundedReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.n += int64(n)
	r.a.total += int64(n)
	if r.crc != nil {
		r.crc.Write(p[:n])
	}
	if r.entryLeft >= 0 {
		r.entryLeft -= int64(n)
		bomb := r.entryLeft < 0
		if r.raw != nil && r.n > minRatioBase && float64(r.n) > float64(r.raw.n)*r.a.lim.MaxRatio {
			bomb = true // the ratio so far: stop now rather than at the end of the entry
		}
		if bomb {
			return n, fmt.Errorf("%w: %s: %s inflates more than %.0f times its compressed size (zip bomb?)",
				ErrTooLarge, r.a.format, r.zf.Name, r.a.lim.MaxRatio)
		}
	}
	if r.a.lim.MaxUncompressed > 0 && r.a.total > r.a.lim.MaxUncompressed {
		return n, fmt.Errorf("%w: %s: archive inflates beyond the %s limit (zip bomb?)",
			ErrTooLarge, r.a.format, humanize.Bytes(r.a.lim.MaxUncompressed))
	}
	if r.crc != nil && uint64(r.n) > r.zf.UncompressedSize64 {
		return n, fmt.Errorf("%w: %s: %s inflates beyond the size its header declares (zip bomb?)", ErrTooLarge, r.a.format, r.zf.Name)
	}
	if err == io.EOF && r.crc != nil {
		// What archive/zip's own reader checks: the declared size and CRC.
		if uint64(r.n) != r.zf.UncompressedSize64 {
			return n, fmt.Errorf("%s: %s: %w", r.a.format, r.zf.Name, io.ErrUnexpectedEOF)
		}
		if r.zf.CRC32 != 0 && r.crc.Sum32() != r.zf.CRC32 {
			return n, fmt.Errorf("%s: %s: %w", r.a.format, r.zf.Name, zip.ErrChecksum)
		}
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %s: %w", r.a.format, r.zf.Name, err)
	}
	return n, err
}

func (r *boundedReader) Close() error { return r.rc.Close() }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// resolvePart turns a relationship target into an archive path: targets are
// relative to the folder of the part that refers to them.
func resolvePart(from, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean(path.Join(path.Dir(from), target)), "/")
}

// sniffFile names the kind of f from its first bytes.
func sniffFile(f File) string {
	head := make([]byte, 512)
	n, _ := f.R.ReadAt(head, 0)
	return Sniff(head[:n])
}
