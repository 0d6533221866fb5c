package core

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/netgate/netgatetest"
	"cairn/core/teamstore"
)

// TestTeamRemoveFolderTakesTheWindowsFolderOutOfTheCluster: the window's
// folder list shows the cluster's counts of the folders indexed here, and
// its Remove, with store.backend weaviate, removes the folder (by the name
// store.folders gives it) from the cluster under its lease, reporting its
// progress: the other folder and its answers stay, this computer's record
// of the folder goes. While another indexer holds a folder, its removal is
// refused with that indexer's name.
func TestTeamRemoveFolderTakesTheWindowsFolderOutOfTheCluster(t *testing.T) {
	n := startNode(t)
	d := &netgatetest.Dialer{Loopback: true}
	sqlite, team := twoStoresAs(t, n.URL, d, "share")
	corpus, _ := filepath.Abs("../testdata/corpus")
	guide, _ := filepath.Abs("../resources/guide")
	ctx := context.Background()

	local, err := sqlite.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := team.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := func(fs []domain.Folder) map[string][2]int {
		out := map[string][2]int{}
		for _, f := range fs {
			out[f.Path] = [2]int{f.Documents, f.Chunks}
		}
		return out
	}
	if got, want := counts(listed), counts(local); len(want) != 2 || !maps.Equal(got, want) {
		t.Fatalf("the window's folders over the cluster: %v; the file's: %v", got, want)
	}
	if name := team.TeamFolderName(corpus); name != "share/corpus" {
		t.Fatalf("the cluster's name for %s: %q, want share/corpus (store.folders)", corpus, name)
	}

	ts, err := team.clusterToFeed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ts.AcquireLease(ctx, "share/guide", "cairn index on nas-2 by bob (pid 7)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = team.RemoveFolder(ctx, guide, nil)
	var held *teamstore.LeaseHeldError
	if !errors.As(err, &held) || held.Holder != "cairn index on nas-2 by bob (pid 7)" {
		t.Fatalf("removing a held folder: %v", err)
	}
	l.Release(ctx)
	// A folder the cluster knows by another name (cairn index --as) is
	// not silently "removed" with nothing in it.
	elsewhere := t.TempDir()
	if _, err := team.RemoveFolder(ctx, elsewhere, nil); err == nil || !strings.Contains(err.Error(), "the team cluster holds no folder named "+filepath.ToSlash(elsewhere)) {
		t.Errorf("removing a folder the cluster does not hold: %v", err)
	}

	var seen []domain.Removal
	r, err := team.RemoveFolder(ctx, corpus, func(r domain.Removal) { seen = append(seen, r) })
	if err != nil {
		t.Fatal(err)
	}
	c := counts(local)[corpus]
	want := domain.Removal{FolderSize: domain.FolderSize{Folder: "share/corpus", Files: c[0], Chunks: c[1]}, FilesRemoved: c[0], ChunksRemoved: c[1]}
	if r != want || len(seen) < 2 || seen[0].FilesRemoved != 0 || seen[len(seen)-1] != want {
		t.Errorf("removal %+v, progress %+v; want it to end at %+v", r, seen, want)
	}
	sizes, err := ts.Folders(ctx)
	if g := counts(local)[guide]; err != nil || !slices.Equal(sizes, []domain.FolderSize{{Folder: "share/guide", Files: g[0], Chunks: g[1]}}) {
		t.Errorf("the cluster holds %+v (%v), want only share/guide", sizes, err)
	}
	if listed, err := team.Folders(ctx); err != nil || len(listed) != 1 || listed[0].Path != guide {
		t.Errorf("the window's folders after: %+v, %v; want only %s", listed, err, guide)
	}
	// The corpus's answers are gone from the cluster; the guide's stay,
	// as in a knowledge base file the same folder left.
	if _, err := sqlite.RemoveFolder(ctx, corpus, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"how do I reset the router", "how do I add a folder"} {
		want, err := sqlite.Search(ctx, sqlite.SearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		got, err := team.Search(ctx, team.SearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range got.Results {
			if strings.HasPrefix(res.Path, corpus+string(filepath.Separator)) {
				t.Errorf("%s: the cluster still finds %s", q, res.Path)
			}
		}
		sameResults(t, q, got.Results, want.Results)
	}
}
