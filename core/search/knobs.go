package search

import "cairn/core/config"

// requestKnobs points at the request's field for each knob of
// config.RetrievalKnobs, by its name: code, so that a misspelt field does
// not compile; TestEveryRetrievalKnobReachesTheRequest holds the names to
// the table.
var requestKnobs = map[string]func(r *Request) any{
	"top_k":         func(r *Request) any { return &r.TopK },
	"min_score":     func(r *Request) any { return &r.MinScore },
	"rrf_k":         func(r *Request) any { return &r.RRFK },
	"vector_weight": func(r *Request) any { return &r.VectorWeight },
	"per_doc_cap":   func(r *Request) any { return &r.PerDocCap },
	"bm25_pool":     func(r *Request) any { return &r.BM25Pool },
	"vector_pool":   func(r *Request) any { return &r.VectorPool },
}

// NewRequest is a request for query under the retrieval settings r: the
// mode, the fusion, and every knob of config.RetrievalKnobs, each in its
// field of requestKnobs.
func NewRequest(query string, r config.Retrieval) Request {
	req := Request{Query: query, Mode: Mode(r.Mode), Params: Params{Fusion: Fusion(r.Fusion)}}
	c := config.Config{Retrieval: r}
	for _, k := range config.RetrievalKnobs {
		if field, ok := requestKnobs[k.Name()]; ok {
			config.SetNumber(field(&req), k.Get(c))
		}
	}
	return req
}

// Knob is the value of the request's field for the knob name; false when
// the request has no such field.
func (r Request) Knob(name string) (float64, bool) {
	field, ok := requestKnobs[name]
	if !ok {
		return 0, false
	}
	return config.Number(field(&r))
}
