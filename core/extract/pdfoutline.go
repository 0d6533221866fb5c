package extract

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// OutlineEntry is one bookmark of a PDF's outline (its table of contents
// as a reader's side panel shows it).
type OutlineEntry struct {
	Title string
	Level int // 1 = top level
	Page  int // 1-based page the bookmark points at; 0 when its destination is broken
}

// Outlines are walked with bounds, because a damaged or hostile file can
// link its bookmarks in a loop or nest them without end: past these the
// outline is dropped with a warning and the document gets no headings from
// it (the largest manual measured, gnuplot's, has 648 entries, 3 deep).
const (
	maxOutlineEntries = 20000
	maxOutlineDepth   = 32
	maxNameTreeDepth  = 32
	maxNameTreeVisits = 1000
)

var errOutlineBounds = errors.New("the outline loops or exceeds 20000 entries or 32 levels")

// goOutline reads the outline of a PDF opened with ledongthuc/pdf, whose
// own Reader.Outline keeps titles but drops destinations, and mapping a
// destination to a page needs the identity of the page object it names.
// The library does not export object numbers, so they are read from the
// Value's unexported ptr field through reflection (reading, never setting);
// should a new version rename that field, pages come out unknown and the
// outline is dropped with a warning, nothing worse.
type goOutline struct {
	ctx     context.Context
	root    pdf.Value
	pages   map[objID]int // page object -> 1-based page number
	entries []OutlineEntry
	seen    map[objID]bool
}

type objID struct {
	id  uint64
	gen uint64
}

// idOf returns the object number of the indirect object v was read from.
func idOf(v pdf.Value) (objID, bool) {
	f := reflect.ValueOf(v).FieldByName("ptr")
	if !f.IsValid() || f.Kind() != reflect.Struct || f.NumField() < 2 {
		return objID{}, false
	}
	id, gen := f.Field(0), f.Field(1)
	if id.Kind() < reflect.Uint || id.Kind() > reflect.Uint64 || gen.Kind() < reflect.Uint || gen.Kind() > reflect.Uint64 {
		return objID{}, false
	}
	o := objID{id.Uint(), gen.Uint()}
	return o, o.id != 0
}

// readGoOutline returns the outline entries of r in document order, nil
// when the PDF has none. A panic of the library on a malformed object, a
// loop or a size past the bounds is an error: the caller drops the outline.
func readGoOutline(ctx context.Context, r *pdf.Reader) (entries []OutlineEntry, err error) {
	defer func() {
		if p := recover(); p != nil {
			entries, err = nil, fmt.Errorf("unreadable outline: %v", p)
		}
	}()
	root := r.Trailer().Key("Root")
	first := root.Key("Outlines").Key("First")
	if first.Kind() != pdf.Dict {
		return nil, nil
	}
	o := &goOutline{ctx: ctx, root: root, pages: map[objID]int{}, seen: map[objID]bool{}}
	o.mapPages(root.Key("Pages"), 0, r.NumPage())
	if err := o.walk(first, 1); err != nil {
		return nil, err
	}
	return o.entries, nil
}

// mapPages numbers the page objects of the page tree in order. Loops and
// depth are bounded like the outline's.
func (o *goOutline) mapPages(node pdf.Value, depth, count int) {
	if depth > maxOutlineDepth || len(o.pages) > count {
		return
	}
	id, ok := idOf(node)
	if ok {
		if o.seen[id] {
			return
		}
		o.seen[id] = true
	}
	if node.Key("Type").Name() == "Page" || node.Key("Kids").IsNull() {
		if ok {
			o.pages[id] = len(o.pages) + 1
		}
		return
	}
	kids := node.Key("Kids")
	for i := 0; i < kids.Len(); i++ {
		o.mapPages(kids.Index(i), depth+1, count)
	}
}

// walk appends item, its children and its following siblings.
func (o *goOutline) walk(item pdf.Value, level int) error {
	if level > maxOutlineDepth {
		return errOutlineBounds
	}
	for ; item.Kind() == pdf.Dict; item = item.Key("Next") {
		if len(o.entries) >= maxOutlineEntries {
			return errOutlineBounds
		}
		if len(o.entries)%64 == 0 && o.ctx.Err() != nil {
			return o.ctx.Err()
		}
		if id, ok := idOf(item); ok {
			if o.seen[id] {
				return errOutlineBounds
			}
			o.seen[id] = true
		}
		o.entries = append(o.entries, OutlineEntry{
			Title: collapseSpace(unligature(item.Key("Title").Text())),
			Level: level,
			Page:  o.destPage(item),
		})
		if err := o.walk(item.Key("First"), level+1); err != nil {
			return err
		}
	}
	return nil
}

