package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

func TestStatusBarReportsAndColoursTheNetworkGate(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	s := h.shell().Status
	h.until("the first report", func() bool { return s.Counts.Text != "" })
	if s.KB.Text != "default" || s.Counts.Text != "4 documents · 4 chunks · 3.0 MB" {
		t.Errorf("knowledge base %q, counts %q", s.KB.Text, s.Counts.Text)
	}
	if s.Models.Text != "Models: none (BM25, extractive answers)" {
		t.Errorf("models %q", s.Models.Text)
	}
	if !strings.HasPrefix(s.Memory.Text, "RAM ") || !strings.HasSuffix(s.Memory.Text, "MB") {
		t.Errorf("memory %q", s.Memory.Text)
	}
	for _, c := range []struct {
		mode  string
		color fyne.ThemeColorName
	}{{"offline", theme.ColorNameSuccess}, {"online", theme.ColorNameWarning}, {"admin", theme.ColorNameError}} {
		eng.locked(func() { eng.status.NetworkMode = c.mode })
		h.until("the gate to show "+c.mode, func() bool { return s.Gate.Text == "Network: "+c.mode })
		want := theme.Color(c.color)
		if s.GateBG.FillColor != want {
			t.Errorf("%s: badge colour %v, want %s %v", c.mode, s.GateBG.FillColor, c.color, want)
		}
	}
	eng.locked(func() {
		eng.status.Documents, eng.status.Chunks = 12, 340
		eng.status.EmbeddingModel = "all-MiniLM-L6-v2"
	})
	h.until("the refresh", func() bool { return strings.HasPrefix(s.Counts.Text, "12 documents · 340 chunks") })
	if !strings.HasPrefix(s.Models.Text, "Embedding: all-MiniLM-L6-v2 · ") {
		t.Errorf("models %q", s.Models.Text)
	}
	// The device the loaded models run on follows them.
	eng.locked(func() { eng.status.Device = "GPU: NVIDIA GeForce RTX 3060 (Vulkan0)" })
	h.until("the device", func() bool {
		return strings.HasSuffix(s.Models.Text, " · on GPU: NVIDIA GeForce RTX 3060 (Vulkan0)")
	})
	// A team cluster names itself; the counts are the cluster's.
	eng.locked(func() { eng.status.Store, eng.status.Team = "Weaviate at http://weaviate.example.test:8080", true })
	h.until("the store to show the cluster", func() bool { return s.KB.Text == "default · Weaviate at http://weaviate.example.test:8080" })
}

// notCut says whether a label has the width its text needs, so that
// nothing of it is replaced by an ellipsis.
func notCut(l *widget.Label) bool {
	need := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
	return l.Size().Width >= need-0.5
}

// At the smallest window the status bar says everything without an
// ellipsis when no model is loaded; at the default size, also with two
// models of typical names (longer ones end in an ellipsis).
func TestStatusBarFitsTheSmallestWindow(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	s := h.shell().Status
	h.until("the first report", func() bool { return s.Counts.Text != "" })
	h.win.w.Resize(smallestCanvas())
	h.frame()
	for _, l := range []*widget.Label{s.KB, s.Counts, s.Models, s.Memory} {
		if !notCut(l) {
			t.Errorf("%q is cut: %v wide, needs %v", l.Text, l.Size().Width, fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width+2*theme.InnerPadding())
		}
	}
	eng.locked(func() {
		eng.status.EmbeddingModel, eng.status.ChatModel = "nomic-embed-text-v1.5", "Qwen2.5-1.5B-Instruct"
	})
	h.until("the models", func() bool { return strings.Contains(s.Models.Text, "Qwen") })
	h.win.w.Resize(defaultSize)
	h.frame()
	if !notCut(s.Models) {
		t.Errorf("%q is cut: %v wide", s.Models.Text, s.Models.Size().Width)
	}
}
