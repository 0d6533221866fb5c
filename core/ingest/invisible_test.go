package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"cairn/core/domain"
	"cairn/core/store/storetest"
)

// TestDocumentsHoldingInvisibleCharactersAreReadAgain: a knowledge base
// indexed before invisible characters were removed holds documents with
// them in their text; the next run reads those again, once, and no other,
// and the word they split is found (issue 43, item 6).
func TestDocumentsHoldingInvisibleCharactersAreReadAgain(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, "hidden.txt")
	os.WriteFile(hidden, []byte("the p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd of the vault"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("an ordinary note about pumps"), 0o644)
	ix, db := newIndexer(t, Options{})
	runCollect(t, ix, dir)
	if p := topFileOrNil(t, db, "password vault"); p != hidden {
		t.Fatalf("password vault: %q", p)
	}
	// As an older Cairn left it: the characters in the chunk's text (and
	// its index), and no mark that documents were read without them.
	ids := `(SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = '` + hidden + `')`
	storetest.Exec(t, db.Path(),
		`DELETE FROM meta WHERE key = 'invisible_removed'`,
		`INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, title) SELECT 'delete', id, text, heading, title FROM chunk_fts_source WHERE id IN `+ids,
		`UPDATE chunks SET text = 'the p'||char(8203)||'assword of the vault' WHERE id IN `+ids,
		`INSERT INTO chunks_fts(rowid, text, heading, title) SELECT id, text, heading, title FROM chunk_fts_source WHERE id IN `+ids)
	_, events := runCollect(t, ix, dir)
	if ev := events[hidden]; ev.Status != domain.StatusIndexed {
		t.Errorf("hidden.txt: %+v, want read again", ev)
	}
	if ev := events[filepath.Join(dir, "plain.txt")]; ev.Status != domain.StatusUnchanged {
		t.Errorf("plain.txt: %+v, want unchanged", ev)
	}
	_, events = runCollect(t, ix, dir)
	if ev := events[hidden]; ev.Status != domain.StatusUnchanged {
		t.Errorf("a third run: %+v, want unchanged", ev)
	}
	healthy(t, db)
}
