// Package store keeps a knowledge base in one SQLite file: documents, their
// chunks, an FTS5 index over the chunks (BM25) and a sqlite-vec table of
// chunk embeddings. It is the only package that writes SQL.
//
// One writer connection, guarded by a mutex, makes every change; a small
// pool of reader connections serves searches, which keep working while the
// writer indexes because the database runs in WAL mode.
package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	// The sqlite-vec build of SQLite (FTS5 included) replaces ncruces' embed
	// package; importing both would register two binaries.
	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces"
	"github.com/ncruces/go-sqlite3"

	"cairn/core/fault"
)

// Options tune Open.
type Options struct {
	Readers int // reader connections kept for searches; default 4
	// ReadOnly opens for searching only: the file must already be a
	// knowledge base, and nothing is created, migrated or written.
	// Otherwise Open creates the knowledge base when the file is missing
	// or empty, and brings a knowledge base's schema up to date.
	ReadOnly bool
	// MaxBytes caps the database file's size (PRAGMA max_page_count); a
	// write past it fails as a full disk does. 0: no cap.
	MaxBytes int64
	// WALLimit is the write-ahead log size past which a commit waits for
	// the searches still reading the log and empties it; default 64 MB.
	WALLimit int64
}

// DB is an open knowledge base.
type DB struct {
	path     string
	ro       bool
	maxBytes int64    // Options.MaxBytes
	walLimit int64    // Options.WALLimit
	file     *os.File // holds the use lock (lock.go) while the knowledge base is open
	version  int      // the schema version found at open (after migrating)

	wmu      sync.Mutex // guards the fields below
	w        *sqlite3.Conn
	ws       map[string]*sqlite3.Stmt
	vecDim   int   // dimension of chunks_vec; 0 when there is none
	vqSum    vqSum // running vector sum, valid within a transaction once vqLoaded
	vqLoaded bool

	countCache

	readers chan *sqlite3.Conn
	opened  chan struct{} // capacity = max readers; a token per open reader
	closed  chan struct{}
	once    sync.Once
}

// Open opens the knowledge base at path; see Options.ReadOnly for what it
// may create or change. It writes only into a file that is empty or is
// already Cairn's (ApplicationID), never creates folders, resolves symbolic
// links once, and refuses a file with several names (hard links). The
// file, its write-ahead log and shared-memory files are readable by the
// user only. Errors are faults (see core/fault) naming the file and what to
// do.
func Open(path string, opt Options) (*DB, error) {
	if opt.Readers <= 0 {
		opt.Readers = 4
	}
	abs, err := resolve(path)
	if err != nil {
		return nil, err
	}
	db := &DB{
		path:     abs,
		ro:       opt.ReadOnly,
		maxBytes: opt.MaxBytes,
		walLimit: cmp.Or(opt.WALLimit, 64<<20),
		ws:       map[string]*sqlite3.Stmt{},
		readers:  make(chan *sqlite3.Conn, opt.Readers),
		opened:   make(chan struct{}, opt.Readers),
		closed:   make(chan struct{}),
	}
	// A restore may swap the file between the look and the lock: look
	// again at the new one.
	for range 3 {
		var same bool
		if same, err = db.lockFile(); err != nil || same {
			break
		}
		db.file.Close()
		db.file = nil
	}
	if err != nil {
		return nil, err
	}
	if db.file == nil {
		return nil, fault.New(fault.StoreInUse, abs+" keeps being replaced", "wait for `cairn restore` to finish, then try again", errInUse)
	}
	if err := db.openSQL(); err != nil {
		db.file.Close()
		return nil, err
	}
	return db, nil
}

