package panels

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// SourceRow shows one ranked passage: rank, citation number when the answer
// cites it, title, place, relevance in words, the snippet as plain text with
// the query's terms highlighted, and buttons to open the file, copy the
// passage, explain the ranking (with the numbers behind it) and mark the
// file as the right answer.
//
// A row belongs to one passage for as long as a question's sources are
// shown, so that re-ranking as a slider moves only reorders rows and
// updates their rank and relevance: the snippet's text layout, the costly part,
// is done once.
type SourceRow struct {
	Rank  *widget.Label
	Cite  *widget.Label
	Title *widget.Label // the file's name, with its extension
	// Folder is the folder that holds the file, in smaller text (Fyne has
	// no tooltips to show it on hover).
	Folder *widget.Label
	Where  *widget.Label
	// Relevance says in words how much of the question the passage covers
	// (search.RelevanceLabel); the number is in the Why view. The fused
	// score only orders the list: the same score means different things
	// for different questions, so it is not shown as a measure.
	Relevance *widget.Label
	Snippet   *widget.RichText
	Why       *widget.Label
	Open      *Button
	Copy      *Button
	Explain   *Button
	Right     *widget.Check

	box         *fyne.Container
	left, right *fyne.Container // the head's rank and citation, place and relevance
	res         search.Result
	params      search.Params // the fusion behind res, for the explanation
	mode        search.Mode
	rerank      *search.Reranking // the rerank step behind res; nil when off
	cited       int
	filling     bool      // update is setting Right; do not report it as a click
	snippetWrap *softWrap // lays Snippet out in rows (see softWrap)
}

// sourceActions are what a row's buttons do, given the row's result.
type sourceActions struct {
	open  func(search.Result)
	copy  func(search.Result)
	judge func(r search.Result, right bool)
	// widest, when set, is the widest head of the list the row is in: every
	// row puts its buttons beside its head or under it alike, rather than
	// rows with short names one way and long names the other.
	widest func() float32
}

func newSourceRow(act sourceActions) *SourceRow {
	r := &SourceRow{
		Rank:      widget.NewLabel(""),
		Cite:      widget.NewLabel(""),
		Title:     widget.NewLabel(""),
		Folder:    widget.NewLabel(""),
		Where:     widget.NewLabel(""),
		Relevance: widget.NewLabel(""),
		Snippet:   widget.NewRichText(),
		Why:       widget.NewLabel(""),
	}
	r.Title.TextStyle.Bold = true
	r.Title.Truncation = fyne.TextTruncateEllipsis
	r.Folder.Truncation = fyne.TextTruncateEllipsis
	r.Folder.SizeName = theme.SizeNameCaptionText
	r.Cite.Importance = widget.HighImportance
	r.Relevance.TextStyle.Italic = true
	r.Snippet.Wrapping = fyne.TextWrapWord
	r.Why.Wrapping = fyne.TextWrapWord
	r.Why.TextStyle.Monospace = true
	r.Why.Hide()
	r.Open = NewButtonWithIcon("Open", theme.FileIcon(), func() { act.open(r.res) })
	r.Copy = NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { act.copy(r.res) })
	r.Explain = NewButtonWithIcon("Why", theme.InfoIcon(), r.toggleWhy)
	r.Right = widget.NewCheck("Right answer", func(on bool) {
		if !r.filling {
			act.judge(r.res, on)
		}
	})
	for _, b := range []*Button{r.Open, r.Copy, r.Explain} {
		b.Importance = widget.LowImportance
	}
	name := container.New(nameThenFolder{}, r.Title, r.Folder)
	r.left, r.right = container.NewHBox(r.Rank, r.Cite), container.NewHBox(r.Where, r.Relevance)
	head := container.NewBorder(nil, nil, r.left, r.right, name)
	buttons := container.NewHBox(r.Open, r.Copy, r.Explain, r.Right)
	line := &headBeside{
		need: func() float32 {
			if act.widest != nil {
				return max(act.widest(), r.headNeed())
			}
			return r.headNeed()
		},
		onFlip: func() { r.box.Refresh() },
	}
	var snippetBox *fyne.Container
	r.snippetWrap, snippetBox = newSoftWrap(r.Snippet)
	r.box = container.NewVBox(container.New(line, head, buttons), snippetBox, r.Why, widget.NewSeparator())
	return r
}

func (r *SourceRow) toggleWhy() {
	if r.Why.Visible() {
		r.Why.Hide()
	} else {
		r.Why.SetText(whyText(r.res, r.params, r.mode, r.rerank))
		r.Why.Show()
	}
	r.box.Refresh()
}

