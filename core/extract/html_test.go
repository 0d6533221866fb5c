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
