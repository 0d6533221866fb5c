package core

import (
	"context"
	"path/filepath"

	"cairn/core/domain"
	"cairn/resources"
)

// GuideDir is where the bundled user guide is installed.
func (e *Engine) GuideDir() string { return filepath.Join(e.Config().Paths.DataDir, "guide") }

// EnsureStarterKB gives a new, empty knowledge base something to search: the
// user guide is installed into the data folder and indexed. It does nothing
// when the knowledge base already has a folder, and reports whether it
// indexed.
func (e *Engine) EnsureStarterKB(ctx context.Context, progress chan<- domain.Progress) (bool, error) {
	empty, err := e.IsEmpty(ctx)
	// A team's cluster is fed by its indexer, never with this guide.
	if err != nil || !empty || e.team != nil {
		if progress != nil {
			close(progress)
		}
		return false, err
	}
	if err := resources.InstallGuide(e.GuideDir()); err != nil {
		if progress != nil {
			close(progress)
		}
		return false, err
	}
	_, err = e.IndexFolder(ctx, e.GuideDir(), progress)
	return err == nil, err
}
