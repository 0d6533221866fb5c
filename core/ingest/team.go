package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"cairn/core/domain"
	"cairn/core/store"
	"cairn/core/teamstore"
)

// Team says where a team run writes: a folder of a team's Weaviate
// cluster (store.backend weaviate).
type Team struct {
	Store *teamstore.Store
	// Folder is the folder's name in the cluster, the same on every
	// machine that indexes it (see teamstore.Document); "" uses the
	// folder's absolute path.
	Folder string
	// Holder names this indexer to a second one, which is refused: host,
	// user and process.
	Holder string
	// LeaseTTL is how long the folder's lease lasts unless renewed (it is
	// renewed every third of it); default DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Local, when not nil, is the local knowledge base, where the run and
	// the files not indexed are recorded as a SQLite run records them
	// (`cairn status`, `cairn status --issues`); the cluster keeps
	// neither. Recording is best-effort: a failure is logged, and the run
	// goes on without it.
	Local *store.DB
	// Dead, when not nil, reports whether the holder of the folder's lease
	// is known to have stopped (a process of this computer that is gone):
	// its lease is then taken at once (teamstore.TakeLease), so a run
	// after a crash need not wait for it to expire.
	Dead func(holder string) bool
}

// DefaultLeaseTTL is Team.LeaseTTL's default: an indexer that dies frees
// the folder this long after its last renewal.
const DefaultLeaseTTL = 2 * time.Minute

// RunTeam indexes folder into a team cluster, as Run does into SQLite: the
// same walk, extraction, chunking and embedding, files whose fingerprint in
// the cluster is unchanged skipped, each file written with
// teamstore.PutDocument (its chunks, then its fingerprint), and files gone
// from the folder removed at the end. It holds the folder's lease
// throughout: a second indexer is refused with a *teamstore.LeaseHeldError,
// and a run whose lease is taken over stops with teamstore.ErrLeaseLost.
// The cluster keeps no runs or issues: the progress events report them,
// Team.Local records them (the returned Run has its id there, else 0), and
// a skipped or failed file, which gets no fingerprint, is read again by the
// next run.
func (ix *Indexer) RunTeam(ctx context.Context, t Team, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	rep := newReporter(progress)
	defer rep.close()
	if strings.TrimSpace(folder) == "" {
		return domain.Run{}, errors.New("no folder to index: the path is empty")
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return domain.Run{}, fmt.Errorf("folder %s: %w", folder, err)
	}
	if t.Folder == "" {
		t.Folder = filepath.ToSlash(abs)
	}
	if t.LeaseTTL <= 0 {
		t.LeaseTTL = DefaultLeaseTTL
	}
	lease, err := t.Store.TakeLease(ctx, t.Folder, t.Holder, t.LeaseTTL, t.Dead)
	if err != nil {
		return domain.Run{}, err
	}
	held, stop := lease.Hold(ctx)
	run := domain.Run{Folder: abs, StartedAt: time.Now(), Status: domain.RunRunning}
	local := ix.recordLocally(ctx, t.Local, abs, &run)
	ix.opt.Log.Info("team index run started", "folder", abs, "as", t.Folder, "run", run.ID)
	rep.start(abs)
	err = ix.runTeam(held, t, abs, &run, rep, local)
	err = heldUntil(ctx, held, stop, "indexing "+abs, err)
	rep.fill(&run)
	switch {
	case err == nil:
		run.Status = domain.RunDone
	case ctx.Err() != nil:
		err = context.Canceled
		run.Status, run.Error = domain.RunCancelled, "cancelled"
	default:
		run.Status, run.Error = domain.RunFailed, err.Error()
	}
	local.finish(context.WithoutCancel(ctx), run)
	run.FinishedAt = time.Now()
	ix.opt.Log.Info("team index run finished", "status", string(run.Status), "seen", run.FilesSeen,
		"indexed", run.FilesIndexed, "unchanged", run.FilesUnchanged, "skipped", run.FilesSkipped, "failed", run.FilesFailed,
		"removed", run.FilesRemoved, "chunks", run.Chunks, "bytes", run.Bytes, "ms", run.FinishedAt.Sub(run.StartedAt).Milliseconds())
	rep.finish(run)
	return run, err
}

