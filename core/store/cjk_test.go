package store

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// Lines of the Chinese and Japanese translations of the ssh(1) and ps(1)
// man pages (Debian packages manpages-zh and manpages-ja).
const (
	zhSSH = "ssh (SSH 客户端) 是一个登录远程主机和在远程主机上执行命令的程序。它的目的是替换 rlogin 和 rsh"
	zhPS  = "ps 显示当前进程的快照。如果你想持续更新显示，使用 top"
	jaPS  = "ps は現在実行中のプロセスのスナップショットを表示する。"
)

// Chinese and Japanese words inside longer runs of characters are found:
// 远程主机 inside a sentence, 进程 inside 当前进程的快照, プロセス in a
// Japanese sentence. unicode61 kept each run as one token, so none was.
func TestCJKWordsAreFound(t *testing.T) {
	db := openTemp(t)
	f, err := db.AddFolder(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, f.ID, "/zh/ssh.1", "SSH 客户端", zhSSH)
	put(t, db, f.ID, "/zh/ps.1", "", zhPS)
	put(t, db, f.ID, "/ja/ps.1", "プロセス状態", jaPS)
	// groff's rendering of a Chinese man page: one character at a time.
	put(t, db, f.ID, "/zh/sshd.8", "", "sshd (SSH 守 护 进 程) 是 ssh 的 守 护 进 程")
	for _, c := range []struct {
		match string
		n     int
	}{
		{`"远程 程主 主机"`, 1}, {`"进程"`, 2}, {`"守护 护进 进程"`, 1}, {`"プロ ロセ セス"`, 1}, {`"客户 户端"`, 1}, {`"rlogin"`, 1}, {`"ps"`, 2},
	} {
		if got := ftsIDs(t, db, c.match); len(got) != c.n {
			t.Errorf("%s: %d hits, want %d", c.match, len(got), c.n)
		}
	}
	// Re-indexing and removing a document take its entries out exactly:
	// the FTS5 'delete' must be given the text that was indexed.
	put(t, db, f.ID, "/zh/ps.1", "", "ps 报告进程状态")
	if probs, err := db.Check(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("check: %v %v", probs, err)
	}
	if got := ftsIDs(t, db, `"快照"`); len(got) != 0 {
		t.Errorf("快照 of the replaced text still found: %v", got)
	}
	if got := ftsIDs(t, db, `"报告"`); len(got) != 1 {
		t.Errorf("报告 of the new text: %v", got)
	}
}

// A knowledge base made before bigrams (schema 4) is migrated: its Chinese
// chunks are indexed again as bigrams, the others are left as they were,
// and the index stays consistent with the chunks.
func TestMigrationIndexesCJKAsBigrams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:4] {
		if err := c.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`PRAGMA user_version=4`,
		`INSERT INTO folders(id, path, added_at) VALUES (1, '/docs', 0)`,
		`INSERT INTO documents(id, folder_id, path, size, mtime_ns, hash, title, indexed_at) VALUES (1, 1, '/docs/ssh.1', 1, 1, 'h', 'SSH 客户端', 0)`,
		`INSERT INTO documents(id, folder_id, path, size, mtime_ns, hash, title, indexed_at) VALUES (2, 1, '/docs/cat.1', 1, 1, 'h', 'cat', 0)`,
		`INSERT INTO chunks(id, document_id, ordinal, text, char_start, char_end) VALUES (1, 1, 0, '` + zhSSH + `', 0, 10)`,
		`INSERT INTO chunks(id, document_id, ordinal, text, char_start, char_end) VALUES (2, 2, 0, 'concatenate files and print', 0, 10)`,
		`INSERT INTO chunks_fts(rowid, text, heading, title) SELECT id, text, heading, title FROM chunk_fts_source`,
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
	if db.Version() != SchemaVersion {
		t.Errorf("version %d, want %d", db.Version(), SchemaVersion)
	}
	if got := ftsIDs(t, db, `"远程 程主 主机"`); !slices.Equal(got, []int64{1}) {
		t.Errorf("远程主机 after migration: %v, want chunk 1", got)
	}
	if got := ftsIDs(t, db, `"concatenate"`); !slices.Equal(got, []int64{2}) {
		t.Errorf("concatenate after migration: %v, want chunk 2", got)
	}
	if probs, err := db.Check(ctx); err != nil || len(probs) > 0 {
		t.Errorf("check after migration: %v %v", probs, err)
	}
}
