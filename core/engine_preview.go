package core

import (
	"context"
	"fmt"

	"cairn/core/extract"
	"cairn/core/preview"
	"cairn/core/search"
)

// Preview shows passage p where it sits in its file: a PDF's page as
// pdftotext reads it, any other format's text as extracted at indexing,
// around the passage's lines, with the passage located in it.
func (e *Engine) Preview(ctx context.Context, p *search.Passage) (preview.Preview, error) {
	return Preview(ctx, e.registry(), p)
}

// Preview is Engine.Preview with the extractors reg.
func Preview(ctx context.Context, reg *extract.Registry, p *search.Passage) (preview.Preview, error) {
	if p.Format == "pdf" && p.Page > 0 {
		// One page, not the whole file: a manual's full text takes seconds.
		page, err := preview.PDFPageText(ctx, p.Path, p.Page)
		if err != nil {
			return preview.Preview{}, err
		}
		pv := preview.Page(page, p.Text, p.Page)
		pv.Path = p.Path
		return pv, nil
	}
	f, err := extract.OpenRegular(p.Path) // never a pipe put in its place
	if err != nil {
		return preview.Preview{}, fmt.Errorf("cannot show %s: %w (was it moved or deleted? re-index its folder)", p.Path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return preview.Preview{}, fmt.Errorf("cannot show %s: %w", p.Path, err)
	}
	doc, err := reg.Extract(ctx, extract.File{Name: p.Path, Size: st.Size(), R: f})
	if err != nil {
		return preview.Preview{}, fmt.Errorf("cannot show %s: %w", p.Path, err)
	}
	pv := preview.Lines(doc.Text, p.Text, p.LineStart, p.LineEnd)
	pv.Path, pv.Page = p.Path, p.Page
	return pv, nil
}

// RenderPage draws page n of the PDF at path, width pixels wide.
func (e *Engine) RenderPage(ctx context.Context, path string, n, width int) ([]byte, error) {
	return preview.RenderPDFPage(ctx, path, n, width)
}
