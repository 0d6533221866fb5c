package teamsearch

import (
	"reflect"
	"testing"
	"time"

	"cairn/core/store"
	"cairn/core/teamstore"
)

// TestFilesKeepWhatTheSQLiteFilterKeeps: a store.Filter becomes the
// cluster's conditions: types lower-cased without their dot, times in
// whole milliseconds rounded up (a file's time is stored rounded down, so
// "at or after" and "before" keep the same files for any whole
// millisecond).
func TestFilesKeepWhatTheSQLiteFilterKeeps(t *testing.T) {
	since := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	until := since.Add(1500 * time.Microsecond)
	got := Files(store.Filter{PathPrefixes: []string{"/srv/share/hr"}, Types: []string{".PDF", "md"}, Since: since, Until: until, Contains: []string{"Budget"}})
	want := teamstore.Files{Prefixes: []string{"/srv/share/hr"}, Types: []string{"pdf", "md"}, SinceMs: since.UnixMilli(), UntilMs: since.UnixMilli() + 2,
		Contains: []string{"Budget"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %+v, want %+v", got, want)
	}
	if got := Files(store.Filter{}); !reflect.DeepEqual(got, teamstore.Files{}) {
		t.Errorf("no filter: %+v", got)
	}
}

// TestOccurrencesCountPhrasesAsFTS5Does: a phrase counts where its tokens
// stand together, overlapping occurrences too.
func TestOccurrencesCountPhrasesAsFTS5Does(t *testing.T) {
	toks := []string{"xk", "200", "b", "and", "xk", "200", "xk", "xk"}
	for _, c := range []struct {
		p    []string
		want int
	}{{[]string{"xk"}, 4}, {[]string{"xk", "200"}, 2}, {[]string{"xk", "200", "b"}, 1}, {[]string{"xk", "xk"}, 1}, {[]string{"b", "xk"}, 0}} {
		if got := occurrences(toks, c.p); got != c.want {
			t.Errorf("occurrences(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}
