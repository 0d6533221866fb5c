package extract

import (
	"strings"
	"testing"
)

func TestHTML(t *testing.T) {
	page := `<!doctype html><html><head><title>Pump manual</title><style>p{color:red}</style>
<script>var secret = "do not index";</script></head>
<body><h1>Pump  X-200</h1><p>The pump <b>must</b> be primed
before use.</p>
<h2>Specifications</h2>
<table><tr><th>Part</th><th>Code</th></tr>
<tr><td>Seal</td><td>XK-200-B</td></tr><tr><td>Valve</td><td>VL-9</td></tr></table>
<ul><li>First item</li><li>Second item</li></ul>
<p>Line one<br>Line two</p></body></html>`
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "manual.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := "Pump X-200\n\nThe pump must be primed before use.\n\nSpecifications\n\n" +
		"Part: Seal | Code: XK-200-B\nPart: Valve | Code: VL-9\n\n- First item\n- Second item\n\nLine one\nLine two"
	if doc.Text != want {
		t.Errorf("text:\n%q\nwant:\n%q", doc.Text, want)
	}
	if doc.Title != "Pump manual" {
		t.Errorf("title %q", doc.Title)
	}
	if len(doc.Headings) != 2 || doc.Headings[0].Text != "Pump X-200" || doc.Headings[1].Level != 2 ||
		!strings.HasPrefix(doc.Text[doc.Headings[1].Offset:], "Specifications") {
		t.Errorf("headings %+v", doc.Headings)
	}
	if strings.Contains(doc.Text, "secret") || strings.Contains(doc.Text, "color") {
		t.Error("script or style text leaked into the document")
	}
}

// A heading's permalink mark ("¶" of Sphinx, "#" of MkDocs) is not text:
// left in, it makes a FAQ's question read as a statement.
func TestHTMLPermalinkMarksAreNotText(t *testing.T) {
	page := `<h2>SysRq seems stuck, what can I do?<a class="headerlink" href="#stuck" title="Permalink to this heading">¶</a></h2>
<p>Try tapping shift, alt and control.<a href="#p1">#</a></p><p>See <a href="#notes">the notes</a>.</p>`
	doc, err := extractBytes(t, NewRegistry(DefaultLimits()), "faq.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := "SysRq seems stuck, what can I do?\n\nTry tapping shift, alt and control.\n\nSee the notes."
	if doc.Text != want {
		t.Errorf("text:\n%q\nwant:\n%q", doc.Text, want)
	}
	if len(doc.Headings) != 1 || doc.Headings[0].Text != "SysRq seems stuck, what can I do?" {
		t.Errorf("headings %+v", doc.Headings)
	}
}

func TestHTMLDeepNestingIsBounded(t *testing.T) {
	page := strings.Repeat("<div>", 100000) + "deep text" + strings.Repeat("</div>", 100000) + "<p>shallow text</p>"
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "deep.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "deep text\nshallow text" {
		t.Errorf("text %q", doc.Text)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "HTML structure ignored") {
		t.Errorf("warnings %v", doc.Warnings)
	}
}

func TestTableText(t *testing.T) {
	got := TableText([]string{"Name", "Dose"}, [][]string{{"Aspirin", "100 mg"}, {"Extra", "", "x"}})
	want := "Name: Aspirin | Dose: 100 mg\nName: Extra | x"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

// TestLargeHTMLIsStreamed: a page larger than htmlTreeMax is read token by
// token instead of as a tree, with the same text, title and headings for
// well-formed markup, ids' offsets kept; and no more of it than the text
// limit is held (a 200 MB page of one line took 1.5 GB as a tree) (issue
// 43, item 2).
func TestLargeHTMLIsStreamed(t *testing.T) {
	page := `<!doctype html><html><head><title>Pump manual</title><style>p{color:red}</style>
<script>var secret = "do not index";</script></head>
<body><h1 id="top">Pump  X-200</h1><p>The pump <b>must</b> be primed
before use.</p>
<h2 id="spec">Specifications</h2>
<table><tr><th>Part</th><th>Code</th></tr>
<tr><td>Seal</td><td>XK-200-B</td></tr><tr><td>Valve</td><td>VL-9</td></tr></table>
<ul><li>First item</li><li>Second item</li></ul>
<p>Line one<br>Line two</p><pre>keep   these
  spaces</pre></body></html>`
	tree, treeIDs, err := htmlDocumentAnchors(t.Context(), []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	stream, streamIDs, err := htmlStream(t.Context(), strings.NewReader(page), int64(len(page)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if stream.Text != tree.Text || stream.Title != tree.Title {
		t.Errorf("streamed:\n%q\n%q\nas a tree:\n%q\n%q", stream.Text, stream.Title, tree.Text, tree.Title)
	}
	equalStrings(t, "headings", headingSummary(stream), headingSummary(tree))
	for id, off := range treeIDs {
		if streamIDs[id] != off {
			t.Errorf("id %s at %d, as a tree %d", id, streamIDs[id], off)
		}
	}

	// Past htmlTreeMax, and past the text limit: cut, said so.
	big := "<html><body><p>" + strings.Repeat("<span>cairn stone</span> marker ", (htmlTreeMax+1<<20)/32) + "</p></body></html>"
	lim := DefaultLimits()
	lim.MaxTextBytes = 1 << 20
	var d *Document
	peak := peakHeap(func() { d, err = NewRegistry(lim).Extract(t.Context(), fileOf("big.html", []byte(big))) })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Text) > 1<<20 || len(d.Text) < 1<<19 || !strings.HasPrefix(d.Text, "cairn stone marker cairn stone") {
		t.Errorf("text of %d bytes: %q…", len(d.Text), d.Text[:min(40, len(d.Text))])
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "text cut at 1.0 MB (limit)")
	if peak > 32<<20 {
		t.Errorf("live heap peaked at %d MB for a %d MB page", peak>>20, len(big)>>20)
	}
	// One row of millions of empty cells (8 MB of markup): kept only up
	// to the text limit, the heap near the limit, not the cells' count.
	wide := "<html><body><table><tr>" + strings.Repeat("<td></td>", (htmlTreeMax+8<<20)/9) + "</tr></table><p>after</p></body></html>"
	peak = peakHeap(func() { d, err = NewRegistry(lim).Extract(t.Context(), fileOf("wide.html", []byte(wide))) })
	if err != nil && !IsSkip(err) {
		t.Fatal(err)
	}
	if peak > 48<<20 {
		t.Errorf("live heap peaked at %d MB for a row of %d cells", peak>>20, (htmlTreeMax+8<<20)/9)
	}
	// One run of text longer than a token may be: the rest is not read.
	run := "<html><body><p>start " + strings.Repeat("a", htmlTreeMax+maxHTMLToken) + "</p></body></html>"
	if d, err = NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("run.html", []byte(run))); err == nil {
		contains(t, "warnings", strings.Join(d.Warnings, "\n"), "a tag or run of text longer than 1.0 MB; the rest of the page was not read")
	} else if !IsSkip(err) {
		t.Errorf("one long run: %v", err)
	}
}
