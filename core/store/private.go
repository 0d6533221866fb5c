package store

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/ncruces/go-sqlite3"
)

// companions are the files SQLite keeps next to a database in WAL mode;
// they hold the same text as the database itself.
var companions = []string{"-wal", "-shm"}

// createPrivate creates the database file and its companions readable by
// the user only, before SQLite opens them: SQLite's file layer creates them
// with whatever the umask allows (often world-readable), and the write-ahead
// log receives document text as soon as the schema is written.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create knowledge base %s: %w", path, err)
	}
	f.Close()
	createCompanions(path)
	return nil
}

// createCompanions creates the missing companions of the knowledge base at
// path, empty and readable by the user only. O_EXCL: an existing one
// belongs to SQLite and is left as it is. In a folder that is not writable
// nothing is created, and SQLite reads without them.
func createCompanions(path string) {
	for _, suffix := range companions {
		if f, err := os.OpenFile(path+suffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		}
	}
}

// restrictFiles takes group and other permissions off the database and its
// companions (knowledge bases made by older versions, or files SQLite
// recreated). Failures are left to `cairn doctor` to report: a file owned
// by someone else cannot be changed, and the database still works.
func restrictFiles(path string) {
	for _, suffix := range append([]string{""}, companions...) {
		fi, err := os.Stat(path + suffix)
		if err == nil && fi.Mode().Perm()&0o077 != 0 {
			os.Chmod(path+suffix, fi.Mode().Perm()&0o700)
		}
	}
}

// PrivateFiles lists the knowledge base's files that exist (the database,
// its companions, and the lock file older versions made) with their
// permissions.
func PrivateFiles(path string) map[string]fs.FileMode {
	out := map[string]fs.FileMode{}
	for _, suffix := range append([]string{"", ".lock"}, companions...) {
		if fi, err := os.Stat(path + suffix); err == nil {
			out[path+suffix] = fi.Mode().Perm()
		}
	}
	return out
}

// limitSize applies Options.MaxBytes to the writer connection.
func (db *DB) limitSize(c *sqlite3.Conn) error {
	if db.maxBytes <= 0 {
		return nil
	}
	var pageSize int64
	err := query(c, `PRAGMA page_size`, nil, func(s *sqlite3.Stmt) error {
		pageSize = s.ColumnInt64(0)
		return nil
	})
	if err != nil || pageSize <= 0 {
		return fmt.Errorf("page size: %w", err)
	}
	return c.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, max(1, db.maxBytes/pageSize)))
}
