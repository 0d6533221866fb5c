package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"cairn/core/domain"
	"cairn/core/extract"
)

// While a large file is read, the progress reports it as the file being
// read, every heartbeat, though small files start and end beside it: the
// line stayed on the last small file while a big PDF was read, and no
// report came while it was read alone.
func TestTheFileBeingReadIsTheLargeOne(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.slow"), make([]byte, 5<<20), 0o644)
	for i := range 20 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("small%02d.slow", i)), []byte("small"), 0o644)
	}
	release := make(chan struct{})
	reg := extract.NewRegistry(extract.DefaultLimits())
	reg.Register(extract.ExtractorFunc(func(ctx context.Context, f extract.File, _ extract.Limits) (*extract.Document, error) {
		if f.Size > 1<<20 {
			select { // read until the test has seen what it needs
			case <-release:
			case <-ctx.Done():
			}
		}
		return &extract.Document{Format: "test", Text: "text of " + f.Name}, nil
	}), ".slow")
	_, db := newIndexer(t, Options{})
	ix := New(db, reg, Options{Workers: 2})
	progress := make(chan domain.Progress, 64)
	big := filepath.Join(dir, "big.slow")
	done := make(chan error, 1)
	go func() { _, err := ix.Run(context.Background(), dir, progress); done <- err }()
	smallDone, beats := 0, 0
	for p := range progress {
		if p.File != nil && p.File.Path != big {
			smallDone++
		}
		// Once every small file is read, reports keep coming while the
		// large one is read alone, naming it.
		if smallDone == 20 && p.File == nil && p.Phase == domain.PhaseIndexing {
			if p.Current != big {
				t.Errorf("while the large file is read alone, the file being read is %q", p.Current)
			}
			if beats++; beats == 2 {
				close(release)
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if beats < 2 {
		t.Errorf("%d reports while the large file was read alone, want a heartbeat", beats)
	}
}
