package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/fault"
)

// ApplicationID marks a SQLite file as a Cairn knowledge base (PRAGMA
// application_id, bytes 68-71 of the file): "CAIR". Cairn writes its schema
// only into a file that carries it, is empty, or is a knowledge base made
// before the mark existed (which gets it on its next writable open).
const ApplicationID = 0x43414952

// kind is what a file turned out to be before Cairn opened it.
type kind int

const (
	kindMissing kind = iota // no file at the path
	kindEmpty               // an empty file (or a SQLite file with nothing in it)
	kindCairn               // a knowledge base, with the mark or from before it
	kindForeign             // another program's SQLite database
	kindJunk                // not a SQLite database at all (or its first page is damaged)
)

// cairnTables are tables every knowledge base has had since schema 1; a file
// without the mark is taken for a knowledge base only if it has them all.
var cairnTables = []string{"meta", "folders", "documents", "chunks", "chunks_fts", "index_runs", "file_issues"}

// resolve returns path made absolute with its symbolic links resolved, so
// that the write-ahead log, the shared memory and the locks all sit next to
// the real file, whatever name it was given by. A file that does not exist
// yet must be in a folder that does: Cairn creates no folders on a path it
// was given.
func resolve(path string) (string, error) {
	if path == "" {
		return "", fault.New(fault.StoreOpen, "no knowledge base path given", "pass --db PATH or --kb NAME", nil)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("knowledge base path %s: %w", path, err)
	}
	if _, err := os.Lstat(abs); err == nil {
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fault.New(fault.StoreOpen, abs+" is a link to a file that cannot be reached",
				"check where the link points, or pass the file's own path with --db", err)
		}
		return real, nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fault.New(fault.StoreOpen, "the folder "+filepath.Dir(abs)+" does not exist",
			"create the folder first, or pass a path in an existing folder with --db", err)
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// identify looks at the file at path without changing anything next to it:
// its header first, then, for a SQLite file without Cairn's mark, its schema
// through a connection that creates no files. It returns the kind and, for
// a knowledge base, its application id (0 for one made before the mark).
func identify(path string) (kind, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return kindMissing, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open knowledge base: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return kindJunk, fmt.Errorf("%s is not a regular file", path)
	}
	walSize := int64(0)
	if wi, err := os.Stat(path + "-wal"); err == nil {
		walSize = wi.Size()
	}
	if fi.Size() == 0 && walSize == 0 {
		return kindEmpty, nil
	}
	var h [100]byte
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open knowledge base: %w", err)
	}
	_, err = io.ReadFull(f, h[:])
	f.Close()
	if fi.Size() > 0 && (err != nil || string(h[:16]) != "SQLite format 3\x00") {
		return kindJunk, nil
	}
	if fi.Size() > 0 {
		switch binary.BigEndian.Uint32(h[68:72]) {
		case ApplicationID:
			return kindCairn, nil
		case 0:
		default:
			if walSize == 0 {
				return kindForeign, nil
			}
		}
	}
	return inspect(path, walSize)
}

// inspect reads the mark and the schema of a SQLite file. The file is
// first opened immutable, which reads neither its write-ahead log nor its
// shared memory and creates neither: another program's database, open in
// that program, is judged without a byte of its -shm changed. Only a file
// whose schema that view does not settle (no tables yet: a knowledge base
// whose first transactions are all still in its log) is read again through
// its log and shared memory, when both exist.
func inspect(path string, walSize int64) (kind, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "immutable=1"}
	k, err := inspectWith(path, u.String(), sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil || k == kindCairn || k == kindForeign || walSize == 0 {
		return k, err
	}
	if _, err := os.Stat(path + "-shm"); err != nil {
		return k, nil
	}
	return inspectWith(path, path, sqlite3.OPEN_READONLY)
}

// inspectWith is inspect through a connection opened as name with flags.
func inspectWith(path, name string, flags sqlite3.OpenFlag) (kind, error) {
	c, err := openFlags(name, flags)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer c.Close()
	app, err := pragmaInt(c, "application_id")
	if err != nil {
		if errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.CORRUPT) {
			return kindJunk, nil
		}
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	version, err := pragmaInt(c, "user_version")
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	tables := map[string]bool{}
	err = query(c, `SELECT name FROM sqlite_schema`, nil, func(s *sqlite3.Stmt) error {
		tables[s.ColumnText(0)] = true
		return nil
	})
	if err != nil {
		if errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.CORRUPT) {
			return kindJunk, nil
		}
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	objects := len(tables)
	switch {
	case uint32(app) == ApplicationID:
		return kindCairn, nil
	case app != 0:
		return kindForeign, nil
	case objects == 0 && version == 0:
		return kindEmpty, nil
	case version == 0:
		return kindForeign, nil
	}
	for _, t := range cairnTables {
		if !tables[t] {
			return kindForeign, nil
		}
	}
	return kindCairn, nil
}

// notCairn is the fault for a file Cairn will not open as a knowledge base.
func notCairn(path string, k kind, cause error) error {
	switch k {
	case kindForeign:
		return fault.New(fault.StoreNotKB, path+" is another program's SQLite database, not a Cairn knowledge base",
			"check the --db path; Cairn never writes into a database it did not create", cause)
	case kindEmpty:
		return fault.New(fault.StoreOpen, path+" is an empty file, not a knowledge base yet",
			"index a folder into it: `cairn index FOLDER --db "+path+"`", cause)
	case kindMissing:
		return fault.New(fault.StoreOpen, "no knowledge base at "+path,
			"check --kb or --db (`cairn status` shows the default one); `cairn index FOLDER` creates a knowledge base", cause)
	}
	return fault.New(fault.StoreNotKB, path+" is not a Cairn knowledge base, or its first page is damaged",
		"check the --db path; if it is your knowledge base, run `cairn doctor`, then `cairn restore --replace-damaged BACKUP.db` from a backup", cause)
}

// checkLinks refuses a file with more than one name: SQLite names the
// write-ahead log after the path, so two names of one file would give it
// two logs, and two writers through them corrupt it.
func checkLinks(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return nil
	}
	return fault.New(fault.StoreLinked, fmt.Sprintf("%s has %d names (hard links)", path, st.Nlink),
		"SQLite keeps one write-ahead log per name, so Cairn opens a knowledge base with a single name only: "+
			"remove the other links (`find / -samefile "+path+"` lists them) or give Cairn a copy", nil)
}