// lockFile checks what the file is, creates it if it may, and opens it
// with its use lock; same reports that the path still names it.
func (db *DB) lockFile() (same bool, err error) {
	k, err := identify(db.path)
	if err != nil {
		return false, classify(db.path, err)
	}
	switch {
	case k == kindCairn:
	case (k == kindMissing || k == kindEmpty) && !db.ro:
		// An empty file with several names is refused before its
		// companions are made, not after: nothing is left beside it.
		if fi, err := os.Stat(db.path); err == nil {
			if err := checkLinks(db.path, fi); err != nil {
				return false, classify(db.path, err)
			}
		}
		if err := createPrivate(db.path); err != nil {
			return false, classify(db.path, err)
		}
	default:
		return false, notCairn(db.path, k, nil)
	}
	f, same, err := openUse(db.path, !db.ro)
	if err != nil {
		return false, classify(db.path, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkLinks(db.path, fi)
	}
	if err != nil {
		f.Close()
		return false, classify(db.path, err)
	}
	db.file = f
	return same, nil
}

// openSQL opens the SQLite connections: for writing, the writer, which
// migrates the schema; read-only, the first reader, which checks it.
func (db *DB) openSQL() error {
	// A knowledge base made by an older version may have readable files,
	// and SQLite may have recreated its log with the umask's mode.
	defer restrictFiles(db.path)
	if db.ro {
		c, err := db.getReader()
		if err != nil {
			return classify(db.path, err)
		}
		defer db.putReader(c)
		if db.version, err = userVersion(c); err != nil {
			return classify(db.path, fmt.Errorf("knowledge base %s: %w", db.path, err))
		}
		if db.version > SchemaVersion {
			return newerSchema(db.version)
		}
		return nil
	}
	w, err := openConn(db.path, false)
	if err != nil {
		return classify(db.path, err)
	}
	db.w = w
	err = db.limitSize(w)
	if err == nil {
		err = db.migrate()
	}
	if err == nil {
		_, db.vecDim, err = vectorModel(w)
	}
	if err != nil {
		w.Close()
		db.w = nil
		return classify(db.path, fmt.Errorf("knowledge base %s: %w", db.path, err))
	}
	db.version = SchemaVersion
	return nil
}

// Version returns the knowledge base's schema version; read-only, it may
// be older than SchemaVersion (nothing migrates it).
func (db *DB) Version() int { return db.version }

func openConn(path string, readOnly bool) (*sqlite3.Conn, error) {
	// SQLite's file layer creates a missing log or shared memory with the
	// umask's mode (often world-readable); they hold document text.
	createCompanions(path)
	flags := sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
	if readOnly {
		flags = sqlite3.OPEN_READONLY
	}
	c, err := openFlags(path, flags)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := c.BusyTimeout(10 * time.Second); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.CreateFunction("cairn_fold", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS, foldFunction); err != nil {
		c.Close()
		return nil, fmt.Errorf("configure %s: %w", path, err)
	}
	pragmas := `PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;`
	if !readOnly {
		// NORMAL is durable against a crash of the process in WAL mode; only a
		// power cut can lose the last transactions, never corrupt the file.
		pragmas += `PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;`
	}
	if err := c.Exec(pragmas); err != nil {
		c.Close()
		return nil, fmt.Errorf("configure %s: %w", path, err)
	}
	return c, nil
}

// Path returns the database file's absolute path.
func (db *DB) Path() string { return db.path }

// Close closes every connection. It is safe to call more than once.
func (db *DB) Close() error {
	if db == nil {
		return nil
	}
	var err error
	db.once.Do(func() {
		close(db.closed)
		db.wmu.Lock()
		for _, s := range db.ws {
			s.Close()
		}
		if db.w != nil {
			// A final checkpoint keeps the -wal file small for the next start.
			db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			err = db.w.Close()
			db.w = nil
		}
		db.wmu.Unlock()
		defer db.file.Close() // last: releases the use lock
		for {
			select {
			case c := <-db.readers:
				c.Close()
			default:
				return
			}
		}
	})
	return err
}

// write runs fn on the writer connection, holding the write lock.
func (db *DB) write(ctx context.Context, fn func(c *sqlite3.Conn) error) error {
	if db.ro {
		return errors.New("knowledge base is open read-only")
	}
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if db.w == nil {
		return errors.New("knowledge base is closed")
	}
	if ctx.Done() != nil { // an interrupt context keeps a statement busy; see backup.go
		w := db.w
		old := w.SetInterrupt(ctx)
		defer func() {
			if db.w == w { // not replaced by reopenWriter
				w.SetInterrupt(old)
			}
		}()
	}
	err := fn(db.w)
	if err == nil && db.w.GetAutocommit() {
		db.boundWAL()
	}
	return classify(db.path, err)
}

// boundWAL empties the write-ahead log once it passes walLimit. SQLite's
// automatic checkpoint copies the log into the database but can start the
// log over only at a moment no search is reading it; with searches running
// all the time while a large folder was indexed, the log grew to 4.9 GB
// (cairn bench load). TRUNCATE waits (busy timeout) for the searches that
// began before the copy; later ones read the database file and do not hold
// it up. A checkpoint that still finds the log busy is tried again at the
// next commit.
func (db *DB) boundWAL() {
	if fi, err := os.Stat(db.path + "-wal"); err != nil || fi.Size() < db.walLimit {
		return
	}
	db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
}

// tx runs fn inside one transaction on the writer connection: committed if
// fn returns nil, rolled back otherwise.
func (db *DB) tx(ctx context.Context, fn func(c *sqlite3.Conn) error) error {
	return db.write(ctx, func(c *sqlite3.Conn) (err error) {
		t, err := c.BeginImmediate()
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer func() {
			// End the transaction whatever became of ctx: an interrupted
			// ROLLBACK would leave it open (the driver panics then), and
			// an interrupted COMMIT would lose work that is complete.
			old := c.SetInterrupt(context.Background())
			// SQLite keeps an interrupt pending while any statement is
			// still running: a cached statement stopped mid-step by the
			// interrupt must be reset, or ROLLBACK is interrupted too.
			for _, s := range db.ws {
				s.Reset()
			}
			endTx(t, &err)
			if !c.GetAutocommit() {
				// The rollback was interrupted all the same: FTS5 keeps a
				// blob handle open mid-insert, and SQLite holds an
				// interrupt until no statement runs. The open transaction
				// would keep the write lock for good ("database is locked"
				// for every later write); closing the connection rolls it
				// back.
				if rerr := db.reopenWriter(); rerr != nil {
					err = fmt.Errorf("%w (and the transaction could not be ended: %v)", err, rerr)
				}
				return
			}
			c.SetInterrupt(old)
		}()
		db.vqSum, db.vqLoaded = vqSum{}, false
		if err := fn(c); err != nil {
			return err
		}
		if db.vqSum.dirty {
			return saveVQSum(c, db.vqSum)
		}
		return nil
	})
}

// reopenWriter replaces the writer connection with a new one, the old
// one's open transaction rolled back by its closing. The caller holds
// wmu.
func (db *DB) reopenWriter() error {
	for sql, s := range db.ws {
		s.Close()
		delete(db.ws, sql)
	}
	if err := db.w.Close(); err != nil {
		return fmt.Errorf("close the writer connection: %w", err)
	}
	db.w = nil
	w, err := openConn(db.path, false)
	if err != nil {
		return fmt.Errorf("reopen the writer connection: %w", err)
	}
	if err := db.limitSize(w); err != nil {
		w.Close()
		return fmt.Errorf("reopen the writer connection: %w", err)
	}
	db.w = w
	return nil
}

// endTx ends t (commit when *errp is nil, else roll back), turning the
// driver's panic on a failed rollback into an error: a knowledge base
// whose transaction could not be ended must say so, not crash Cairn.
func endTx(t sqlite3.Txn, errp *error) {
	defer func() {
		if r := recover(); r != nil {
			if *errp == nil {
				*errp = fmt.Errorf("ending a transaction failed: %v", r)
			} else {
				*errp = fmt.Errorf("ending a transaction failed: %v (after: %w)", r, *errp)
			}
		}
	}()
	t.End(errp)
}

// stmt returns a cached prepared statement of the writer connection. The
// caller holds wmu.
func (db *DB) stmt(sql string) (*sqlite3.Stmt, error) {
	if s, ok := db.ws[sql]; ok {
		s.Reset()
		s.ClearBindings()
		return s, nil
	}
	s, _, err := db.w.Prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", firstLine(sql), err)
	}
	db.ws[sql] = s
	return s, nil
}

