package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core"
	"cairn/core/buildinfo"
	"cairn/core/config"
	"cairn/core/doctor/health"
	"cairn/core/fault"
	"cairn/core/kb"
	"cairn/core/llm/models"
	"cairn/core/llm/testmodel"
	"cairn/core/netgate"
)

// env is a configuration in a fresh home with a models folder holding a
// tiny embedding model and a tiny chat model.
func env(t *testing.T) (config.Config, config.Dirs, string, string) {
	t.Helper()
	h := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(h, "config"), Data: filepath.Join(h, "data"), State: filepath.Join(h, "state"), Cache: filepath.Join(h, "cache")}
	cfg := config.Fallback(dirs)
	os.MkdirAll(cfg.Paths.ModelsDir, 0o700)
	emb := filepath.Join(cfg.Paths.ModelsDir, "tiny-embed.gguf")
	chat := filepath.Join(cfg.Paths.ModelsDir, "tiny-chat.gguf")
	if err := testmodel.Write(emb, testmodel.Tiny()); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.Write(chat, testmodel.TinyChat()); err != nil {
		t.Fatal(err)
	}
	return cfg, dirs, emb, chat
}

func byName(checks []health.Check) map[string]health.Check {
	out := map[string]health.Check{}
	for _, c := range checks {
		out[c.Name] = c
	}
	return out
}

func TestDoctorLoadsTheModels(t *testing.T) {
	cfg, dirs, _, _ := env(t)
	checks := byName(Run(context.Background(), cfg, dirs, Options{Load: true}))
	for _, n := range []string{"embedding model", "chat model"} {
		if c := checks[n]; c.Verdict != health.Pass || !strings.Contains(c.Detail, "loaded in") {
			t.Errorf("%s: %+v", n, c)
		}
	}
	// The first line names the build, as `cairn version` does.
	if c := checks["version"]; c.Verdict != health.Pass || !strings.HasPrefix(c.Detail, buildinfo.Read().String()+"; GPU backend: ") {
		t.Errorf("version: %+v", c)
	}
	// The knowledge base does not exist yet: a warning, and none is created.
	if c := checks["knowledge base"]; c.Verdict != health.Warn || !strings.Contains(c.Fix, "cairn index FOLDER") {
		t.Errorf("knowledge base: %+v", c)
	}
	if _, err := os.Stat(kb.Path(cfg, "default")); err == nil {
		t.Error("doctor created the knowledge base")
	}
}

func TestModelFaults(t *testing.T) {
	cfg, dirs, emb, chat := env(t)
	ctx := context.Background()

	// A chat model chosen as the embedding model, and the reverse.
	cfg.Embedding.Model, cfg.Generation.Model = chat, emb
	checks := byName(Run(ctx, cfg, dirs, Options{}))
	for _, n := range []string{"embedding model", "chat model"} {
		if c := checks[n]; c.Verdict != health.Fail || c.Code != fault.ModelWrongUse || !strings.Contains(c.Fix, "cairn models list") {
			t.Errorf("%s: %+v", n, c)
		}
	}
	e, err := core.Open(ctx, cfg, dirs, core.Options{NoKB: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.LoadEmbeddingModel(ctx); fault.CodeOf(err) != fault.ModelWrongUse {
		t.Errorf("Embedder with a chat model: %v", err)
	}

	// A model cut short: its header reads, llama.cpp refuses the rest.
	b, _ := os.ReadFile(emb)
	cut := filepath.Join(t.TempDir(), "cut.gguf")
	os.WriteFile(cut, b[:len(b)/2], 0o600)
	cfg.Embedding.Model, cfg.Generation.Model = cut, models.None
	c := byName(Run(ctx, cfg, dirs, Options{Load: true}))["embedding model"]
	if c.Verdict != health.Fail || c.Code != fault.ModelLoad || !strings.Contains(c.Detail, "not within the file bounds") ||
		!strings.Contains(c.Fix, "download it again") {
		t.Errorf("truncated model: %+v", c)
	}
}

// A bad network.allow entry stops every knowledge base from opening, so
// the doctor must not pass it: the settings fail to load with the entry
// named, and the network check fails on it too when given it.
func TestDoctorFailsABadAllowEntry(t *testing.T) {
	cfg, dirs, _, _ := env(t)
	os.MkdirAll(dirs.Config, 0o700)
	os.WriteFile(dirs.SettingsFile(), []byte(`{"network":{"mode":"online","allow":["example.test/path"]}}`), 0o600)
	_, loadErr := config.Load(dirs)
	checks := byName(Run(context.Background(), cfg, dirs, Options{KB: "default", ConfigErr: loadErr}))
	if s := checks["settings"]; s.Verdict != health.Fail || s.Code != fault.ConfigInvalid || !strings.Contains(s.Detail, `network.allow entry "example.test/path": not a host`) {
		t.Errorf("settings check %+v", s)
	}

	cfg.Network.Mode, cfg.Network.Allow = "online", []string{"docs.example.test", "example.test/path"}
	n := checkNetwork(cfg.Network)
	if n.Verdict != health.Fail || n.Code != fault.ConfigInvalid || !strings.Contains(n.Detail, `network.allow entry "example.test/path": not a host`) ||
		!strings.Contains(n.Fix, "network.allow") {
		t.Errorf("network check %+v", n)
	}
}

// TestDoctorMeasuresTheKnowledgeBasesDisk: free space is measured where
// the knowledge base in use lives, which --db may put on another disk than
// the data folder (issue 14, item 4); a folder not made yet is measured at
// its nearest parent.
func TestDoctorMeasuresTheKnowledgeBasesDisk(t *testing.T) {
	cfg, dirs, _, _ := env(t)
	elsewhere := t.TempDir()
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{DB: filepath.Join(elsewhere, "kb.db")}, elsewhere},
		{Options{DB: filepath.Join(elsewhere, "not", "yet", "kb.db")}, filepath.Join(elsewhere, "not", "yet")},
		{Options{KB: "work"}, filepath.Dir(kb.Path(cfg, "work"))},
	} {
		c := byName(Run(context.Background(), cfg, dirs, tc.opt))["disk space"]
		if c.Verdict == health.Fail || !strings.HasSuffix(c.Detail, " GB free for "+tc.want) {
			t.Errorf("%+v: disk space %+v, want the free space for %s", tc.opt, c, tc.want)
		}
	}
}

