// Package migrate moves a knowledge base between the SQLite store and a
// team's Weaviate cluster (`cairn migrate --to weaviate`, `--to sqlite`),
// without extracting, chunking or embedding again: documents, chunks and
// vectors are copied as they are stored, with the vector model's name.
//
// Both directions are idempotent and resumable, one document at a time: the
// cluster's object ids are fixed by folder, path and chunk number, and a
// document whose fingerprint (content hash) the destination already holds
// is skipped, so a migration stopped half-way is finished by running it
// again. Neither removes anything from the destination.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"cairn/core/domain"
	"cairn/core/ingest"
	"cairn/core/store"
	"cairn/core/teamstore"
)

// Progress reports one document moved or found already there.
type Progress struct {
	Done, Total int    // documents
	Path        string // the document
	Written     bool   // false: the destination held it already
	Chunks      int    // its chunks
}

// Summary is what a migration did.
type Summary struct {
	Folders   int
	Documents int // in the source
	Written   int // copied to the destination
	Unchanged int // already there
	Chunks    int // chunks written
	Vectors   int // vectors written
	Model     string
	Dim       int
}

// Options name the folder and who migrates.
type Options struct {
	// As is the folder's name in the cluster when the knowledge base has
	// one folder (to weaviate), or the folder the cluster's one folder is
	// under on this computer (to sqlite). "" keeps the name: a folder's
	// absolute path, as `cairn index` names it by default.
	As string
	// Holder names this migration to an indexer of the same folder, which
	// is refused while it runs.
	Holder string
	// LeaseTTL is how long a folder's lease lasts unless renewed; default
	// 2 minutes.
	LeaseTTL time.Duration
	// Dead reports whether a folder's holder is known to have stopped, as
	// ingest.Team.Dead.
	Dead func(holder string) bool
	// Progress, when not nil, is called after each document.
	Progress func(Progress)
}

