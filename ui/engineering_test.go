package ui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/search"
	"cairn/panels"
)

// drag moves a slider with the pointer to the given fraction of its track
// and lets go, as a person would.
func drag(s interface {
	fyne.Draggable
	Size() fyne.Size
}, frac float32) {
	size := s.Size()
	s.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(size.Width*frac, size.Height/2)}})
	s.DragEnd()
}

func askedAndRanked(t *testing.T, h *harness) *panels.Query {
	t.Helper()
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the ranked sources", func() bool { return len(q.Rows()) == 4 && q.Answer.Verdict.Visible() })
	return q
}

func TestDraggingRRFKReranksTheCachedCandidates(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := askedAndRanked(t, h)
	e := h.shell().Tuning
	var searches int
	eng.locked(func() { searches = eng.searches })

	if got := titles(q); !slices.Equal(got, []string{"c.pdf", "b.md", "a.md", "d.html"}) {
		t.Fatalf("at rrf_k 60: %q", got)
	}
	before := slices.Clone(q.Rows())
	test.Tap(q.Rows()[1].Explain) // Bravo's explanation stays open while it moves
	h.frame()
	drag(e.Knob("retrieval.rrf_k").Slider, 0) // all the way left: rrf_k 0
	if e.Knob("retrieval.rrf_k").Slider.Value != 0 || e.Knob("retrieval.rrf_k").Value.Text != "0" {
		t.Fatalf("slider at %v, label %q", e.Knob("retrieval.rrf_k").Slider.Value, e.Knob("retrieval.rrf_k").Value.Text)
	}
	want := []string{"c.pdf", "a.md", "b.md", "d.html"}
	h.until("the re-ranked list", func() bool { return slices.Equal(titles(q), want) })
	after := q.Rows()
	if after[0] != before[0] || after[1] != before[2] || after[2] != before[1] || after[3] != before[3] {
		t.Error("re-ranking rebuilt the rows instead of reordering them (each row's text would be laid out again)")
	}
	// The rows are laid out in their new order (Bravo, with its explanation
	// open, is taller than Alpha, which moved above it).
	d := fyne.CurrentApp().Driver()
	for i := 1; i < len(after); i++ {
		above, below := d.AbsolutePositionForObject(after[i-1].Title).Y, d.AbsolutePositionForObject(after[i].Title).Y
		if below <= above {
			t.Errorf("source %d (%s) at y %v, not below source %d at %v", i+1, after[i].Title.Text, below, i, above)
		}
	}
	if y, end := d.AbsolutePositionForObject(after[1].Title).Y, d.AbsolutePositionForObject(after[0].Title).Y+after[0].Title.Size().Height; y < end {
		t.Errorf("Alpha's head at y %v overlaps Charlie's row ending at %v", y, end)
	}
	eng.locked(func() {
		if eng.searches != searches {
			t.Errorf("moving rrf_k searched the engine again (%d searches, was %d); it must re-fuse the cached candidates", eng.searches, searches)
		}
	})
	if why := q.Rows()[2].Why.Text; !strings.Contains(why, "/docs/b.md") || !strings.Contains(why, "(RRF, k = 0, normalized to 0..1)") {
		t.Errorf("why-this-result does not follow the slider: %q", why)
	}
	h.until("the settings to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Retrieval.RRFK == 0
	})
}

// shown says whether o is on screen under the query panel: it and every
// container above it are visible.
func shown(q *panels.Query, o fyne.CanvasObject) bool {
	return len(find(q.Content(), func(c fyne.CanvasObject) bool { return c == o })) == 1
}

func TestARefusalIsNeverStale(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.notCovered = true
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("banana bread recipe")
	h.until("the closest passages", func() bool { return len(q.Rows()) > 0 })
	// Relevance does not depend on the knobs: whatever they list, the
	// documents still do not cover the question.
	h.shell().Tuning.Knob("retrieval.top_k").Slider.SetValue(1)
	h.until("the list under top_k 1", func() bool { return len(q.Rows()) == 1 })
	if shown(q, q.Answer.Stale) {
		t.Errorf("a refusal is marked stale: %q", q.Answer.Stale.Text)
	}
}

