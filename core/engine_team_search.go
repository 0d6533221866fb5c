package core

import (
	"context"
	"sync"

	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/netgate"
	"cairn/core/search"
	"cairn/core/teamsearch"
)

// teamConn is the team cluster an Engine searches (store.backend
// weaviate): connected on first use, so that opening the window or a
// command does not wait for the network, and again after a failure.
type teamConn struct {
	mu sync.Mutex
	ts *teamsearch.Store
}

// cluster is the team cluster as core/search reads it.
func (e *Engine) cluster(ctx context.Context) (*teamsearch.Store, error) {
	e.team.mu.Lock()
	defer e.team.mu.Unlock()
	if e.team.ts != nil {
		return e.team.ts, nil
	}
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return nil, err
	}
	e.team.ts = teamsearch.New(ts, teamsearch.Options{Folders: e.Config().Store.Folders})
	return e.team.ts, nil
}

// searcher searches the store in use: the knowledge base file with its
// in-memory indexes, or the team cluster.
func (e *Engine) searcher(ctx context.Context, qe search.QueryEmbedder) (*search.Searcher, error) {
	if e.team == nil {
		return search.New(e.db, qe, e.vix).WithKeywordIndex(e.kix), nil
	}
	ts, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	return search.NewOver(ts, qe), nil
}

// passageReader reads passages by id and by file: *store.DB and
// *teamsearch.Store are both.
type passageReader interface {
	Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error)
	DocumentChunks(ctx context.Context, path string) ([]domain.ChunkInfo, error)
}

// passages reads the passages of the store in use.
func (e *Engine) passages(ctx context.Context) (passageReader, error) {
	if e.team == nil {
		return e.db, nil
	}
	ts, err := e.cluster(ctx)
	if err != nil {
		return nil, err // not a nil *teamsearch.Store in an interface
	}
	return ts, nil
}

// vectorModel is the model of the stored vectors of the store in use.
func (e *Engine) vectorModel(ctx context.Context) (string, int, error) {
	if e.team == nil {
		return e.db.VectorModel(ctx)
	}
	ts, err := e.cluster(ctx)
	if err != nil {
		return "", 0, err
	}
	return ts.Team().VectorModel(ctx)
}

// storeName is the store searches read, as the status bar names it.
func (e *Engine) storeName() string {
	if e.team == nil {
		return "SQLite"
	}
	return "Weaviate at " + netgate.RedactURL(e.Config().Store.URL)
}

// teamStatus is st with the cluster's documents, chunks, vector model and
// chunks embedded with it (as the cluster records them:
// teamstore.Store.EmbeddedChunks).
// The local knowledge base's own counts (issues, folders, the last run of
// cairn index on this computer) stay.
func (e *Engine) teamStatus(ctx context.Context, st kb.Status) (kb.Status, error) {
	st.Store, st.Team = e.storeName(), true
	ts, err := e.cluster(ctx)
	if err != nil {
		return st, err
	}
	docs, chunks, err := ts.Team().Counts(ctx)
	if err != nil {
		return st, err
	}
	model, dim, err := ts.Team().VectorModel(ctx)
	if err != nil {
		return st, err
	}
	vectors, err := ts.Team().EmbeddedChunks(ctx, model)
	if err != nil {
		return st, err
	}
	st.Documents, st.Chunks, st.VectorModel, st.VectorDim, st.Vectors = docs, chunks, model, dim, vectors
	return st, nil
}

// teamNote is what a search over the cluster must say about it: that its
// keyword index may miss the best passages (teamstore.BlockMaxWAND).
func (e *Engine) teamNote() string {
	if e.team == nil {
		return ""
	}
	e.team.mu.Lock()
	defer e.team.mu.Unlock()
	if e.team.ts == nil || !e.team.ts.Team().BlockMaxWAND() {
		return ""
	}
	return "the team cluster's keyword index is BlockMax WAND's, which can miss the best passages in Weaviate 1.35: " +
		"its nodes should run with USE_INVERTED_SEARCHABLE=false, set before Cairn's classes were created (docs/team.md)"
}

// countInCluster sets the files and chunks of folders, folders of this
// computer, to what the team cluster holds of them. When the cluster
// cannot say, the local counts stay (none: the local knowledge base holds
// no documents of them) and the log says why.
func (e *Engine) countInCluster(ctx context.Context, folders []domain.Folder) {
	if len(folders) == 0 {
		return
	}
	ts, err := e.cluster(ctx)
	var sizes []domain.FolderSize
	if err == nil {
		sizes, err = ts.Team().Folders(ctx)
	}
	if err != nil {
		e.log.Warn("count the folders' files in the team cluster", "err", err)
		return
	}
	byName := map[string]domain.FolderSize{}
	for _, s := range sizes {
		byName[s.Folder] = s
	}
	for i, f := range folders {
		s := byName[e.TeamFolderName(f.Path)]
		folders[i].Documents, folders[i].Chunks = s.Files, s.Chunks
	}
}
