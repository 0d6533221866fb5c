package search

import (
	"reflect"
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
				t.Fatalf("requestKnobs has no field for %q", k.Name())
			}
			if got != want {
				t.Errorf("request has %v, want %v", got, want)
			}
			// The field is the one the struct tags name (the tags document
			// which field is which knob; the code does not read them).
			if tagged, ok := taggedKnob(req, k.Name()); !ok || tagged != want {
				t.Errorf("the field tagged knob:%q holds %v (found %v), want %v", k.Name(), tagged, ok, want)
			}
		})
	}
	if len(requestKnobs) != len(config.RetrievalKnobs) {
		t.Errorf("requestKnobs has %d fields for %d knobs", len(requestKnobs), len(config.RetrievalKnobs))
	}
}

// taggedKnob reads the field of req, or of its Params, tagged knob:"name".
func taggedKnob(req Request, name string) (float64, bool) {
	for _, v := range []reflect.Value{reflect.ValueOf(req), reflect.ValueOf(req.Params)} {
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Tag.Get("knob") != name {
				continue
			}
			if f := v.Field(i); f.CanInt() {
				return float64(f.Int()), true
			}
			return v.Field(i).Float(), true
		}
	}
	return 0, false
}

func TestNewRequestCarriesModeAndFusion(t *testing.T) {
	r := config.Default("laptop").Retrieval
	r.Mode, r.Fusion = "bm25", "weighted"
	req := NewRequest("router", r)
	if req.Query != "router" || req.Mode != ModeBM25 || req.Fusion != FusionWeighted || req.TopK != r.TopK || req.BM25Pool != r.BM25Pool {
		t.Errorf("%+v", req)
	}
}
