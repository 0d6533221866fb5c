package desktop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// installed fakes exec.LookPath with a set of programs.
func installed(bins ...string) LookPath {
	return func(b string) (string, error) {
		if slices.Contains(bins, b) {
			return "/usr/bin/" + b, nil
		}
		return "", errors.New("not found")
	}
}

func TestViewerCommand(t *testing.T) {
	for _, c := range []struct {
		name  string
		path  string
		page  int
		label string // shown, never used to navigate
		look  LookPath
		want  []string
	}{
		// The physical page, whatever the printed label says: the PDF may
		// have no /PageLabels, and then evince would read "vii" or "12" as
		// another page.
		{"evince at the physical page, not the label", "/d/a.pdf", 7, "vii", installed("evince", "xdg-open"), []string{"evince", "--page-index=7", "/d/a.pdf"}},
		{"evince at the page number", "/d/a.pdf", 7, "", installed("evince"), []string{"evince", "--page-index=7", "/d/a.pdf"}},
		{"okular", "/d/a.PDF", 3, "", installed("okular", "xdg-open"), []string{"okular", "-p", "3", "/d/a.PDF"}},
		{"zathura", "/d/a.pdf", 3, "", installed("zathura"), []string{"zathura", "-P", "3", "/d/a.pdf"}},
		{"no page viewer", "/d/a.pdf", 3, "", installed("xdg-open"), []string{"xdg-open", "/d/a.pdf"}},
		{"text has no pages", "/d/a.md", 0, "", installed("evince", "xdg-open"), []string{"xdg-open", "/d/a.md"}},
		{"gio", "/d/a.md", 0, "", installed("gio"), []string{"gio", "open", "/d/a.md"}},
	} {
		got, err := ViewerCommand(c.path, c.page, c.look)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if _, err := ViewerCommand("/d/a.md", 0, installed()); err == nil {
		t.Error("no opener installed, but no error saying so")
	}
}

// A program that fails at once (xdg-open or gio with no viewer registered)
// is reported with what it said; one still running is a viewer, left alone.
func TestLaunchReportsAnEarlyFailure(t *testing.T) {
	ctx := context.Background()
	err := launch(ctx, []string{"sh", "-c", "echo 'gio: No application is registered as handling this file' >&2; exit 2"}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "No application is registered") {
		t.Errorf("failing opener: %v, want its message", err)
	}
	start := time.Now()
	if err := launch(ctx, []string{"sleep", "3"}, 100*time.Millisecond); err != nil {
		t.Errorf("viewer still running: %v", err)
	}
	if time.Since(start) > 2500*time.Millisecond { // the viewer runs 3 s; launch waits 100 ms
		t.Error("launch waited for the viewer to exit")
	}
	if err := launch(ctx, []string{"true"}, 5*time.Second); err != nil {
		t.Errorf("opener that succeeds: %v", err)
	}
}