// With reranking on, doctor finds the reranker and, with --load, says what
// a pair costs and how many the budget reranks.
func TestDoctorChecksTheReranker(t *testing.T) {
	cfg, dirs, _, _ := env(t)
	if c, ok := byName(Run(context.Background(), cfg, dirs, Options{}))["reranker"]; ok && !cfg.Rerank.Enabled {
		t.Errorf("a reranker check with reranking off: %+v", c)
	}
	cfg.Rerank.Enabled = true
	if c := byName(Run(context.Background(), cfg, dirs, Options{}))["reranker"]; c.Verdict != health.Pass || !strings.Contains(c.Detail, "none: results keep the fused order") {
		t.Errorf("no reranker: %+v", c)
	}
	if err := testmodel.Write(filepath.Join(cfg.Paths.ModelsDir, "tiny-rerank.gguf"), testmodel.TinyReranker()); err != nil {
		t.Fatal(err)
	}
	c := byName(Run(context.Background(), cfg, dirs, Options{Load: true}))["reranker"]
	if c.Verdict != health.Pass || !strings.Contains(c.Detail, "tiny-reranker-test (bert, ") || !strings.Contains(c.Detail, "a pair here, so the 1.5s budget reranks ") {
		t.Errorf("reranker: %+v", c)
	}
}

// Poppler is required: the check passes with its version when every tool
// is on PATH, and fails naming each missing tool and what it is for.
func TestDoctorChecksPoppler(t *testing.T) {
	if c := checkPoppler(t.Context()); c.Verdict != health.Pass || !strings.HasPrefix(c.Detail, "poppler ") || c.Detail == "poppler " {
		t.Errorf("with poppler-utils installed: %+v", c)
	}
	// Only pdftotext on PATH: the four others are missing.
	dir := t.TempDir()
	real, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatalf("poppler-utils is a test dependency (make deps): %v", err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "pdftotext")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	c := checkPoppler(t.Context())
	want := "poppler-utils is missing pdfinfo (the title and page count), pdftoppm (scanned pages drawn for OCR, and the preview), " +
		"pdfimages (the resolution of a scanned page), pdftohtml (the outline (bookmarks) as headings); PDFs are read by the pure-Go fallback, which loses text on some"
	if c.Verdict != health.Fail || c.Detail != want || c.Code != "EXTRACT-007" || !strings.Contains(c.Fix, "apt-get install poppler-utils") {
		t.Errorf("without poppler's tools: %+v", c)
	}
}

// TestEveryNetworkModeIsDescribed walks the network gate's table through
// the settings' check and the doctor: every mode is accepted, and the
// doctor describes each as what it is (team mode was "maintenance mode").
func TestEveryNetworkModeIsDescribed(t *testing.T) {
	cfg, _, _, _ := env(t)
	for _, m := range netgate.Modes() {
		c := cfg
		c.Network.Mode = string(m)
		if err := c.Validate(); err != nil && strings.Contains(err.Error(), "network.mode") {
			t.Errorf("%s: refused by the settings' check: %v", m, err)
		}
		n := checkNetwork(c.Network)
		info := m.Info()
		if info.Notice == "" || !strings.Contains(info.Notice, string(m)) || info.Leaves && info.Reaches == "" {
			t.Errorf("%s: the table's row is incomplete: %+v", m, info)
		}
		if maint := strings.Contains(n.Detail, "maintenance"); maint != info.Unrestricted {
			t.Errorf("%s: doctor says %q", m, n.Detail)
		}
		if !info.Leaves && n.Verdict != health.Pass || m == netgate.Team && !strings.Contains(n.Detail, "cluster") {
			t.Errorf("%s: doctor says %+v", m, n)
		}
	}
}
