package panels

import (
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/domain"
	"cairn/core/humanize"
	"cairn/core/netgate"
)

// StatusReport is what the status bar shows; the status worker sends one
// every few seconds.
type StatusReport struct {
	KB             string // knowledge base file
	Cluster        string // the team cluster searches read ("Weaviate at URL"); "" for the file (SQLite)
	Documents      int
	Chunks         int
	Vectors        int
	Bytes          int64 // on disk
	EmbeddingModel string
	ChatModel      string
	// Device is where the loaded models run ("CPU", "GPU: … (Vulkan0)");
	// "" while none is loaded.
	Device      string
	NetworkMode string // offline, team, online or admin
	Memory      int64  // resident memory of the process
	API         string // 127.0.0.1:PORT while the window serves; "" otherwise
	LastRun     *domain.Run
	Err         error

	// Meaning says how much meaning search covers while embeddings are
	// still being computed ("meaning search 45 %"); "" when complete.
	Meaning string
}

// StatusBar is the strip along the bottom of the window: knowledge base (and
// the team cluster, when searches read one), documents, chunks, size on
// disk, models, the network gate's mode
// (colour-coded: offline green, team and online amber, admin red) and memory.
type StatusBar struct {
	KB     *widget.Label
	Counts *widget.Label
	Models *widget.Label
	Gate   *canvas.Text // on the mode's colour
	Memory *widget.Label
	API    *widget.Label // "API on 127.0.0.1:PORT", hidden while the window does not serve

	GateBG  *canvas.Rectangle // the mode's colour behind Gate
	content fyne.CanvasObject
	mode    string
}

// NewStatusBar builds an empty status bar.
func NewStatusBar() *StatusBar {
	s := &StatusBar{
		KB:     widget.NewLabel("Opening…"),
		Counts: widget.NewLabel(""),
		Models: widget.NewLabel(""),
		Gate:   canvas.NewText("", color.White),
		Memory: widget.NewLabel(""),
		API:    widget.NewLabel(""),
		GateBG: canvas.NewRectangle(color.Transparent),
	}
	s.KB.TextStyle.Bold = true
	s.Models.Truncation = fyne.TextTruncateEllipsis
	s.Gate.TextStyle.Bold = true
	s.Gate.Alignment = fyne.TextAlignCenter
	s.GateBG.CornerRadius = 4
	s.API.Hide()
	gate := container.NewStack(s.GateBG, container.NewPadded(s.Gate))
	s.content = container.NewBorder(widget.NewSeparator(), nil,
		container.NewHBox(s.KB, s.Counts), container.NewHBox(s.API, s.Memory, gate), s.Models)
	return s
}

// Content is the bar's root object.
func (s *StatusBar) Content() fyne.CanvasObject { return s.content }

// GateMode is the network mode shown.
func (s *StatusBar) GateMode() string { return s.mode }

// GateColor is the badge's colour name: success (offline), warning (team
// and online, which leave this computer) or error (admin, and anything
// unknown).
func GateColor(mode string) fyne.ThemeColorName {
	switch info := netgate.Mode(mode).Info(); {
	case !info.Leaves:
		return theme.ColorNameSuccess
	case !info.Unrestricted:
		return theme.ColorNameWarning
	default:
		return theme.ColorNameError
	}
}

// gateInk is the text colour on the gate badge.
func gateInk(mode string) fyne.ThemeColorName {
	switch GateColor(mode) {
	case theme.ColorNameSuccess:
		return theme.ColorNameForegroundOnSuccess
	case theme.ColorNameWarning:
		return theme.ColorNameForegroundOnWarning
	default:
		return theme.ColorNameForegroundOnError
	}
}

// Apply shows a report; call it on the window's goroutine.
func (s *StatusBar) Apply(r StatusReport) {
	if r.Err != nil {
		s.Counts.SetText("status unavailable: " + r.Err.Error())
		return
	}
	// Only what changed is set again: every refresh costs the window a
	// repaint, and a label's new width a layout of the whole window.
	// The knowledge base file's name, which a cluster follows: the file
	// then keeps this person's conversations, the cluster the documents.
	// (The smallest window has no room to name SQLite too.)
	kb := strings.TrimSuffix(filepath.Base(r.KB), ".db")
	if r.Cluster != "" {
		kb += " · " + r.Cluster
	}
	setText(s.KB, kb)
	counts := []string{plural(r.Documents, "document", "documents"), plural(r.Chunks, "chunk", "chunks")}
	switch {
	case r.Meaning != "":
		counts = append(counts, r.Meaning)
	case r.Vectors > 0:
		counts = append(counts, plural(r.Vectors, "vector", "vectors"))
	}
	counts = append(counts, humanize.Bytes(r.Bytes))
	setText(s.Counts, strings.Join(counts, " · "))
	models := modelsText(r.EmbeddingModel, r.ChatModel)
	if r.Device != "" {
		models += " · on " + r.Device
	}
	setText(s.Models, models)
	setText(s.Memory, "RAM "+humanize.Bytes(r.Memory))
	if r.API == "" {
		s.API.Hide()
	} else {
		setText(s.API, "API on "+r.API)
		s.API.Show()
	}
	s.mode = r.NetworkMode
	s.Gate.Text = "Network: " + r.NetworkMode
	s.Gate.Refresh()
	s.GateBG.FillColor = theme.Color(GateColor(r.NetworkMode))
	s.GateBG.Refresh()
	s.Gate.Color = theme.Color(gateInk(r.NetworkMode))
	s.Gate.Refresh()
}

// modelsText names the loaded models, short enough that the bar fits the
// window's smallest width when none is loaded (a model's file name may
// still be cut, with an ellipsis).
func modelsText(emb, chat string) string {
	switch {
	case emb == "" && chat == "":
		return "Models: none (BM25, extractive answers)"
	case emb == "":
		return "Embedding: none (BM25 only) · Chat: " + chat
	case chat == "":
		return "Embedding: " + emb + " · Chat: none (extractive)"
	}
	return "Embedding: " + emb + " · Chat: " + chat
}
