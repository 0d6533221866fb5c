package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/search"
	"cairn/core/store"
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

// TestNoLinkLeadsOutOfTheFolder: every kind of symbolic link (to a file or
// a folder, absolute or relative, through a chain of links) is followed
// only where it finally leads inside the indexed folder; with
// FollowLinksOut the outside ones are followed too, but never into a
// folder of secrets (~/.ssh, ~/.gnupg, keyrings) nor /proc; a knowledge
// base that indexed such a file loses it at the next run (issue 43, item 1).
func TestNoLinkLeadsOutOfTheFolder(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	docs := filepath.Join(base, "docs")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(docs, "sub"), outside, filepath.Join(home, ".ssh"), filepath.Join(home, ".gnupg")} {
		os.MkdirAll(d, 0o755)
	}
	write := func(p, text string) { os.WriteFile(p, []byte(text), 0o644) }
	write(filepath.Join(docs, "a.txt"), "a note about turbines")
	write(filepath.Join(docs, "sub", "c.txt"), "a note about blades")
	write(filepath.Join(outside, "passwd.txt"), "root:x:0:0:outside the folder")
	write(filepath.Join(home, ".ssh", "id_rsa"), "BEGIN OPENSSH PRIVATE KEY secret material")
	write(filepath.Join(home, ".gnupg", "key.txt"), "a private gpg key")
	os.MkdirAll(filepath.Join(home, ".local", "share", "keyrings"), 0o755)
	write(filepath.Join(home, ".local", "share", "keyrings", "login.keyring"), "a keyring's secrets")
	links := map[string]string{
		"inside-file.txt":   "sub/c.txt",                           // relative, inside
		"abs-file.txt":      filepath.Join(outside, "passwd.txt"),  // absolute, to a file outside
		"rel-file.txt":      "../outside/passwd.txt",               // relative, to a file outside
		"abs-folder":        outside,                               // absolute, to a folder outside
		"rel-folder":        "../outside",                          // relative, to a folder outside
		"chain.txt":         "sub/hop.txt",                         // a link to a link that leads out
		"sub/hop.txt":       "../../outside/passwd.txt",            //
		"notes.txt":         filepath.Join(home, ".ssh", "id_rsa"), // a private key
		"gnupg":             filepath.Join(home, ".gnupg"),         // a folder of secrets
		"environ.txt":       "/proc/self/environ",                  // the kernel's
		"zz-inside-folder":  "sub",                                 // relative, inside
		"sub/back-to-a.txt": "../a.txt",                            // relative, inside, from a subfolder
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(docs, name)); err != nil {
			t.Fatal(err)
		}
	}
	outsideFile := "skipped: symbolic link to a file outside the indexed folder (" + filepath.Join(outside, "passwd.txt") + "): not followed; index that folder itself, or set index.follow_links_out"
	outsideFolder := "skipped: symbolic link to a folder outside the indexed folder (" + outside + "): not followed"
	secret := "skipped: symbolic link into " + filepath.Join(home, ".ssh") + ", which holds keys or passwords"
	gpg := "skipped: symbolic link into " + filepath.Join(home, ".gnupg") + ", which holds keys or passwords"
	want := map[bool]map[string]string{
		false: {
			"a.txt": "indexed", "sub/c.txt": "indexed", "inside-file.txt": "indexed", "sub/back-to-a.txt": "indexed",
			"abs-file.txt": outsideFile, "rel-file.txt": outsideFile, "chain.txt": outsideFile, "sub/hop.txt": outsideFile,
			"abs-folder": outsideFolder, "rel-folder": outsideFolder,
			"notes.txt": secret, "gnupg": gpg, "environ.txt": "skipped: symbolic link into /proc",
		},
		true: {
			"a.txt": "indexed", "sub/c.txt": "indexed", "inside-file.txt": "indexed", "sub/back-to-a.txt": "indexed",
			"abs-file.txt": "indexed", "rel-file.txt": "indexed", "chain.txt": "indexed", "sub/hop.txt": "indexed",
			"abs-folder/passwd.txt": "indexed",
			"notes.txt":             secret, "gnupg": gpg, "environ.txt": "skipped: symbolic link into /proc",
		},
	}
	// zz-inside-folder is the same folder as sub, walked once under the
	// name met first; rel-folder, with links out followed, the same as
	// abs-folder.
	_, db := newIndexer(t, Options{})
	for _, out := range []bool{true, false} { // out first: the file of a link out is indexed, then loses it
		ix := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{FollowLinksOut: out})
		_, events := runCollect(t, ix, docs)
		got := map[string]string{}
		for p, ev := range events {
			rel, _ := filepath.Rel(docs, p)
			got[rel] = string(ev.Status)
			if ev.Reason != "" {
				got[rel] += ": " + ev.Reason
			}
		}
		for rel, w := range want[out] {
			g := got[rel]
			if w == "indexed" && g == "unchanged" && !out {
				continue
			}
			if !strings.HasPrefix(g, w) {
				t.Errorf("follow_links_out=%v %s: %q, want %q", out, rel, g, w)
			}
		}
		resp := topFileOrNil(t, db, "outside the folder")
		if out && resp == "" {
			t.Errorf("follow_links_out=true: the file outside is not found")
		}
		if !out && resp != "" {
			t.Errorf("follow_links_out=false: %s is still found, it should have been removed", resp)
		}
		for _, q := range []string{"private key secret material", "private gpg key"} {
			if p := topFileOrNil(t, db, q); p != "" {
				t.Errorf("follow_links_out=%v: a secret is searchable in %s", out, p)
			}
		}
	}
	// Unchanged, every skip stays as it was recorded: its reason does not
	// change from run to run (where /proc/self leads does).
	_, events := runCollect(t, New(db, extract.NewRegistry(extract.DefaultLimits()), Options{}), docs)
	for _, name := range []string{"environ.txt", "abs-file.txt", "notes.txt", "gnupg"} {
		if ev := events[filepath.Join(docs, name)]; ev.Status != domain.StatusSkipped || !ev.Unchanged {
			t.Errorf("a third run, %s: %+v, want unchanged", name, ev)
		}
	}
	healthy(t, db)

	// The home folder indexed with hidden files: its folders of secrets
	// are not walked; indexed by name, they are.
	ix, _ := newIndexer(t, Options{IncludeHidden: true})
	_, events = runCollect(t, ix, home)
	if ev := events[filepath.Join(home, ".ssh")]; ev.Status != domain.StatusSkipped || !strings.Contains(ev.Reason, "keys or passwords") {
		t.Errorf("~/.ssh under include_hidden: %+v", ev)
	}
	if _, ok := events[filepath.Join(home, ".ssh", "id_rsa")]; ok {
		t.Error("~/.ssh/id_rsa was read")
	}
	// A folder of secrets without a dot of its own, under a hidden one.
	keyrings := filepath.Join(home, ".local", "share", "keyrings")
	if ev := events[keyrings]; ev.Status != domain.StatusSkipped || !strings.Contains(ev.Reason, "keys or passwords") {
		t.Errorf("~/.local/share/keyrings under include_hidden: %+v", ev)
	}
	if _, ok := events[filepath.Join(keyrings, "login.keyring")]; ok {
		t.Error("~/.local/share/keyrings/login.keyring was read")
	}
	ix, _ = newIndexer(t, Options{})
	_, events = runCollect(t, ix, filepath.Join(home, ".ssh"))
	if ev := events[filepath.Join(home, ".ssh", "id_rsa")]; ev.Status != domain.StatusIndexed {
		t.Errorf("~/.ssh indexed by name: %+v", ev)
	}
}

// TestFileSwappedForALinkIsNotRead: a file found inside the folder that
// is a link out by the time it is opened is skipped, not read: the opened
// descriptor's own path is checked (issue 43, item 1).
func TestFileSwappedForALinkIsNotRead(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	docs, outside := filepath.Join(base, "docs"), filepath.Join(base, "outside")
	os.MkdirAll(docs, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(docs, "notes.txt"))
	for _, out := range []bool{false, true} {
		sc, err := newScope(docs, out)
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(filepath.Join(docs, "notes.txt"))
		if err != nil {
			t.Fatal(err)
		}
		err = sc.opened(fh, filepath.Join(docs, "notes.txt"))
		fh.Close()
		if out != (err == nil) {
			t.Errorf("follow_links_out=%v: %v", out, err)
		}
	}
}

// topFileOrNil is the path of the best result for q, or "" for none.
func topFileOrNil(t *testing.T, db *store.DB, q string) string {
	t.Helper()
	resp, err := search.New(db, nil, nil).Search(ctx, search.Request{Query: q, Params: search.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 {
		return ""
	}
	return resp.Results[0].Path
}
