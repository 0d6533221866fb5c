package store

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/cjk"
	"cairn/core/fault"
)

// migrations are applied in order; PRAGMA user_version counts the applied
// ones. Never edit a released migration: append a new one.
var migrations = []string{
	// 1: documents, chunks, FTS5 over chunks, runs, per-file issues.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE folders (
	id       INTEGER PRIMARY KEY,
	path     TEXT NOT NULL UNIQUE,
	added_at INTEGER NOT NULL
);

CREATE TABLE documents (
	id         INTEGER PRIMARY KEY,
	folder_id  INTEGER NOT NULL REFERENCES folders(id),
	path       TEXT NOT NULL UNIQUE,
	size       INTEGER NOT NULL,
	mtime_ns   INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	title      TEXT NOT NULL DEFAULT '',
	format     TEXT NOT NULL DEFAULT '',
	unit_kind  TEXT NOT NULL DEFAULT '',
	units      INTEGER NOT NULL DEFAULT 0,
	chars      INTEGER NOT NULL DEFAULT 0,
	warnings   TEXT NOT NULL DEFAULT '',
	indexed_at INTEGER NOT NULL
);
CREATE INDEX documents_folder ON documents(folder_id);

CREATE TABLE chunks (
	id          INTEGER PRIMARY KEY,
	document_id INTEGER NOT NULL REFERENCES documents(id),
	ordinal     INTEGER NOT NULL,
	text        TEXT NOT NULL,
	heading     TEXT NOT NULL DEFAULT '',
	unit_kind   TEXT NOT NULL DEFAULT '',
	page        INTEGER NOT NULL DEFAULT 0,
	label       TEXT NOT NULL DEFAULT '',
	line_start  INTEGER NOT NULL DEFAULT 0,
	line_end    INTEGER NOT NULL DEFAULT 0,
	char_start  INTEGER NOT NULL,
	char_end    INTEGER NOT NULL,
	vec         INTEGER NOT NULL DEFAULT 0 -- 1 when chunks_vec holds its embedding
);
CREATE INDEX chunks_document ON chunks(document_id, ordinal);
CREATE INDEX chunks_without_vector ON chunks(id) WHERE vec = 0;

-- FTS5 with external content: the view supplies each chunk's text, heading
-- and document title, so nothing is stored twice. The store writes the index
-- entries itself in the same transaction as the chunks (tx.go): through a
-- trigger, FTS5 inserts measured 3-4 times slower. The 'delete' needs the old
-- values, so a document's chunks are always deleted before its row changes.
CREATE VIEW chunk_fts_source AS
	SELECT c.id AS id, c.text AS text, c.heading AS heading, d.title AS title
	FROM chunks c JOIN documents d ON d.id = c.document_id;

