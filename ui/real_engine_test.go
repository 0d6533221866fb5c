package ui

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/llm/testmodel"
	"cairn/internal/skip"
)

// copyCorpus copies the repository's test corpus to a temporary folder.
func copyCorpus(t testing.TB) string {
	t.Helper()
	return copyCorpusTo(t, filepath.Join(t.TempDir(), "corpus"))
}

func copyCorpusTo(t testing.TB, dst string) string {
	t.Helper()
	src, err := filepath.Abs("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// realEngine returns settings and an opener for real knowledge bases in a
// temporary data folder.
func realEngine(t testing.TB) (config.Config, Opener) {
	t.Helper()
	return realEngineIn(t.TempDir())
}

// realEngineIn is realEngine with its data under home.
func realEngineIn(home string) (config.Config, Opener) {
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	cfg := config.Default("desktop")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir, cfg.Paths.KB = dirs.Data, filepath.Join(dirs.Data, "models"), "default"
	return cfg, func(ctx context.Context, kb string, cfg config.Config) (Engine, error) {
		e, err := core.Open(ctx, cfg, dirs, core.Options{KB: kb, Write: true})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

func TestRealEngineIndexAskOpenAndRerank(t *testing.T) {
	cfg, open := realEngine(t)
	h := newHarnessWith(t, open, cfg)
	p, q := h.shell().IndexTab, h.shell().Query

	// First start: the bundled user guide is indexed into the empty knowledge base.
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	// It said "0 files seen" under a bar that read "Finished: 8 files read".
	if !strings.Contains(p.State.Text, "8 files seen: 8 indexed") {
		t.Errorf("after the user guide: %q", p.State.Text)
	}

	corpus := copyCorpus(t)
	startIndexing(h, corpus)
	h.until("the corpus", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+corpus+".") })
	if !strings.Contains(p.State.Text, "8 files seen: 8 indexed, 0 unchanged, 0 skipped, 0 failed, 0 removed") {
		t.Errorf("state %q", p.State.Text)
	}
	var indexed []string
	for _, r := range p.Files.Shown() {
		if r.Status == "indexed" {
			indexed = append(indexed, filepath.Base(r.Path))
		}
	}
	slices.Sort(indexed)
	want := []string{"coffee-machine.txt", "network-setup.html", "parts.csv", "pieces-latin1.txt", "retry.go", "router-x200.md", "service.yaml", "ward-move.eml"}
	if !slices.Equal(indexed, want) {
		t.Errorf("indexed files %q\nwant %q", indexed, want)
	}
	h.until("both folders listed", func() bool { return p.Folders.Length() == 2 })

	// Remove the user guide, so that only the corpus answers.
	h.shell().showTab(tabIndex)
	h.frame()
	var shown []string
	for _, o := range find(p.Folders, func(o fyne.CanvasObject) bool { l, ok := o.(*widget.Label); return ok && l.TextStyle.Bold }) {
		shown = append(shown, o.(*widget.Label).Text)
	}
	guide := slices.IndexFunc(shown, func(s string) bool { return strings.HasSuffix(s, string(filepath.Separator)+"guide") })
	if len(shown) != 2 || guide < 0 {
		t.Fatalf("folders shown %q", shown)
	}
	p.Folders.Select(guide)
	test.Tap(p.Remove)
	test.Tap(button(t, h.overlay(), "Yes"))
	h.until("the guide to go", func() bool { return p.Folders.Length() == 1 })
	h.shell().showTab(tabAsk)

	h.ask("how do I reset the device")
	h.until("the answer", func() bool { return q.Answer.Verdict.Visible() || strings.HasPrefix(q.State.Text, "Answered") })
	h.until("the sources", func() bool { return len(q.Rows()) > 0 })
	if got := titles(q); got[0] != "router-x200.md" {
		t.Fatalf("sources %q, want router-x200.md first", got)
	}
	test.Tap(q.Rows()[0].Explain)
	router := filepath.Join(corpus, "manuals", "router-x200.md")
	if why := q.Rows()[0].Why.Text; !strings.HasPrefix(why, "File:    "+router+"\n") {
		t.Errorf("why-this-result %q", why)
	}
	if q.Answer.Mode.Text != "Retrieval: BM25 only (no embedding model) · Answers: extractive (best passages quoted; no chat model loaded)" {
		t.Errorf("mode line %q", q.Answer.Mode.Text)
	}

	h.frame()
	links := find(q.Answer.Text, func(o fyne.CanvasObject) bool { _, ok := o.(*widget.Hyperlink); return ok })
	if len(links) == 0 {
		t.Fatalf("the answer %q has no citation links", q.Answer.Text.String())
	}
	link := links[0].(*widget.Hyperlink)
	test.TapAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2))
	h.until("the cited passage", func() bool { return highlightedText(q.Preview) != "" })
	// Rich text rows carry no line breaks: compare without them.
	if pv := q.Preview.Passage(); !strings.HasPrefix(pv.Path, corpus) || highlightedText(q.Preview) != strings.ReplaceAll(pv.Text, "\n", "") {
		t.Errorf("preview of %q highlights %q, want the passage %q", pv.Path, highlightedText(q.Preview), pv.Text)
	}
	if q.Preview.Note.Visible() {
		t.Errorf("preview note %q", q.Preview.Note.Text)
	}
	test.Tap(q.Preview.Viewer)
	h.until("the cited file to open", func() bool { return len(h.openedSources()) == 1 })
	if got := h.openedSources()[0].Path; !strings.HasPrefix(got, corpus) {
		t.Errorf("opened %q, not a corpus file", got)
	}

	before := len(q.Rows())
	h.shell().Tuning.Knob("retrieval.top_k").Slider.SetValue(1)
	h.until("one source", func() bool { return len(q.Rows()) == 1 })
	if before < 2 {
		t.Logf("only %d sources before top_k 1", before)
	}
	if got := titles(q); !slices.Equal(got, []string{"router-x200.md"}) {
		t.Errorf("top_k 1 kept %q", got)
	}
	s := h.shell().Status
	h.until("the status bar to count the corpus", func() bool { return strings.HasPrefix(s.Counts.Text, "8 documents · ") })
}

