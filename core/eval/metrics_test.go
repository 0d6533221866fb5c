package eval

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	qrels := Qrels{
		"a": {"d1": 1},          // found at rank 2
		"b": {"d5": 1, "d6": 1}, // one of two found at rank 1
		"c": {"d9": 1},          // not found
		"d": {},                 // unjudged: ignored
		"e": {"x": 2, "y": 1},   // graded
	}
	run := Run{
		"a": {"d0", "d1", "d2"},
		"b": {"d5", "d7"},
		"c": {"d1"},
		"e": {"y", "x"},
	}
	m := Evaluate(qrels, run, 10)
	if m.Queries != 4 {
		t.Fatalf("queries %d", m.Queries)
	}
	wantRecall := (1 + 0.5 + 0 + 1) / 4.0
	wantMRR := (0.5 + 1 + 0 + 1) / 4.0
	ndcgA := 1 / math.Log2(3)
	ndcgE := (1/math.Log2(2) + 3/math.Log2(3)) / (3/math.Log2(2) + 1/math.Log2(3))
	ndcgB := 1 / (1 + 1/math.Log2(3))
	wantNDCG := (ndcgA + ndcgB + 0 + ndcgE) / 4
	if math.Abs(m.Recall-wantRecall) > 1e-12 || math.Abs(m.MRR-wantMRR) > 1e-12 || math.Abs(m.NDCG-wantNDCG) > 1e-12 {
		t.Errorf("got %+v, want recall %v mrr %v ndcg %v", m, wantRecall, wantMRR, wantNDCG)
	}
	// P@1: b's and e's first results are relevant, a's and c's are not.
	if m.P1 != 0.5 {
		t.Errorf("P@1 %v, want 0.5", m.P1)
	}
	// The cut-off applies.
	if m := Evaluate(Qrels{"a": {"d1": 1}}, run, 1); m.Recall != 0 || m.MRR != 0 {
		t.Errorf("k=1: %+v", m)
	}
}

func TestReadTRECAndQrels(t *testing.T) {
	run, err := ReadTREC(strings.NewReader("q1 Q0 b 2 0.5 x\nq1 Q0 a 1 0.9 x\n\nq2 Q0 c 1 1 x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run["q1"]) != 2 || run["q1"][0] != "a" || run["q2"][0] != "c" {
		t.Errorf("run %v", run)
	}
	if _, err := ReadTREC(strings.NewReader("q1 Q0 a\n")); err == nil {
		t.Error("short line accepted")
	}
	q, err := ReadQrels(strings.NewReader("q1 0 a 1\nq1 0 b 0\n"))
	if err != nil || q["q1"]["a"] != 1 || q["q1"]["b"] != 0 {
		t.Errorf("qrels %v %v", q, err)
	}
}

func TestPercentilesAndMedian(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := Percentiles(ds)
	if l.P50 != 50*time.Millisecond || l.P95 != 95*time.Millisecond || l.P99 != 99*time.Millisecond || l.Max != 100*time.Millisecond {
		t.Errorf("%+v", l)
	}
}
