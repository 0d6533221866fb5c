package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces"
	"github.com/ncruces/go-sqlite3"

	"cairn/core/eval"
	"cairn/core/search"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	c, err := sqlite3.Open("/tmp/kbfull.db")
	must(err)
	must(c.Exec(`PRAGMA cache_size=-64000;
	CREATE VIRTUAL TABLE IF NOT EXISTS temp.qtok USING fts5(t, tokenize='porter unicode61 remove_diacritics 2');
	CREATE VIRTUAL TABLE IF NOT EXISTS temp.qtok_v USING fts5vocab(temp, qtok, instance);
	CREATE VIRTUAL TABLE IF NOT EXISTS temp.main_v USING fts5vocab(main, chunks_fts, row);`))
	var N float64
	s0, _, _ := c.Prepare("SELECT count(*) FROM chunks")
	s0.Step()
	N = float64(s0.ColumnInt(0))
	insQ, _, err := c.Prepare(`INSERT INTO qtok(rowid, t) VALUES (1, ?)`)
	must(err)
	selQ, _, err := c.Prepare(`SELECT term FROM qtok_v ORDER BY offset`)
	must(err)
	delQ, _, _ := c.Prepare(`DELETE FROM qtok`)
	df, _, err := c.Prepare(`SELECT doc FROM main_v WHERE term = ?`)
	must(err)
	dfOf := func(word string) int {
		insQ.BindText(1, word)
		must(insQ.Exec())
		insQ.Reset()
		var toks []string
		for selQ.Step() {
			toks = append(toks, selQ.ColumnText(0))
		}
		selQ.Reset()
		must(delQ.Exec())
		delQ.Reset()
		best := -1
		for _, t := range toks {
			df.BindText(1, t)
			n := 0
			if df.Step() {
				n = df.ColumnInt(0)
			}
			df.Reset()
			if best < 0 || n < best {
				best = n
			}
		}
		return best
	}
	f, _ := os.Open("testdata/bench/manpages/queries.tsv")
	type q struct{ id, text string }
	var qs []q
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, t, _ := strings.Cut(sc.Text(), "\t")
		qs = append(qs, q{id, t})
	}
	qf, _ := os.Open("testdata/bench/manpages/qrels.txt")
	qrels, _ := eval.ReadQrels(qf)
	sel, _, err := c.Prepare(`SELECT d.path, min(bm25(chunks_fts, 1.0, 0.5, 0.8)) s FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH ? GROUP BY d.path ORDER BY s LIMIT 10`)
	_ = sel
	must(err)
	sel2, _, err := c.Prepare(`SELECT rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 60`)
	must(err)
	path, _, _ := c.Prepare(`SELECT d.path FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?`)
	type cfg struct {
		thr  float64
		pool int
	}
	for _, cf := range []cfg{{1, 0}, {0.05, 400}, {0.05, 1000}, {0.1, 1000}, {0.02, 1000}} {
		thr := cf.thr
		run := eval.Run{}
		var ds []time.Duration
		for _, qq := range qs[:1000] {
			terms := search.ParseTerms(qq.text)
			t0 := time.Now()
			type td struct {
				t  search.Term
				df int
			}
			var tds []td
			for _, t := range terms {
				tds = append(tds, td{t, dfOf(t.String())})
			}
			sort.Slice(tds, func(i, j int) bool { return tds[i].df < tds[j].df })
			var keep []search.Term
			for i, x := range tds {
				if i == 0 || float64(x.df) <= thr*N {
					keep = append(keep, x.t)
				}
			}
			var ids []int64
			if cf.pool == 0 {
				sel2.BindText(1, search.MatchQuery(terms))
				for sel2.Step() {
					ids = append(ids, sel2.ColumnInt64(0))
				}
				sel2.Reset()
			} else {
				st, _, err := c.Prepare(fmt.Sprintf(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.8) LIMIT %d`, cf.pool))
				must(err)
				st.BindText(1, search.MatchQuery(keep))
				var cand []string
				for st.Step() {
					cand = append(cand, fmt.Sprint(st.ColumnInt64(0)))
				}
				st.Close()
				if len(cand) > 0 {
					st2, _, err := c.Prepare(`SELECT rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) s FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (` + strings.Join(cand, ",") + `) ORDER BY s LIMIT 60`)
					must(err)
					st2.BindText(1, search.MatchQuery(terms))
					for st2.Step() {
						ids = append(ids, st2.ColumnInt64(0))
					}
					must(st2.Err())
					st2.Close()
				}
			}
			ds = append(ds, time.Since(t0))
			seen := map[string]bool{}
			var ranked []string
			for _, id := range ids {
				path.BindInt64(1, id)
				path.Step()
				p := path.ColumnText(0)
				path.Reset()
				if !seen[p] {
					seen[p] = true
					ranked = append(ranked, p)
				}
			}
			run[qq.id] = ranked
		}
		sub := eval.Qrels{}
		for _, qq := range qs[:1000] {
			sub[qq.id] = qrels[qq.id]
		}
		m := eval.Evaluate(sub, run, 10)
		lat := eval.Percentiles(ds)
		fmt.Printf("threshold %.2f pool %d: %s | %s\n", thr, cf.pool, m, lat)
	}
}
