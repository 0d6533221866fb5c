package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cairn/core/extract"
)

// TestLargeFilesAreExtractedOneAtATime: extractions at once are bounded by
// their files' sizes (extractBytes), so two large files never hold their
// text in memory side by side, while small files still go beside a large
// one (issue 14, item 10).
func TestLargeFilesAreExtractedOneAtATime(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, 5<<20) // two of them exceed extractBytes
	for i := range 4 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("big%d.big", i)), big, 0o644)
	}
	for i := range 12 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("small%02d.big", i)), []byte("small"), 0o644)
	}
	// A small extraction waits for the first large one to start, and a
	// large one, while small files remain, until one of them has been
	// extracted beside it: the workers meet whatever the scheduler (or the
	// race detector) does to their timing. The waits are bounded so that
	// an indexer that holds small files back fails the test instead of
	// hanging it.
	var mu sync.Mutex
	var bigNow, smallBesideBig, mostBig, smallLeft = 0, 0, 0, 12
	met := make(chan struct{}, 12)
	bigStarted := make(chan struct{})
	var startOnce sync.Once
	reg := extract.NewRegistry(extract.DefaultLimits())
	reg.Register(extract.ExtractorFunc(func(ctx context.Context, f extract.File, lim extract.Limits) (*extract.Document, error) {
		isBig := f.Size > 1<<20
		if isBig {
			startOnce.Do(func() { close(bigStarted) })
		} else {
			select {
			case <-bigStarted:
			case <-time.After(10 * time.Second):
			}
		}
		mu.Lock()
		if isBig {
			bigNow++
			mostBig = max(mostBig, bigNow)
		} else {
			smallLeft--
			if bigNow > 0 {
				smallBesideBig++
				met <- struct{}{}
			}
		}
		wait := isBig && smallLeft > 0
		mu.Unlock()
		if wait {
			select {
			case <-met:
			case <-time.After(10 * time.Second):
			}
		}
		mu.Lock()
		if isBig {
			bigNow--
		}
		mu.Unlock()
		return &extract.Document{Format: "test", Text: "text of " + f.Name}, nil
	}), ".big")
	_, db := newIndexer(t, Options{})
	ix := New(db, reg, Options{Workers: 4})
	run, _ := runCollect(t, ix, dir)
	if run.FilesIndexed != 16 || mostBig != 1 || smallBesideBig == 0 {
		t.Errorf("indexed %d of 16; at most %d large files extracted at once (want 1); %d small files beside a large one (want some)",
			run.FilesIndexed, mostBig, smallBesideBig)
	}
}
