package store

import (
	"cairn/core/domain"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// A thread keeps its turns in order; the list shows the most recently
// continued first; deleting one leaves the other whole.
func TestThreadsAreSavedListedAndDeleted(t *testing.T) {
	db := openTemp(t)
	grep, err := db.AddTurn(ctx, 0, domain.Turn{Question: "How do I make grep\nignore case?", Answer: "Use -i [1]."})
	if err != nil {
		t.Fatal(err)
	}
	pump, err := db.AddTurn(ctx, 0, domain.Turn{Question: "How is the pump seal replaced?", Answer: "Yearly [1]."})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := db.AddTurn(ctx, grep, domain.Turn{Question: "and for tar?", Query: "tar ignore case", Answer: "--ignore-case [2]."}); err != nil || id != grep {
		t.Fatalf("continue: %d %v", id, err)
	}
	turns, err := db.Turns(ctx, grep)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Question != "How do I make grep\nignore case?" || turns[1].Query != "tar ignore case" ||
		turns[1].Answer != "--ignore-case [2]." {
		t.Errorf("turns %+v", turns)
	}
	list, err := db.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, th := range list {
		ids = append(ids, th.ID)
	}
	// Both were saved within a second or two: the order is not asserted.
	if len(list) != 2 || !slices.Contains(ids, grep) || !slices.Contains(ids, pump) {
		t.Fatalf("threads %+v", list)
	}
	for _, th := range list {
		if th.ID == grep && (th.Title != "How do I make grep ignore case?" || th.Turns != 2) {
			t.Errorf("grep thread %+v", th)
		}
	}
	if err := db.DeleteThread(ctx, grep); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Turns(ctx, grep); !errors.Is(err, domain.ErrNoThread) {
		t.Errorf("turns of a deleted thread: %v", err)
	}
	if err := db.DeleteThread(ctx, grep); !errors.Is(err, domain.ErrNoThread) {
		t.Errorf("deleting twice: %v", err)
	}
	if _, err := db.AddTurn(ctx, grep, domain.Turn{Question: "and zip?"}); !errors.Is(err, domain.ErrNoThread) {
		t.Errorf("continuing a deleted thread: %v", err)
	}
	if turns, err := db.Turns(ctx, pump); err != nil || len(turns) != 1 {
		t.Errorf("the other thread: %+v %v", turns, err)
	}
	var left int
	db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT count(*) FROM thread_turns`, nil, func(s *sqlite3.Stmt) error {
			left = s.ColumnInt(0)
			return nil
		})
	})
	if left != 1 {
		t.Errorf("%d turns left, want the pump thread's 1", left)
	}
}

// A knowledge base of schema 5 (before conversations) opens, is migrated,
// keeps its documents and can save a thread.
func TestMigrationAddsThreads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFunction("cairn_cjk", 1, sqlite3.DETERMINISTIC, cjkFunction); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:5] {
		if err := c.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`PRAGMA user_version=5`,
		`INSERT INTO folders(id, path, added_at) VALUES (1, '/docs', 0)`,
		`INSERT INTO documents(id, folder_id, path, size, mtime_ns, hash, title, indexed_at) VALUES (1, 1, '/docs/cat.1', 1, 1, 'h', 'cat', 0)`,
	} {
		if err := c.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	c.Close()

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Version() != SchemaVersion || SchemaVersion < 6 {
		t.Errorf("version %d, want %d (6 or later)", db.Version(), SchemaVersion)
	}
	if _, err := db.AddTurn(ctx, 0, domain.Turn{Question: "what does cat do?", Answer: "concatenates"}); err != nil {
		t.Fatal(err)
	}
	if st, err := db.Stats(ctx); err != nil || st.Documents != 1 {
		t.Errorf("stats after migration: %+v %v", st, err)
	}
}

// A thread keeps the folders its questions are answered from and each
// answer's cited passages; a knowledge base of schema 6 keeps its threads,
// which answer from every folder and cite nothing they can reopen.
func TestThreadsKeepTheirFoldersAndCitedSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "six.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFunction("cairn_cjk", 1, sqlite3.DETERMINISTIC, cjkFunction); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:6] {
		if err := c.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`PRAGMA user_version=6`,
		`INSERT INTO threads(id, title, created_at, updated_at) VALUES (1, 'what does cat do?', 0, 0)`,
		`INSERT INTO thread_turns(thread_id, question, answer, created_at) VALUES (1, 'what does cat do?', 'concatenates [1]', 0)`,
	} {
		if err := c.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	c.Close()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if old, err := db.ThreadFolders(ctx, 1); err != nil || old != nil {
		t.Errorf("an old thread's folders: %q %v", old, err)
	}
	if turns, err := db.Turns(ctx, 1); err != nil || len(turns) != 1 || turns[0].Sources != nil {
		t.Errorf("an old thread's turns: %+v %v", turns, err)
	}

	cited := []domain.TurnSource{{N: 1, ChunkID: 7, Path: "/docs/cat.1"}, {N: 2, ChunkID: 9, Path: "/docs/tac.1"}}
	id, err := db.AddTurn(ctx, 0, domain.Turn{Question: "and tac?", Answer: "reverses [1] [2]", Sources: cited})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetThreadFolders(ctx, id, []string{"/docs/", "/home/me/guide"}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.ThreadFolders(ctx, id); err != nil || !slices.Equal(got, []string{"/docs", "/home/me/guide"}) {
		t.Errorf("folders %q %v", got, err)
	}
	list, _ := db.Threads(ctx)
	for _, th := range list {
		if want := []string(nil); th.ID == 1 && !slices.Equal(th.Folders, want) || th.ID == id && len(th.Folders) != 2 {
			t.Errorf("listed %+v", th)
		}
	}
	turns, err := db.Turns(ctx, id)
	if err != nil || len(turns) != 1 || !slices.Equal(turns[0].Sources, cited) {
		t.Errorf("turns %+v %v", turns, err)
	}
	again := []domain.TurnSource{{N: 1, ChunkID: 9, Path: "/docs/tac.1"}}
	if err := db.ReplaceLastTurn(ctx, id, domain.Turn{Question: "and tac?", Answer: "reverses [1]", Sources: again}); err != nil {
		t.Fatal(err)
	}
	if turns, _ := db.Turns(ctx, id); len(turns) != 1 || !slices.Equal(turns[0].Sources, again) {
		t.Errorf("answered again: %+v", turns)
	}
	if err := db.SetThreadFolders(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ThreadFolders(ctx, id); got != nil {
		t.Errorf("every folder again: %q", got)
	}
	if err := db.SetThreadFolders(ctx, 99, []string{"/docs"}); !errors.Is(err, domain.ErrNoThread) {
		t.Errorf("no such thread: %v", err)
	}
	if _, err := db.ThreadFolders(ctx, 99); !errors.Is(err, domain.ErrNoThread) {
		t.Errorf("no such thread: %v", err)
	}
}
