package ui

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/png" // pdftoppm draws PNGs
	"os"
	"sync"

	"cairn/core/search"
	"cairn/panels"
)

// previewPageWidth is the width pages are drawn at, in pixels.
const previewPageWidth = 640

// showSource builds a passage's preview in a job: the text, and for a PDF
// the page drawn by pdftoppm (a few hundred milliseconds), which never runs
// on the window's goroutine. A newer click cancels the preview on its way.
func (w *queryWorker) showSource(ctx context.Context, p *search.Passage) {
	if w.previewStop != nil {
		w.previewStop()
	}
	pctx, stop := context.WithCancel(ctx)
	w.previewStop = stop
	w.jobs.spawn(func() {
		defer stop()
		ev := panels.PreviewShown{Passage: p}
		var wg sync.WaitGroup
		if p.Format == "pdf" && p.Page > 0 {
			wg.Add(1)
			go func() { // the page is drawn while the text is read
				defer wg.Done()
				png, err := w.pages.render(pctx, w.eng, p.Path, p.Page)
				if err == nil {
					ev.Image, _, err = image.Decode(bytes.NewReader(png))
				}
				ev.ImageErr = err
			}()
		}
		ev.Preview, ev.Err = w.eng.Preview(pctx, p)
		wg.Wait()
		if pctx.Err() != nil {
			return // replaced by a newer click, or the window is closing
		}
		send(ctx, w.notices, panels.QueryEvent(ev))
	})
}

// openExternal opens a file in the desktop's viewer, or its folder in the
// file manager, and says so when it could not.
func (w *queryWorker) openExternal(ctx context.Context, path string, folder bool, open func(context.Context) error) {
	w.jobs.spawn(func() {
		if err := open(ctx); err != nil && ctx.Err() == nil {
			send(ctx, w.notices, panels.QueryEvent(panels.OpenFailed{Path: path, Folder: folder, Err: err}))
		}
	})
}

// pageCache keeps the last few drawn pages, so that going back and forth
// between citations does not run pdftoppm again. It is bounded in pages
// and in bytes; a page is keyed by the file's size and time of change, so
// an edited file is drawn again.
type pageCache struct {
	mu       sync.Mutex
	maxPages int
	maxBytes int
	bytes    int
	order    *list.List // of *cachedPage, most recent first
	byKey    map[string]*list.Element
	renders  int // pages drawn, for tests
}

type cachedPage struct {
	key string
	png []byte
}

func newPageCache(maxPages, maxBytes int) *pageCache {
	return &pageCache{maxPages: maxPages, maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// pageRenderer draws a PDF page (core.Engine).
type pageRenderer interface {
	RenderPage(ctx context.Context, path string, page, width int) ([]byte, error)
}

func (c *pageCache) render(ctx context.Context, r pageRenderer, path string, page int) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot draw %s: %w", path, err)
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%d", path, page, st.Size(), st.ModTime().UnixNano())
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cachedPage).png, nil
	}
	c.mu.Unlock()
	png, err := r.RenderPage(ctx, path, page, previewPageWidth)
	if err != nil {
		return nil, err
	}
	if len(png) == 0 {
		return nil, errors.New("pdftoppm drew nothing")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.renders++
	if _, ok := c.byKey[key]; !ok && len(png) <= c.maxBytes {
		c.byKey[key] = c.order.PushFront(&cachedPage{key, png})
		c.bytes += len(png)
		for c.order.Len() > c.maxPages || c.bytes > c.maxBytes {
			old := c.order.Remove(c.order.Back()).(*cachedPage)
			delete(c.byKey, old.key)
			c.bytes -= len(old.png)
		}
	}
	return png, nil
}

func (c *pageCache) drawn() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renders
}

func (c *pageCache) size() (pages, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}
