// Package core is the facade the window and the command line both drive:
// an Engine built once from the configuration owns the knowledge base, the
// extractors, the indexer and the searcher, so the GUI and the CLI cannot
// disagree on behaviour.
package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/fault"
	"cairn/core/ingest"
	"cairn/core/invisible"
	"cairn/core/kb"
	"cairn/core/llm"
	"cairn/core/logs"
	"cairn/core/netgate"
	"cairn/core/netgate/network"
	"cairn/core/ocr"
	"cairn/core/remote"
	"cairn/core/search"
	"cairn/core/store"
	"cairn/core/vecindex"
)

// Engine is one open knowledge base with everything needed to index and
// search it. Its methods are safe for concurrent use.
type Engine struct {
	dirs config.Dirs
	log  *slog.Logger
	db   *store.DB
	vix  *vecindex.Index // fast vector search over db
	kix  *bm25.Index     // fast keyword search over db

	// team is the cluster searches read instead of db when store.backend
	// is weaviate (nil otherwise); db then keeps this person's own
	// state: conversations, judgments, the runs of cairn index.
	team *teamConn

	regOnce sync.Once // the extractors, with OCR, are built on the first index run
	reg     *extract.Registry
	ocr     *ocr.Engine
	ocrErr  error

	models loadedModels

	// net is the gate every connection goes through, and the API key's
	// keyring; it owns the network settings, the mode in its gate.
	net *network.Network

	// mu guards cfg, the one copy of the settings: the window changes the
	// models, the knobs and the answer settings while questions run. They
	// change through the setters and are read through Config (a snapshot);
	// the engine never writes the settings file, whose writer is the
	// window's settings worker or the command that changes a setting. Lock
	// order: models.mu, then mu; nothing is called with mu held but the
	// network gate.
	mu  sync.Mutex
	cfg config.Config // its Network section is unused: net holds it

	indexWorkers int // Options.IndexWorkers

	// interest orders the embeddings still to compute (ingest.Options.Interest).
	interest interest
	coverage coverageCache // while they are computed
}

// Options say which knowledge base to open, and how.
type Options struct {
	KB  string       // knowledge base name under <data_dir>/kb; default cfg.Paths.KB
	DB  string       // explicit database path; overrides KB
	Log *slog.Logger // the log file (see core/logs); nil: no log

	// Write opens the knowledge base for indexing and changes, creating it
	// when it does not exist (an index run, the window). Without it the
	// knowledge base is opened read-only: it must exist, be Cairn's and be
	// up to date, and nothing is created or changed.
	Write bool
	// NoKB opens no knowledge base, for the commands that need only the
	// models and the network gate (`cairn models`); the methods that
	// search or index must not be called then.
	NoKB bool

	// Dial is the network gate's inner dialer; nil dials for real. Tests
	// map host names onto servers on 127.0.0.1 and record every dial.
	Dial netgate.DialFunc
	// Keyring holds the API key; nil uses the system's (Secret Service).
	Keyring remote.Keyring

	// IndexWorkers, when positive, is the number of extraction workers of
	// an index run while the settings leave it to Cairn (index.workers 0,
	// one per CPU). The window runs one fewer than Go has processors, so
	// that one stays free for its own goroutine (ui.ReserveProcessor);
	// being no setting, it is never saved.
	IndexWorkers int
}

// logger is opt.Log, or a logger that writes nothing.
func (opt Options) logger() *slog.Logger {
	if opt.Log == nil {
		return logs.Discard()
	}
	return opt.Log
}

// openStore opens the knowledge base opt names. A knowledge base named
// with KB lives in Cairn's own data folder, which is created for writing;
// the folder of a --db path must exist.
func (opt Options) openStore(cfg config.Config, so store.Options) (*store.DB, error) {
	path, err := opt.Path(cfg)
	if err != nil {
		return nil, err
	}
	if so.ReadOnly && cfg.Store.Backend == config.BackendWeaviate {
		// Over a team cluster the file holds only this person's own
		// state (conversations, the runs of cairn index), which a first
		// search on this computer finds missing: it is created.
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			so.ReadOnly = false
		}
	}
	if !so.ReadOnly {
		if err := opt.makeFolder(path); err != nil {
			return nil, err
		}
	}
	return store.Open(path, so)
}

