package stats

import (
	"testing"
	"time"
)

func TestMedianAndQuantile(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("odd median %v", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("even median %v", got)
	}
	if got := MedianDuration([]time.Duration{10, 30, 20, 40}); got != 25 {
		t.Errorf("median duration %v", got)
	}
	ds := make([]time.Duration, 100)
	for i := range ds {
		ds[i] = time.Duration(100 - i) // 1..100, reversed
	}
	if q50, q95, q100 := Quantile(ds, 0.5), Quantile(ds, 0.95), Quantile(ds, 1); q50 != 50 || q95 != 95 || q100 != 100 {
		t.Errorf("quantiles %v %v %v", q50, q95, q100)
	}
	if Median(nil) != 0 || Quantile(nil, 0.5) != 0 {
		t.Error("empty input")
	}
}
