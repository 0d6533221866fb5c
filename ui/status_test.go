package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

func TestStatusBarReportsAndColoursTheNetworkGate(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	s := h.shell().Status
	h.until("the first report", func() bool { return s.Counts.Text != "" })
	if s.KB.Text != "default" || s.Counts.Text != "4 documents · 4 chunks · 3.0 MB on disk" {
		t.Errorf("knowledge base %q, counts %q", s.KB.Text, s.Counts.Text)
	}
	if s.Models.Text != "Embedding: none (BM25 only) · Chat: none (extractive answers)" {
		t.Errorf("models %q", s.Models.Text)
	}
	if !strings.HasPrefix(s.Memory.Text, "Memory ") || !strings.HasSuffix(s.Memory.Text, "MB") {
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
}
