package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// countingRenderer draws pages of size bytes and counts them.
type countingRenderer struct{ size int }

func (r countingRenderer) RenderPage(context.Context, string, int, int) ([]byte, error) {
	return make([]byte, r.size), nil
}

func TestPageCacheKeepsAFewPagesWithinItsBound(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.pdf")
	if err := os.WriteFile(path, []byte("%PDF"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newPageCache(3, 250)
	r := countingRenderer{size: 100}
	for _, page := range []int{1, 2, 1, 1} {
		if _, err := c.render(ctx, r, path, page); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.drawn(); n != 2 {
		t.Errorf("drew %d pages for pages 1, 2, 1, 1; want 2 (the rest from the cache)", n)
	}
	c.render(ctx, r, path, 3) // 300 bytes > 250: the oldest goes
	if pages, bytes := c.size(); pages != 2 || bytes != 200 {
		t.Errorf("cache holds %d pages, %d bytes; want 2 and 200", pages, bytes)
	}
	// An edited file is drawn again.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	c.render(ctx, r, path, 3)
	if n := c.drawn(); n != 4 {
		t.Errorf("drew %d pages after the file changed, want 4", n)
	}
	if _, err := c.render(ctx, r, filepath.Join(t.TempDir(), "gone.pdf"), 1); err == nil {
		t.Error("a missing file was drawn")
	}
}
