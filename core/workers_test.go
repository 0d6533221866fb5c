package core

import (
	"context"
	"path/filepath"
	"testing"

	"cairn/core/config"
)

// The window's count of extraction workers (Options.IndexWorkers) applies
// while the settings leave the number to Cairn, and it is no setting:
// Config, which the window's settings writer saves, never shows it.
func TestIndexWorkersApplyOnlyWhenTheSettingsLeaveItToCairn(t *testing.T) {
	home := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	cfg := config.Default("")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir = dirs.Data, filepath.Join(dirs.Data, "models")
	open := func(workers int) *Engine {
		e, err := Open(context.Background(), cfg, dirs, Options{NoKB: true, IndexWorkers: workers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}

	e := open(3)
	if got := e.workers(e.Config()); got != 3 {
		t.Errorf("index.workers 0, the window's 3: %d workers", got)
	}
	if got := e.Config().Indexing.Workers; got != 0 {
		t.Errorf("the settings show index.workers %d; the window's count must not reach them", got)
	}
	set := e.Config()
	set.Indexing.Workers = 2
	if got := e.workers(set); got != 2 {
		t.Errorf("index.workers 2 set by the person: %d workers", got)
	}
	if got := open(0).workers(cfg); got != 0 {
		t.Errorf("no count from the window: %d workers, want 0 (ingest's one per CPU)", got)
	}
}
