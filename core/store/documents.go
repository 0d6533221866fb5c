package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/chunk"
	"cairn/core/domain"
)

// ErrNestedFolder is returned by AddFolder for a folder inside another one.
var ErrNestedFolder = errors.New("folder is already part of the knowledge base")

// AddFolder registers path (absolute, cleaned) as a root folder, returning
// the existing one if it is already registered. A folder inside a
// registered folder is refused with ErrNestedFolder; registered folders
// inside the new one are merged into it.
func (db *DB) AddFolder(ctx context.Context, path string) (domain.Folder, error) {
	path = filepath.Clean(path)
	var f domain.Folder
	err := db.tx(ctx, func(c *sqlite3.Conn) error {
		folders, err := listFolders(c)
		if err != nil {
			return err
		}
		for _, o := range folders {
			if o.Path == path {
				f = o
				return nil
			}
			if within(path, o.Path) {
				return fmt.Errorf("%w: %s is inside %s", ErrNestedFolder, path, o.Path)
			}
		}
		if err := exec(c, `INSERT INTO folders(path, added_at) VALUES (?, ?)`, path, time.Now().Unix()); err != nil {
			return fmt.Errorf("add folder: %w", err)
		}
		f = domain.Folder{ID: c.LastInsertRowID(), Path: path, AddedAt: time.Now()}
		for _, o := range folders {
			if within(o.Path, path) {
				for _, t := range []string{"documents", "file_issues"} {
					if err := exec(c, `UPDATE `+t+` SET folder_id = ? WHERE folder_id = ?`, f.ID, o.ID); err != nil {
						return err
					}
				}
				if err := exec(c, `DELETE FROM folders WHERE id = ?`, o.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return f, err
}

// within reports whether path lies inside dir (not equal to it).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RemoveFolder forgets a root folder and everything indexed from it.
func (db *DB) RemoveFolder(ctx context.Context, path string) error {
	path = filepath.Clean(path)
	return db.tx(ctx, func(c *sqlite3.Conn) error {
		id, err := folderID(c, path)
		if err != nil {
			return err
		}
		if err := db.deleteVectors(c, `document_id IN (SELECT id FROM documents WHERE folder_id = ?)`, id); err != nil {
			return err
		}
		for _, sql := range []string{
			`INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, title)
				SELECT 'delete', s.id, s.text, s.heading, s.title FROM chunk_fts_source s
				JOIN chunks c ON c.id = s.id JOIN documents d ON d.id = c.document_id
				WHERE d.folder_id = ?`,
			`DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE folder_id = ?)`,
			`DELETE FROM documents WHERE folder_id = ?`,
			`DELETE FROM file_issues WHERE folder_id = ?`,
			`DELETE FROM folders WHERE id = ?`,
		} {
			if err := exec(c, sql, id); err != nil {
				return fmt.Errorf("remove folder %s: %w", path, err)
			}
		}
		return nil
	})
}

func folderID(c *sqlite3.Conn, path string) (int64, error) {
	s, _, err := c.Prepare(`SELECT id FROM folders WHERE path = ?`)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	s.BindText(1, path)
	if !s.Step() {
		if err := s.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%s is not a folder of this knowledge base", path)
	}
	return s.ColumnInt64(0), nil
}

// FolderPaths lists the root folders' paths alone: cheap enough to ask
// before every search (Folders counts their documents and chunks).
func (db *DB) FolderPaths(ctx context.Context) ([]string, error) {
	var out []string
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		fs, err := listFolders(c)
		for _, f := range fs {
			out = append(out, f.Path)
		}
		return err
	})
	return out, err
}

// Folders lists the root folders with their counts and last run.
func (db *DB) Folders(ctx context.Context) ([]domain.Folder, error) {
	var out []domain.Folder
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		fs, err := listFolders(c)
		if err != nil {
			return err
		}
		watched, err := getWatched(c)
		if err != nil {
			return err
		}
		for i := range fs {
			f := &fs[i]
			f.Watched = watched[f.Path]
			err := query(c, `SELECT
				(SELECT count(*) FROM documents WHERE folder_id = ?1),
				(SELECT count(*) FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE folder_id = ?1)),
				(SELECT count(*) FROM file_issues WHERE folder_id = ?1)`,
				[]any{f.ID}, func(s *sqlite3.Stmt) error {
					f.Documents, f.Chunks, f.Issues = s.ColumnInt(0), s.ColumnInt(1), s.ColumnInt(2)
					return nil
				})
			if err != nil {
				return err
			}
			runs, err := db.listRuns(c, `WHERE folder = ? ORDER BY id DESC LIMIT 1`, f.Path)
			if err != nil {
				return err
			}
			if len(runs) > 0 {
				f.LastRun = &runs[0]
			}
		}
		out = fs
		return nil
	})
	return out, err
}

func listFolders(c *sqlite3.Conn) ([]domain.Folder, error) {
	var out []domain.Folder
	err := query(c, `SELECT id, path, added_at FROM folders ORDER BY path`, nil, func(s *sqlite3.Stmt) error {
		out = append(out, domain.Folder{ID: s.ColumnInt64(0), Path: s.ColumnText(1), AddedAt: time.Unix(s.ColumnInt64(2), 0)})
		return nil
	})
	return out, err
}

// FileState is what the indexer compares with the file system to decide
// whether a file changed.
type FileState struct {
	DocumentID int64 // 0 when the file is known only as an issue
	Size       int64
	MTimeNS    int64
	Hash       string
	Issue      string // "skipped" or "failed" when the file is in file_issues
	Reason     string
	Retry      bool // an issue the next run reads the file again for (domain.Issue.Retry)
}

// FileStates returns the state of every file known under a folder, keyed by
// path.
func (db *DB) FileStates(ctx context.Context, folderID int64) (map[string]FileState, error) {
	out := map[string]FileState{}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		err := query(c, `SELECT path, id, size, mtime_ns, hash FROM documents WHERE folder_id = ?`, []any{folderID},
			func(s *sqlite3.Stmt) error {
				out[s.ColumnText(0)] = FileState{DocumentID: s.ColumnInt64(1), Size: s.ColumnInt64(2), MTimeNS: s.ColumnInt64(3), Hash: s.ColumnText(4)}
				return nil
			})
		if err != nil {
			return err
		}
		return query(c, `SELECT path, size, mtime_ns, kind, reason, hash, retry FROM file_issues WHERE folder_id = ?`, []any{folderID},
			func(s *sqlite3.Stmt) error {
				p := s.ColumnText(0)
				if _, ok := out[p]; !ok {
					out[p] = FileState{Size: s.ColumnInt64(1), MTimeNS: s.ColumnInt64(2), Issue: s.ColumnText(3), Reason: s.ColumnText(4),
						Hash: s.ColumnText(5), Retry: s.ColumnBool(6)}
				}
				return nil
			})
	})
	return out, err
}

