package teamstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// startCluster starts three nodes on 127.0.0.1 that form one cluster and
// waits until every node sees the other two. They stop when the test ends.
func startCluster(t *testing.T, bin string) []*node {
	t.Helper()
	nodes, err := teamtest.StartCluster(bin, t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		t.Cleanup(n.Stop)
	}
	return nodes
}

// nodeStatus is GET /v1/nodes (see teamtest.Status).
func nodeStatus(url, collection string) ([]teamtest.NodeState, error) {
	return teamtest.Status(url, collection)
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		done, state := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s: %s", what, d, state)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestAReplicatedClusterKeepsIndexingAndAnsweringWithANodeKilled: three
// nodes, replication factor 3, quorum writes and reads. One node is killed
// (SIGKILL) half-way through indexing: indexing goes on (a file whose write
// failed is written again), the cluster ends with exactly the fixture's
// chunks under their fixed ids, searches answer while the node is down, and
// the node, started again, catches up with the writes it missed.
func TestAReplicatedClusterKeepsIndexingAndAnsweringWithANodeKilled(t *testing.T) {
	bin := weaviateBin(t)
	if testing.Short() {
		skip.Because(t, "-short: starts three Weaviate nodes")
	}
	start := time.Now()
	nodes := startCluster(t, bin)
	t.Logf("%s: three nodes healthy", time.Since(start).Round(time.Second))
	ctx := context.Background()
	s, err := Open(ctx, Options{URL: nodes[0].URL, Key: testKey, Collection: "Repl", Replicas: 3, Consistency: "QUORUM", BatchSize: 10,
		Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var docs []fixtureDoc
	total := 0
	for i := range 12 {
		for _, d := range corpus(t) {
			d.doc.Path = fmt.Sprintf("copy%02d/%s", i, d.doc.Path)
			docs = append(docs, d)
			total += len(d.chunks)
		}
	}

	half := make(chan struct{})
	indexed := make(chan error, 1)
	var retries atomic.Int32
	go func() {
		for i, d := range docs {
			if i == len(docs)/2 {
				close(half)
			}
			for attempt := 0; ; attempt++ {
				err := s.PutDocument(ctx, d.doc, d.chunks, d.vectors)
				if err == nil {
					break
				}
				if attempt == 20 {
					indexed <- fmt.Errorf("%s after %d attempts: %w", d.doc.Path, attempt+1, err)
					return
				}
				if retries.Add(1) == 1 {
					t.Logf("a write failed and is retried: %v", err)
				}
				time.Sleep(500 * time.Millisecond)
			}
		}
		indexed <- nil
	}()
	<-half
	nodes[2].Kill()
	t.Logf("%s: node3 killed half-way through indexing", time.Since(start).Round(time.Second))
	// Searches answer while the node is down and indexing goes on.
	for range 5 {
		hits, err := s.BM25(ctx, "descale button", Query{Limit: 3, Folder: fixtureFolder})
		if err != nil || len(hits) == 0 || !strings.HasSuffix(hits[0].Path, "manuals/coffee-machine.txt") {
			t.Fatalf("keyword search with a node down: %+v, %v", hits, err)
		}
	}
	if err := <-indexed; err != nil {
		t.Fatalf("indexing with a node down: %v", err)
	}
	t.Logf("%s: indexed %d files (%d chunks), %d writes retried after the kill", time.Since(start).Round(time.Second), len(docs), total, retries.Load())

	if n, err := s.CountChunks(ctx, fixtureFolder, ""); err != nil || n != total {
		t.Fatalf("%d chunks in the cluster, want %d (%v)", n, total, err)
	}
	for _, d := range docs {
		if ids := storedIDs(t, s, d.doc.Path); !slices.Equal(ids, wantIDs(d.doc.Path, len(d.chunks))) {
			t.Fatalf("%s: chunks %v, want %d under their fixed ids", d.doc.Path, ids, len(d.chunks))
		}
	}
	near, err := s.NearVector(ctx, embed("how often do I descale the machine"), Query{Limit: 3})
	if err != nil || len(near) == 0 || !strings.HasSuffix(near[0].Path, "manuals/coffee-machine.txt") {
		t.Fatalf("vector search with a node down: %+v, %v", near, err)
	}

	// The node comes back and catches up: its replica of the chunks holds
	// every chunk.
	if err := nodes[2].Launch(); err != nil {
		t.Fatal(err)
	}
	if err := nodes[2].WaitReady(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: node3 started again", time.Since(start).Round(time.Second))
	defer func() { t.Logf("%s: node3 caught up", time.Since(start).Round(time.Second)) }()
	waitFor(t, 3*time.Minute, "catch-up of node3", func() (bool, string) {
		st, err := nodeStatus(nodes[2].URL, s.chunkClass)
		for _, n := range st {
			if n.Name != "node3" {
				continue
			}
			count := 0
			for _, sh := range n.Shards {
				count += sh.ObjectCount
			}
			return count == total, fmt.Sprintf("node3 holds %d of %d chunks", count, total)
		}
		return false, fmt.Sprintf("node3 not listed: %+v %v", st, err)
	})
}