// heldUntil ends a hold (Lease.Hold's stop) after the work it held ended
// with err, and returns why the work stopped: the lease's loss, when the
// hold ended the work, rather than the cancel it caused; else err, or the
// release's failure.
func heldUntil(ctx, held context.Context, stop func() error, what string, err error) error {
	serr := stop()
	switch {
	case held.Err() != nil && ctx.Err() == nil && serr != nil:
		return fmt.Errorf("%s stopped: %w", what, serr)
	case err == nil:
		return serr
	}
	return err
}

// RemoveTeam removes the folder t.Folder names from a team cluster: its
// files' fingerprints, chunks and records (teamstore.Store.RemoveFolder),
// under its lease as a run holds it, so that it is refused with a
// *teamstore.LeaseHeldError naming the indexer that holds the folder, and
// no indexer writes the folder while it is removed. progress, when not
// nil, follows the removal. The files themselves are not touched.
func RemoveTeam(ctx context.Context, t Team, progress func(domain.Removal)) (domain.Removal, error) {
	if t.Folder == "" {
		return domain.Removal{}, errors.New("no folder to remove from the team cluster: its name is empty")
	}
	if t.LeaseTTL <= 0 {
		t.LeaseTTL = DefaultLeaseTTL
	}
	lease, err := t.Store.TakeLease(ctx, t.Folder, t.Holder, t.LeaseTTL, t.Dead)
	if err != nil {
		return domain.Removal{}, err
	}
	held, stop := lease.Hold(ctx)
	r, err := t.Store.RemoveFolder(held, lease, progress)
	return r, heldUntil(ctx, held, stop, "removing "+t.Folder, err)
}

func (ix *Indexer) runTeam(ctx context.Context, t Team, root string, run *domain.Run, rep *reporter, local *localRecord) error {
	ts := t.Store
	rewrite, err := ix.teamVectors(ctx, t)
	if err != nil {
		return err
	}
	rep.phase(domain.PhaseScanning)
	entries, err := walk(ctx, root, ix.opt, func(n int) { rep.scanned(n) })
	if err != nil {
		return err
	}
	states, err := ts.FileStates(ctx, t.Folder)
	if err != nil {
		return err
	}
	// Files read by an older extractor of their format are read again,
	// as in a knowledge base file (rereadIfExtractorsChanged).
	was, err := ts.FolderExtractors(ctx, t.Folder)
	if err != nil {
		return err
	}
	stale, versions := ExtractorChanges(was)
	if len(states) == 0 && was != versions {
		// A folder new to the cluster: whatever this run writes, and a
		// run killed half-way wrote, is read by this build's extractors.
		if err := ts.SetFolderExtractors(ctx, t.Folder, versions); err != nil {
			return err
		}
		was, stale = versions, nil
	}
	rel := func(p string) string {
		r, err := filepath.Rel(root, p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(r)
	}
	var jobs []job
	var early []result
	var bytesTotal int64
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[rel(e.path)] = true
		prev, had := states[rel(e.path)]
		switch {
		case e.err != nil:
			early = append(early, result{job: job{entry: e, had: had}, status: domain.StatusFailed, reason: e.err.Error()})
		case e.skip != "":
			// Before the fingerprint: a file the cluster holds whose link
			// now leads out of the folder is removed from it.
			early = append(early, result{job: job{entry: e, had: had}, status: domain.StatusSkipped, reason: e.skip})
		case had && !rewrite && !stale.Has(prev.Format) && prev.Unchanged(e.size, e.mtimeNS, ""):
			rep.file(domain.FileEvent{Path: e.path, Status: domain.StatusUnchanged, Unchanged: true})
		default:
			j := job{entry: e, had: had}
			if had && !rewrite && !stale.Has(prev.Format) {
				j.storedHash = prev.Hash
			}
			jobs = append(jobs, j)
			bytesTotal += e.size
		}
	}
	rep.planned(len(entries), len(jobs), bytesTotal)
	// Files left with an earlier version because their embedding failed
	// (written by the pipeline's one writer, so counted without a lock).
	kept := 0
	write := func(ctx context.Context, batch []result) error {
		n, err := ix.writeTeam(ctx, t, rel, batch, rep, local)
		kept += n
		return err
	}
	if err := write(ctx, early); err != nil {
		return err
	}
	if len(jobs) > 0 {
		rep.phase(domain.PhaseIndexing)
		// A cluster's chunks are written with their vectors.
		if err := ix.pipeline(ctx, jobs, rep, true, write); err != nil {
			return err
		}
	}
	rep.phase(domain.PhaseRemoving)
	gone, err := ts.RemoveOrphans(ctx, t.Folder, func(p string) bool { return seen[p] })
	if err != nil {
		return err
	}
	for _, p := range gone {
		rep.file(domain.FileEvent{Path: filepath.Join(root, filepath.FromSlash(p)), Status: domain.StatusRemoved})
	}
	if was != versions && kept == 0 {
		// Every file of a stale format was read again (a file that failed
		// or was skipped has no fingerprint, and is read again anyway).
		if err := ts.SetFolderExtractors(ctx, t.Folder, versions); err != nil {
			return err
		}
	}
	if ix.opt.Embedder != nil && rewrite && kept == 0 {
		// Every file of the folder has this model's vectors now.
		return ts.SetFolderVectorModel(ctx, t.Folder, ix.opt.Embedder.ModelID())
	}
	return nil
}