// headNeed is the width of the row's head with the file name whole (the
// folder goes aside).
func (r *SourceRow) headNeed() float32 {
	return r.left.MinSize().Width + labelWidth(r.Title) + r.right.MinSize().Width + 2*theme.Padding()
}

// show fills a new row with its passage.
func (r *SourceRow) show(res search.Result) {
	r.res = res
	r.Title.SetText(sourceTitle(res.Passage))
	r.Folder.SetText(shortFolder(filepath.Dir(res.Path)))
	r.Where.SetText(location(res.Passage))
	r.snippetWrap.set(highlighted(res.Snippet, res.Highlights))
	r.Cite.Hide()
}

// rank updates what a new ranking changes: rank, relevance, the fusion terms
// behind them, the citation mark and the judgment. cited is the passage's
// [n] in the answer (0: not cited).
func (r *SourceRow) rank(res search.Result, cited int, right bool, p search.Params, mode search.Mode, rr *search.Reranking) {
	r.res, r.params, r.mode, r.rerank = res, p, mode, rr
	setText(r.Rank, fmt.Sprintf("%d.", res.Rank))
	setText(r.Relevance, res.MatchLabel())
	if cited != r.cited {
		r.cited = cited
		if cited > 0 {
			r.Cite.SetText(fmt.Sprintf("[%d]", cited))
			r.Cite.Show()
		} else {
			r.Cite.Hide()
		}
	}
	if r.Why.Visible() {
		setText(r.Why, whyText(res, p, mode, rr))
	}
	r.filling = true
	r.Right.SetChecked(right)
	r.filling = false
}

// setText changes a label only when its text changes: a label lays its
// text out again on every SetText, which lists and re-rankings would
// otherwise pay for every row they refresh.
func setText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// location is where the passage sits in its file, for a person.
func location(p *search.Passage) string {
	var parts []string
	if p.Page > 0 {
		unit := p.UnitKind
		if unit == "" {
			unit = "page"
		}
		label := fmt.Sprint(p.Page)
		if p.Label != "" {
			label = p.Label
		}
		parts = append(parts, unit+" "+label)
	}
	if p.LineStart > 0 {
		if p.LineEnd > p.LineStart {
			parts = append(parts, fmt.Sprintf("lines %d-%d", p.LineStart, p.LineEnd))
		} else {
			parts = append(parts, fmt.Sprintf("line %d", p.LineStart))
		}
	}
	return strings.Join(parts, " · ")
}

// whyText explains a result: its relevance with the number, each
// retriever's rank and score, each fusion term, the reranker's score and
// the rank before it (rr: the rerank step, nil when off), and the terms it
// matched.
func whyText(r search.Result, p search.Params, mode search.Mode, rr *search.Reranking) string {
	var b strings.Builder
	fmt.Fprintf(&b, "File:    %s\n", r.Path)
	if r.Title != "" && r.Title != filepath.Base(r.Path) {
		fmt.Fprintf(&b, "Title:   %s\n", r.Title)
	}
	if r.Heading != "" {
		fmt.Fprintf(&b, "Section: %s\n", r.Heading)
	}
	fmt.Fprintf(&b, "Relevant: %.2f, %s (share of the question's information covered)\n", r.Relevance, r.MatchLabel())
	switch {
	case mode == search.ModeVector:
		b.WriteString("BM25:    not used (vector search only)\n")
	case r.BM25Rank > 0:
		fmt.Fprintf(&b, "BM25:    rank %d, score %.3f -> fusion term %.3f\n", r.BM25Rank, r.BM25Score, r.BM25Term)
	default:
		b.WriteString("BM25:    not among the keyword matches\n")
	}
	switch {
	case mode == search.ModeBM25:
		b.WriteString("Vectors: not used (keyword search only)\n")
	case r.VecRank > 0:
		fmt.Fprintf(&b, "Vectors: rank %d, similarity %.3f -> fusion term %.3f\n", r.VecRank, r.VecSim, r.VectorTerm)
	default:
		b.WriteString("Vectors: not among the nearest passages\n")
	}
	if p.Fusion == search.FusionWeighted {
		fmt.Fprintf(&b, "Fused:   %.3f = %.3f + %.3f (weighted, vector weight %.2f)\n", r.Score, r.BM25Term, r.VectorTerm, p.VectorWeight)
	} else {
		fmt.Fprintf(&b, "Fused:   %.3f = %.3f + %.3f (RRF, k = %g, normalized to 0..1)\n", r.Score, r.BM25Term, r.VectorTerm, p.RRFK)
	}
	switch {
	case r.PreRank > 0:
		fmt.Fprintf(&b, "Rerank:  score %.3f, rank %d before reranking; %s\n", r.RerankScore, r.PreRank, rr.Summary())
	case rr != nil:
		fmt.Fprintf(&b, "Rerank:  not scored (%s)\n", rr.Summary())
	}
	if len(r.Matched) > 0 {
		fmt.Fprintf(&b, "Matched: %s", strings.Join(r.Matched, ", "))
	} else {
		b.WriteString("Matched: no query term (found by meaning)")
	}
	return b.String()
}