// Document is a file's row in the knowledge base.
type Document struct {
	ID        int64
	FolderID  int64
	Path      string
	Size      int64
	MTimeNS   int64
	Hash      string
	Title     string
	Format    string
	UnitKind  string // what the units count: "page", "slide", "sheet"; "" for none
	Units     int
	Chars     int
	Warnings  []string
	IndexedAt time.Time
}

// PutDocument stores one document in its own transaction; see Tx.PutDocument.
func (db *DB) PutDocument(ctx context.Context, doc Document, chunks []chunk.Chunk, vectors [][]float32) (docID int64, ids []int64, err error) {
	err = db.Update(ctx, func(tx *Tx) error {
		docID, ids, err = tx.PutDocument(doc, chunks, vectors)
		return err
	})
	return docID, ids, err
}

// TouchDocument records a new size and time for an unchanged document; see
// Tx.TouchDocument.
func (db *DB) TouchDocument(ctx context.Context, id, size, mtimeNS int64) error {
	return db.Update(ctx, func(tx *Tx) error { return tx.TouchDocument(id, size, mtimeNS) })
}

// DeletePaths removes the documents and issues recorded for paths, in one
// transaction.
func (db *DB) DeletePaths(ctx context.Context, paths []string) error {
	return db.Update(ctx, func(tx *Tx) error {
		for _, p := range paths {
			if err := tx.DeletePath(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// RecordIssue notes why a file is not indexed; see Tx.RecordIssue.
func (db *DB) RecordIssue(ctx context.Context, folderID int64, is domain.Issue) error {
	return db.Update(ctx, func(tx *Tx) error { return tx.RecordIssue(folderID, is) })
}

// Issues lists the files not indexed under a folder (all folders when
// folderID is 0), newest first.
func (db *DB) Issues(ctx context.Context, folderID int64) ([]domain.Issue, error) {
	var out []domain.Issue
	where, args := "", []any(nil)
	if folderID != 0 {
		where, args = "WHERE folder_id = ?", []any{folderID}
	}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT path, kind, reason, size, mtime_ns, run_id, at, hash, retry FROM file_issues `+where+` ORDER BY at DESC, path`, args,
			func(s *sqlite3.Stmt) error {
				out = append(out, domain.Issue{Path: s.ColumnText(0), Kind: s.ColumnText(1), Reason: s.ColumnText(2),
					Size: s.ColumnInt64(3), MTimeNS: s.ColumnInt64(4), RunID: s.ColumnInt64(5), At: time.Unix(s.ColumnInt64(6), 0),
					Hash: s.ColumnText(7), Retry: s.ColumnBool(8)})
				return nil
			})
	})
	return out, err
}

// ForgetContent makes the documents of the given formats ("*": every
// document) look changed (no hash, no modification time), so the next
// index run reads them again whatever their files say; their text stays
// searchable until then.
func (db *DB) ForgetContent(ctx context.Context, formats []string) (int, error) {
	n := 0
	err := db.write(ctx, func(c *sqlite3.Conn) error {
		for _, f := range formats {
			if err := exec(c, `UPDATE documents SET hash = '', mtime_ns = 0 WHERE format = ? OR ? = '*'`, f, f); err != nil {
				return err
			}
			n += int(c.Changes())
		}
		return nil
	})
	return n, err
}

// ForgetContentHolding makes the documents any of whose chunks' text has
// match true look changed, as ForgetContent does for a format, so the next
// index run reads them again: a change of what the extractors keep of
// every format (default-ignorable characters, core/invisible) reaches the
// documents it changes and no others. It reads every chunk once.
func (db *DB) ForgetContentHolding(ctx context.Context, match func(text string) bool) (int, error) {
	var ids []int64
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		last := int64(0)
		return query(c, `SELECT document_id, text FROM chunks ORDER BY document_id`, nil, func(s *sqlite3.Stmt) error {
			if id := s.ColumnInt64(0); id != last && match(s.ColumnText(1)) {
				ids = append(ids, id)
				last = id
			}
			return nil
		})
	})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	err = db.write(ctx, func(c *sqlite3.Conn) error {
		for _, id := range ids {
			if err := exec(c, `UPDATE documents SET hash = '', mtime_ns = 0 WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	return len(ids), err
}

// ClearIssues forgets every recorded issue, so the next run retries those
// files (after an upgrade adds formats, or OCR is installed).
func (db *DB) ClearIssues(ctx context.Context) error {
	return db.write(ctx, func(c *sqlite3.Conn) error { return c.Exec(`DELETE FROM file_issues`) })
}

// query runs sql with args and calls row for each result row.
func query(c *sqlite3.Conn, sql string, args []any, row func(s *sqlite3.Stmt) error) error {
	s, _, err := c.Prepare(sql)
	if err != nil {
		return fmt.Errorf("prepare %q: %w", firstLine(sql), err)
	}
	defer s.Close()
	if err := bind(s, args...); err != nil {
		return err
	}
	for s.Step() {
		if err := row(s); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	return nil
}