// teamVectors checks the run's embedding model against the cluster's, and
// reports whether every file of the folder must be written again to get
// its vectors (the folder was written without them, or the model is new
// to the cluster). A cluster's vectors come from one model: a run with
// another one, or with none where the cluster has vectors, is refused.
func (ix *Indexer) teamVectors(ctx context.Context, t Team) (rewrite bool, err error) {
	model, dim, err := t.Store.VectorModel(ctx)
	if err != nil {
		return false, err
	}
	if ix.opt.Embedder == nil {
		if model != "" {
			return false, fmt.Errorf("the team cluster's chunks have vectors from the embedding model %s (%d dimensions) and no embedding model is loaded here: "+
				"set embedding.model to that model (`cairn models use PATH`) so that this run's chunks get vectors too", model, dim)
		}
		return false, nil
	}
	id, d := ix.opt.Embedder.ModelID(), ix.opt.Embedder.Dim()
	switch {
	case model == "":
		if err := t.Store.SetVectorModel(ctx, id, d); err != nil {
			return false, err
		}
	case model != id || dim != d:
		return false, fmt.Errorf("the team cluster's vectors come from the embedding model %s (%d dimensions), this computer's from %s (%d): "+
			"a knowledge base's vectors are never mixed; set embedding.model to the cluster's model (`cairn models use PATH`)", model, dim, id, d)
	}
	folderModel, err := t.Store.FolderVectorModel(ctx, t.Folder)
	if err != nil {
		return false, err
	}
	return folderModel != id, nil
}