// makeFolder creates the folder of path, a knowledge base opt names, when
// it is Cairn's own (<data_dir>/kb); a --db path's folder is left alone.
func (opt Options) makeFolder(path string) error {
	if opt.DB != "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fault.New(fault.StoreOpen, "cannot create the knowledge base folder "+filepath.Dir(path),
			"check that the data folder is writable (`cairn doctor`)", err)
	}
	return nil
}

// Path is the database file opt names: --db as given, or the knowledge base
// named --kb (the settings' default without one) in the data folder
// (kb.File).
func (opt Options) Path(cfg config.Config) (string, error) {
	return kb.File(cfg, opt.KB, opt.DB)
}

// Open opens a knowledge base: read-only, or for writing (see
// Options.Write). Models load on first use, so opening is fast.
func Open(ctx context.Context, cfg config.Config, dirs config.Dirs, opt Options) (*Engine, error) {
	log := opt.logger()
	net, err := network.Open(cfg, dirs, network.Options{Dial: opt.Dial, Keyring: opt.Keyring})
	if err != nil {
		return nil, err
	}
	if opt.NoKB {
		cfg.Network = config.Network{} // net's, as in a full Engine
		return &Engine{cfg: cfg, dirs: dirs, log: log, net: net, indexWorkers: opt.IndexWorkers}, nil
	}
	db, err := opt.openStore(cfg, store.Options{ReadOnly: !opt.Write})
	if err != nil {
		log.Error("open knowledge base", "code", string(fault.CodeOf(err)), "err", err)
		return nil, err
	}
	if v := db.Version(); v < store.SchemaVersion {
		db.Close()
		return nil, fault.New(fault.StoreOlder, fmt.Sprintf("the knowledge base %s was made by an older Cairn (schema %d, this one uses %d)", db.Path(), v, store.SchemaVersion),
			"run `cairn index FOLDER` on it once (or open it in the window), which brings it up to date; searching alone never changes it", nil)
	}
	log.Info("knowledge base opened", "path", db.Path(), "write", opt.Write)
	kix := bm25.New(db)
	kix.OnError = func(err error) { log.Warn("keyword index: searches use FTS5 until it syncs", "err", err) }
	e := &Engine{dirs: dirs, log: log, db: db, vix: vecindex.New(db), kix: kix, net: net}
	if cfg.Store.Backend == config.BackendWeaviate {
		e.team = &teamConn{}
	}
	cfg.Network = config.Network{} // net's, with the mode as it switches
	e.cfg, e.indexWorkers = cfg, opt.IndexWorkers
	return e, nil
}

// registry returns the extractors, starting Tesseract if OCR is enabled and
// installed; without it, images are skipped with a reason.
func (e *Engine) registry() *extract.Registry {
	e.regOnce.Do(func() {
		c := e.Config()
		lim := extract.DefaultLimits()
		lim.MaxFileBytes = int64(c.Indexing.MaxFileMB) << 20
		if t := c.IndexTimeout(); t > 0 {
			lim.Timeout = t
		}
		var opts []extract.Option
		if c.OCR.Enabled {
			e.ocr, e.ocrErr = ocr.New(ocr.Options{Languages: c.OCR.Languages,
				MaxPixels: extract.MaxPagePixels, MaxDecodeBytes: extract.MaxImageBytes})
			if e.ocrErr == nil {
				opts = append(opts, extract.WithOCR(e.ocr))
			}
		} else {
			e.ocrErr = errors.New("OCR is switched off (ocr.enabled)")
		}
		e.reg = extract.NewRegistry(lim, opts...)
	})
	return e.reg
}

