package panels

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/search"
)

// Turn is one question of the conversation the Ask tab shows, and its
// answer: the question, how it was read (a follow-up of the question
// before it, with Ask as a new question; the words searched, with the
// words as typed when one was corrected), the answer with its citations,
// and, once a newer question is asked, the passages it cites, each a link
// to the preview (the newest answer's are the Sources beside it).
type Turn struct {
	Question *widget.Label
	// FollowUp says the question was read as a follow-up of the one
	// before it, and what was searched (answer.FollowUp.Statement).
	FollowUp *widget.Label
	// AskAnew asks the question again in a new conversation.
	AskAnew *Button
	// Searched says what was searched when it is not the question as
	// asked and it was not read as a follow-up: a corrected word, a
	// rewrite ("Searched for: …").
	Searched *widget.Label
	// Exact asks the question again with the words as typed, when a word
	// was corrected: "Search for recursivly instead".
	Exact  *Button
	Answer *answerView
	// Cited lists the passages an earlier answer cites: "[1] router.md".
	Cited *widget.RichText

	box       *fyne.Container
	read      *fyne.Container // how the question was read, and the buttons beside it
	citedBox  *fyne.Container // Cited, laid out
	citedWrap *softWrap
	question  string
	ans       *answer.Answer      // nil until answered, and for a reopened turn
	saved     []domain.TurnSource // a reopened turn's cited passages
}

// Text is the question as asked.
func (t *Turn) Text() string { return t.question }

// turnActions are what a turn's links and buttons do.
type turnActions struct {
	cite     func(t *Turn, n int) // a [n] of the turn's answer
	anew     func(t *Turn)        // Ask as a new question
	exact    func(t *Turn)        // the words as typed
	again    func()               // Answer again (the newest turn)
	wordForm func()               // Count every form of the words (the newest turn)
}

func newTurn(question string, act turnActions) *Turn {
	t := &Turn{question: question, Question: widget.NewLabel(question), FollowUp: widget.NewLabel(""), Searched: widget.NewLabel(""),
		Cited: widget.NewRichText()}
	t.Question.TextStyle.Bold = true
	t.Question.Wrapping = fyne.TextWrapWord
	t.FollowUp.Wrapping = fyne.TextWrapWord
	t.FollowUp.TextStyle.Italic = true
	t.FollowUp.Importance = widget.WarningImportance
	t.AskAnew = NewButtonWithIcon("Ask as a new question", theme.ContentAddIcon(), func() { act.anew(t) })
	t.AskAnew.Importance = widget.LowImportance
	t.Searched.Wrapping = fyne.TextWrapWord
	t.Searched.TextStyle.Italic = true
	t.Exact = NewButton("", func() { act.exact(t) })
	t.Exact.Importance = widget.LowImportance
	t.Answer = newAnswerView(func(n int) { act.cite(t, n) }, act.again, act.wordForm)
	t.Cited.Wrapping = fyne.TextWrapWord
	t.citedWrap, t.citedBox = newSoftWrap(t.Cited)
	for _, o := range []fyne.CanvasObject{t.FollowUp, t.AskAnew, t.Searched, t.Exact, t.Cited, t.citedBox} {
		o.Hide()
	}
	// How the question was read, with what asks it otherwise beside it:
	// one line where there is room for both.
	t.read = container.NewBorder(nil, nil, nil, container.NewHBox(t.AskAnew, t.Exact), container.NewVBox(t.FollowUp, t.Searched))
	t.read.Hide()
	t.box = container.NewVBox(t.Question, t.read, t.Answer.content, t.citedBox, widget.NewSeparator())
	return t
}

