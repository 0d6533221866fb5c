package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"golang.org/x/sys/unix"

	"cairn/core/domain"
	"cairn/core/fault"
)

// Backup writes a consistent copy of the knowledge base to dest, which
// must not exist. It runs VACUUM INTO on a reader connection: the copy is
// the snapshot of one read transaction, so an indexing run writing at the
// same time (in this or another process) is either wholly in it or not at
// all, file by file. The copy is written next to dest and renamed into
// place once complete, readable by the user only. ctx is checked before the
// copy starts; the copy itself cannot be interrupted (see vacuumInto).
func (db *DB) Backup(ctx context.Context, dest string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dest, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup: %s exists; choose a new file name", dest)
	}
	tmp, hold, err := privateTemp(dest)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer hold.Close()
	defer removeTemp(tmp)
	c, err := db.getReader()
	if err != nil {
		return classify(db.path, err)
	}
	err = vacuumInto(c, tmp)
	db.putReader(c)
	if err != nil {
		// Damage is the knowledge base's; a full disk or a refused write is
		// the backup's.
		blame := dest
		if errors.Is(err, sqlite3.CORRUPT) || errors.Is(err, sqlite3.NOTADB) {
			blame = db.path
		}
		return fmt.Errorf("backup to %s: %w", dest, classify(blame, err))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// Verify checks that the file at path is a healthy knowledge base this
// version of Cairn can open, without changing it: SQLite's integrity check,
// the schema version, and the tables of a knowledge base. It returns the
// file's schema version and counts.
func Verify(ctx context.Context, path string) (domain.Stats, error) {
	st := domain.Stats{Path: path}
	bad := func(msg string, err error) error {
		return fault.New(fault.StoreBackup, path+": "+msg,
			"choose another backup file; `cairn doctor --db FILE` shows what is wrong with this one", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return st, bad("cannot read it", err)
	}
	// What the file is decides the message: SQLite says "unable to open
	// database file" of a folder, a text file or an empty one alike.
	abs, err := filepath.Abs(path)
	if err != nil {
		return st, bad("cannot read it", err)
	}
	k, kerr := identify(abs)
	switch {
	case fi.IsDir():
		return st, bad("a folder, not a Cairn knowledge base", nil)
	case k == kindEmpty:
		return st, bad("an empty file, not a Cairn knowledge base", nil)
	case k == kindJunk:
		return st, bad("not a Cairn knowledge base: not an SQLite database at all, or its first page is damaged", nil)
	case k == kindForeign:
		return st, bad("another program's SQLite database, not a Cairn knowledge base", nil)
	case kerr != nil:
		return st, bad("cannot open it", kerr)
	}
	c, err := openUntouched(abs)
	if err != nil {
		return st, bad("cannot open it", err)
	}
	defer c.Close()
	old := c.SetInterrupt(ctx)
	defer c.SetInterrupt(old)
	v, err := userVersion(c)
	if err != nil {
		return st, bad("not a knowledge base (or damaged)", err)
	}
	st.SchemaVersion = v
	switch {
	case v > SchemaVersion:
		return st, bad(fmt.Sprintf("made by a newer Cairn (schema %d, this one reads up to %d)", v, SchemaVersion), nil)
	case v == 0:
		return st, bad("not a Cairn knowledge base", nil)
	}
	var problems []string
	err = query(c, `PRAGMA integrity_check`, nil, func(s *sqlite3.Stmt) error {
		if t := s.ColumnText(0); t != "ok" && len(problems) < 5 {
			problems = append(problems, t)
		}
		return nil
	})
	if err != nil {
		return st, bad("damaged", err)
	}
	if len(problems) > 0 {
		return st, bad("damaged: "+strings.Join(problems, "; "), nil)
	}
	err = query(c, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks WHERE vec = 1)`, nil,
		func(s *sqlite3.Stmt) error {
			st.Documents, st.Chunks, st.Vectors = s.ColumnInt(0), s.ColumnInt(1), s.ColumnInt(2)
			return nil
		})
	if err != nil {
		return st, bad("not a Cairn knowledge base", err)
	}
	return st, nil
}

// openUntouched opens the database at path read-only without creating
// anything beside it. Without a write-ahead log it opens it immutable: a
// read-only connection to a file in WAL mode would create a -wal and a -shm
// (with the umask's mode) and, unable to delete them, leave them behind.
// A file with a log is read through it, as SQLite must.
func openUntouched(path string) (*sqlite3.Conn, error) {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		createCompanions(path)
		return openFlags(path, sqlite3.OPEN_READONLY)
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: "immutable=1"}
	return openFlags(u.String(), sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
}

// Restore replaces the knowledge base at dst with a copy of the backup at
// src, after checking the copy: Verify, then every check of Check (the
// full-text index, orphans, vectors), and migrating it to this version's
// schema. The replaced file is kept as dst.bak. It returns the restored
// copy's counts.
//
// It refuses while an indexing run holds dst (STORE-002) or while any
// Cairn has it open, searching included (STORE-008): every Open holds the
// use lock (lock.go) until Close, and Restore swaps the file only while it
// holds that lock exclusively. It replaces a knowledge base, and a file
// that is not a database at all (a knowledge base whose first page is
// damaged, or a file that never was one) only with opt.ReplaceDamaged:
// never another program's database. A missing dst is created only with
// opt.Create. The .bak of an earlier restore is replaced only when it
// holds a knowledge base (or nothing): anything else there is refused, so
// no restore deletes the one copy of a file it did not recognise.
func Restore(ctx context.Context, src, dst string, opt RestoreOptions) (domain.Stats, error) {
	// SQLite's copy is made with another working folder's idea of a
	// relative name: `cairn restore backups/kb.db` failed with "unable to
	// open database file".
	if abs, err := filepath.Abs(src); err == nil {
		src = abs
	}
	dst, err := resolve(dst)
	if err != nil {
		return domain.Stats{}, err
	}
	k, err := identify(dst)
	if err != nil {
		return domain.Stats{}, classify(dst, err)
	}
	switch {
	case k == kindForeign:
		return domain.Stats{}, notCairn(dst, k, nil)
	case k == kindJunk && !opt.ReplaceDamaged:
		return domain.Stats{}, fault.New(fault.StoreNotKB, dst+" is not a Cairn knowledge base, or its first page is damaged; restore leaves it alone",
			"check --kb or --db; if it is your damaged knowledge base, restore again with --replace-damaged (it is kept as "+filepath.Base(dst)+".bak)", nil)
	case k == kindMissing && !opt.Create:
		return domain.Stats{}, fault.New(fault.StoreOpen, "no knowledge base at "+dst,
			"check --kb or --db, or pass --create to restore the backup into a new knowledge base there", nil)
	}
	var f *os.File // dst, with its indexing lock
	if k != kindMissing {
		if err := checkOldBackup(dst + ".bak"); err != nil {
			return domain.Stats{}, err
		}
		// Refuse at once when another process holds or uses dst, before
		// the backup's checks, which take a while on a large file.
		if f, err = lockForRestore(dst); err != nil {
			return domain.Stats{}, err
		}
		defer f.Close()
		release, err := useExclusive(f, dst)
		if err != nil {
			return domain.Stats{}, err
		}
		err = closeWAL(dst)
		release()
		if err != nil {
			return domain.Stats{}, err
		}
	}
	if _, err := Verify(ctx, src); err != nil {
		return domain.Stats{}, err
	}
	// A copy beside dst, made by SQLite rather than by copying bytes, so a
	// source still in WAL mode comes with its log's content.
	tmp, hold, err := privateTemp(dst)
	if err != nil {
		return domain.Stats{}, classify(dst, err)
	}
	defer hold.Close()
	defer removeTemp(tmp)
	if err := copyInto(src, tmp); err != nil {
		return domain.Stats{}, fault.New(fault.StoreBackup, "copy "+src, "choose another backup file", err)
	}
	st, err := checkCopy(ctx, tmp)
	if err != nil {
		return domain.Stats{}, fault.New(fault.StoreBackup, src+" fails the knowledge base checks",
			"choose another backup file; `cairn doctor --db FILE` shows what is wrong with this one", err)
	}
	if f != nil {
		// Anyone who opened dst during the checks refuses the swap; anyone
		// who opens it now waits for the swap, then opens the new file.
		release, err := useExclusive(f, dst)
		if err != nil {
			return domain.Stats{}, err
		}
		defer release()
		if err := closeWAL(dst); err != nil {
			return domain.Stats{}, err
		}
		// The old file keeps its log (if a damaged file still has one)
		// under the name SQLite looks for next to the .bak.
		if err := checkOldBackup(dst + ".bak"); err != nil {
			return domain.Stats{}, err // put there during the checks
		}
		removeDB(dst + ".bak")
		for _, suffix := range companions {
			os.Rename(dst+suffix, dst+".bak"+suffix)
		}
		if err := os.Rename(dst, dst+".bak"); err != nil {
			return domain.Stats{}, fmt.Errorf("keep the old knowledge base: %w", err)
		}
	} else if _, err := os.Lstat(dst); err == nil {
		return domain.Stats{}, fmt.Errorf("restore: %s appeared during the checks; run restore again", dst)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return domain.Stats{}, fmt.Errorf("restore %s: %w", dst, err)
	}
	st.Path = dst
	return st, nil
}

// RestoreOptions say what Restore may replace.
type RestoreOptions struct {
	Create         bool // restore into a knowledge base that does not exist yet
	ReplaceDamaged bool // replace a file that is not recognisable as a knowledge base
}

// checkOldBackup refuses to replace bak, the .bak of an earlier restore,
// unless it is missing, empty or a knowledge base: the file an earlier
// restore replaced with ReplaceDamaged, or one the person put there, may
// be the only copy of something.
func checkOldBackup(bak string) error {
	fi, err := os.Lstat(bak)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && fi.Mode().IsRegular() {
		var k kind
		if k, err = identify(bak); err == nil && (k == kindCairn || k == kindEmpty) {
			return nil
		}
	}
	return fault.New(fault.StoreNotKB, bak+" holds something other than a Cairn knowledge base; restore would replace it, and will not",
		"move "+bak+" somewhere safe (or delete it if you are sure), then restore again", err)
}

// lockForRestore opens dst, refuses a file with several names, and takes
// its indexing lock.
func lockForRestore(dst string) (*os.File, error) {
	f, err := os.OpenFile(dst, os.O_RDWR, 0)
	if err != nil {
		return nil, classify(dst, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkLinks(dst, fi)
	}
	if err == nil {
		var held bool
		if held, err = lockByte(f, unix.F_WRLCK, indexByte); held {
			err = classify(dst, domain.ErrIndexing)
		}
	}
	if err != nil {
		f.Close()
		return nil, classify(dst, err)
	}
	return f, nil
}

// useExclusive takes dst's use lock exclusively, which succeeds only when
// no Cairn has dst open, and returns its release.
func useExclusive(f *os.File, dst string) (release func(), err error) {
	held, err := lockByte(f, unix.F_WRLCK, useByte)
	if err != nil {
		return nil, fmt.Errorf("knowledge base lock: %w", err)
	}
	if held {
		return nil, fault.New(fault.StoreInUse, dst+" is open in another Cairn (a window or a command, searches included)",
			"close it, or wait for the command to finish, then restore again", errInUse)
	}
	return func() { lockByte(f, unix.F_UNLCK, useByte) }, nil
}

// copyInto copies the database at src into the empty file dst.
func copyInto(src, dst string) error {
	c, err := openUntouched(src)
	if err != nil {
		return err
	}
	defer c.Close()
	return vacuumInto(c, dst)
}

// vacuumInto copies c's database into the empty file dst. VACUUM refuses to
// run beside another statement, and a connection with a cancellable
// interrupt context keeps one busy (ncruces' SetInterrupt), so the copy runs
// without one: it cannot be cancelled half-way.
func vacuumInto(c *sqlite3.Conn, dst string) error {
	prev := c.SetInterrupt(context.Background())
	defer c.SetInterrupt(prev)
	return c.Exec(`VACUUM INTO ` + sqlite3.Quote(dst))
}

// checkCopy opens the restored copy as a knowledge base (migrating an older
// schema), runs Check on it and closes it cleanly.
func checkCopy(ctx context.Context, path string) (domain.Stats, error) {
	db, err := Open(path, Options{Readers: 1})
	if err != nil {
		return domain.Stats{}, err
	}
	defer db.Close()
	problems, err := db.Check(ctx)
	if err != nil {
		return domain.Stats{}, err
	}
	if len(problems) > 0 {
		return domain.Stats{}, errors.New(strings.Join(problems, "; "))
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return domain.Stats{}, err
	}
	if err := db.Close(); err != nil {
		return domain.Stats{}, err
	}
	return st, nil
}

// closeWAL folds dst's write-ahead log into the file and leaves WAL mode,
// which SQLite allows only when no other connection has the file open: so
// it doubles as the test that no window or command is using it. A damaged
// file may refuse: it is being replaced, and is kept whole as the .bak.
func closeWAL(dst string) error {
	if _, err := os.Stat(dst); err != nil {
		return nil // nothing to replace
	}
	c, err := openFlags(dst, sqlite3.OPEN_READWRITE)
	if err != nil {
		return classify(dst, err)
	}
	defer c.Close()
	if err := c.BusyTimeout(200 * time.Millisecond); err != nil {
		return err
	}
	if err := c.Exec(`PRAGMA journal_mode=DELETE`); err != nil {
		if errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED) {
			return fault.New(fault.StoreInUse, dst+" is open in another Cairn (a window or a command)",
				"close it, then restore again", err)
		}
		if !errors.Is(err, sqlite3.CORRUPT) && !errors.Is(err, sqlite3.NOTADB) {
			return classify(dst, err)
		}
	}
	return nil
}

// removeDB deletes a database file and its companions.
func removeDB(path string) {
	os.Remove(path)
	for _, suffix := range companions {
		os.Remove(path + suffix)
	}
}
