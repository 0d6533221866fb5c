package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
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
	a := &zipArchive{format: format, zr: zr, byName: make(map[string]*zip.File, len(zr.File)), lim: lim}
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
		if a.lim.MaxRatio > 0 && zf.UncompressedSize64 > minRatioBase &&
			float64(zf.UncompressedSize64) > float64(zf.CompressedSize64)*a.lim.MaxRatio {
			return fmt.Errorf("%w: %s: %s inflates more than %.0f times its compressed size (zip bomb?)", ErrTooLarge, a.format, zf.Name, a.lim.MaxRatio)
		}
	}
	if a.lim.MaxUncompressed > 0 && total > uint64(a.lim.MaxUncompressed) {
		return fmt.Errorf("%w: %s: archive inflates to %s, beyond the %s limit (zip bomb?)", ErrTooLarge, a.format, formatBytes(int64(min(total, 1<<62))), formatBytes(a.lim.MaxUncompressed))
	}
	return nil
}

// has reports whether the archive holds name.
func (a *zipArchive) has(name string) bool {
	_, ok := a.byName[name]
	return ok
}

// open returns a reader of entry name that fails with ErrTooLarge once the
// entry or the archive exceeds its budget.
func (a *zipArchive) open(name string) (io.ReadCloser, error) {
	zf, ok := a.byName[name]
	if !ok {
		return nil, fmt.Errorf("%s: %s: %w", a.format, name, errMissingPart)
	}
	if zf.Flags&0x1 != 0 {
		return nil, fmt.Errorf("%w: %s: %s is encrypted inside the zip", ErrEncrypted, a.format, name)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", a.format, name, err)
	}
	budget := int64(-1)
	if a.lim.MaxRatio > 0 {
		budget = max(minRatioBase, int64(float64(zf.CompressedSize64)*a.lim.MaxRatio))
	}
	return &boundedReader{a: a, name: name, rc: rc, entryLeft: budget}, nil
}

// read returns the whole of entry name.
func (a *zipArchive) read(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// xml opens entry name as a bounded XML token stream.
func (a *zipArchive) xml(ctx context.Context, name string) (*xmlStream, io.Closer, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, nil, err
	}
	return newXMLStream(ctx, rc, a.format+": "+name), rc, nil
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
	name      string
	rc        io.ReadCloser
	entryLeft int64 // -1 = no per-entry cap
}

func (r *boundedReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.a.total += int64(n)
	if r.entryLeft >= 0 {
		r.entryLeft -= int64(n)
		if r.entryLeft < 0 {
			return n, fmt.Errorf("%w: %s: %s inflates more than %.0f times its compressed size (zip bomb?)",
				ErrTooLarge, r.a.format, r.name, r.a.lim.MaxRatio)
		}
	}
	if r.a.lim.MaxUncompressed > 0 && r.a.total > r.a.lim.MaxUncompressed {
		return n, fmt.Errorf("%w: %s: archive inflates beyond the %s limit (zip bomb?)",
			ErrTooLarge, r.a.format, formatBytes(r.a.lim.MaxUncompressed))
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %s: %w", r.a.format, r.name, err)
	}
	return n, err
}

func (r *boundedReader) Close() error { return r.rc.Close() }

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
