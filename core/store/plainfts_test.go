package store

import (
	"reflect"
	"testing"
)

func TestPlainFTSRanksByBM25(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		p, err := OpenPlainFTS(":memory:", keyed)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Begin(); err != nil {
			t.Fatal(err)
		}
		for key, text := range map[string]string{"a": "reset the router", "b": "router router router reset", "c": "brew tea"} {
			if err := p.Add(key, text); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := p.Search(`"router"`, 5)
		if err != nil {
			t.Fatal(err)
		}
		if keyed && !reflect.DeepEqual(got, []string{"b", "a"}) || !keyed && len(got) != 2 {
			t.Errorf("keyed %v: %q", keyed, got)
		}
		p.Close()
	}
}
