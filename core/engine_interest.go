package core

import (
	"cmp"
	"path/filepath"
	"slices"
	"sync"

	"cairn/core/ingest"
	"cairn/core/search"
)

// Bounds of what interest hands the indexer: enough to reorder the next
// hours of embedding, few enough that its sort stays cheap.
const (
	interestDocuments = 256
	interestFolders   = 8
	// interestResults is how many of a search's results count as shown:
	// the first page of the window and of `cairn search`.
	interestResults = 10
)

// interest remembers, in this process, what a person looks at: the
// documents searches showed and the folders searched, so that the
// embeddings still to compute begin there (ingest.Options.Interest). A
// separate `cairn index` process orders by modification time alone.
type interest struct {
	mu      sync.Mutex
	seq     int64
	shown   map[int64]int64 // document id -> the search that last showed it
	folders map[string]int  // folder -> searches that were limited to it or showed a file in it
}

// note records a search and the results it showed.
func (i *interest) note(req search.Request, results []search.Result) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.shown == nil {
		i.shown, i.folders = map[int64]int64{}, map[string]int{}
	}
	i.seq++
	seen := map[string]bool{}
	for _, p := range req.Filter.PathPrefixes {
		seen[filepath.Clean(p)] = true
	}
	for _, r := range results[:min(len(results), interestResults)] {
		if r.Passage == nil {
			continue
		}
		i.shown[r.DocumentID] = i.seq
		seen[filepath.Dir(r.Path)] = true
	}
	for f := range seen {
		i.folders[f]++
	}
}

// snapshot is the interest for the embedding order: the documents shown
// most recently, the folders searched most.
func (i *interest) snapshot() ingest.Interest {
	i.mu.Lock()
	defer i.mu.Unlock()
	var in ingest.Interest
	for id := range i.shown {
		in.Documents = append(in.Documents, id)
	}
	slices.SortFunc(in.Documents, func(a, b int64) int { return cmp.Compare(i.shown[b], i.shown[a]) })
	in.Documents = in.Documents[:min(len(in.Documents), interestDocuments)]
	for f := range i.folders {
		in.Folders = append(in.Folders, f)
	}
	slices.SortFunc(in.Folders, func(a, b string) int {
		return cmp.Or(cmp.Compare(i.folders[b], i.folders[a]), cmp.Compare(a, b))
	})
	in.Folders = in.Folders[:min(len(in.Folders), interestFolders)]
	return in
}
