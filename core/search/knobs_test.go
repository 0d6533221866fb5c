package search

import (
	"testing"

	"cairn/core/config"
)

// Each retrieval knob reaches the request: a value set in the settings is
// the value of the request's field for it.
func TestEveryRetrievalKnobReachesTheRequest(t *testing.T) {
	for _, k := range config.RetrievalKnobs {
		t.Run(k.Key, func(t *testing.T) {
			c := config.Default("laptop")
			want := k.Lo + k.Step // a value no default has by chance
			if want == k.Get(c) {
				want += k.Step
			}
			k.Set(&c, want)
			req := NewRequest("q", c.Retrieval)
			got, ok := req.Knob(k.Name())
			if !ok {
				t.Fatalf("no field of search.Request is tagged knob:%q", k.Name())
			}
			if got != want {
				t.Errorf("request has %v, want %v", got, want)
			}
		})
	}
}

func TestNewRequestCarriesModeAndFusion(t *testing.T) {
	r := config.Default("laptop").Retrieval
	r.Mode, r.Fusion = "bm25", "weighted"
	req := NewRequest("router", r)
	if req.Query != "router" || req.Mode != ModeBM25 || req.Fusion != FusionWeighted || req.TopK != r.TopK || req.BM25Pool != r.BM25Pool {
		t.Errorf("%+v", req)
	}
}
