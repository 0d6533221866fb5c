package core

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cairn/core/domain"
	"cairn/core/search"
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

// guideFolders are the guide's folder as its files' paths begin, each
// ending with a separator: GuideDir as indexed (IndexFolder keeps the
// path it is given, links and all) and, when a symbolic link leads there
// (a data folder moved elsewhere and linked back), the folder it resolves
// to. nil over a team's cluster, into which the guide is never indexed.
func (e *Engine) guideFolders() []string {
	if e.team != nil {
		return nil
	}
	dir, err := filepath.Abs(e.GuideDir())
	if err != nil {
		return nil
	}
	sep := string(filepath.Separator)
	out := []string{strings.TrimSuffix(dir, sep) + sep}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		out = append(out, strings.TrimSuffix(real, sep)+sep)
	}
	return out
}

// leavesOutGuide reports whether f's question is asked without the guide:
// its own filter (no-guide) or the setting retrieval.include_guide false.
func (e *Engine) leavesOutGuide(f domain.Filter) bool {
	return f.NoGuide || !e.Config().Retrieval.IncludeGuide
}

// withGuide applies the guide's two rules to a search: left out, its
// folders join the filter's Without, so that retrieval never sees it;
// else its passages rank below the person's own that answer as well
// (search.Request.Guide). Every surface's search and answer passes here.
// A knowledge base without the guide gets no filter: a filter costs the
// keyword search its in-memory index (search.sqliteStore.keywordIndex).
func (e *Engine) withGuide(ctx context.Context, req search.Request) search.Request {
	g := e.guideFolders()
	if g == nil {
		return req
	}
	if !e.leavesOutGuide(req.Filter) {
		req.Guide = g
		return req
	}
	req.Guide = nil
	if held, err := e.holdsGuide(ctx, g); held || err != nil { // in doubt, left out
		req.Filter.Without = withoutFolders(req.Filter.Without, g)
	}
	return req
}

// withoutFolders is without with the folders of g it lacks, in a new
// slice (a request's filter is shared with its copies).
func withoutFolders(without, g []string) []string {
	out := slices.Clone(without)
	for _, p := range g {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// HoldsGuide reports whether the knowledge base may hold the bundled
// guide: a folder indexed at GuideDir, inside it or around it. It says
// whether the window's filter that leaves the guide out has anything to
// leave out. Always false over a team's cluster.
func (e *Engine) HoldsGuide(ctx context.Context) (bool, error) {
	g := e.guideFolders()
	if g == nil {
		return false, nil
	}
	return e.holdsGuide(ctx, g)
}

func (e *Engine) holdsGuide(ctx context.Context, g []string) (bool, error) {
	folders, err := e.db.FolderPaths(ctx)
	if err != nil {
		return false, fmt.Errorf("the knowledge base's folders: %w", err)
	}
	sep := string(filepath.Separator)
	for _, f := range folders {
		f = strings.TrimSuffix(f, sep) + sep
		for _, p := range g {
			if strings.HasPrefix(f, p) || strings.HasPrefix(p, f) {
				return true, nil
			}
		}
	}
	return false, nil
}