// read runs fn on a reader connection from the pool, interrupted when ctx
// ends.
func (db *DB) read(ctx context.Context, fn func(c *sqlite3.Conn) error) error {
	c, err := db.getReader()
	if err != nil {
		return classify(db.path, err)
	}
	old := c.SetInterrupt(ctx)
	err = fn(c)
	c.SetInterrupt(old)
	db.putReader(c)
	return classify(db.path, err)
}

func (db *DB) getReader() (*sqlite3.Conn, error) {
	select {
	case <-db.closed:
		return nil, errors.New("knowledge base is closed")
	case c := <-db.readers:
		return c, nil
	default:
	}
	select {
	case db.opened <- struct{}{}:
		c, err := openConn(db.path, db.ro)
		if err == nil {
			err = c.Exec(readerSetup)
		}
		if err != nil {
			if c != nil {
				c.Close()
			}
			<-db.opened
			return nil, fmt.Errorf("open a reader of %s: %w", db.path, err)
		}
		return c, nil
	case c := <-db.readers:
		return c, nil
	case <-db.closed:
		return nil, errors.New("knowledge base is closed")
	}
}

func (db *DB) putReader(c *sqlite3.Conn) {
	select {
	case <-db.closed:
		c.Close()
		<-db.opened
	default:
		db.readers <- c
	}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i] + "…"
		}
	}
	return s
}

// exec runs sql with args bound in order on c.
func exec(c *sqlite3.Conn, sql string, args ...any) error {
	s, _, err := c.Prepare(sql)
	if err != nil {
		return fmt.Errorf("prepare %q: %w", firstLine(sql), err)
	}
	defer s.Close()
	if err := bind(s, args...); err != nil {
		return err
	}
	if err := s.Exec(); err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	return nil
}

// bind binds args to s's parameters 1..n.
func bind(s *sqlite3.Stmt, args ...any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case nil:
			err = s.BindNull(i + 1)
		case int:
			err = s.BindInt64(i+1, int64(v))
		case int64:
			err = s.BindInt64(i+1, v)
		case float64:
			err = s.BindFloat(i+1, v)
		case string:
			err = s.BindText(i+1, v)
		case []byte:
			err = s.BindBlob(i+1, v)
		case bool:
			err = s.BindBool(i+1, v)
		default:
			return fmt.Errorf("bind: unsupported type %T", a)
		}
		if err != nil {
			return fmt.Errorf("bind %d: %w", i+1, err)
		}
	}
	return nil
}