func TestAnswerAndSourcesAgreeAfterAKnobChange(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := askedAndRanked(t, h)
	e := h.shell().Tuning
	if shown(q, q.Answer.Stale) {
		t.Fatalf("a fresh answer is marked stale: %q", q.Answer.Stale.Text)
	}

	// rrf_k 0 reorders the list; every source of the answer is still
	// listed, with the [n] the answer cites it as.
	e.Knob("retrieval.rrf_k").Slider.SetValue(0)
	h.until("the re-ranked list", func() bool {
		return slices.Equal(titles(q), []string{"c.pdf", "a.md", "b.md", "d.html"})
	})
	if shown(q, q.Answer.Stale) {
		t.Errorf("a reordered list marks the answer stale: %q", q.Answer.Stale.Text)
	}

	// top_k 1 leaves out sources the answer was written from.
	e.Knob("retrieval.top_k").Slider.SetValue(1)
	h.until("the stale mark", func() bool { return len(q.Rows()) == 1 && shown(q, q.Answer.Stale) })
	if want := "Retrieval settings changed the list of sources since this answer was written: " +
		"it no longer shows every one of the 4 sources the answer was written from."; q.Answer.Stale.Text != want {
		t.Errorf("stale note %q\nwant        %q", q.Answer.Stale.Text, want)
	}
	if !shown(q, q.Answer.AnswerAgain) {
		t.Fatal("no Answer again button by the stale note")
	}

	before := q.Rows()[0]
	test.Tap(q.Answer.AnswerAgain)
	h.until("the answer under top_k 1", func() bool { return strings.HasPrefix(q.State.Text, "Answered from 1 source.") })
	eng.locked(func() {
		if len(eng.asks) != 2 {
			t.Fatalf("the engine was asked %d times, want 2", len(eng.asks))
		}
		if got := eng.asks[1]; got.Query != "how do I reset the router" || got.TopK != 1 {
			t.Errorf("answered again %q with top_k %d, want the same question with top_k 1", got.Query, got.TopK)
		}
	})
	// Rows belong to one answer's passages: the new answer's come new.
	h.until("its sources", func() bool { return len(q.Rows()) == 1 && q.Rows()[0] != before })
	// The conversation holds the question once, with the new answer.
	eng.locked(func() {
		if turns := eng.threads[eng.lastThread]; len(turns) != 1 || !strings.Contains(turns[0].Answer, "[1]") {
			t.Errorf("the conversation after Answer again: %+v", turns)
		}
	})
	if shown(q, q.Answer.Stale) {
		t.Errorf("the new answer is marked stale: %q", q.Answer.Stale.Text)
	}
	if row := q.Rows()[0]; row.Cite.Text != "[1]" || !row.Cite.Visible() {
		t.Errorf("the one source is marked %q (visible %v), want [1]", row.Cite.Text, row.Cite.Visible())
	}
}

func TestTopKMinScoreAndWeightedFusion(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := askedAndRanked(t, h)
	e := h.shell().Tuning
	steps := []struct {
		name string
		move func()
		want []string
	}{
		{"top_k 2", func() { e.Knob("retrieval.top_k").Slider.SetValue(2) }, []string{"c.pdf", "b.md"}},
		{"min_score 0.98", func() {
			e.Knob("retrieval.top_k").Slider.SetValue(12)
			e.Knob("retrieval.min_score").Slider.SetValue(0.98)
		}, []string{"c.pdf"}},
		{"weighted, vector weight 0.6", func() {
			e.Knob("retrieval.min_score").Slider.SetValue(0)
			e.Fusion.SetSelected(string(search.FusionWeighted))
		}, []string{"c.pdf", "a.md", "d.html", "b.md"}},
		{"vector weight 0", func() { e.Knob("retrieval.vector_weight").Slider.SetValue(0) }, []string{"a.md", "b.md", "c.pdf", "d.html"}},
	}
	for _, s := range steps {
		s.move()
		h.until(s.name+" -> "+strings.Join(s.want, ", "), func() bool { return slices.Equal(titles(q), s.want) })
	}
}

