package cli

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"cairn/core"
	"cairn/core/eval"
	"cairn/ui/serve"
)

// serveReport is the serve suite's figures: the same searches made by
// concurrent clients in process and through the local service's HTTP API.
type serveReport struct {
	Files     int        `json:"files"`
	Chunks    int        `json:"chunks"`
	Clients   int        `json:"clients"`
	Seconds   float64    `json:"seconds_per_phase"`
	InProcess servePhase `json:"in_process"`
	HTTP      servePhase `json:"http"`
	Errors    []string   `json:"errors,omitempty"` // the first few
}

type servePhase struct {
	Searches int          `json:"searches"`
	PerSec   float64      `json:"searches_per_sec"`
	Errors   int          `json:"errors"`
	Latency  eval.Latency `json:"latency"`
}

// benchServe generates a knowledge base of about bf.chunks chunks, then
// runs bf.clients clients searching it for the duration twice: calling the
// engine in process, then GET /api/search on a service on 127.0.0.1.
func benchServe(ctx context.Context, env *cliEnv, bf benchFlags, work string) (serveReport, error) {
	log := env.stderr
	dir := filepath.Join(work, fmt.Sprintf("serve-corpus-%d", bf.chunks))
	files, queries, err := generateServeCorpus(dir, bf.chunks, bf.chunkSize)
	if err != nil {
		return serveReport{}, err
	}
	cfg := env.cfg
	cfg.Embedding.Model = "none" // keyword search: no model to download or load
	cfg.Chunking.Size, cfg.Chunking.Overlap = bf.chunkSize, 0
	db := filepath.Join(work, "serve.db")
	eng, err := core.Open(ctx, cfg, env.dirs, core.Options{DB: db, Write: true, Log: env.log})
	if err != nil {
		return serveReport{}, err
	}
	defer eng.Close()
	fmt.Fprintf(log, "indexing %d generated files into %s...\n", files, db)
	if _, err := eng.Index(ctx, dir, nil); err != nil {
		return serveReport{}, err
	}
	if err := eng.SyncKeywordIndex(ctx); err != nil {
		return serveReport{}, err
	}
	st, err := eng.Status(ctx)
	if err != nil {
		return serveReport{}, err
	}
	rep := serveReport{Files: st.Documents, Chunks: st.Chunks, Clients: bf.clients, Seconds: bf.serveDuration.Seconds()}
	var errs []string
	note := func(mu *sync.Mutex, err string) {
		mu.Lock()
		if len(errs) < 5 {
			errs = append(errs, err)
		}
		mu.Unlock()
	}

	fmt.Fprintf(log, "%d clients searching in process for %s...\n", bf.clients, bf.serveDuration)
	rep.InProcess = searchClients(ctx, bf.clients, bf.serveDuration, queries, note, func(ctx context.Context, q string) error {
		_, err := eng.Search(ctx, eng.SearchRequest(q))
		return err
	})

	token := strconv.FormatInt(rand.Int64(), 16) + strconv.FormatInt(rand.Int64(), 16) + strconv.FormatInt(rand.Int64(), 16)
	srv := serve.New(eng, serve.Options{Token: token, Version: Version, Log: env.log})
	ln, err := serve.Listen(0)
	if err != nil {
		return rep, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	base := "http://" + ln.Addr().String() + "/api/search?q="
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: bf.clients}, Timeout: 30 * time.Second}
	fmt.Fprintf(log, "%d clients searching through http://%s for %s...\n", bf.clients, ln.Addr(), bf.serveDuration)
	rep.HTTP = searchClients(ctx, bf.clients, bf.serveDuration, queries, note, func(ctx context.Context, q string) error {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+url.QueryEscape(q), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
		}
		return err
	})
	stop()
	if err := <-served; err != nil {
		return rep, err
	}
	rep.Errors = errs

	w := env.stdout
	fmt.Fprintf(w, "\n## The local service under load: %d clients, %d generated files (%d chunks), BM25, %.0f s per row\n\n",
		rep.Clients, rep.Files, rep.Chunks, rep.Seconds)
	fmt.Fprintln(w, "| searches made | searches | searches/s | errors | p50 | p95 | p99 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, row := range []struct {
		name string
		p    servePhase
	}{{"in process (Engine.Search)", rep.InProcess}, {"through HTTP (GET /api/search)", rep.HTTP}} {
		fmt.Fprintf(w, "| %s | %d | %.0f | %d | %s | %s | %s |\n", row.name, row.p.Searches, row.p.PerSec, row.p.Errors,
			msUnit(row.p.Latency.P50), msUnit(row.p.Latency.P95), msUnit(row.p.Latency.P99))
	}
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, "\nFirst errors: %s\n", strings.Join(rep.Errors, "; "))
	}
	return rep, nil
}

// searchClients runs n clients, each searching one query after another
// for d, and summarises their latencies.
func searchClients(ctx context.Context, n int, d time.Duration, queries []string, note func(*sync.Mutex, string),
	search func(context.Context, string) error) servePhase {
	var mu sync.Mutex
	var lat []time.Duration
	errors := 0
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for j := i * len(queries) / n; time.Now().Before(deadline) && ctx.Err() == nil; j++ {
				t := time.Now()
				if err := search(ctx, queries[j%len(queries)]); err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						errors++
						mu.Unlock()
						note(&mu, err.Error())
					}
					continue
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	return servePhase{Searches: len(lat), PerSec: float64(len(lat)) / secs, Errors: errors, Latency: eval.Percentiles(lat)}
}

// generateServeCorpus writes (once) text files that chunk into about
// chunks chunks of chunkSize characters: made-up words, each file with a
// serial number of its own, and returns the file count and queries (two of
// a file's words and its serial) that find one file each.
func generateServeCorpus(dir string, chunks, chunkSize int) (int, []string, error) {
	const perFile = 4 // chunks per file
	files := max(1, chunks/perFile)
	rng := rand.New(rand.NewPCG(17, uint64(chunks)))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "ri", "do", "fe", "gu", "hi"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	word := func() string { return vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())] } // common words commoner
	done := filepath.Join(dir, ".complete")
	_, statErr := os.Stat(done)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, err
	}
	var queries []string
	for f := range files {
		serial := fmt.Sprintf("SN%06d", f)
		var b strings.Builder
		fmt.Fprintf(&b, "# Report %s\n\n", serial)
		var picked []string
		for range perFile {
			for n := 0; n < chunkSize-120; {
				w := word()
				b.WriteString(w + " ")
				n += len(w) + 1
				if rng.IntN(200) == 0 {
					picked = append(picked, w)
				}
			}
			b.WriteString("\n\n")
		}
		if len(picked) >= 2 && len(queries) < 500 && f%max(1, files/500) == 0 {
			queries = append(queries, picked[0]+" "+picked[1]+" "+serial)
		}
		if statErr == nil {
			continue // written by an earlier run; only the queries are needed
		}
		if err := os.WriteFile(filepath.Join(dir, serial+".md"), []byte(b.String()), 0o644); err != nil {
			return 0, nil, err
		}
	}
	if len(queries) == 0 {
		queries = []string{vocab[0] + " " + vocab[1]}
	}
	if statErr != nil {
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return 0, nil, err
		}
	}
	return files, queries, nil
}