CREATE VIRTUAL TABLE chunks_fts USING fts5(
	text, heading, title,
	content='chunk_fts_source', content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TABLE index_runs (
	id              INTEGER PRIMARY KEY,
	folder          TEXT NOT NULL,
	started_at      INTEGER NOT NULL,
	finished_at     INTEGER NOT NULL DEFAULT 0,
	status          TEXT NOT NULL,
	files_seen      INTEGER NOT NULL DEFAULT 0,
	files_indexed   INTEGER NOT NULL DEFAULT 0,
	files_unchanged INTEGER NOT NULL DEFAULT 0,
	files_skipped   INTEGER NOT NULL DEFAULT 0,
	files_failed    INTEGER NOT NULL DEFAULT 0,
	files_removed   INTEGER NOT NULL DEFAULT 0,
	chunks          INTEGER NOT NULL DEFAULT 0,
	bytes           INTEGER NOT NULL DEFAULT 0,
	error           TEXT NOT NULL DEFAULT ''
);

-- Files that were looked at but are not in documents, with the reason, so
-- no file is ever silently missing and unchanged ones are not retried.
CREATE TABLE file_issues (
	path      TEXT PRIMARY KEY,
	folder_id INTEGER NOT NULL REFERENCES folders(id),
	kind      TEXT NOT NULL,
	reason    TEXT NOT NULL,
	size      INTEGER NOT NULL,
	mtime_ns  INTEGER NOT NULL,
	run_id    INTEGER NOT NULL,
	at        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX file_issues_folder ON file_issues(folder_id);
`,
	// 2: quantized copies of the vectors for the in-memory fast path (see
	// quantized.go), and the running sum that centres their binary codes.
	`
CREATE TABLE chunk_vq (
	id INTEGER PRIMARY KEY, -- chunk id
	q  BLOB NOT NULL        -- float32 scale, then one int8 per dimension
);
CREATE TABLE vq_stats (
	id    INTEGER PRIMARY KEY CHECK (id = 1),
	count INTEGER NOT NULL,
	sum   BLOB NOT NULL     -- float64 per dimension
);
`,
	// 3: the user's relevance judgements: "this file answers this question",
	// the personal test set the tuning panel measures against.
	`
CREATE TABLE judgments (
	id         INTEGER PRIMARY KEY,
	query      TEXT NOT NULL,
	path       TEXT NOT NULL,
	chunk_id   INTEGER NOT NULL DEFAULT 0, -- the passage marked; may vanish on re-index, the path stays
	created_at INTEGER NOT NULL,
	UNIQUE (query, path)
);
`,
	// 4: what the in-memory keyword index (core/bm25) needs to follow the
	// chunks: a count of deletions, and the highest chunk id ever deleted,
	// so that ids are never handed out twice (nextChunkID starts above it).
	// Without that, SQLite reuses the ids of the newest chunks when their
	// file is re-indexed, and anything holding a chunk id (that index, the
	// vector fast path, a judgement) would see another passage under it.
	`
CREATE TRIGGER chunks_deleted AFTER DELETE ON chunks BEGIN
	INSERT INTO meta(key, value) VALUES ('chunk_deletes', 1)
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
	INSERT INTO meta(key, value) VALUES ('chunk_id_high', old.id)
		ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS INTEGER), old.id);
END;
`,
	// 5: Chinese and Japanese are indexed as overlapping character bigrams
	// (core/cjk): unicode61 kept a run of Han or kana as one token, so no
	// word inside a sentence could be found. A text holding CJK keeps its
	// bigram form beside it (NULL otherwise, so other text costs nothing),
	// the view hands FTS5 that form, and the rows concerned are indexed
	// again. cairn_cjk is registered on the connection that migrates.
	`
ALTER TABLE chunks ADD COLUMN fts_text TEXT;
ALTER TABLE chunks ADD COLUMN fts_heading TEXT;
ALTER TABLE documents ADD COLUMN fts_title TEXT;

CREATE TEMP TABLE cjk_rows AS
	SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
	WHERE cairn_cjk(c.text) IS NOT NULL OR cairn_cjk(c.heading) IS NOT NULL OR cairn_cjk(d.title) IS NOT NULL;
INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, title)
	SELECT 'delete', id, text, heading, title FROM chunk_fts_source WHERE id IN (SELECT id FROM temp.cjk_rows);
UPDATE chunks SET fts_text = cairn_cjk(text), fts_heading = cairn_cjk(heading) WHERE id IN (SELECT id FROM temp.cjk_rows);
UPDATE documents SET fts_title = cairn_cjk(title) WHERE cairn_cjk(title) IS NOT NULL;

DROP VIEW chunk_fts_source;
CREATE VIEW chunk_fts_source AS
	SELECT c.id AS id, coalesce(c.fts_text, c.text) AS text, coalesce(c.fts_heading, c.heading) AS heading,
		coalesce(d.fts_title, d.title) AS title
	FROM chunks c JOIN documents d ON d.id = c.document_id;

INSERT INTO chunks_fts(rowid, text, heading, title)
	SELECT id, text, heading, title FROM chunk_fts_source WHERE id IN (SELECT id FROM temp.cjk_rows);
DROP TABLE temp.cjk_rows;
`,
	// 6: conversations: a thread of questions asked one after the other,
	// so that a follow-up ("and for tar?") can be made standalone from the
	// turns before it, and the thread reopened later.
	`