// answered shows how the question was read and its answer.
func (t *Turn) answered(a *answer.Answer) {
	t.ans, t.saved = a, nil
	t.Answer.show(a)
	t.FollowUp.Hide()
	t.AskAnew.Hide()
	t.Searched.Hide()
	t.Exact.Hide()
	switch {
	case a.FollowUp != nil:
		t.FollowUp.SetText(a.FollowUp.Statement())
		t.FollowUp.Show()
		t.AskAnew.Show()
	case a.Query != "":
		t.Searched.SetText(search.SearchedFor(a.Query, a.Corrections))
		t.Searched.Show()
	}
	if len(a.Corrections) > 0 {
		from := make([]string, len(a.Corrections))
		for i, k := range a.Corrections {
			from[i] = k.From
		}
		t.Exact.SetText("Search for " + strings.Join(from, ", ") + " instead")
		t.Exact.Show()
	}
	t.showRead()
	t.showCited(false)
}

// showRead shows how the question was read when there is something to say.
func (t *Turn) showRead() {
	show(t.read, t.FollowUp.Visible() || t.Searched.Visible() || t.AskAnew.Visible() || t.Exact.Visible())
}

// reopened shows a saved turn of a reopened conversation: its answer as
// it was written, its citations opening the passages saved with it.
func (t *Turn) reopened(tn domain.Turn) {
	t.saved = tn.Sources
	cited := map[int]bool{}
	for _, s := range tn.Sources {
		cited[s.N] = true
	}
	t.Answer.showSaved(tn.Answer, cited)
	if tn.Query != "" {
		t.Searched.SetText(search.SearchedFor(tn.Query, nil))
		t.Searched.Show()
	}
	t.showRead()
}

// settle makes the turn an earlier one: a newer question was asked. Its
// cited passages are listed under it, the newest answer's being the
// Sources beside the conversation; what acts on the newest answer only
// (Answer again, Count every form) goes.
func (t *Turn) settle() {
	t.Answer.setStale(false, 0)
	t.Answer.WordForms.Hide()
	t.Answer.Mode.Hide() // the same for every answer: the newest one says it
	t.showCited(true)
}

// showCited lists the turn's cited passages under it when shown.
func (t *Turn) showCited(shown bool) {
	var parts []string
	cited := map[int]bool{}
	add := func(n int, path string) {
		if !cited[n] {
			cited[n] = true
			parts = append(parts, fmt.Sprintf("[%d] %s", n, filepath.Base(path)))
		}
	}
	if t.ans != nil && !t.ans.Closest {
		for _, c := range t.ans.Citations {
			add(c.N, c.Path)
		}
	}
	for _, s := range t.saved {
		add(s.N, s.Path)
	}
	if !shown || len(parts) == 0 {
		t.Cited.Hide()
		t.citedBox.Hide()
		return
	}
	t.citedWrap.set(citedText("Cited: "+strings.Join(parts, " · "), cited, t.Answer.onCite))
	t.Cited.Show()
	t.citedBox.Show()
}

// source is the answer's source cited as [n]; ok is false for none (or a
// reopened turn, whose sources are saved as t.saved).
func (t *Turn) source(n int) (search.Result, bool) {
	if t.ans == nil {
		return search.Result{}, false
	}
	for _, s := range t.ans.Sources {
		if s.N == n {
			return s.Result, true
		}
	}
	return search.Result{}, false
}

// savedSource is a reopened turn's passage cited as [n].
func (t *Turn) savedSource(n int) (domain.TurnSource, bool) {
	for _, s := range t.saved {
		if s.N == n {
			return s, true
		}
	}
	return domain.TurnSource{}, false
}

// firstCited is the source the answer cites first in its text, the one
// it quotes (an extractive answer may quote [6] alone); ok is false when
// it cites none, or it is no answer (the closest passages of a question
// the documents do not cover).
func firstCited(a *answer.Answer) (search.Result, bool) {
	if a == nil || a.Refused || a.Closest || a.NoSources {
		return search.Result{}, false
	}
	cited := map[int]bool{}
	for _, c := range a.Citations {
		cited[c.N] = true
	}
	for _, m := range citationRE.FindAllStringSubmatch(a.Text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && cited[n] {
			for _, s := range a.Sources {
				if s.N == n {
					return s.Result, true
				}
			}
		}
	}
	return search.Result{}, false
}
