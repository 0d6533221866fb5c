package search

import (
	"slices"

	"cairn/core/config"
)

// Knobs Inert can name: their names in config.RetrievalKnobs.
const (
	KnobRRFK         = "rrf_k"
	KnobVectorWeight = "vector_weight"
	KnobBM25Pool     = "bm25_pool"
	KnobVectorPool   = "vector_pool"
)

// RRFKRange is the range of rrf_k the window's slider offers.
var RRFKRange = func() [2]float64 {
	k, _ := config.KnobByKey("retrieval." + KnobRRFK)
	return [2]float64{k.Lo, k.Hi}
}()

// Inert names the knobs that cannot change the ranking of candidates c
// under p, each with why, so that a person does not drag a slider that
// moves nothing. c may be nil (no question yet): then only the rules that
// follow from the fusion and mode apply.
//
// rrf_k over one list (keyword or vector search only) rescales the ranks:
// the rank key of a result at rank r is (k+1)/(k+r) times its nearness, so
// whether one result passes another is decided by the sign of a function
// linear in k, which flips at most once; the order at both ends of the
// slider's range therefore settles whether any k in it changes the order.
func Inert(c *Candidates, mode Mode, p Params) map[string]string {
	if c != nil {
		mode = c.Mode
	}
	out := map[string]string{}
	switch mode {
	case ModeBM25:
		out[KnobVectorPool] = "keyword search only: no vector search runs"
		out[KnobVectorWeight] = "keyword search only: there is no vector score to weigh"
	case ModeVector:
		out[KnobBM25Pool] = "vector search only: no keyword search runs"
		out[KnobVectorWeight] = "vector search only: there is no keyword score to weigh"
	}
	if p.Fusion == FusionWeighted {
		out[KnobRRFK] = "weighted fusion ranks by scores; rrf_k is RRF's"
		return out
	}
	if _, ok := out[KnobVectorWeight]; !ok {
		out[KnobVectorWeight] = "RRF ranks by ranks; the vector weight is weighted fusion's"
	}
	if c != nil && (mode == ModeBM25 || mode == ModeVector) {
		lo, hi := p, p
		lo.RRFK, hi.RRFK = RRFKRange[0], RRFKRange[1]
		if slices.Equal(chunkIDs(Fuse(c, lo)), chunkIDs(Fuse(c, hi))) {
			out[KnobRRFK] = "one ranked list (" + string(mode) + " only): rrf_k cannot change the order of these sources"
		}
	}
	return out
}

func chunkIDs(rs []Result) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ChunkID
	}
	return ids
}