// The privacy sequence of issue 13, in the window on a real engine: it
// starts online, the person switches to offline, then picks a chat model.
// The next start must be offline, with that chat model.
func TestOfflineThenAChatModelStaysOfflineAtTheNextStart(t *testing.T) {
	os.Unsetenv("CAIRN_NETWORK_MODE")
	home := t.TempDir()
	cfg, open := realEngineIn(home)
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	cfg.Network.Mode = "online"
	if err := config.Save(dirs, cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cfg.Paths.ModelsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.Write(filepath.Join(cfg.Paths.ModelsDir, "tiny-chat.gguf"), testmodel.TinyChat()); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, open, cfg, func(o *Options) { o.Dirs = dirs })
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	e := h.shell().Tuning
	if e.Gate.Selected != "online" {
		t.Fatalf("the gate picker shows %q at the start", e.Gate.Selected)
	}

	e.Gate.SetSelected("offline") // stricter: no question asked
	h.until("the offline notice", func() bool { return strings.HasPrefix(e.State.Text, "Network gate: offline.") })
	e.Chat.SetSelected("tiny-chat.gguf")
	h.until("the chat model", func() bool { return e.State.Text == "Now using tiny-chat.gguf as the chat model." })
	var next config.Config
	h.until("the choice in the settings file", func() bool {
		var err error
		next, err = config.Load(dirs)
		return err == nil && next.Generation.Model == "tiny-chat.gguf"
	})
	if next.Network.Mode != "offline" || next.Generation.Model != "tiny-chat.gguf" {
		t.Errorf("the next start has network mode %q and chat model %q; want offline and tiny-chat.gguf",
			next.Network.Mode, next.Generation.Model)
	}
}

// A PDF's citation shows its page drawn by pdftoppm beside the page's text,
// the passage highlighted in it.
func TestRealEnginePreviewDrawsThePDFPage(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		skip.Because(t, "needs pdftoppm (Debian package poppler-utils; make installs it)")
	}
	cfg, open := realEngine(t)
	h := newHarnessWith(t, open, cfg)
	p, q := h.shell().IndexTab, h.shell().Query
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	dir := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../testdata/formats/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	startIndexing(h, dir)
	h.until("the report", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+dir+".") })

	h.ask("quartz flake Bronze Age")
	h.until("the sources", func() bool { return len(q.Rows()) > 0 })
	row := q.Rows()[0]
	if !strings.HasSuffix(row.Where.Text, "page 2") && !strings.Contains(row.Where.Text, "page 2") {
		t.Fatalf("best source at %q, want page 2 of the report", row.Where.Text)
	}
	test.Tap(row.Open)
	h.until("the page", func() bool { return q.Preview.Page.Image != nil || q.Preview.Note.Visible() })
	if q.Preview.Page.Image == nil {
		t.Fatalf("no page drawn: %q", q.Preview.Note.Text)
	}
	if w := q.Preview.Page.Image.Bounds().Dx(); w != previewPageWidth {
		t.Errorf("page drawn %d pixels wide, want %d", w, previewPageWidth)
	}
	if got := highlightedText(q.Preview); !strings.Contains(got, "quartz flake") {
		t.Errorf("highlighted %q, want the passage with the quartz flake", got)
	}
	if !strings.Contains(q.Preview.Text.String(), "Findings") {
		t.Errorf("page text %q lacks the page's heading", q.Preview.Text.String())
	}
}
