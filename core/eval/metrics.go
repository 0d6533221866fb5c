// Package eval measures retrieval: relevance judgements (qrels), ranked runs,
// the metrics Recall@k, MRR@k and nDCG@k, and latency percentiles.
package eval

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"cairn/core/stats"
)

// Qrels maps a query id to its relevant document ids and their grades
// (1 = relevant; higher = more relevant).
type Qrels map[string]map[string]int

// Run maps a query id to its ranked document ids, best first.
type Run map[string][]string

// Metrics are the averages over the judged queries of a run.
type Metrics struct {
	Queries int     `json:"queries"`
	K       int     `json:"k"`
	Recall  float64 `json:"recall"`
	MRR     float64 `json:"mrr"`
	NDCG    float64 `json:"ndcg"`
	P1      float64 `json:"p1"` // precision at 1: the share of queries whose first result is relevant
}

// String formats the metrics for a report line.
func (m Metrics) String() string {
	return fmt.Sprintf("Recall@%d %.3f  MRR@%d %.3f  nDCG@%d %.3f  (%d queries)", m.K, m.Recall, m.K, m.MRR, m.K, m.NDCG, m.Queries)
}

// Evaluate scores run against qrels at cut-off k. Queries without judgements
// are ignored; judged queries missing from the run score 0.
func Evaluate(qrels Qrels, run Run, k int) Metrics {
	m := Metrics{K: k}
	for qid, rel := range qrels {
		if len(rel) == 0 {
			continue
		}
		m.Queries++
		ranked := run[qid]
		if len(ranked) > k {
			ranked = ranked[:k]
		}
		found, rr, dcg := 0, 0.0, 0.0
		for i, doc := range ranked {
			g := rel[doc]
			if g <= 0 {
				continue
			}
			found++
			if i == 0 {
				m.P1++
			}
			if rr == 0 {
				rr = 1 / float64(i+1)
			}
			dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
		}
		m.Recall += float64(found) / float64(len(rel))
		m.MRR += rr
		if ideal := idealDCG(rel, k); ideal > 0 {
			m.NDCG += dcg / ideal
		}
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		m.Recall, m.MRR, m.NDCG, m.P1 = m.Recall/n, m.MRR/n, m.NDCG/n, m.P1/n
	}
	return m
}

func idealDCG(rel map[string]int, k int) float64 {
	var gs []int
	for _, g := range rel {
		if g > 0 {
			gs = append(gs, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(gs)))
	dcg := 0.0
	for i, g := range gs {
		if i == k {
			break
		}
		dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	return dcg
}

// ReadTREC reads TREC run lines "qid Q0 doc rank score tag". Documents are
// ordered by rank as written.
func ReadTREC(r io.Reader) (Run, error) {
	run := Run{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	type entry struct {
		doc  string
		rank int
	}
	tmp := map[string][]entry{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("run line %d: want 6 fields, got %d", line, len(f))
		}
		rank, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("run line %d: rank %q", line, f[3])
		}
		tmp[f[0]] = append(tmp[f[0]], entry{f[2], rank})
	}
	for q, es := range tmp {
		sort.SliceStable(es, func(i, j int) bool { return es[i].rank < es[j].rank })
		for _, e := range es {
			run[q] = append(run[q], e.doc)
		}
	}
	return run, sc.Err()
}

// ReadQrels reads TREC qrels lines "qid 0 doc grade".
func ReadQrels(r io.Reader) (Qrels, error) {
	q := Qrels{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("qrels line %d: want 4 fields, got %d", line, len(f))
		}
		g, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("qrels line %d: grade %q", line, f[3])
		}
		if q[f[0]] == nil {
			q[f[0]] = map[string]int{}
		}
		q[f[0]][f[2]] = g
	}
	return q, sc.Err()
}

// Latency summarises a set of durations.
type Latency struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P95 time.Duration `json:"p95_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

// Percentiles computes latency percentiles (nearest rank).
func Percentiles(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	q := func(p float64) time.Duration { return stats.Quantile(ds, p) }
	return Latency{N: len(ds), P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: q(1)}
}

// String formats latencies in milliseconds.
func (l Latency) String() string {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
	return fmt.Sprintf("p50 %s ms  p95 %s ms  p99 %s ms  max %s ms  (n=%d)", ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max), l.N)
}
