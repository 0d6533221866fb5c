package store

import (
	"cairn/core/domain"
	"slices"
	"testing"
	"time"
)

// filterFixture holds three documents of two folders, formats and dates,
// each with one chunk and a vector, so that every condition of a Filter
// can be checked on both the full-text and the vector path.
func filterFixture(t *testing.T) (db *DB, ids map[string]int64) {
	t.Helper()
	db = openTemp(t)
	if _, err := db.SetVectorModel(ctx, "m", 2); err != nil {
		t.Fatal(err)
	}
	ids = map[string]int64{}
	for _, d := range []struct {
		folder, path, title, format string
		mtime                       time.Time
		vec                         []float32
	}{
		{"/kb/contracts", "/kb/contracts/lease.pdf", "Office Lease", "pdf", time.Date(2023, 3, 15, 12, 0, 0, 0, time.UTC), []float32{1, 0}},
		{"/kb/contracts", "/kb/contracts/notes.md", "Audit Notes", "markdown", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), []float32{0.9, 0.1}},
		{"/kb/misc", "/kb/misc/Invoice-March.pdf", "Billing", "pdf", time.Date(2024, 3, 31, 23, 0, 0, 0, time.UTC), []float32{0, 1}},
	} {
		f, err := db.AddFolder(ctx, d.folder)
		if err != nil {
			t.Fatal(err)
		}
		_, cids, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: d.path, Hash: "h", Title: d.title, Format: d.format,
			MTimeNS: d.mtime.UnixNano()}, chunks("the audit of the year"), [][]float32{d.vec})
		if err != nil {
			t.Fatal(err)
		}
		ids[d.path] = cids[0]
	}
	return db, ids
}

func TestFilterConditions(t *testing.T) {
	db, ids := filterFixture(t)
	lease, notes, invoice := ids["/kb/contracts/lease.pdf"], ids["/kb/contracts/notes.md"], ids["/kb/misc/Invoice-March.pdf"]
	march2024 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		f    domain.Filter
		want []int64
	}{
		{"none", domain.Filter{}, []int64{lease, notes, invoice}},
		{"folder", domain.Filter{PathPrefixes: []string{"/kb/contracts/"}}, []int64{lease, notes}},
		{"type", domain.Filter{Types: []string{"pdf"}}, []int64{lease, invoice}},
		{"extension", domain.Filter{Types: []string{".md"}}, []int64{notes}},
		{"since", domain.Filter{Since: march2024}, []int64{notes, invoice}},
		{"until", domain.Filter{Until: march2024}, []int64{lease}},
		{"month", domain.Filter{Since: march2024, Until: march2024.AddDate(0, 1, 0)}, []int64{notes, invoice}},
		{"path text, any case", domain.Filter{Contains: []string{"INVOICE"}}, []int64{invoice}},
		{"title text", domain.Filter{Contains: []string{"audit notes"}}, []int64{notes}},
		{"all texts must match", domain.Filter{Contains: []string{"contracts", "lease"}}, []int64{lease}},
		{"everything together", domain.Filter{Types: []string{"pdf"}, Since: march2024, Contains: []string{"march"}}, []int64{invoice}},
		{"nothing", domain.Filter{Contains: []string{"nowhere"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.FilterChunkIDs(ctx, tc.f)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("FilterChunkIDs = %v, %v; want %v", got, err, tc.want)
			}
			hits, err := db.SearchFTS(ctx, `"audit"`, 10, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var fts []int64
			for _, h := range hits {
				fts = append(fts, h.ChunkID)
			}
			slices.Sort(fts)
			if !slices.Equal(fts, tc.want) {
				t.Errorf("SearchFTS = %v; want %v", fts, tc.want)
			}
		})
	}
}

func TestKNNAmongRanksOnlyTheGivenChunks(t *testing.T) {
	db, ids := filterFixture(t)
	invoice := ids["/kb/misc/Invoice-March.pdf"]
	// The invoice is the farthest from the query: a search over everyone
	// with k=1 would not return it, a search among its chunks must.
	hits, err := db.KNNAmong(ctx, []float32{1, 0}, 1, []int64{invoice})
	if err != nil || len(hits) != 1 || hits[0].ChunkID != invoice {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	all, _ := db.KNN(ctx, []float32{1, 0}, 1)
	if len(all) != 1 || all[0].ChunkID == invoice {
		t.Fatalf("unfiltered %+v", all)
	}
	if hits, err := db.KNNAmong(ctx, []float32{1, 0}, 5, nil); err != nil || len(hits) != 0 {
		t.Errorf("no ids: %+v, %v", hits, err)
	}
}

// A path_contains text matches whatever the case, in every script, and
// whether the name was written composed or decomposed (macOS writes NFD).
func TestFilterContainsFoldsCaseInEveryScript(t *testing.T) {
	db := openTemp(t)
	f, err := db.AddFolder(ctx, "/kb")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, d := range []struct{ path, title string }{
		{"/kb/Übersicht 2024.md", "Jahresplan"},
		{"/kb/Straße.txt", "Wegbeschreibung"},
		{"/kb/notes.md", "ΣΗΜΕΙΩΣΕΙΣ ΟΔΟΥ"},
		{"/kb/Jo\u0308rg.md", "Memo"}, // decomposed ö
		{"/kb/plain.md", "Plain"},
	} {
		_, cids, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: d.path, Hash: "h", Title: d.title, Format: "markdown"},
			chunks("the audit of the year"), nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[d.path] = cids[0]
	}
	for _, tc := range []struct {
		contains string
		want     string
	}{
		{"übersicht", "/kb/Übersicht 2024.md"},
		{"ÜBERSICHT", "/kb/Übersicht 2024.md"},
		{"strasse", "/kb/Straße.txt"},
		{"STRASSE", "/kb/Straße.txt"},
		{"σημειώσεις", ""},             // the accent is a letter of its own: no match
		{"σημειωσεις", "/kb/notes.md"}, // a final ς is a σ
		{"ὁδοῦ", ""},
		{"οδου", "/kb/notes.md"},
		{"jörg", "/kb/Jo\u0308rg.md"},
		{"JÖRG", "/kb/Jo\u0308rg.md"},
	} {
		hits, err := db.SearchFTS(ctx, `"audit"`, 10, domain.Filter{Contains: []string{tc.contains}})
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		if tc.want != "" {
			want = []int64{ids[tc.want]}
		}
		var got []int64
		for _, h := range hits {
			got = append(got, h.ChunkID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("contains %q: chunks %v, want %v (%s)", tc.contains, got, want, tc.want)
		}
	}
}