// workers is the number of extraction workers of an index run under
// settings c: index.workers, else Options.IndexWorkers; 0 leaves it to
// ingest (one per CPU).
func (e *Engine) workers(c config.Config) int {
	if c.Indexing.Workers > 0 {
		return c.Indexing.Workers
	}
	return e.indexWorkers
}

// indexer builds an indexer with the current embedding model.
func (e *Engine) indexer(ctx context.Context) (*ingest.Indexer, error) {
	c := e.Config()
	opt := ingest.Options{
		Chunk:          chunk.Params{Size: c.Chunking.Size, Overlap: c.Chunking.Overlap, MaxHeadingLen: c.Chunking.MaxHeadingLen},
		MaxFileBytes:   int64(c.Indexing.MaxFileMB) << 20,
		Workers:        e.workers(c),
		IncludeHidden:  c.Indexing.IncludeHidden,
		FollowLinksOut: c.Indexing.FollowLinksOut,
		Ignore:         c.Indexing.Ignore,
		EmbedBatch:     c.Embedding.BatchSize,
		EmbedBudget:    int64(c.Embedding.BatchMB) << 20,
		Interest:       e.interest.snapshot,
		Log:            e.log,
	}
	emb, err := e.embedder(ctx)
	if err != nil {
		return nil, fmt.Errorf("embedding model: %w", err)
	}
	if emb != nil {
		opt.Embedder = passageEmbedder{emb}
	}
	return ingest.New(e.db, e.registry(), opt), nil
}

// Close unloads the models and closes the knowledge base.
func (e *Engine) Close() error {
	if e == nil {
		return nil
	}
	e.closeModels()
	if e.ocr != nil {
		e.ocr.Close()
	}
	if e.kix != nil {
		e.kix.Close()
	}
	return e.db.Close()
}

// WarmKeywordIndex starts building the in-memory keyword index in the
// background, for a session that will search often (the window); until it
// is ready, and whenever it lags behind an index run, searches use FTS5.
func (e *Engine) WarmKeywordIndex() { e.kix.Start() }

// SyncKeywordIndex brings the keyword index up to date before returning,
// so that a batch of searches is ranked one way throughout.
func (e *Engine) SyncKeywordIndex(ctx context.Context) error { return e.kix.Sync(ctx) }

// Config returns a snapshot of the settings in force: those the engine was
// opened with, changed since through its setters (models, knobs, profile,
// answer settings, network mode). The caller may keep and change it; the
// engine's settings change only through the setters.
func (e *Engine) Config() config.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cfg
	c.Indexing.Ignore = slices.Clone(c.Indexing.Ignore)
	c.Store.Folders = maps.Clone(c.Store.Folders)
	c.Network = e.net.NetworkConfig()
	return c
}

// update applies change to the settings if the result is valid.
func (e *Engine) update(change func(*config.Config)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cfg
	change(&c)
	check := c
	check.Network = e.net.NetworkConfig() // Validate checks the network section too
	if err := check.Validate(); err != nil {
		return err
	}
	e.cfg = c
	return nil
}

// SetRetrieval changes the retrieval knobs of the next searches (the
// caller saves them); invalid knobs are refused.
func (e *Engine) SetRetrieval(r config.Retrieval) error {
	return e.update(func(c *config.Config) { c.Retrieval = r })
}

// SetKnob sets the number setting key, one of config.Knobs ("generation.temperature"),
// for the next questions (the caller saves it); a value outside its bounds
// is refused.
func (e *Engine) SetKnob(key string, v float64) error {
	k, ok := config.KnobByKey(key)
	if !ok {
		return fmt.Errorf("no setting %q can be changed this way", key)
	}
	return e.update(func(c *config.Config) { k.Set(c, v) })
}

// SetProfile switches to hardware profile name (see config.WithProfile):
// the retrieval knobs, the answer size, the embedding batch and the chat
// model's context size take its values, from the next question, index run
// and model load on. The caller saves the settings.
func (e *Engine) SetProfile(name string) error {
	var err error
	uerr := e.update(func(c *config.Config) { *c, err = c.WithProfile(name) })
	return errors.Join(err, uerr)
}

