package search

import (
	"slices"
	"testing"
)

// guideCands are keyword candidates ranked 1..n by BM25, each passage's
// relevance (its coverage) given, and those marked g the guide's.
func guideCands(rel []float64, guide ...int64) *Candidates {
	ids := make([]int64, len(rel))
	for i := range rel {
		ids[i] = int64(i + 1)
	}
	c := cands(ModeBM25, ids, nil)
	c.Guide = []string{"/data/cairn/guide/"}
	for i, r := range rel {
		p := c.Passages[int64(i+1)]
		p.Coverage = r
		p.Guide = slices.Contains(guide, p.ChunkID)
	}
	return c
}

// A guide passage ranks below every passage of the person's own documents
// whose relevance is in its band or above, at least partial: a strong
// guide passage stays above their partial ones, and a weak one is not
// moved for their weak ones. Nothing else moves, and a guide passage never
// rises. The cut to top_k comes after, so a passage of theirs from below
// the cut takes the guide's place (issue 39, item 7).
func TestTheGuideYieldsToThePersonsOwnPassages(t *testing.T) {
	//                 1 guide  2 guide  3 own   4 own    5 guide 6 own  7 own
	rel := []float64{0.9, 0.5, 0.8, 0.45, 0.2, 0.3, 0.6}
	c := guideCands(rel, 1, 2, 5)
	p := Params{RRFK: 60}
	if got, want := ids(Fuse(c, p)), []int64{3, 1, 4, 6, 7, 2, 5}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	p.TopK = 2
	res := Fuse(c, p)
	if got, want := ids(res), []int64{3, 1}; !slices.Equal(got, want) || res[0].Rank != 1 || res[1].Rank != 2 {
		t.Errorf("top 2: %v, want %v", got, want)
	}
	if res[1].Relevance != 0.9 || !res[1].Guide {
		t.Errorf("the rule changed a relevance or lost the mark: %+v", res[1])
	}
	// Without the guide's folders (a knowledge base without it, or a team's
	// cluster), the fused order stands.
	c.Guide = nil
	if got, want := ids(Fuse(c, p)), []int64{1, 2}; !slices.Equal(got, want) {
		t.Errorf("without the rule: %v, want %v", got, want)
	}
}

// A question only the guide answers keeps the guide first: nothing of the
// person's reaches partial relevance, and a guide passage among equals of
// its band stays where fusion put it.
func TestTheGuideAnswersWhatOnlyItCovers(t *testing.T) {
	c := guideCands([]float64{1, 0.35, 0.8, 0.3}, 1, 3)
	if got, want := ids(Fuse(c, Params{RRFK: 60})), []int64{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// The reranker reorders the fused top N, but not above the rule: a guide
// passage it scores first still follows the person's strong passage.
func TestTheGuideYieldsAfterReranking(t *testing.T) {
	c := guideCands([]float64{0.9, 0.9, 0.9}, 3)
	c.Rerank = &Reranking{N: 3, Scores: map[int64]float64{3: 5, 1: 2, 2: 1}}
	res := Fuse(c, Params{RRFK: 60})
	if got, want := ids(res), []int64{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if res[2].PreRank != 3 || res[2].RerankScore != 5 {
		t.Errorf("the reranker's evidence: %+v", res[2])
	}
}

func TestInGuide(t *testing.T) {
	g := []string{"/home/ann/.local/share/cairn/guide/", "/srv/cairn/guide/"}
	for path, want := range map[string]bool{
		"/home/ann/.local/share/cairn/guide/02-indexing.md": true,
		"/srv/cairn/guide/sub/a.md":                         true,
		"/home/ann/.local/share/cairn/guide-old/a.md":       false,
		"/home/ann/docs/guide/a.md":                         false,
	} {
		if InGuide(path, g) != want {
			t.Errorf("%s: in the guide %v, want %v", path, !want, want)
		}
	}
	if InGuide("/srv/cairn/guide/a.md", nil) {
		t.Error("no guide holds every path")
	}
}
