package extract

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
)

// Charts and SmartArt sit on a slide as a graphicFrame that only points
// at another part (c:chart r:id, dgm:relIds r:dm); their words (a chart's
// title, series and categories, a diagram's boxes) live in that part.

// graphicRef records the part a graphicFrame points at, by relationship id.
func graphicRef(e xml.StartElement, sh *pptxShape) {
	switch e.Name.Local {
	case "chart":
		if strings.HasSuffix(e.Name.Space, "/chart") || e.Name.Space == "c" {
			sh.chart = relID(e)
		}
	case "relIds":
		for _, at := range e.Attr {
			if at.Name.Local == "dm" {
				sh.diagram = at.Value
			}
		}
	}
}

// graphicsText reads the text of the charts and diagrams shapes point at,
// through the relationships of part, into the shapes' paragraphs.
func graphicsText(ctx context.Context, a *zipArchive, part string, shapes []pptxShape) error {
	need := false
	for _, sh := range shapes {
		need = need || sh.chart != "" || sh.diagram != ""
	}
	if !need {
		return nil
	}
	rels, err := ooxmlRels(ctx, a, part)
	if err != nil {
		return err
	}
	target := map[string]string{}
	for _, r := range rels {
		if !r.external && a.has(r.target) {
			target[r.id] = r.target
		}
	}
	for i := range shapes {
		sh := &shapes[i]
		if t, ok := target[sh.chart]; ok {
			paras, err := chartText(ctx, a, t)
			if err != nil {
				return err
			}
			sh.paras = append(sh.paras, paras...)
		}
		if t, ok := target[sh.diagram]; ok {
			paras, err := drawingParas(ctx, a, t)
			if err != nil {
				return err
			}
			sh.paras = append(sh.paras, paras...)
		}
	}
	return nil
}

// drawingParas returns the DrawingML paragraphs (a:p of a:t runs) of a
// part, such as a SmartArt data part: one per box.
func drawingParas(ctx context.Context, a *zipArchive, part string) ([]string, error) {
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var paras []string
	var p strings.Builder
	for {
		tok, err := s.next()
		if err == io.EOF {
			return paras, nil
		}
		if err != nil {
			return paras, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if !isDrawingML(e.Name) {
				break // dgm:t holds a:p paragraphs; only a:t is text
			}
			switch e.Name.Local {
			case "p":
				p.Reset()
			case "t":
				t, err := s.text()
				if err != nil {
					return paras, err
				}
				p.WriteString(t)
			}
		case xml.EndElement:
			if e.Name.Local == "p" && isDrawingML(e.Name) {
				if t := collapseSpace(p.String()); t != "" {
					paras = append(paras, t)
				}
			}
		}
	}
}

// chartText returns a chart's title, then a line per series: its name and
// its points as "category value", e.g. "Sales: Q1 120; Q2 135". The
// values are the cached ones PowerPoint stores beside the formulas.
func chartText(ctx context.Context, a *zipArchive, part string) ([]string, error) {
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out, title, cats, vals []string
	var name string
	var in string // "title", "tx", "cat", "val": the part of the chart being read
	inTitle, inSer := false, false
	for {
		tok, err := s.next()
		if err == io.EOF {
			if len(title) > 0 {
				out = append([]string{strings.Join(title, " ")}, out...)
			}
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "title":
				inTitle = !inSer
			case "ser":
				inSer, name, cats, vals = true, "", nil, nil
			case "tx", "cat", "val", "xVal", "yVal":
				if inSer {
					in = e.Name.Local
				}
			case "t":
				if inTitle {
					t, err := s.text()
					if err != nil {
						return out, err
					}
					if t = collapseSpace(t); t != "" {
						title = append(title, t)
					}
				}
			case "v":
				if !inSer {
					break
				}
				t, err := s.text()
				if err != nil {
					return out, err
				}
				t = collapseSpace(t)
				switch in {
				case "tx":
					name = t
				case "cat", "xVal":
					cats = append(cats, t)
				case "val", "yVal":
					vals = append(vals, t)
				}
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "title":
				inTitle = false
			case "tx", "cat", "val", "xVal", "yVal":
				in = ""
			case "ser":
				inSer = false
				var pts []string
				for i, v := range vals {
					if i < len(cats) {
						v = cats[i] + " " + v
					}
					pts = append(pts, v)
				}
				line := strings.Join(pts, "; ")
				if name != "" {
					line = name + ": " + line
				}
				if strings.TrimSpace(line) != "" {
					out = append(out, line)
				}
			}
		}
	}
}

func isDrawingML(n xml.Name) bool { return strings.HasSuffix(n.Space, drawingML) || n.Space == "a" }