// SetServing records whether the window serves the local API while it is
// open (serve.enabled); the caller saves it and starts or stops the server.
func (e *Engine) SetServing(on bool) error {
	return e.update(func(c *config.Config) { c.Serve.Enabled = on })
}

// NetworkMode is the network gate's current mode: offline, online or admin.
func (e *Engine) NetworkMode() string { return e.net.NetworkMode() }

// SetNetworkMode switches the network gate; see Network.SetNetworkMode. The
// caller saves the mode.
func (e *Engine) SetNetworkMode(mode string) error {
	e.mu.Lock() // a snapshot sees the mode before or after, never between
	defer e.mu.Unlock()
	return e.net.SetNetworkMode(mode)
}

// Path is the knowledge base's file.
func (e *Engine) Path() string { return e.db.Path() }

// Check runs the knowledge base's consistency checks (SQLite's integrity,
// the full-text index, orphans, vectors) and lists the problems found.
func (e *Engine) Check(ctx context.Context) ([]string, error) { return e.db.Check(ctx) }

// IndexFolder indexes folder; see ingest.Indexer.Run. With an embedding model,
// new chunks are embedded and chunks stored before (or under another
// model) are re-embedded from their text.
func (e *Engine) IndexFolder(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	if e.team != nil {
		// The window feeds the store it searches, as cairn index does.
		return e.IndexTeam(ctx, folder, "", progress)
	}
	e.kix.Hold() // the keyword index catches up once the run is over
	defer e.kix.Release()
	ix, err := e.indexer(ctx)
	if err != nil {
		if progress != nil {
			close(progress)
		}
		return domain.Run{}, err
	}
	return ix.Run(ctx, folder, progress)
}

// RetryFailed indexes folder as IndexFolder does, reading again every
// file an earlier run skipped or failed on, changed or not: a file that
// failed for a reason that stays while the file does is otherwise not
// read again until it changes. A team cluster keeps no such files: its
// runs read them every time.
func (e *Engine) RetryFailed(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	if e.team != nil {
		return e.IndexTeam(ctx, folder, "", progress)
	}
	e.kix.Hold()
	defer e.kix.Release()
	ix, err := e.indexer(ctx)
	if err != nil {
		if progress != nil {
			close(progress)
		}
		return domain.Run{}, err
	}
	return ix.RetryFailed(ctx, folder, progress)
}

// Reembed computes the vectors of every chunk that lacks one for the
// current embedding model (after a model change), from stored text.
func (e *Engine) Reembed(ctx context.Context, progress chan<- domain.Progress) error {
	ix, err := e.indexer(ctx)
	if err != nil {
		if progress != nil {
			close(progress)
		}
		return err
	}
	return ix.Reembed(ctx, progress)
}

// SearchRequest returns a request for query with the configured knobs.
func (e *Engine) SearchRequest(query string) search.Request {
	return search.NewRequest(query, e.Config().Retrieval)
}

// maxSwitchRetries is how often Search starts again when model switches
// close the embedder it was using.
const maxSwitchRetries = 10

// Search runs a search: hybrid when the embedding model is loaded and the
// knowledge base holds its vectors, BM25 otherwise (with a note saying why).
func (e *Engine) Search(ctx context.Context, req search.Request) (*search.Response, error) {
	req.Query = invisible.Remove(req.Query) // as the indexed text is (extract.finish)
	if strings.TrimSpace(req.Query) == "" {
		return nil, errors.New("empty question: type what you are looking for")
	}
	req = e.withGuide(ctx, req)
	resp, err := e.search(ctx, req)
	// The embedding model was switched while this search used it: the next
	// attempt takes the new one. Each failed attempt means another switch
	// came meanwhile, so the bound is only reached by a loop of switches.
	for range maxSwitchRetries {
		if !errors.Is(err, llm.ErrClosed) {
			break
		}
		resp, err = e.search(ctx, req)
	}
	return resp, err
}