func TestRetrievalModeSearchesAgainAndShowsTheSearchsNotes(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := askedAndRanked(t, h)
	h.shell().Tuning.Mode.SetSelected("bm25")
	h.until("keyword-only ranking", func() bool { return slices.Equal(titles(q), []string{"a.md", "b.md", "c.pdf"}) })
	if !q.Notes.Visible() || q.Notes.Text != "ranked by keywords only" {
		t.Errorf("notes %q (visible %v)", q.Notes.Text, q.Notes.Visible())
	}
}

func TestPoolChangeSearchesAgain(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	askedAndRanked(t, h)
	var before int
	eng.locked(func() { before = eng.searches })
	h.shell().Tuning.Knob("retrieval.bm25_pool").Slider.SetValue(120)
	h.until("a new search", func() bool {
		n := 0
		eng.locked(func() { n = eng.searches })
		return n == before+1
	})
}

func TestPersonalTestSetMetricsFollowTheSliders(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := askedAndRanked(t, h)
	e := h.shell().Tuning
	if !strings.HasPrefix(e.Metrics.Text, "No judged questions yet") {
		t.Fatalf("metrics before any judgment: %q", e.Metrics.Text)
	}
	bravo := q.Rows()[1]
	test.Tap(bravo.Right)
	h.until("Recall and MRR of the new judgment", func() bool {
		return e.Metrics.Text == "1 question judged · Recall@12 1.00 · MRR 0.50 (under the current sliders)"
	})
	eng.locked(func() {
		if len(eng.judgments) != 1 || eng.judgments[0].Path != "/docs/b.md" || eng.judgments[0].Query != "how do I reset the router" || eng.judgments[0].ChunkID != 2 {
			t.Errorf("judgments %+v", eng.judgments)
		}
	})
	e.Knob("retrieval.rrf_k").Slider.SetValue(0) // Bravo drops to rank 3
	h.until("MRR at rrf_k 0", func() bool { return strings.Contains(e.Metrics.Text, "Recall@12 1.00 · MRR 0.33") })
	h.until("the re-ranked list", func() bool { return q.Rows()[2].Title.Text == "b.md" })
	if !q.Rows()[2].Right.Checked {
		t.Errorf("the judged row lost its mark when re-ranked")
	}
	e.Knob("retrieval.top_k").Slider.SetValue(2) // Bravo falls out of the list
	h.until("Recall@2 0", func() bool { return strings.Contains(e.Metrics.Text, "Recall@2 0.00 · MRR 0.00") })

	e.Judged.Select(0)
	if e.Forget.Disabled() {
		t.Fatal("Forget is disabled with a judgment selected")
	}
	test.Tap(e.Forget)
	h.until("the judgment to be forgotten", func() bool { return strings.HasPrefix(e.Metrics.Text, "No judged questions yet") })
	eng.locked(func() {
		if len(eng.judgments) != 0 {
			t.Errorf("judgments left: %+v", eng.judgments)
		}
	})
}

func TestProfileSwitchResetsTheKnobsAndSaves(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	e := h.shell().Tuning
	e.Profile.SetSelected("server")
	h.until("the server defaults", func() bool {
		return e.Knob("retrieval.top_k").Slider.Value == 15 && e.Knob("retrieval.bm25_pool").Slider.Value == 120
	})
	h.until("the profile to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Profile == "server" && s[len(s)-1].Answer.TopK == 15
	})
	if !strings.Contains(e.State.Text, "Profile server") {
		t.Errorf("state %q", e.State.Text)
	}
}