// destPage returns the page an outline item points at: its /Dest, or the
// /D of a /GoTo action; a destination is an array whose first element is
// the page (PDF 32000 §12.3.2), or a name looked up in the catalogue's
// /Dests dictionary (PDF 1.1) or /Names /Dests name tree (what pdfTeX's
// hyperref writes).
func (o *goOutline) destPage(item pdf.Value) int {
	d := item.Key("Dest")
	if d.IsNull() {
		if a := item.Key("A"); a.Key("S").Name() == "GoTo" {
			d = a.Key("D")
		}
	}
	for hops := 0; hops < 4; hops++ {
		switch d.Kind() {
		case pdf.Array:
			p := d.Index(0)
			if p.Kind() == pdf.Integer { // a page index, which some producers write
				if n := int(p.Int64()) + 1; n >= 1 && n <= len(o.pages) {
					return n
				}
				return 0
			}
			if id, ok := idOf(p); ok && p.Kind() == pdf.Dict {
				return o.pages[id]
			}
			return 0
		case pdf.Dict: // a /Dests entry may wrap the array as << /D [...] >>
			d = d.Key("D")
		case pdf.Name:
			d = o.root.Key("Dests").Key(d.Name())
		case pdf.String:
			budget := maxNameTreeVisits
			d = lookupNameTree(o.root.Key("Names").Key("Dests"), d.RawString(), 0, &budget)
		default:
			return 0
		}
	}
	return 0
}

// lookupNameTree finds key in a name tree (PDF 32000 §7.9.6), descending
// only into the kids whose /Limits contain it. budget bounds the nodes
// visited, as a damaged tree may list one kid many times over.
func lookupNameTree(node pdf.Value, key string, depth int, budget *int) pdf.Value {
	if *budget--; node.Kind() != pdf.Dict || depth > maxNameTreeDepth || *budget < 0 {
		return pdf.Value{}
	}
	if names := node.Key("Names"); names.Kind() == pdf.Array {
		for i := 0; i+1 < names.Len(); i += 2 {
			if names.Index(i).RawString() == key {
				return names.Index(i + 1)
			}
		}
	}
	kids := node.Key("Kids")
	for i := 0; i < kids.Len(); i++ {
		kid := kids.Index(i)
		if lim := kid.Key("Limits"); lim.Len() == 2 && (key < lim.Index(0).RawString() || key > lim.Index(1).RawString()) {
			continue
		}
		if v := lookupNameTree(kid, key, depth+1, budget); !v.IsNull() {
			return v
		}
	}
	return pdf.Value{}
}

// readPopplerOutline parses the <outline> of `pdftohtml -xml` output: an
// <item page="N"> per bookmark, and a nested <outline> after an item for
// its children. Items whose destination poppler could not resolve come
// without a page.
func readPopplerOutline(out []byte) ([]OutlineEntry, error) {
	i := bytes.Index(out, []byte("<outline>"))
	if i < 0 {
		return nil, nil
	}
	// Only the outline is parsed: the page text before it may hold control
	// characters that poppler does not escape and XML does not allow.
	out = bytes.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return ' '
		}
		return r
	}, out[i:])
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = false
	var entries []OutlineEntry
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("unreadable outline from pdftohtml: %w", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "outline":
				if depth++; depth > maxOutlineDepth {
					return nil, errOutlineBounds
				}
			case "item":
				if depth == 0 {
					continue
				}
				if len(entries) >= maxOutlineEntries {
					return nil, errOutlineBounds
				}
				var title string
				if err := dec.DecodeElement(&title, &e); err != nil {
					return nil, fmt.Errorf("unreadable outline from pdftohtml: %w", err)
				}
				page, _ := strconv.Atoi(attr(e, "page"))
				entries = append(entries, OutlineEntry{Title: collapseSpace(unligature(title)), Level: depth, Page: max(page, 0)})
			}
		case xml.EndElement:
			if e.Name.Local == "outline" && depth > 0 {
				if depth--; depth == 0 {
					return entries, nil // the top level's end: </pdf2xml> follows
				}
			}
		}
	}
}
