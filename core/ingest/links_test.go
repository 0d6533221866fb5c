package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolderLinksStayInsideTheIndexedFolder: a link to a folder inside the
// indexed folder is followed; one out of it (to "..") is skipped with the
// reason unless FollowLinksOut; a link into /proc never, even then; and
// /proc itself is no folder to index (issue 33, item 7).
func TestFolderLinksStayInsideTheIndexedFolder(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	docs := filepath.Join(base, "docs")
	os.MkdirAll(filepath.Join(docs, "sub"), 0o755)
	os.MkdirAll(filepath.Join(base, "elsewhere"), 0o755)
	os.WriteFile(filepath.Join(docs, "a.txt"), []byte("a note about turbines"), 0o644)
	os.WriteFile(filepath.Join(docs, "sub", "c.txt"), []byte("a note about blades"), 0o644)
	os.WriteFile(filepath.Join(base, "elsewhere", "b.txt"), []byte("a note from outside"), 0o644)
	os.Symlink("sub", filepath.Join(docs, "inside"))
	os.Symlink("..", filepath.Join(docs, "up"))
	os.Symlink("/proc/self", filepath.Join(docs, "proc"))
	os.Symlink("/proc/self/environ", filepath.Join(docs, "env.txt"))

	for _, out := range []bool{false, true} {
		ix, _ := newIndexer(t, Options{FollowLinksOut: out})
		run, events := runCollect(t, ix, docs)
		want := map[string]string{
			"a.txt":        "indexed",
			"inside/c.txt": "indexed", // the folder's first name in the walk; sub is the same folder
			"proc":         "skipped: symbolic link into /proc",
			"env.txt":      "skipped: symbolic link into /proc",
			"up":           "skipped: symbolic link to a folder outside the indexed folder (" + base + "): not followed; index that folder itself, or set index.follow_links_out",
		}
		if out {
			delete(want, "up")
			want["up/elsewhere/b.txt"] = "indexed"
		}
		got := map[string]string{}
		for p, ev := range events {
			rel, _ := filepath.Rel(docs, p)
			got[rel] = string(ev.Status)
			if ev.Reason != "" {
				got[rel] += ": " + ev.Reason
			}
		}
		for rel, w := range want {
			if !strings.HasPrefix(got[rel], w) {
				t.Errorf("out=%v %s: %q, want %q", out, rel, got[rel], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("out=%v: %d events, want %d: %v", out, len(got), len(want), got)
		}
		indexed := 0
		for _, w := range want {
			if w == "indexed" {
				indexed++
			}
		}
		if run.FilesIndexed != indexed {
			t.Errorf("out=%v: %d indexed, want %d", out, run.FilesIndexed, indexed)
		}
	}

	ix, _ := newIndexer(t, Options{})
	if _, err := ix.Run(ctx, "/proc/self", nil); err == nil || !strings.Contains(err.Error(), "is in /proc") {
		t.Errorf("index /proc/self: %v", err)
	}
}