// A model picked in the Engineering tab is switched in the engine, by its
// file name in the models folder, and then saved; one the engine cannot
// load is reported and not saved.
func TestModelPickerSwitchesTheEngineThenSaves(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	dir := eng.Config().Paths.ModelsDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"qwen3-0.6b.gguf", "all-MiniLM-L6-v2.gguf", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o600)
	}
	h := newHarness(t, eng)
	e := h.shell().Tuning
	want := []string{"(none)", "all-MiniLM-L6-v2.gguf", "qwen3-0.6b.gguf"}
	h.until("the models folder's GGUF files as choices", func() bool { return slices.Equal(e.Chat.Options, want) })
	if e.Chat.Disabled() || e.ModelNote.Text != "" {
		t.Errorf("chat picker disabled %v, note %q", e.Chat.Disabled(), e.ModelNote.Text)
	}

	e.Chat.SetSelected("qwen3-0.6b.gguf")
	h.until("the notice", func() bool { return e.State.Text == "Now using qwen3-0.6b.gguf as the chat model." })
	h.until("the choice to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Generation.Model == "qwen3-0.6b.gguf"
	})

	e.Embedding.SetSelected("all-MiniLM-L6-v2.gguf")
	h.until("the embedding switch", func() bool { return e.State.Text == "Now using all-MiniLM-L6-v2.gguf as the embedding model." })
	eng.locked(func() {
		if !slices.Equal(eng.modelUses, []string{"chat:qwen3-0.6b.gguf", "embedding:all-MiniLM-L6-v2.gguf"}) {
			t.Errorf("model switches %q", eng.modelUses)
		}
		eng.modelErr = errors.New("all-MiniLM-L6-v2.gguf is an embedding model, not a chat model")
	})
	saves := len(h.savedConfigs())
	e.Chat.SetSelected("all-MiniLM-L6-v2.gguf")
	h.until("the error", func() bool {
		return e.State.Text == "Could not load all-MiniLM-L6-v2.gguf: all-MiniLM-L6-v2.gguf is an embedding model, not a chat model"
	})
	h.until("the picker to show the model in use", func() bool { return e.Chat.Selected == "qwen3-0.6b.gguf" })
	h.loop.settle(2 * saveDelay)
	for _, c := range h.savedConfigs()[saves:] {
		if c.Generation.Model != "qwen3-0.6b.gguf" {
			t.Errorf("a failed switch saved chat model %q", c.Generation.Model)
		}
	}
}

func TestAnswerSettingsApplyToTheEngineAndAreSaved(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e := h.shell().Tuning
	h.until("the panel to be ready", func() bool { return !e.Verify.Disabled() })
	if e.Verify.Selected != "flag them (warn)" || e.Rewrite.Checked {
		t.Fatalf("loaded verify %q, rewrite %v; want the defaults warn and off", e.Verify.Selected, e.Rewrite.Checked)
	}
	e.Verify.SetSelected("withhold the answer (block)")
	test.Tap(e.Rewrite)
	h.until("the engine to get both", func() bool {
		var got []config.Answer
		eng.locked(func() { got = slices.Clone(eng.answering) })
		return len(got) == 2 && got[1].Verify == "block" && got[1].Rewrite && got[1].TopK == eng.Config().Answer.TopK
	})
	h.until("the settings to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Answer.Verify == "block" && s[len(s)-1].Answer.Rewrite
	})
}

// liveTitles are the titles the Engineering tab's live ranking shows.
func liveTitles(e *panels.Engineering) []string {
	var out []string
	for _, o := range e.Live.Objects {
		l, _ := panels.LiveRow(o)
		_, title, _ := strings.Cut(l.Text, ". ")
		title, _, _ = strings.Cut(title, " · ")
		out = append(out, title)
	}
	return out
}

