package search

import (
	"math"
	"reflect"

	"cairn/core/config"
)

// NewRequest is a request for query under the retrieval settings r: the
// mode, the fusion, and every knob of config.RetrievalKnobs, each in the
// field tagged with its name.
func NewRequest(query string, r config.Retrieval) Request {
	req := Request{Query: query, Mode: Mode(r.Mode), Params: Params{Fusion: Fusion(r.Fusion)}}
	c := config.Config{Retrieval: r}
	for _, k := range config.RetrievalKnobs {
		if f, ok := knobField(&req, k.Name()); ok {
			if f.CanInt() {
				f.SetInt(int64(math.Round(k.Get(c))))
			} else {
				f.SetFloat(k.Get(c))
			}
		}
	}
	return req
}

// Knob is the value of the request's field for the knob name; false when
// no field is tagged with it.
func (r Request) Knob(name string) (float64, bool) {
	f, ok := knobField(&r, name)
	switch {
	case !ok:
		return 0, false
	case f.CanInt():
		return float64(f.Int()), true
	}
	return f.Float(), true
}

// knobField finds the field of req, or of its Params, tagged `knob:"name"`.
func knobField(req *Request, name string) (reflect.Value, bool) {
	for _, v := range []reflect.Value{reflect.ValueOf(req).Elem(), reflect.ValueOf(&req.Params).Elem()} {
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Tag.Get("knob") == name {
				return v.Field(i), true
			}
		}
	}
	return reflect.Value{}, false
}