CREATE TABLE threads (
	id         INTEGER PRIMARY KEY,
	title      TEXT NOT NULL, -- the first question
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE TABLE thread_turns (
	id         INTEGER PRIMARY KEY,
	thread_id  INTEGER NOT NULL REFERENCES threads(id),
	question   TEXT NOT NULL,
	query      TEXT NOT NULL DEFAULT '', -- what was searched, when not the question
	answer     TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX thread_turns_thread ON thread_turns(thread_id, id);
`,
	// 7: a file not indexed keeps the content hash it was read with, and
	// whether the next run reads it again (retry: a failure that may not
	// happen again, such as a timeout or a read error, once); the others
	// wait until the file changes or the person asks (cairn index
	// --retry-failed). Failures recorded before were all retried.
	`
ALTER TABLE file_issues ADD COLUMN hash TEXT NOT NULL DEFAULT '';
ALTER TABLE file_issues ADD COLUMN retry INTEGER NOT NULL DEFAULT 0;
UPDATE file_issues SET retry = 1 WHERE kind = 'failed';
`,
	// 8: a conversation keeps the folders its questions are answered from
	// (a JSON list; '' for every folder), and each answer the passages it
	// cites (a JSON list of n, chunk id and path), so that a reopened
	// conversation answers from the same folders and its citations open.
	`
ALTER TABLE threads ADD COLUMN folders TEXT NOT NULL DEFAULT '';
ALTER TABLE thread_turns ADD COLUMN sources TEXT NOT NULL DEFAULT '';
`,
}

// cjkFunction is cairn_cjk(text): text's bigram form (cjk.Bigrams) when it
// holds Chinese or Japanese, else NULL. Migration 5 uses it.
func cjkFunction(ctx sqlite3.Context, arg ...sqlite3.Value) {
	t := arg[0].Text()
	if !cjk.Has(t) {
		ctx.ResultNull()
		return
	}
	ctx.ResultText(cjk.Bigrams(t))
}

// ftsForm is what the full-text index holds for a text: its bigram form
// when it holds Chinese or Japanese (stored beside it), else nil (the text
// itself).
func ftsForm(s string) any {
	if !cjk.Has(s) {
		return nil
	}
	return cjk.Bigrams(s)
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrate brings the schema up to date and marks the file as Cairn's
// (ApplicationID), which knowledge bases made before the mark lack. Open
// calls it only on a file identify found empty or Cairn's.
func (db *DB) migrate() error {
	return db.write(context.Background(), func(c *sqlite3.Conn) error {
		v, err := userVersion(c)
		if err != nil {
			return err
		}
		if v > len(migrations) {
			return newerSchema(v)
		}
		app, err := pragmaInt(c, "application_id")
		if err != nil {
			return err
		}
		if uint32(app) != ApplicationID {
			if err := c.Exec(fmt.Sprintf("PRAGMA application_id=%d", ApplicationID)); err != nil {
				return fmt.Errorf("mark as a knowledge base: %w", err)
			}
		}
		if v < len(migrations) {
			if err := c.CreateFunction("cairn_cjk", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS, cjkFunction); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
		}
		for i := v; i < len(migrations); i++ {
			err := func() (err error) {
				t, err := c.BeginImmediate()
				if err != nil {
					return err
				}
				defer t.End(&err)
				if err := c.Exec(migrations[i]); err != nil {
					return err
				}
				return c.Exec(fmt.Sprintf("PRAGMA user_version=%d", i+1))
			}()
			if err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		return nil
	})
}

func newerSchema(v int) error {
	return fault.New(fault.StoreNewer, fmt.Sprintf("schema version %d is newer than this Cairn's (%d)", v, len(migrations)),
		"update Cairn, or open another knowledge base", nil)
}

func userVersion(c *sqlite3.Conn) (int, error) { return pragmaInt(c, "user_version") }

// pragmaInt reads an integer pragma (name is a constant of the caller's).
func pragmaInt(c *sqlite3.Conn, name string) (int, error) {
	s, _, err := c.Prepare(`PRAGMA ` + name)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if !s.Step() {
		return 0, s.Err()
	}
	return s.ColumnInt(0), nil
}
