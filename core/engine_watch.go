package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"cairn/core/ingest"
	"cairn/core/watch"
)

// Watch follows folder until ctx is done and calls changed after each
// settled burst of changes (debounce of quiet; 0 means watch's default)
// with the paths that changed. It skips what indexing skips (hidden files,
// index.ignore patterns) and Cairn's own data folder, so that writing the
// knowledge base never wakes it. It returns ctx.Err() when stopped, or why
// folder cannot be watched. The window and `cairn index --watch` both
// re-index on changed.
func (e *Engine) Watch(ctx context.Context, folder string, debounce time.Duration, changed func(paths []string)) error {
	c := e.Config()
	opt := ingest.Options{IncludeHidden: c.Indexing.IncludeHidden, Ignore: c.Indexing.Ignore}
	data := c.Paths.DataDir
	kb := "" // an Engine of Options.NoKB (a team run that records nowhere) has none
	if e.db != nil {
		kb = e.Path()
	}
	skip := func(path string, _ bool) bool {
		if opt.Ignored(filepath.Base(path)) || kb != "" && strings.HasPrefix(path, kb) {
			return true
		}
		return data != "" && (path == data || strings.HasPrefix(path, data+string(filepath.Separator)))
	}
	batches := make(chan []string)
	errc := make(chan error, 1)
	go func() { errc <- watch.Watch(ctx, folder, watch.Options{Debounce: debounce, Skip: skip}, batches) }() // waited for below
	for {
		select {
		case b := <-batches:
			changed(b)
		case err := <-errc:
			return err
		}
	}
}

// WatchedFolders returns the folders of the knowledge base the window
// watches (every surface reads them: `cairn status`, the API's folders).
func (e *Engine) WatchedFolders(ctx context.Context) ([]string, error) {
	if e.db == nil {
		return nil, nil
	}
	return e.db.WatchedFolders(ctx)
}

// SetWatchedFolders records the folders the window watches, in the
// knowledge base.
func (e *Engine) SetWatchedFolders(ctx context.Context, folders []string) error {
	if e.db == nil {
		return nil
	}
	if err := e.db.SetWatchedFolders(ctx, folders); err != nil {
		return fmt.Errorf("remember the watched folders: %w", err)
	}
	return nil
}
