package extract

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"
)

// Parts shared by the Office Open XML formats (DOCX, PPTX, XLSX):
// relationships and core properties.

// ooxmlRel is one relationship of a part: its type (the last segment of
// the type URI, e.g. "header") and its target, resolved to an archive path.
type ooxmlRel struct {
	id, typ, target string
	external        bool
}

// ooxmlRels reads the relationships of part (e.g. "word/document.xml" ->
// "word/_rels/document.xml.rels"; "" for the package's own "_rels/.rels").
// A missing relationships part is not an error: it means no relationships.
func ooxmlRels(ctx context.Context, a *zipArchive, part string) ([]ooxmlRel, error) {
	relsPath := "_rels/.rels"
	if part != "" {
		relsPath = path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	}
	if !a.has(relsPath) {
		return nil, nil
	}
	s, c, err := a.xml(ctx, relsPath)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var rels []ooxmlRel
	for {
		tok, err := s.next()
		if err == io.EOF {
			return rels, nil
		}
		if err != nil {
			return rels, err
		}
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "Relationship" {
			t := attr(e, "Type")
			rel := ooxmlRel{id: attr(e, "Id"), typ: t[strings.LastIndex(t, "/")+1:], external: attr(e, "TargetMode") == "External"}
			if !rel.external {
				// Targets are relative to the part's folder; the package's
				// own relationships (part "") are relative to the root.
				rel.target = resolvePart(part, attr(e, "Target"))
			}
			rels = append(rels, rel)
		}
	}
}

// ooxmlMainPart finds the main part through the package relationships,
// falling back to the usual name.
func ooxmlMainPart(ctx context.Context, a *zipArchive, fallback string) string {
	rels, _ := ooxmlRels(ctx, a, "")
	for _, r := range rels {
		if r.typ == "officeDocument" && a.has(r.target) {
			return r.target
		}
	}
	return fallback
}

// ooxmlTitle returns dc:title from docProps/core.xml, or "".
func ooxmlTitle(ctx context.Context, a *zipArchive) string {
	return a.firstText(ctx, "docProps/core.xml", "title")
}

// requirePart opens a part the format cannot do without, turning its
// absence into an error that says the file is not what its name claims.
func requirePart(a *zipArchive, name string) error {
	if a.has(name) {
		return nil
	}
	return errors.New(a.format + ": " + name + " is missing: not a valid " + strings.ToUpper(a.format) + " file (wrong extension or damaged)")
}
