package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRegistryRecoversPanics(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		var pages []string
		return nil, errors.New(pages[len(f.Name)]) // index out of range: a bug inside an extractor
	}), ".boom")
	_, err := r.Extract(context.Background(), fileOf("x.boom", []byte("data")))
	if err == nil || !strings.Contains(err.Error(), "extractor crashed on x.boom") {
		t.Fatalf("err = %v, want a crash report", err)
	}
}

func TestRegistryTimeout(t *testing.T) {
	lim := DefaultLimits()
	lim.Timeout = 50 * time.Millisecond
	r := NewRegistry(lim)
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		<-ctx.Done() // an extractor stuck on a hostile file, honouring ctx
		return nil, ctx.Err()
	}), ".slow")
	_, err := r.Extract(context.Background(), fileOf("x.slow", []byte("data")))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "took longer than 50ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestRegistrySupportsEveryFormat(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	for _, name := range []string{"a.pdf", "a.docx", "a.pptx", "a.xlsx", "a.odt", "a.ods", "a.odp", "a.epub",
		"a.rtf", "a.eml", "a.mbox", "a.msg", "a.png", "a.jpg", "a.jpeg", "a.tif", "a.tiff", "a.bmp", "a.gif",
		"a.webp", "a.doc", "a.xls", "a.ppt", "a.html", "a.md", "a.txt", "A.PDF"} {
		if !r.Supports(name) {
			t.Errorf("Supports(%q) = false", name)
		}
	}
}

func TestRegistrySniffsFilesWithoutExtension(t *testing.T) {
	for fixture, want := range map[string]string{"report.pdf": "pdf", "report.rtf": "rtf", "outlook.msg": "msg"} {
		d, err := NewRegistry(DefaultLimits()).Extract(context.Background(), fileOf("noext", fixtureBytes(t, fixture)))
		if err != nil {
			t.Errorf("%s without extension: %v", fixture, err)
			continue
		}
		if d.Format != want {
			t.Errorf("%s without extension: format %q, want %q", fixture, d.Format, want)
		}
	}
}

func TestHTMLTables(t *testing.T) {
	src := `<html><head><title>Sites</title></head><body><h1>Survey</h1><p>Intro <b>text</b>.</p>
<table><tr><th>Site</th><th>Height</th></tr><tr><td>A</td><td>412 m</td></tr><tr><td>B</td><td></td></tr></table>
<script>alert(1)</script></body></html>`
	d, err := NewRegistry(DefaultLimits()).Extract(context.Background(), fileOf("x.html", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Survey\n\nIntro text.\n\nSite: A | Height: 412 m\nSite: B"; d.Text != want || d.Title != "Sites" {
		t.Errorf("text %q title %q", d.Text, d.Title)
	}
}

func TestCSVAsTable(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	src := "Site,Elevation,Note\r\nCairn A,412 m,\"intact, mossy\"\r\nCairn B,398 m\r\n\r\n"
	d, err := r.Extract(context.Background(), fileOf("sites.csv", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	if want := "Site: Cairn A | Elevation: 412 m | Note: intact, mossy\nSite: Cairn B | Elevation: 398 m"; d.Text != want {
		t.Errorf("text %q, want %q", d.Text, want)
	}
	equalStrings(t, "units", unitSummary(d), []string{"sheet 1 sites"})
	d, err = r.Extract(context.Background(), fileOf("list.tsv", []byte("name\tdays\nAna\t14\n")))
	if err != nil || d.Text != "name: Ana | days: 14" {
		t.Errorf("tsv: %v %q", err, d.Text)
	}
	// Not a table: kept as text.
	d, err = r.Extract(context.Background(), fileOf("notes.csv", []byte("just a line of prose\nand \"another\" one\n")))
	if err != nil || d.Text != "just a line of prose\nand \"another\" one\n" || len(d.Units) != 0 {
		t.Errorf("prose csv: %v %q", err, d.Text)
	}
}
