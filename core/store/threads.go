package store

import (
	"cairn/core/domain"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// AddTurn appends t to thread, or to a new thread when thread is 0, and
// returns the thread's id.
func (db *DB) AddTurn(ctx context.Context, thread int64, t domain.Turn) (int64, error) {
	now := time.Now().Unix()
	err := db.tx(ctx, func(c *sqlite3.Conn) error {
		if thread == 0 {
			if err := exec(c, `INSERT INTO threads(title, created_at, updated_at) VALUES (?, ?, ?)`,
				oneLineTitle(t.Question), now, now); err != nil {
				return err
			}
			thread = c.LastInsertRowID()
		} else {
			if err := exec(c, `UPDATE threads SET updated_at = ? WHERE id = ?`, now, thread); err != nil {
				return err
			}
			if c.Changes() == 0 {
				return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
			}
		}
		return exec(c, `INSERT INTO thread_turns(thread_id, question, query, answer, created_at, sources) VALUES (?, ?, ?, ?, ?, ?)`,
			thread, t.Question, t.Query, t.Answer, now, jsonList(t.Sources))
	})
	if err != nil {
		return 0, fmt.Errorf("saving the conversation: %w", err)
	}
	return thread, nil
}

// ReplaceLastTurn puts t in place of thread's latest turn: the same question
// answered again (after the knobs changed) is one turn, not two.
func (db *DB) ReplaceLastTurn(ctx context.Context, thread int64, t domain.Turn) error {
	now := time.Now().Unix()
	err := db.tx(ctx, func(c *sqlite3.Conn) error {
		if err := exec(c, `UPDATE thread_turns SET question = ?, query = ?, answer = ?, created_at = ?, sources = ?
			WHERE id = (SELECT max(id) FROM thread_turns WHERE thread_id = ?)`, t.Question, t.Query, t.Answer, now, jsonList(t.Sources), thread); err != nil {
			return err
		}
		if c.Changes() == 0 {
			return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
		}
		return exec(c, `UPDATE threads SET updated_at = ? WHERE id = ?`, now, thread)
	})
	if err != nil {
		return fmt.Errorf("saving the conversation: %w", err)
	}
	return nil
}

// Threads lists the saved conversations, the most recently continued first.
func (db *DB) Threads(ctx context.Context) ([]domain.Thread, error) {
	var out []domain.Thread
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT t.id, t.title, t.created_at, t.updated_at,
				(SELECT count(*) FROM thread_turns WHERE thread_id = t.id), t.folders
			FROM threads t ORDER BY t.updated_at DESC, t.id DESC`, nil, func(s *sqlite3.Stmt) error {
			out = append(out, domain.Thread{ID: s.ColumnInt64(0), Title: s.ColumnText(1), Created: time.Unix(s.ColumnInt64(2), 0),
				Updated: time.Unix(s.ColumnInt64(3), 0), Turns: s.ColumnInt(4), Folders: fromJSONList[string](s.ColumnText(5))})
			return nil
		})
	})
	return out, err
}

// Turns lists a thread's turns, oldest first; ErrNoThread when there is no
// such thread.
func (db *DB) Turns(ctx context.Context, thread int64) ([]domain.Turn, error) {
	var out []domain.Turn
	found := false
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		if err := query(c, `SELECT 1 FROM threads WHERE id = ?`, []any{thread}, func(*sqlite3.Stmt) error {
			found = true
			return nil
		}); err != nil {
			return err
		}
		return query(c, `SELECT question, query, answer, created_at, sources FROM thread_turns WHERE thread_id = ? ORDER BY id`,
			[]any{thread}, func(s *sqlite3.Stmt) error {
				out = append(out, domain.Turn{Question: s.ColumnText(0), Query: s.ColumnText(1), Answer: s.ColumnText(2),
					At: time.Unix(s.ColumnInt64(3), 0), Sources: fromJSONList[domain.TurnSource](s.ColumnText(4))})
				return nil
			})
	})
	if err == nil && !found {
		err = fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	return out, err
}

// SetThreadFolders records the folders thread's questions are answered
// from (none: every folder); ErrNoThread when there is no such thread.
func (db *DB) SetThreadFolders(ctx context.Context, thread int64, folders []string) error {
	clean := make([]string, len(folders))
	for i, f := range folders {
		clean[i] = filepath.Clean(f)
	}
	err := db.tx(ctx, func(c *sqlite3.Conn) error {
		if err := exec(c, `UPDATE threads SET folders = ? WHERE id = ?`, jsonList(clean), thread); err != nil {
			return err
		}
		if c.Changes() == 0 {
			return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("saving the conversation's folders: %w", err)
	}
	return nil
}

// ThreadFolders are the folders thread's questions are answered from
// (none: every folder); ErrNoThread when there is no such thread.
func (db *DB) ThreadFolders(ctx context.Context, thread int64) ([]string, error) {
	var out []string
	found := false
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT folders FROM threads WHERE id = ?`, []any{thread}, func(s *sqlite3.Stmt) error {
			found, out = true, fromJSONList[string](s.ColumnText(0))
			return nil
		})
	})
	if err == nil && !found {
		err = fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	return out, err
}

// jsonList is a list as the conversation tables keep it: JSON, or an
// empty text for none.
func jsonList[T any](l []T) string {
	if len(l) == 0 {
		return ""
	}
	b, err := json.Marshal(l)
	if err != nil {
		return "" // a list of plain values always marshals
	}
	return string(b)
}

// fromJSONList reads a jsonList; ” or a damaged value is none.
func fromJSONList[T any](s string) []T {
	var l []T
	if s != "" && json.Unmarshal([]byte(s), &l) != nil {
		return nil
	}
	return l
}

// DeleteThread removes a thread and its turns; ErrNoThread when there is
// no such thread.
func (db *DB) DeleteThread(ctx context.Context, thread int64) error {
	return db.tx(ctx, func(c *sqlite3.Conn) error {
		if err := exec(c, `DELETE FROM thread_turns WHERE thread_id = ?`, thread); err != nil {
			return err
		}
		if err := exec(c, `DELETE FROM threads WHERE id = ?`, thread); err != nil {
			return err
		}
		if c.Changes() == 0 {
			return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
		}
		return nil
	})
}

// titleLen caps a thread's title: it is a label in a list.
const titleLen = 80

func oneLineTitle(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > titleLen {
		q = string(r[:titleLen-1]) + "…"
	}
	return q
}