func (e *Engine) search(ctx context.Context, req search.Request) (*search.Response, error) {
	var qe search.QueryEmbedder
	var note string
	emb, err := e.embedder(ctx)
	switch {
	case err != nil:
		note = "keyword search only: the embedding model could not be loaded: " + err.Error()
	case emb != nil:
		model, _, err := e.vectorModel(ctx)
		if err != nil {
			return nil, err
		}
		if model == emb.ModelID() {
			qe = emb
		} else {
			note = "keyword search only: the knowledge base has no vectors from " + emb.ModelID() + " yet; run `cairn index` (or Re-index) to compute them"
		}
	}
	if qe == nil && req.Mode == "" {
		req.Mode = search.ModeBM25
	}
	if qe == nil && req.Mode != search.ModeBM25 {
		if note != "" {
			return nil, errors.New(strings.TrimPrefix(note, "keyword search only: "))
		}
		return nil, search.ErrNoVectors
	}
	e.log.Debug("search", "query", req.Query) // questions only at debug level
	start := time.Now()
	var resp *search.Response
	s, err := e.searcher(ctx, qe)
	if err == nil {
		resp, err = s.Search(ctx, req)
	}
	if err != nil {
		if ctx.Err() == nil { // a cancelled search (a client gone) is no failure
			e.log.Warn("search failed", "code", string(fault.CodeOf(err)), "err", err)
		}
		return nil, err
	}
	if note != "" {
		resp.Candidates.Notes = append(resp.Candidates.Notes, note)
	}
	if qe != nil && e.team == nil && resp.Candidates.Mode != search.ModeBM25 {
		c, err := e.coverage.get(ctx, e.db)
		if err != nil {
			return nil, err
		}
		if c != nil {
			resp.Candidates.Coverage = c
			resp.Candidates.Notes = append(resp.Candidates.Notes, c.Note())
		}
	}
	e.interest.note(req, resp.Results)
	if n := e.teamNote(); n != "" {
		resp.Candidates.Notes = append(resp.Candidates.Notes, n)
	}
	e.rerank(ctx, resp)
	e.log.Info("search", "mode", string(resp.Candidates.Mode), "results", len(resp.Results), "ms", time.Since(start).Milliseconds())
	return resp, nil
}

// rerank reorders the fused top N of resp with the reranker when reranking
// is on and a reranker is found (search.Rerank); a reranker that cannot
// load or score leaves the fused order, with a note saying why.
func (e *Engine) rerank(ctx context.Context, resp *search.Response) {
	rr, err := e.reranker(ctx)
	if err == nil && rr != nil {
		budget := time.Duration(e.Config().Rerank.BudgetSec * float64(time.Second))
		err = search.Rerank(ctx, rr, resp, budget)
	}
	if err != nil && ctx.Err() == nil {
		e.log.Warn("rerank failed", "code", string(fault.CodeOf(err)), "err", err)
		resp.Candidates.Notes = append(resp.Candidates.Notes, "not reranked: "+err.Error())
	}
}

// Status reports what the knowledge base holds and which models are
// loaded (it does not load them).
func (e *Engine) Status(ctx context.Context) (kb.Status, error) {
	st, err := e.db.Stats(ctx)
	if err != nil {
		return kb.Status{}, err
	}
	out := kb.Status{Stats: st, NetworkMode: e.NetworkMode(), Store: "SQLite"}
	if e.team != nil {
		if out, err = e.teamStatus(ctx, out); err != nil {
			return kb.Status{}, err
		}
	}
	e.models.mu.Lock()
	if e.models.emb.m != nil {
		out.EmbeddingModel = e.models.emb.m.ModelID()
	}
	if e.models.gen.m != nil {
		out.ChatModel = filepath.Base(e.models.gen.path)
	}
	var devs []llm.Device
	if e.models.emb.m != nil {
		devs = append(devs, e.models.emb.m.Device())
	}
	if e.models.gen.m != nil {
		devs = append(devs, e.models.gen.m.Device())
	}
	if e.models.rr.m != nil {
		devs = append(devs, e.models.rr.m.Device())
	}
	e.models.mu.Unlock()
	var names []string
	for _, d := range devs {
		if !slices.Contains(names, d.String()) {
			names = append(names, d.String())
		}
	}
	out.Device = strings.Join(names, " + ")
	if online, _ := e.Remote(); online != nil {
		out.ChatModel = remoteWriter{online}.Name() + " (online)" // it writes the answers, not the local one
	}
	return out, nil
}