// The sources move beside the knobs that move them, and a knob that cannot
// change the order says so.
func TestKnobsShowTheLiveRankingBesideThem(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e := h.shell().Tuning
	if e.LiveHead.Text != "Ask a question in Ask: its sources appear here and move as you move the knobs." || len(e.Live.Objects) != 0 {
		t.Errorf("before a question: %q, %d rows", e.LiveHead.Text, len(e.Live.Objects))
	}
	askedAndRanked(t, h)
	h.until("the live ranking", func() bool { return len(e.Live.Objects) == 4 })
	if got := liveTitles(e); !slices.Equal(got, []string{"c.pdf", "b.md", "a.md", "d.html"}) {
		t.Errorf("live ranking at rrf_k 60: %q", got)
	}
	if !strings.HasPrefix(e.LiveHead.Text, `"how do I reset the router": 4 sources`) {
		t.Errorf("live heading %q", e.LiveHead.Text)
	}
	h.shell().showTab(tabEngineering)
	h.frame()
	drag(e.Knob("retrieval.rrf_k").Slider, 0)
	want := []string{"c.pdf", "a.md", "b.md", "d.html"}
	h.until("the live ranking to move", func() bool { return slices.Equal(liveTitles(e), want) })
	if !strings.HasPrefix(e.Knob("retrieval.vector_weight").Help.Text, "cannot change the order now: RRF ranks by ranks") {
		t.Errorf("vector weight under RRF: %q", e.Knob("retrieval.vector_weight").Help.Text)
	}
	if strings.HasPrefix(e.Knob("retrieval.rrf_k").Help.Text, "cannot") {
		t.Errorf("rrf_k in hybrid RRF: %q", e.Knob("retrieval.rrf_k").Help.Text)
	}

	e.Fusion.SetSelected(string(search.FusionWeighted))
	h.until("rrf_k to say it is idle", func() bool {
		return strings.HasPrefix(e.Knob("retrieval.rrf_k").Help.Text, "cannot change the order now: weighted fusion")
	})
	if e.Knob("retrieval.vector_weight").Help.Text != "weighted fusion: share of the vector score" {
		t.Errorf("vector weight under weighted fusion: %q", e.Knob("retrieval.vector_weight").Help.Text)
	}

	e.Fusion.SetSelected(string(search.FusionRRF))
	e.Mode.SetSelected("bm25") // a new search, keyword only
	h.until("keyword-only notes", func() bool {
		return strings.HasPrefix(e.Knob("retrieval.vector_pool").Help.Text, "cannot change the order now: keyword search only")
	})
	if len(e.Live.Objects) != 3 { // D is found by vectors only
		t.Errorf("keyword only: live ranking %q", liveTitles(e))
	}
	// One ranked list: no rrf_k in its range reorders it (the issue's
	// example of a knob that cannot change the order).
	if got := e.Knob("retrieval.rrf_k").Help.Text; !strings.HasPrefix(got, "cannot change the order now: one ranked list (bm25 only)") {
		t.Errorf("rrf_k with keyword search only: %q", got)
	}
}

// The Engineering tab has a slider for every knob of the table (retrieval,
// chat model and answer), labelled as the table says, and dragging it
// reaches the engine and the saved settings.
func TestEveryKnobHasASliderThatIsSaved(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	e := h.shell().Tuning
	if n := len(e.Retrieval) + len(e.Answering); n != len(config.Knobs()) {
		t.Fatalf("%d sliders for %d knobs", n, len(config.Knobs()))
	}
	for _, k := range config.Knobs() {
		s := e.Knob(k.Key)
		if s == nil || s.Label != k.Label || s.Slider.Min != k.Lo || s.Slider.Max != k.Hi {
			t.Fatalf("%s: slider %+v", k.Key, s)
		}
		drag(s.Slider, 1)
		h.until(k.Key+" saved at the slider's top", func() bool {
			saved := h.savedConfigs()
			return len(saved) > 0 && k.Get(saved[len(saved)-1]) == k.Hi
		})
	}
}

// Every retrieval choice shows whole at the smallest window; "auto" was
// cut to "auto (hybrid when an …" at the default size.
func TestRetrievalChoicesShowWholeAtTheSmallestWindow(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	s.showTab(tabEngineering)
	h.win.w.Resize(smallestCanvas())
	h.frame()
	m := s.Tuning.Mode
	for _, o := range m.Options {
		need := fyne.MeasureText(o, theme.TextSize(), fyne.TextStyle{}).Width +
			theme.IconInlineSize() + theme.InnerPadding() + 4*theme.Padding()
		if m.Size().Width < need {
			t.Errorf("the retrieval picker is %v wide, %q needs %v", m.Size().Width, o, need)
		}
	}
}

