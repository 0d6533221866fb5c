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

// An extractor is stopped when it makes no progress for Limits.Timeout,
// not when it runs longer than that: a slow one that keeps reading new
// parts of the file (a big manual on a busy machine) finishes after many
// times the limit, with no ceiling; a hung one is stopped; one that reads
// the same bytes over and over is not progressing, and is stopped too
// (issue 43, item 3).
func TestRegistryWatchdog(t *testing.T) {
	const idle = 100 * time.Millisecond
	lim := DefaultLimits()
	lim.Timeout = idle
	r := NewRegistry(lim)
	const steps = 40 // 2 s, twenty times the limit, more than the 15 times that once failed a file
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		for i := range steps {
			select {
			case <-time.After(idle / 2):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			f.R.ReadAt(make([]byte, 1), int64(i)*readBlock) // a part not read before
		}
		return &Document{Text: "done"}, nil
	}), ".slow")
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		<-ctx.Done() // an extractor stuck on a hostile file, honouring ctx
		return nil, ctx.Err()
	}), ".hung")
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		for ctx.Err() == nil {
			time.Sleep(idle / 4)
			f.R.ReadAt(make([]byte, 1), 0) // the same byte, for ever
		}
		return nil, ctx.Err()
	}), ".loop")

	big := make([]byte, steps*readBlock)
	start := time.Now()
	d, err := r.Extract(context.Background(), fileOf("x.slow", big))
	if err != nil || d.Text != "done" {
		t.Errorf("slow extractor: %v", err)
	}
	if took := time.Since(start); took < steps*idle/2 {
		t.Errorf("slow extractor took %v", took)
	}

	for _, name := range []string{"x.hung", "x.loop"} {
		_, err = r.Extract(context.Background(), fileOf(name, []byte("data")))
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "extraction made no progress (no new part of the file read, no page done) for 100ms") {
			t.Errorf("%s: err = %v", name, err)
		}
	}

	// Cancelled by its caller (Ctrl+C), an extraction says so, not "no progress".
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Extract(ctx, fileOf("x.hung", []byte("data"))); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "progress") {
		t.Errorf("cancelled: err = %v", err)
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
