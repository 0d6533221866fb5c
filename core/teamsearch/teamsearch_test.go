package teamsearch

import (
	"reflect"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/teamstore"
)

// TestFilesKeepWhatTheSQLiteFilterKeeps: a domain.Filter becomes the
// cluster's conditions: types lower-cased without their dot, times in
// whole milliseconds rounded up (a file's time is stored rounded down, so
// "at or after" and "before" keep the same files for any whole
// millisecond).
func TestFilesKeepWhatTheSQLiteFilterKeeps(t *testing.T) {
	since := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	until := since.Add(1500 * time.Microsecond)
	got := Files(domain.Filter{PathPrefixes: []string{"/srv/share/hr"}, Types: []string{".PDF", "md"}, Since: since, Until: until, Contains: []string{"Budget"}})
	want := teamstore.Files{Prefixes: []string{"/srv/share/hr"}, Types: []string{"pdf", "md"}, SinceMs: since.UnixMilli(), UntilMs: since.UnixMilli() + 2,
		Contains: []string{"Budget"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %+v, want %+v", got, want)
	}
	if got := Files(domain.Filter{}); !reflect.DeepEqual(got, teamstore.Files{}) {
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

// TestFoldersMapTheClustersNamesToThisComputer: with store.folders, a
// passage of the cluster's folder "share" is the file where the share is
// here, and a folder filter given here finds the cluster's files: by its
// name inside a mapped folder, the whole folder for a prefix of it, and
// the path itself for folders named by their absolute paths.
func TestFoldersMapTheClustersNamesToThisComputer(t *testing.T) {
	s := New(nil, Options{Folders: map[string]string{"share": "/mnt/share/", "nas/docs": "/home/ann/docs"}})
	for _, c := range []struct{ folder, path, want string }{
		{"share", "hr/leave.pdf", "/mnt/share/hr/leave.pdf"},
		{"nas/docs", "a.md", "/home/ann/docs/a.md"},
		{"/srv/manuals", "x/y.txt", "/srv/manuals/x/y.txt"},
	} {
		if got := s.local(c.folder, c.path); got != c.want {
			t.Errorf("local(%s, %s) = %s, want %s", c.folder, c.path, got, c.want)
		}
	}
	for p, want := range map[string][]string{
		"/mnt/share/hr":   {"/mnt/share/hr", "share/hr"},
		"/mnt/share":      {"/mnt/share", "share/"},
		"/mnt":            {"/mnt", "share/"},
		"/srv/manuals":    {"/srv/manuals"},
		"/mnt/shared":     {"/mnt/shared"},
		"/home/ann/docs/": {"/home/ann/docs/", "nas/docs/"},
	} {
		if got := s.clusterPaths(p); !reflect.DeepEqual(got, want) {
			t.Errorf("clusterPaths(%s) = %q, want %q", p, got, want)
		}
	}
}