func (o Options) report(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// ModelMismatchError refuses a migration between stores whose vectors come
// from different models: they are never mixed.
type ModelMismatchError struct {
	From, To       string // the stores, as a person names them
	FromID, ToID   string
	FromDim, ToDim int
}

func (e *ModelMismatchError) Error() string {
	side := func(store, id string, dim int) string {
		if id == "" {
			return store + " has no vectors (keyword search only)"
		}
		return fmt.Sprintf("%s holds vectors of the embedding model %s (%d dimensions)", store, id, dim)
	}
	return side(e.From, e.FromID, e.FromDim) + " and " + side(e.To, e.ToID, e.ToDim) + ": a knowledge base's vectors are never mixed; " +
		"migrate into an empty knowledge base (or collection), or index one of them again with the other's model"
}

// ToTeam copies db's documents, chunks and vectors into ts. Each folder is
// held with the indexer's lease while it is copied, so `cairn index` does
// not feed it at the same time.
func ToTeam(ctx context.Context, db *store.DB, ts *teamstore.Store, opt Options) (Summary, error) {
	var sum Summary
	model, dim, err := db.VectorModel(ctx)
	if err != nil {
		return sum, err
	}
	cmodel, cdim, err := ts.VectorModel(ctx)
	if err != nil {
		return sum, err
	}
	switch {
	case cmodel != "" && (cmodel != model || cdim != dim):
		// A keyword-only knowledge base too: the cluster could not embed
		// its chunks later, as SQLite does.
		return sum, &ModelMismatchError{From: "the knowledge base " + db.Path(), To: "the team cluster", FromID: model, FromDim: dim, ToID: cmodel, ToDim: cdim}
	case model != "":
		if n, err := db.CountWithoutVectors(ctx); err != nil {
			return sum, err
		} else if n > 0 {
			return sum, fmt.Errorf("%d chunks of %s have no vectors of %s yet: run `cairn index` to embed them, then migrate", n, db.Path(), model)
		}
		if cmodel == "" {
			if err := ts.SetVectorModel(ctx, model, dim); err != nil {
				return sum, err
			}
		}
	}
	sum.Model, sum.Dim = model, dim
	folders, err := db.Folders(ctx)
	if err != nil {
		return sum, err
	}
	if opt.As != "" && len(folders) != 1 {
		return sum, fmt.Errorf("--as names one folder, and %s holds %d: migrate without --as (each folder keeps its path as its name)", db.Path(), len(folders))
	}
	docs, err := db.Documents(ctx, 0)
	if err != nil {
		return sum, err
	}
	sum.Folders, sum.Documents = len(folders), len(docs)
	done := 0
	for _, f := range folders {
		name := filepath.ToSlash(f.Path)
		if opt.As != "" {
			name = opt.As
		}
		var mine []store.Document
		for _, d := range docs {
			if d.FolderID == f.ID {
				mine = append(mine, d)
			}
		}
		err := holding(ctx, ts, name, opt, func(ctx context.Context) error {
			return folderToTeam(ctx, db, ts, f, name, mine, model, opt, &sum, &done)
		})
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func folderToTeam(ctx context.Context, db *store.DB, ts *teamstore.Store, f domain.Folder, name string, docs []store.Document,
	model string, opt Options, sum *Summary, done *int) error {
	states, err := ts.FileStates(ctx, name)
	if err != nil {
		return err
	}
	// A folder written keyword-only (by `cairn index` without a model)
	// gets every file again, with its vectors.
	rewrite := false
	if model != "" {
		fm, err := ts.FolderVectorModel(ctx, name)
		if err != nil {
			return err
		}
		rewrite = fm != model
	}
	for _, d := range docs {
		rel, err := filepath.Rel(f.Path, d.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("document %s is not under its folder %s in %s", d.Path, f.Path, db.Path())
		}
		rel = filepath.ToSlash(rel)
		*done++
		if st, ok := states[rel]; ok && !rewrite && st.Hash == d.Hash {
			sum.Unchanged++
			opt.report(Progress{Done: *done, Total: sum.Documents, Path: d.Path, Chunks: st.Chunks})
			continue
		}
		chunks, vecs, err := db.DocumentContent(ctx, d.ID)
		if err != nil {
			return fmt.Errorf("read %s from %s: %w", d.Path, db.Path(), err)
		}
		td := teamstore.Document{Folder: name, Path: rel, Size: d.Size, MTimeNS: d.MTimeNS, Hash: d.Hash, Title: d.Title, Format: d.Format,
			IndexedAt: d.IndexedAt, IndexedBy: opt.Holder}
		if err := ts.PutDocument(ctx, td, chunks, vecs); err != nil {
			return err
		}
		sum.Written++
		sum.Chunks += len(chunks)
		sum.Vectors += len(vecs)
		opt.report(Progress{Done: *done, Total: sum.Documents, Path: d.Path, Written: true, Chunks: len(chunks)})
	}
	if err := folderExtractors(ctx, db, ts, name, len(states) == 0); err != nil {
		return err
	}
	if model != "" {
		// Every file of the folder has the model's vectors: `cairn index`
		// need not write them again.
		return ts.SetFolderVectorModel(ctx, name, model)
	}
	return nil
}

// folderExtractors records which extractor versions read the cluster
// folder's files (ingest.ExtractorChanges): the knowledge base's, when the
// folder held nothing before or was read by the same; none otherwise, so
// that the next `cairn index` reads again whatever may be stale.
func folderExtractors(ctx context.Context, db *store.DB, ts *teamstore.Store, name string, wasEmpty bool) error {
	mine, _, err := db.Meta(ctx, ingest.ExtractorsMeta)
	if err != nil {
		return err
	}
	theirs, err := ts.FolderExtractors(ctx, name)
	if err != nil {
		return err
	}
	switch {
	case theirs == mine:
		return nil
	case wasEmpty:
		return ts.SetFolderExtractors(ctx, name, mine)
	}
	return ts.SetFolderExtractors(ctx, name, "")
}

// holding runs work while it holds folder's lease in ts, and stops it when
// the lease is lost.
func holding(ctx context.Context, ts *teamstore.Store, folder string, opt Options, work func(context.Context) error) error {
	ttl := opt.LeaseTTL
	if ttl <= 0 {
		ttl = 2 * time.Minute
	}
	lease, err := ts.TakeLease(ctx, folder, opt.Holder, ttl, opt.Dead)
	if err != nil {
		return err
	}
	held, stop := lease.Hold(ctx)
	err = work(held)
	serr := stop()
	if held.Err() != nil && ctx.Err() == nil && serr != nil {
		return fmt.Errorf("migrating %s stopped: %w", folder, serr)
	}
	return errors.Join(err, serr)
}

// FromTeam copies ts's documents, chunks and vectors into db, so that
// store.backend can go back to sqlite. A folder's name in the cluster
// becomes its path here: it must be an absolute path, or opt.As gives the
// path of the cluster's one folder.
func FromTeam(ctx context.Context, ts *teamstore.Store, db *store.DB, opt Options) (Summary, error) {
	var sum Summary
	unlock, err := db.LockIndexing()
	if err != nil {
		return sum, err
	}
	defer unlock()
	cmodel, cdim, err := ts.VectorModel(ctx)
	if err != nil {
		return sum, err
	}
	model, dim, err := db.VectorModel(ctx)
	if err != nil {
		return sum, err
	}
	// A knowledge base without vectors takes the cluster's model; one with
	// vectors takes keyword-only chunks (its next index run embeds them),
	// never another model's vectors.
	if model != "" && cmodel != "" && (cmodel != model || cdim != dim) {
		return sum, &ModelMismatchError{From: "the team cluster", To: "the knowledge base " + db.Path(), FromID: cmodel, FromDim: cdim, ToID: model, ToDim: dim}
	}
	if model == "" && cmodel != "" {
		if _, err := db.SetVectorModel(ctx, cmodel, cdim); err != nil {
			return sum, err
		}
		model, dim = cmodel, cdim
	}
	sum.Model, sum.Dim = model, dim
	docs, err := ts.Documents(ctx)
	if err != nil {
		return sum, err
	}
	roots := map[string]string{} // cluster folder -> path here
	for _, d := range docs {
		if _, ok := roots[d.Folder]; ok {
			continue
		}
		switch {
		case opt.As != "":
			abs, err := filepath.Abs(opt.As)
			if err != nil {
				return sum, err
			}
			roots[d.Folder] = abs
		case filepath.IsAbs(filepath.FromSlash(d.Folder)):
			roots[d.Folder] = filepath.Clean(filepath.FromSlash(d.Folder))
		default:
			return sum, fmt.Errorf("the cluster's folder %q is not a path on this computer: name the folder it is in here with --as DIR", d.Folder)
		}
	}
	if opt.As != "" && len(roots) > 1 {
		return sum, fmt.Errorf("--as names one folder, and the cluster holds %d: migrate without --as (folders named by their absolute paths keep them)", len(roots))
	}
	sum.Folders, sum.Documents = len(roots), len(docs)
	held, err := db.Documents(ctx, 0)
	if err != nil {
		return sum, err
	}
	folderIDs := map[string]int64{}
	states := map[string]store.FileState{}
	for name, root := range roots {
		f, err := db.AddFolder(ctx, root)
		if err != nil {
			return sum, fmt.Errorf("add %s to %s: %w", root, db.Path(), err)
		}
		folderIDs[name] = f.ID
		st, err := db.FileStates(ctx, f.ID)
		if err != nil {
			return sum, err
		}
		for p, s := range st {
			states[p] = s
		}
	}
	for i, d := range docs {
		path := filepath.Join(roots[d.Folder], filepath.FromSlash(d.Path))
		if st, ok := states[path]; ok && st.DocumentID != 0 && st.Hash == d.Hash {
			sum.Unchanged++
			opt.report(Progress{Done: i + 1, Total: len(docs), Path: path, Chunks: d.Chunks})
			continue
		}
		chunks, vecs, err := ts.ReadDocument(ctx, d.Folder, d.Path)
		if err != nil {
			return sum, err
		}
		if len(chunks) != d.Chunks {
			return sum, fmt.Errorf("the team cluster holds %d of the %d chunks of %s: index its folder again (`cairn index`), then migrate", len(chunks), d.Chunks, d.Path)
		}
		if model == "" {
			vecs = nil
		}
		sd := store.Document{FolderID: folderIDs[d.Folder], Path: path, Size: d.Size, MTimeNS: d.MTimeNS, Hash: d.Hash, Title: d.Title, Format: d.Format}
		if _, _, err := db.PutDocument(ctx, sd, chunks, vecs); err != nil {
			return sum, fmt.Errorf("store %s in %s: %w", path, db.Path(), err)
		}
		sum.Written++
		sum.Chunks += len(chunks)
		sum.Vectors += len(vecs)
		opt.report(Progress{Done: i + 1, Total: len(docs), Path: path, Written: true, Chunks: len(chunks)})
	}
	return sum, kbExtractors(ctx, ts, db, roots, len(held) == 0)
}

// kbExtractors records which extractor versions read the knowledge base's
// documents: the cluster folders', when they agree and the knowledge base
// held nothing before or was read by the same; none otherwise, so that
// the next `cairn index` reads again whatever may be stale.
func kbExtractors(ctx context.Context, ts *teamstore.Store, db *store.DB, roots map[string]string, wasEmpty bool) error {
	theirs, first := "", true
	for name := range roots {
		v, err := ts.FolderExtractors(ctx, name)
		if err != nil {
			return err
		}
		if !first && v != theirs {
			theirs = ""
			break
		}
		theirs, first = v, false
	}
	mine, _, err := db.Meta(ctx, ingest.ExtractorsMeta)
	if err != nil || mine == theirs {
		return err
	}
	if wasEmpty {
		return db.SetMeta(ctx, ingest.ExtractorsMeta, theirs)
	}
	return db.SetMeta(ctx, ingest.ExtractorsMeta, "")
}
