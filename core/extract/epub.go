package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
)

// extractEPUB reads an EPUB 2 or 3 book: the XHTML documents of the spine
// in reading order, each a chapter unit labelled with its title from the
// table of contents (else its first heading). The table of contents' entries
// are the headings, at the anchors they link to, with the chapters' own
// headings that it does not list nested below them (chapterHeadings).
// Books encrypted with DRM are skipped; font obfuscation is not DRM.
func (r *Registry) extractEPUB(ctx context.Context, f File, lim Limits) (*Document, error) {
	a, err := openZip(f, lim, "epub")
	if err != nil {
		return nil, err
	}
	if err := epubDRM(ctx, a); err != nil {
		return nil, err
	}
	if err := requirePart(a, "META-INF/container.xml"); err != nil {
		return nil, err
	}
	opf, err := epubRootfile(ctx, a)
	if err != nil {
		return nil, err
	}
	pkg, err := readOPF(ctx, a, opf)
	if err != nil {
		return nil, err
	}
	// The nav document's table of contents, else the NCX, gives the
	// headings; a chapter's label is the first title either gives it.
	var nav, ncx []tocEntry
	if pkg.nav != "" {
		nav = readTOC(ctx, a, pkg.nav, false)
	}
	if pkg.ncx != "" {
		ncx = readTOC(ctx, a, pkg.ncx, true)
	}
	titles := map[string]string{}
	for _, e := range append(append([]tocEntry(nil), nav...), ncx...) {
		if titles[e.file] == "" {
			titles[e.file] = e.title
		}
	}
	if len(nav) == 0 {
		nav = ncx
	}
	toc := map[string][]tocEntry{} // chapter file -> its entries, in order
	for _, e := range nav {
		toc[e.file] = append(toc[e.file], e)
	}
	b := newBuilder(lim)
	var warnings []string
	n := 0
	for _, item := range pkg.spine {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.full() {
			warnings = append(warnings, "epub: text limit reached; later chapters left out")
			break
		}
		if item == pkg.nav {
			continue // the table of contents repeats the chapter titles
		}
		data, err := a.read(item)
		if err != nil {
			if IsSkip(err) {
				return nil, err
			}
			warnings = append(warnings, fmt.Sprintf("epub: %s: %v", item, err))
			continue
		}
		d, anchors, err := htmlDocumentAnchors(ctx, data)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			warnings = append(warnings, fmt.Sprintf("epub: %s: %v", item, err))
			continue
		}
		if strings.TrimSpace(d.Text) == "" {
			continue
		}
		label := titles[item]
		if label == "" && len(d.Headings) > 0 {
			label = d.Headings[0].Text
		}
		if label == "" {
			label = d.Title
		}
		d.Headings = chapterHeadings(d, anchors, toc[item])
		n++
		b.startUnit(UnitChapter, n, collapseSpace(label))
		b.embed(d)
		b.endUnit()
	}
	doc := b.document("epub", pkg.title)
	doc.Warnings = warnings
	return doc, nil
}

// epubDRM refuses books whose META-INF/encryption.xml encrypts content with
// anything but the font-obfuscation algorithms.
func epubDRM(ctx context.Context, a *zipArchive) error {
	alg := ""
	drm := a.anyElement(ctx, "META-INF/encryption.xml", "EncryptionMethod", func(e xml.StartElement) bool {
		alg = attr(e, "Algorithm")
		return alg != "http://www.idpf.org/2008/embedding" && alg != "http://ns.adobe.com/pdf/enc#RC"
	})
	if drm {
		return fmt.Errorf("%w: epub: the book is protected by DRM (%s)", ErrEncrypted, alg)
	}
	return nil
}

func epubRootfile(ctx context.Context, a *zipArchive) (string, error) {
	s, c, err := a.xml(ctx, "META-INF/container.xml")
	if err != nil {
		return "", err
	}
	defer c.Close()
	e, err := s.find("rootfile")
	if err != nil {
		return "", fmt.Errorf("epub: META-INF/container.xml names no package document")
	}
	p := strings.TrimPrefix(path.Clean("/"+attr(e, "full-path")), "/")
	if !a.has(p) {
		return "", fmt.Errorf("epub: package document %s is missing", p)
	}
	return p, nil
}

type opfPackage struct {
	title    string
	spine    []string // archive paths in reading order
	nav, ncx string   // archive paths of the tables of contents
}

func readOPF(ctx context.Context, a *zipArchive, opf string) (*opfPackage, error) {
	s, c, err := a.xml(ctx, opf)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	pkg := &opfPackage{}
	hrefs := map[string]string{}
	var idrefs []string
	tocID := ""
	for {
		tok, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch e.Name.Local {
		case "title":
			if pkg.title == "" {
				t, err := s.text()
				if err != nil {
					return nil, err
				}
				pkg.title = collapseSpace(t)
			}
		case "item":
			href := resolvePart(opf, urlPath(attr(e, "href")))
			hrefs[attr(e, "id")] = href
			if strings.Contains(" "+attr(e, "properties")+" ", " nav ") {
				pkg.nav = href
			}
			if attr(e, "media-type") == "application/x-dtbncx+xml" {
				pkg.ncx = href
			}
		case "spine":
			tocID = attr(e, "toc")
		case "itemref":
			idrefs = append(idrefs, attr(e, "idref"))
		}
	}
	if h, ok := hrefs[tocID]; ok {
		pkg.ncx = h
	}
	for _, id := range idrefs {
		if h, ok := hrefs[id]; ok && a.has(h) {
			pkg.spine = append(pkg.spine, h)
		}
	}
	if len(pkg.spine) == 0 {
		return nil, fmt.Errorf("epub: %s has an empty spine: no chapters to read", opf)
	}
	return pkg, nil
}

// urlPath strips the fragment and undoes %-escapes of an href.
func urlPath(href string) string {
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	if p, err := url.PathUnescape(href); err == nil {
		return p
	}
	return href
}