// Folders lists the knowledge base's folders; with store.backend
// weaviate, the folders indexed from this computer, with the team
// cluster's counts of their files and chunks.
func (e *Engine) Folders(ctx context.Context) ([]domain.Folder, error) {
	folders, err := e.db.Folders(ctx)
	if err != nil || e.team == nil {
		return folders, err
	}
	e.countInCluster(ctx, folders)
	return folders, nil
}

// Issues lists files that are not indexed and why.
func (e *Engine) Issues(ctx context.Context) ([]domain.Issue, error) { return e.db.Issues(ctx, 0) }

// RemoveFolder forgets a folder of the knowledge base and everything
// indexed from it, and returns what it held. With store.backend weaviate
// it removes the folder from the team cluster instead, under the name
// TeamFolderName gives it, for everyone who searches the cluster
// (RemoveTeamFolder; progress, when not nil, follows it). The files
// themselves are not touched.
func (e *Engine) RemoveFolder(ctx context.Context, path string, progress func(domain.Removal)) (domain.Removal, error) {
	if e.team != nil {
		name := e.TeamFolderName(path)
		folders, err := e.TeamFolders(ctx)
		if err != nil {
			return domain.Removal{}, err
		}
		if !slices.ContainsFunc(folders, func(f domain.FolderSize) bool { return f.Folder == name }) {
			// Indexed under another name (cairn index --as): removing
			// this one would remove nothing and say it had.
			return domain.Removal{}, fmt.Errorf("the team cluster holds no folder named %s: a folder indexed with `cairn index --as NAME` is removed with `cairn remove --as NAME`, or name %s NAME in store.folders", name, path)
		}
		return e.RemoveTeamFolder(ctx, name, progress)
	}
	r := domain.Removal{FolderSize: domain.FolderSize{Folder: filepath.Clean(path)}}
	folders, err := e.db.Folders(ctx)
	if err != nil {
		return r, err
	}
	for _, f := range folders {
		if f.Path == r.Folder {
			r.Files, r.Chunks = f.Documents, f.Chunks
		}
	}
	if err := e.db.RemoveFolder(ctx, path); err != nil {
		return r, err
	}
	r.FilesRemoved, r.ChunksRemoved = r.Files, r.Chunks
	// The removal's pages went to the write-ahead log, so the size on disk
	// grew (28.7 to 40.4 MB) until the log was copied back at the next
	// start; copied now, the size shown is the file's again.
	if err := e.db.Checkpoint(ctx); err != nil {
		e.log.Warn("checkpoint after removing a folder", "folder", r.Folder, "err", err)
	}
	return r, nil
}

// Judge records that path answers query (the personal test set).
func (e *Engine) Judge(ctx context.Context, query, path string, chunkID int64) error {
	return e.db.AddJudgment(ctx, query, path, chunkID)
}

// Unjudge forgets a judgment.
func (e *Engine) Unjudge(ctx context.Context, query, path string) error {
	return e.db.RemoveJudgment(ctx, query, path)
}

// Judgments lists the personal test set.
func (e *Engine) Judgments(ctx context.Context) ([]domain.Judgment, error) {
	return e.db.Judgments(ctx)
}

// IsEmpty reports whether the knowledge base has no folders yet.
func (e *Engine) IsEmpty(ctx context.Context) (bool, error) {
	fs, err := e.db.Folders(ctx)
	return len(fs) == 0, err
}
