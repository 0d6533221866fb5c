package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// cjkStore indexes the translated man pages of testdata/cjk, a passage
// per paragraph, the first line as the title.
func cjkStore(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "cjk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f, _ := db.AddFolder(ctx, "/man")
	files, _ := filepath.Glob("testdata/cjk/*.txt")
	if len(files) < 4 {
		t.Fatal("testdata/cjk has no pages")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		paras := strings.Split(strings.TrimSpace(string(b)), "\n\n")
		var cs []chunk.Chunk
		for i, para := range paras {
			cs = append(cs, chunk.Chunk{Ordinal: i, Text: para})
		}
		doc := store.Document{FolderID: f.ID, Path: "/man/" + filepath.Base(p), Title: paras[0], Hash: "h", Format: "text"}
		if _, _, err := db.PutDocument(ctx, doc, cs, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Other passages, as a real collection has, so that words of the
	// translated pages are rare enough for BM25 to weigh them.
	for i := range 20 {
		doc := store.Document{FolderID: f.ID, Path: fmt.Sprintf("/man/en%d.txt", i), Hash: "h", Format: "text"}
		cs := []chunk.Chunk{{Text: fmt.Sprintf("Page %d of an English manual about files and folders.", i)}}
		if _, _, err := db.PutDocument(ctx, doc, cs, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestCJKQueriesAreBigramPhrases(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"用于登录", []string{"用于 于登 登录"}},
		{"远程主机", []string{"远程 程主 主机"}},
		{"进程", []string{"进程"}},
		{"ssh用于登录", []string{"ssh", "用于 于登 登录"}},
		// A sentence without spaces: each bigram a term of its own.
		{"终止进程的信号", []string{"终止", "止进", "进程", "程的", "的信", "信号"}},
		{"プロセス", []string{"プロ ロセ セス"}},
	} {
		var got []string
		for _, term := range ParseTerms(c.q) {
			got = append(got, term.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ParseTerms(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// 用于登录, 远程主机 and 进程 occur inside longer runs of Han characters and
// found nothing while unicode61 kept each run as one token. They are found
// now, through FTS5 and through the keyword index alike, ranked the same,
// and highlighted where they stand.
func TestCJKWordsInsideRunsAreFound(t *testing.T) {
	ctx := context.Background()
	db := cjkStore(t)
	kix := bm25.New(db)
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	fast := New(db, nil, nil).WithKeywordIndex(kix)
	for _, c := range []struct {
		q, file, highlight string
	}{
		{"用于登录", "ssh.zh.txt", "用于登录"},
		{"远程主机", "ssh.zh.txt", "远程主机"},
		{"进程", "kill.zh.txt", "进程"},
		{"プロセス シグナル", "kill.ja.txt", "プロセス"},
		{"スナップショット", "ps.ja.txt", "スナップショット"},
	} {
		terms := ParseTerms(c.q)
		want, err := db.SearchFTS(ctx, MatchQuery(terms), 10, domain.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := fast.st.Keyword(ctx, terms, 10, domain.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: keyword index %d hits, FTS5 %d", c.q, len(got), len(want))
		}
		for i := range got {
			if math.Abs(got[i].Score+want[i].BM25) > 1e-9 {
				t.Errorf("%s rank %d: score %v, FTS5 %v", c.q, i+1, got[i].Score, -want[i].BM25)
			}
		}
		p := DefaultParams()
		p.TopK = 3
		r, err := fast.Search(ctx, Request{Query: c.q, Params: p})
		if err != nil || len(r.Results) == 0 {
			t.Fatalf("%s: %v, %v", c.q, r, err)
		}
		top := r.Results[0]
		if filepath.Base(top.Path) != c.file {
			t.Errorf("%s: top result %s, want %s", c.q, top.Path, c.file)
		}
		var marked []string
		for _, h := range top.Highlights {
			marked = append(marked, top.Snippet[h.Start:h.End])
		}
		if !slices.Contains(marked, c.highlight) {
			t.Errorf("%s: highlights %q in %q, want %q", c.q, marked, top.Snippet, c.highlight)
		}
	}
}

// TestSpacedHanWordsInPassages: a passage set one character at a time
// with spaces between (groff's Chinese man pages) holds its words as the
// index does (cjk.Bigrams), so a word found by the keyword search is also
// found in the passage, and counts for its relevance (issue 43, item 5).
func TestSpacedHanWordsInPassages(t *testing.T) {
	text := "losetup - 设 定 与 控 制 环回设备"
	for _, c := range []struct{ q, want string }{
		{"设定", "设 定"},
		{"控制", "控 制"},
		{"与控", "与 控"},
		{"环回设备", "环回设备"},
	} {
		words, at := termWords(text, ParseTerms(c.q))
		if len(at) != 1 || len(at[0]) != 1 {
			t.Errorf("%s: occurrences %v", c.q, at)
			continue
		}
		o := at[0][0]
		if got := text[words[o.word].Start:words[o.word+o.n-1].End]; got != c.want {
			t.Errorf("%s: found %q, want %q", c.q, got, c.want)
		}
	}
}