// At the smallest window the live ranking shows each source's relevance
// whole, since it is what the sliders change; the name is what gives way.
// It was cut to "strong ma…".
func TestLiveRankingShowsRelevanceWholeAtTheSmallestWindow(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	e := s.Tuning
	askedAndRanked(t, h)
	h.until("the live ranking", func() bool { return len(e.Live.Objects) == 4 })
	s.showTab(tabEngineering)
	h.win.w.Resize(smallestCanvas())
	h.frame()
	for _, o := range e.Live.Objects {
		title, match := panels.LiveRow(o)
		if !strings.HasSuffix(match.Text, "match") || !notCut(match) {
			t.Errorf("%q: relevance %q is cut (%v wide)", title.Text, match.Text, match.Size().Width)
		}
	}
}

// No wrapped label in the Engineering tab is narrower than its longest
// word: the answer knobs' helps were drawn one letter per line, their
// sliders hundreds of pixels down, since the grid sized its help column to
// a wrapped label's smallest width (one glyph). The whole tab is laid out,
// the part below the scroll's view included.
func TestEngineeringLabelsAreNoNarrowerThanAWord(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	s.showTab(tabEngineering)
	for _, width := range []float32{1100, 1580} {
		h.win.w.Resize(fyne.NewSize(width, 760))
		h.frame()
		h.frame()
		labels := find(h.win.w.Content(), func(o fyne.CanvasObject) bool {
			l, ok := o.(*widget.Label)
			return ok && l.Wrapping != fyne.TextWrapOff && strings.TrimSpace(l.Text) != ""
		})
		if len(labels) < 10 {
			t.Fatalf("at %v px: only %d wrapped labels found", width, len(labels))
		}
		for _, o := range labels {
			l := o.(*widget.Label)
			size := theme.TextSize()
			if l.SizeName != "" {
				size = theme.Size(l.SizeName)
			}
			var word string
			var need float32
			for _, f := range strings.Fields(l.Text) {
				if w := fyne.MeasureText(f, size, l.TextStyle).Width; w > need {
					word, need = f, w
				}
			}
			if got := l.Size().Width - 2*theme.InnerPadding(); got < need {
				t.Errorf("at %v px: %q is %v wide, its word %q needs %v", width, l.Text, got, word, need)
			}
		}
		// The answer knobs' sliders sit beside their helps, not far below.
		for _, k := range s.Tuning.Answering {
			if k.Help.Size().Height > 4*k.Slider.MinSize().Height {
				t.Errorf("at %v px: the help of %s is %v high", width, k.Label, k.Help.Size().Height)
			}
		}
	}
}

// The Device picker lists where the models can run, shows the setting in
// force, switches the engine when a device is picked and saves it.
func TestDevicePickerSwitchesTheEngineThenSaves(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e := h.shell().Tuning
	want := []string{"auto", "CPU", "GPU: Test GPU (Vulkan0)"}
	h.until("the devices as choices", func() bool { return slices.Equal(e.Device.Options, want) && !e.Device.Disabled() })
	if e.Device.Selected != "auto" {
		t.Errorf("selected %q, want the default, auto", e.Device.Selected)
	}
	e.Device.SetSelected("GPU: Test GPU (Vulkan0)")
	h.until("the notice", func() bool { return e.State.Text == "Models run on GPU: Test GPU (Vulkan0) from their next use." })
	h.until("the device to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].LLM.Device == "Vulkan0"
	})
	e.Device.SetSelected("CPU")
	h.until("the switch to the CPU", func() bool { return e.State.Text == "Models run on CPU from their next use." })
	eng.locked(func() {
		if !slices.Equal(eng.deviceUses, []string{"Vulkan0", "cpu"}) {
			t.Errorf("device switches %q", eng.deviceUses)
		}
	})
}