// writeTeam writes a group of results to the cluster, one file at a time,
// and reports each; it returns how many files whose embedding failed it
// left as they were. A file the cluster cannot take stops the run (the
// cluster is down, the lease is lost): a later run writes it again.
func (ix *Indexer) writeTeam(ctx context.Context, t Team, rel func(string) string, batch []result, rep *reporter, local *localRecord) (kept int, err error) {
	for _, r := range batch {
		ev := domain.FileEvent{Path: r.path, Status: r.status, Reason: r.reason, Bytes: r.size}
		embedFailed := r.status == domain.StatusIndexed && ix.opt.Embedder != nil && r.vectors == nil
		if embedFailed {
			// Written without vectors, the file would keep none: its
			// fingerprint would say it is done. The version the cluster
			// holds, if any, stays until the next run.
			ev.Status, ev.Reason = domain.StatusFailed, "not written without its vectors: "+strings.Join(r.doc.Warnings, "; ")
			r.status = domain.StatusFailed
			kept++
		}
		switch r.status {
		case domain.StatusUnchanged:
			if err := t.Store.TouchDocument(ctx, t.Folder, rel(r.path), r.size, r.mtimeNS); err != nil {
				return kept, err
			}
		case domain.StatusSkipped, domain.StatusFailed:
			if ctx.Err() != nil {
				return kept, ctx.Err() // a file interrupted by cancel is not a bad file
			}
			if r.had && !embedFailed {
				// As in SQLite: a file that can no longer be read keeps no
				// chunks of an earlier version.
				if err := t.Store.DeletePaths(ctx, t.Folder, []string{rel(r.path)}); err != nil {
					return kept, err
				}
			}
			logNotIndexed(ix.opt.Log, r.path, ev.Status, ev.Reason)
			local.issue(ctx, domain.Issue{Path: r.path, Kind: string(ev.Status), Reason: ev.Reason, Size: r.size, MTimeNS: r.mtimeNS})
		case domain.StatusIndexed:
			title := strings.TrimSpace(r.doc.Title)
			if title == "" {
				title = baseTitle(r.path)
			}
			d := teamstore.Document{Folder: t.Folder, Path: rel(r.path), Size: r.size, MTimeNS: r.mtimeNS, Hash: r.hash,
				Title: title, Format: r.doc.Format, IndexedBy: t.Holder}
			if err := t.Store.PutDocument(ctx, d, r.chunks, r.vectors); err != nil {
				return kept, err
			}
			ev.Chunks = len(r.chunks)
			if len(r.doc.Warnings) > 0 {
				ev.Reason = strings.Join(r.doc.Warnings, "; ")
			}
		}
		rep.file(ev)
	}
	return kept, nil
}

// localRecord keeps a team run's record and its files not indexed in the
// local knowledge base (Team.Local). A nil *localRecord records nothing.
type localRecord struct {
	db     *store.DB
	log    *slog.Logger
	folder int64
	run    int64
	unlock func()
}

// recordLocally starts the run's record in db, holding its indexing lock
// (as a SQLite run does, so neither marks the other's run interrupted),
// and forgets the folder's issues: this run reports them afresh. It
// returns nil, having logged why, when db is nil or cannot record.
func (ix *Indexer) recordLocally(ctx context.Context, db *store.DB, folder string, run *domain.Run) *localRecord {
	if db == nil {
		return nil
	}
	l := &localRecord{db: db, log: ix.opt.Log}
	fail := func(err error) *localRecord {
		ix.opt.Log.Warn("the team run is not recorded in the local knowledge base", "path", db.Path(), "err", err)
		if l.unlock != nil {
			l.unlock()
		}
		return nil
	}
	var err error
	if l.unlock, err = db.LockIndexing(); err != nil {
		return fail(err)
	}
	f, err := db.AddFolder(ctx, folder)
	if err != nil {
		return fail(err)
	}
	l.folder = f.ID
	if err := db.ClearFolderIssues(ctx, f.ID); err != nil {
		return fail(err)
	}
	if l.run, err = db.StartRun(ctx, folder); err != nil {
		return fail(err)
	}
	run.ID = l.run
	return l
}

// issue records a file not indexed.
func (l *localRecord) issue(ctx context.Context, is domain.Issue) {
	if l == nil {
		return
	}
	is.RunID = l.run
	if err := l.db.RecordIssue(ctx, l.folder, is); err != nil && ctx.Err() == nil {
		l.log.Warn("record a file not indexed in the local knowledge base", "path", is.Path, "err", err)
	}
}

// finish records the run's outcome and releases the lock.
func (l *localRecord) finish(ctx context.Context, run domain.Run) {
	if l == nil {
		return
	}
	defer l.unlock()
	if err := l.db.FinishRun(ctx, run); err != nil {
		l.log.Warn("record the team run in the local knowledge base", "path", l.db.Path(), "err", err)
	}
}
