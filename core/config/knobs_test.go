package config

import (
	"errors"
	"math"
	"testing"
)

// Every knob names a number setting, its slider lies within what is valid,
// and Validate rejects a value outside its bounds under its key.
func TestEveryKnobIsASettingValidatedByItsBounds(t *testing.T) {
	for _, k := range Knobs() {
		t.Run(k.Key, func(t *testing.T) {
			c := Default("laptop")
			if v := k.Get(c); v < k.Min || v > k.Max {
				t.Errorf("default %v outside %v..%v", v, k.Min, k.Max)
			}
			if !(k.Min <= k.Lo && k.Lo < k.Hi && k.Hi <= k.Max && k.Step > 0) {
				t.Errorf("slider %v..%v step %v not within %v..%v", k.Lo, k.Hi, k.Step, k.Min, k.Max)
			}
			if k.Label == "" || k.Help == "" {
				t.Error("no label or help")
			}
			k.Set(&c, k.Hi)
			if got := k.Get(c); got != k.Hi {
				t.Errorf("set %v, got %v", k.Hi, got)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("the slider's top %v is refused: %v", k.Hi, err)
			}
			for _, bad := range []float64{k.Min - 1, k.Max + 1} {
				if math.IsInf(bad, 1) {
					continue
				}
				k.Set(&c, bad)
				var inv *InvalidError
				if err := c.Validate(); !errors.As(err, &inv) || len(inv.Problems) != 1 || inv.Problems[0].Key != k.Key {
					t.Errorf("%v: %v, want one problem with %s", bad, err, k.Key)
				}
			}
		})
	}
}

func TestKnobMessagesNameTheBoundsAndWhatZeroMeans(t *testing.T) {
	c := Default("laptop")
	c.Retrieval.TopK, c.Retrieval.MinScore, c.Retrieval.PerDocCap, c.Retrieval.BM25Pool = 0, 1.5, -1, -10
	want := "invalid settings: retrieval.top_k must be at least 1, not 0; " +
		"retrieval.min_score must be between 0 and 1, not 1.5; " +
		"retrieval.per_doc_cap must not be negative (0: no cap), not -1; " +
		"retrieval.bm25_pool must not be negative (0: the default, 60), not -10"
	if err := c.Validate(); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
