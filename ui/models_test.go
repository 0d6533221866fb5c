package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/humanize"
	"cairn/core/llm/testmodel"
	"cairn/core/netgate/netgatetest"
	"cairn/panels"
)

// minilmPath is where the catalogue's all-minilm-l6-v2 is on its host.
const minilmPath = "/second-state/All-MiniLM-L6-v2-Embedding-GGUF/resolve/main/all-MiniLM-L6-v2-Q8_0.gguf"

// modelServer serves a generated GGUF at the catalogue's path of
// all-minilm-l6-v2, as huggingface.co would, with Range requests; its
// first answer stops halfway and waits there until the client leaves, so
// that a test can pause a download in the middle.
type modelServer struct {
	data   []byte
	mu     sync.Mutex
	ranges []string
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != minilmPath {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	if first {
		w.Header().Set("Content-Length", fmt.Sprint(len(s.data)))
		w.Write(s.data[:len(s.data)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // held until the download is paused
		return
	}
	http.ServeContent(w, r, "model.gguf", time.Unix(0, 0), bytes.NewReader(s.data))
}

func (s *modelServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// serveModel serves a tiny embedding model as the catalogue's
// all-minilm-l6-v2 on 127.0.0.1.
func serveModel(t *testing.T) (*modelServer, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.gguf")
	if err := testmodel.Write(p, testmodel.Tiny()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	srv := &modelServer{data: data}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// modelRow is the Models dialog's row of the catalogue model name.
func modelRow(t *testing.T, e *panels.Engineering, name string) *panels.ModelRow {
	t.Helper()
	for _, r := range e.Models.Rows {
		if r.Name.Text == name {
			return r
		}
	}
	t.Fatalf("no row for %s in the Models dialog", name)
	return nil
}

// The Engineering tab's Models dialog lists the catalogue's models with
// their size and what they need, downloads one with progress, pauses and
// resumes it (the second request asks for the rest only), says its
// SHA-256, and switches to it; the window answers meanwhile.
func TestTheModelsDialogDownloadsPausesResumesAndUsesAModel(t *testing.T) {
	srv, base := serveModel(t)
	cfg, open := realEngine(t)
	cfg.Network.Catalog = base // 127.0.0.1: this computer, which the offline gate allows
	h := newHarnessWith(t, open, cfg)
	e := h.shell().Tuning
	h.until("the user guide", func() bool { return strings.HasPrefix(h.shell().IndexTab.State.Text, "Indexed the user guide") })
	h.shell().showTab(tabEngineering)
	h.until("the catalogue", func() bool { return !e.Download.Disabled() })
	test.Tap(e.Download)
	h.until("the models listed", func() bool { return e.Models != nil && len(e.Models.Rows) > 10 })
	kinds := map[string]bool{}
	for _, r := range e.Models.Rows {
		kinds[strings.SplitN(r.About.Text, " · ", 2)[0]] = true
	}
	for _, k := range []string{"embedding model (meaning search)", "reranker (orders the sources)", "chat model (writes answers)"} {
		if !kinds[k] {
			t.Errorf("no %s listed (%v)", k, kinds)
		}
	}
	row := modelRow(t, e, "all-minilm-l6-v2")
	if !strings.HasPrefix(row.About.Text, "embedding model (meaning search) · 25.0 MB · about 27.5 MB of memory") || row.Use.Visible() {
		t.Errorf("row %q, Use shown %v", row.About.Text, row.Use.Visible())
	}

	test.Tap(row.Download)
	half := int64(len(srv.data) / 2)
	h.until("half the file", func() bool {
		return row.Download.Text == "Pause" && strings.HasPrefix(row.Progress.Text, humanBytes(half)+" of ")
	})
	if row.Bar.Value <= 0 {
		t.Errorf("bar at %v with half the file in", row.Bar.Value)
	}
	// The window answers while the download waits on the network.
	h.shell().showTab(tabAsk)
	h.ask("how do I add a folder")
	q := h.shell().Query
	h.until("an answer meanwhile", func() bool { return len(q.Turns()) == 1 && q.CancelButton.Disabled() })
	if !strings.Contains(q.State.Text, "Answered") {
		t.Errorf("asked while a model downloads: %q", q.State.Text)
	}
	h.shell().showTab(tabEngineering)

	test.Tap(row.Download) // Pause
	h.until("paused", func() bool { return row.Download.Text == "Resume" })
	if !strings.HasPrefix(row.Progress.Text, "Paused") {
		t.Errorf("paused row says %q", row.Progress.Text)
	}
	part := filepath.Join(cfg.Paths.ModelsDir, "all-MiniLM-L6-v2-Q8_0.gguf.part")
	if st, err := os.Stat(part); err != nil || st.Size() != half {
		t.Fatalf("part file after a pause: %v (%v bytes of %d)", err, st, half)
	}

	test.Tap(row.Download) // Resume
	h.until("downloaded", func() bool { return row.Use.Visible() })
	sum := sha256.Sum256(srv.data)
	if want := "Downloaded (" + humanBytes(int64(len(srv.data))) + "). SHA-256 " + hex.EncodeToString(sum[:]); !strings.HasPrefix(row.Progress.Text, want) {
		t.Errorf("outcome %q, want it to start %q", row.Progress.Text, want)
	}
	if got := srv.requests(); len(got) != 2 || got[1] != fmt.Sprintf("bytes=%d-", half) {
		t.Errorf("requests %q: the resumed download did not ask for the rest only", got)
	}
	file := filepath.Join(cfg.Paths.ModelsDir, "all-MiniLM-L6-v2-Q8_0.gguf")
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, srv.data) {
		t.Fatalf("downloaded file: %v", err)
	}
	test.Tap(row.Use)
	h.until("the model in use", func() bool { return e.State.Text == "Now using all-MiniLM-L6-v2-Q8_0.gguf as the embedding model." })
	if e.Embedding.Selected != "all-MiniLM-L6-v2-Q8_0.gguf" {
		t.Errorf("embedding picker shows %q", e.Embedding.Selected)
	}
}

// Offline, the dialog says how to allow downloads, and a download is
// refused with the gate's fix without dialling.
func TestTheModelsDialogOfflineSaysHowToAllowIt(t *testing.T) {
	srv, base := serveModel(t)
	dialer := &netgatetest.Dialer{}
	dialer.Route("models.example.test:8080", strings.TrimPrefix(base, "http://"))
	home := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	cfg := config.Default("desktop")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir, cfg.Paths.KB = dirs.Data, filepath.Join(dirs.Data, "models"), "default"
	cfg.Network.Catalog, cfg.Network.Mode = "http://models.example.test:8080", "offline"
	open := func(ctx context.Context, kb string, cfg config.Config) (Engine, error) {
		return core.Open(ctx, cfg, dirs, core.Options{KB: kb, Write: true, Dial: dialer.Dial})
	}
	h := newHarnessWith(t, open, cfg)
	e := h.shell().Tuning
	test.Tap(e.Download)
	h.until("the models listed", func() bool { return e.Models != nil && len(e.Models.Rows) > 10 })
	if !e.Models.Note.Visible() || !strings.HasPrefix(e.Models.Note.Text, "The network gate is offline: downloads need it online.") {
		t.Errorf("note %q (shown %v)", e.Models.Note.Text, e.Models.Note.Visible())
	}
	row := modelRow(t, e, "all-minilm-l6-v2")
	test.Tap(row.Download)
	h.until("the refusal", func() bool { return strings.HasPrefix(row.Progress.Text, "Not downloaded:") })
	if !strings.Contains(row.Progress.Text, "refused a connection to models.example.test:8080") || !strings.Contains(row.Progress.Text, "online") {
		t.Errorf("refusal %q", row.Progress.Text)
	}
	if calls := dialer.Calls(); len(calls) != 0 || len(srv.requests()) != 0 {
		t.Errorf("dialled %v", calls)
	}

	// Online, the same click downloads.
	e.Gate.SetSelected("online")
	test.Tap(button(t, h.overlay(), "Switch to online"))
	h.until("online", func() bool { return !e.Models.Note.Visible() })
}

func humanBytes(n int64) string { return humanize.Bytes(n) }