// shortFolder writes a folder under the home folder as ~/….
func shortFolder(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return dir
	}
	if rel, err := filepath.Rel(home, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		if rel == "." {
			return "~"
		}
		return filepath.Join("~", rel)
	}
	return dir
}

// nameThenFolder lays a file's name and its folder on one line: the name
// as wide as it needs (cut only when nothing else fits), the folder in what
// is left, so a long folder never hides the name.
type nameThenFolder struct{}

func (nameThenFolder) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(objs[0].MinSize().Width, max(objs[0].MinSize().Height, objs[1].MinSize().Height))
}

func (nameThenFolder) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	name, folder := objs[0].(*widget.Label), objs[1]
	want := labelWidth(name)
	w := min(want, size.Width)
	name.Move(fyne.NewPos(0, 0))
	name.Resize(fyne.NewSize(w, size.Height))
	// The folder's smaller text on the name's baseline, near enough.
	fh := folder.MinSize().Height
	x := w - theme.InnerPadding()/2
	room := max(size.Width-x, 0)
	// A label narrower than its smallest width (a letter and an ellipsis)
	// still draws that much, over the place beside it ("lines 3-5"): with
	// no room for it, the folder is left out.
	if fits := room >= folder.MinSize().Width; fits != folder.Visible() {
		if fits {
			folder.Show()
		} else {
			folder.Hide()
		}
	}
	folder.Move(fyne.NewPos(x, (size.Height+name.MinSize().Height)/2-fh-theme.InnerPadding()/4))
	folder.Resize(fyne.NewSize(room, fh))
}

// labelWidth is the width a one-line label needs to show its text whole.
func labelWidth(l *widget.Label) float32 {
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	// One pixel more: at the exact width, rounding can end it in an ellipsis.
	return fyne.MeasureText(l.Text, size, l.TextStyle).Width + 2*theme.InnerPadding() + 1
}

// headBeside puts a source's head line (rank, name, place, relevance) and
// its buttons on one line when the row is wide enough for the head's
// natural width beside them, and the buttons under the head otherwise: one
// line fewer a source lets a small window show two sources, not one.
type headBeside struct {
	need   func() float32 // the head's natural width
	width  float32        // of the last layout
	onFlip func()         // the row's height changed with its width
}

func (l *headBeside) oneLine(buttons fyne.CanvasObject, width float32) bool {
	return width > 0 && l.need()+buttons.MinSize().Width+theme.Padding() <= width
}

func (l *headBeside) MinSize(objs []fyne.CanvasObject) fyne.Size {
	head, buttons := objs[0].MinSize(), objs[1].MinSize()
	if l.oneLine(objs[1], l.width) {
		return fyne.NewSize(head.Width+buttons.Width+theme.Padding(), max(head.Height, buttons.Height))
	}
	return fyne.NewSize(max(head.Width, buttons.Width), head.Height+buttons.Height)
}

func (l *headBeside) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	head, buttons := objs[0], objs[1]
	bs := buttons.MinSize()
	was := l.oneLine(buttons, l.width)
	l.width = size.Width
	if l.oneLine(buttons, size.Width) {
		h := max(head.MinSize().Height, bs.Height)
		head.Move(fyne.NewPos(0, 0))
		head.Resize(fyne.NewSize(size.Width-bs.Width-theme.Padding(), h))
		buttons.Move(fyne.NewPos(size.Width-bs.Width, 0))
		buttons.Resize(fyne.NewSize(bs.Width, h))
	} else {
		hh := head.MinSize().Height
		head.Move(fyne.NewPos(0, 0))
		head.Resize(fyne.NewSize(size.Width, hh))
		buttons.Move(fyne.NewPos(0, hh))
		buttons.Resize(fyne.NewSize(size.Width, bs.Height))
	}
	if was != l.oneLine(buttons, size.Width) {
		l.onFlip()
	}
}
