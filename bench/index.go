package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces" // same SQLite build as the store

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/eval"
	"cairn/core/extract"
	"cairn/core/ingest"
	"cairn/core/llm"
	"cairn/core/search"
	"cairn/core/stats"
	"cairn/core/store"
)

// IndexOptions configure IndexBench.
type IndexOptions struct {
	Corpus  string // folder to index
	Work    string // scratch folder for databases
	Runs    int    // repetitions of the throughput pair; medians are reported
	Queries string // qid<TAB>query file for the latency measurement
	Binary  string // the cairn executable, for the memory measurement in a child process
	Chunk   chunk.Params
}

// IndexReport holds the indexing figures.
type IndexReport struct {
	Files, Chunks      int
	MB                 float64
	CairnSeconds       []float64
	BaselineSeconds    []float64
	CairnChunksPerSec  float64 // medians
	CairnMBPerSec      float64
	BaselineChunksPerS float64
	BaselineMBPerSec   float64
	RatioMedian        float64 // Cairn rate / baseline rate, median of the per-run ratios
	// CPU time of each run: the bare loop uses one core, Cairn's pipeline
	// both, so on a machine whose cores are taken by other work the wall
	// ratio understates Cairn and the CPU ratio is the steadier figure.
	BaselineCPUSeconds []float64
	CairnCPUSeconds    []float64
	CPURatioMedian     float64 // baseline CPU-seconds / Cairn CPU-seconds, median of the runs
	ReindexSeconds     []float64
	ReindexMedian      float64
	QueryLatency       eval.Latency // searches as Cairn runs them: through the in-memory keyword index
	QueryCPU           eval.Latency // process CPU time per query: the latency of an idle machine
	FTS5Latency        eval.Latency // the same searches through FTS5 alone, the baseline
	KeywordBuildSecs   float64      // building the keyword index from the store
	KeywordMB          float64      // its postings and per-chunk arrays
	PeakRSSMB          float64
	DBMB               float64
	DBPath             string // the last Cairn knowledge base, kept for the quality bench
	GOMAXPROCS         int
	CPU                string
}

// IndexBench measures BM25-only indexing of opt.Corpus against a bare loop
// that inserts the same, pre-chunked text into a plain FTS5 table, then
// re-indexing of the unchanged corpus, query latency and peak memory.
func IndexBench(ctx context.Context, opt IndexOptions, log io.Writer) (IndexReport, error) {
	rep := IndexReport{GOMAXPROCS: runtime.GOMAXPROCS(0), CPU: cpuModel()}
	if opt.Runs <= 0 {
		opt.Runs = 3
	}
	if opt.Chunk.Size == 0 {
		opt.Chunk = chunk.DefaultParams()
	}
	reg := extract.NewRegistry(extract.DefaultLimits())
	fmt.Fprintf(log, "pre-chunking %s for the baseline...\n", opt.Corpus)
	files, err := preChunk(ctx, reg, opt.Corpus, opt.Chunk)
	if err != nil {
		return rep, err
	}
	rep.Files = len(files)
	var bytes int64
	for _, f := range files {
		rep.Chunks += len(f.chunks)
		bytes += f.size
	}
	rep.MB = float64(bytes) / (1 << 20)
	var ratios []float64
	var cairnDB string
	var cpuRatios []float64
	for i := range opt.Runs {
		c0 := llm.ProcessCPUTime()
		b, err := baseline(ctx, filepath.Join(opt.Work, fmt.Sprintf("baseline-%d.db", i)), files)
		if err != nil {
			return rep, fmt.Errorf("baseline: %w", err)
		}
		c1 := llm.ProcessCPUTime()
		cairnDB = filepath.Join(opt.Work, fmt.Sprintf("cairn-%d.db", i))
		c, err := cairnIndex(ctx, cairnDB, reg, opt)
		if err != nil {
			return rep, err
		}
		bcpu, ccpu := (c1 - c0).Seconds(), (llm.ProcessCPUTime() - c1).Seconds()
		rep.BaselineSeconds = append(rep.BaselineSeconds, b)
		rep.CairnSeconds = append(rep.CairnSeconds, c)
		rep.BaselineCPUSeconds = append(rep.BaselineCPUSeconds, bcpu)
		rep.CairnCPUSeconds = append(rep.CairnCPUSeconds, ccpu)
		ratios = append(ratios, b/c)
		cpuRatios = append(cpuRatios, bcpu/ccpu)
		fmt.Fprintf(log, "run %d: baseline %.2fs (%.2f CPU-s), cairn %.2fs (%.2f CPU-s): %.0f%% of the baseline rate, %.0f%% per CPU-second; load average %.1f\n",
			i+1, b, bcpu, c, ccpu, 100*b/c, 100*bcpu/ccpu, LoadAverage())
		if i < opt.Runs-1 {
			removeDB(cairnDB)
		}
		removeDB(filepath.Join(opt.Work, fmt.Sprintf("baseline-%d.db", i)))
	}
	bs, cs := stats.Median(rep.BaselineSeconds), stats.Median(rep.CairnSeconds)
	rep.BaselineChunksPerS, rep.BaselineMBPerSec = float64(rep.Chunks)/bs, rep.MB/bs
	rep.CairnChunksPerSec, rep.CairnMBPerSec = float64(rep.Chunks)/cs, rep.MB/cs
	rep.RatioMedian = stats.Median(ratios)
	rep.CPURatioMedian = stats.Median(cpuRatios)

	db, err := store.Open(cairnDB, store.Options{})
	if err != nil {
		return rep, err
	}
	defer db.Close()
	rep.DBPath = cairnDB
	ix := ingest.New(db, reg, ingest.Options{Chunk: opt.Chunk})
	for i := range opt.Runs {
		t := time.Now()
		run, err := ix.Run(ctx, opt.Corpus, nil)
		if err != nil {
			return rep, err
		}
		if run.FilesIndexed != 0 {
			return rep, fmt.Errorf("re-index read %d files of an unchanged corpus", run.FilesIndexed)
		}
		rep.ReindexSeconds = append(rep.ReindexSeconds, time.Since(t).Seconds())
		fmt.Fprintf(log, "re-index %d: %.3fs\n", i+1, rep.ReindexSeconds[i])
	}
	rep.ReindexMedian = stats.Median(rep.ReindexSeconds)
	if fi, err := os.Stat(cairnDB); err == nil {
		rep.DBMB = float64(fi.Size()) / (1 << 20)
	}

	if opt.Queries != "" {
		qs, err := ReadQueries(opt.Queries, 2000)
		if err != nil {
			return rep, err
		}
		kix := bm25.New(db)
		defer kix.Close()
		t := time.Now()
		if err := kix.Sync(ctx); err != nil {
			return rep, err
		}
		rep.KeywordBuildSecs = time.Since(t).Seconds()
		rep.KeywordMB = float64(kix.Stats().Bytes) / (1 << 20)
		fmt.Fprintf(log, "keyword index: built in %.2fs, %.0f MB\n", rep.KeywordBuildSecs, rep.KeywordMB)
		p := search.DefaultParams()
		p.TopK = 10
		// FTS5 alone, then the keyword index, over the same queries in the
		// same process: the ratio holds however loaded the machine is.
		for _, fast := range []bool{false, true} {
			s := search.New(db, nil, nil)
			if fast {
				s = s.WithKeywordIndex(kix)
			}
			var ds, cpu []time.Duration
			for i, q := range qs {
				t, c := time.Now(), llm.ProcessCPUTime()
				if _, err := s.Search(ctx, search.Request{Query: q, Params: p}); err != nil {
					return rep, err
				}
				if i >= 50 { // the first queries warm the page cache
					ds = append(ds, time.Since(t))
					cpu = append(cpu, llm.ProcessCPUTime()-c)
				}
			}
			if fast {
				rep.QueryLatency, rep.QueryCPU = eval.Percentiles(ds), eval.Percentiles(cpu)
				fmt.Fprintf(log, "query latency: %s; CPU per query: %s\n", rep.QueryLatency, rep.QueryCPU)
			} else {
				rep.FTS5Latency = eval.Percentiles(ds)
				fmt.Fprintf(log, "query latency through FTS5 alone: %s\n", rep.FTS5Latency)
			}
		}
	}
	if opt.Binary != "" {
		rss, err := childPeakRSS(ctx, opt.Binary, opt.Corpus, filepath.Join(opt.Work, "rss.db"), opt.Chunk)
		if err != nil {
			return rep, fmt.Errorf("memory measurement: %w", err)
		}
		rep.PeakRSSMB = rss
		fmt.Fprintf(log, "peak RSS of `cairn index`: %.0f MB\n", rss)
	}
	return rep, nil
}

type chunkedFile struct {
	size   int64
	chunks []string
}

func preChunk(ctx context.Context, reg *extract.Registry, dir string, p chunk.Params) ([]chunkedFile, error) {
	var out []chunkedFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		doc, err := reg.Extract(ctx, extract.File{Name: path, Size: int64(len(b)), R: strings.NewReader(string(b))})
		if err != nil {
			return nil // skipped by Cairn too
		}
		cf := chunkedFile{size: int64(len(b))}
		for _, c := range chunk.Split(doc, p) {
			cf.chunks = append(cf.chunks, c.Text)
		}
		out = append(out, cf)
		return nil
	})
	return out, err
}

// baseline inserts pre-chunked text into a plain FTS5 table with the same
// tokenizer, committing every 64 files as Cairn's writer does at most: the
// SQLite work alone.
func baseline(ctx context.Context, path string, files []chunkedFile) (float64, error) {
	removeDB(path)
	fts, err := store.OpenPlainFTS(path, false)
	if err != nil {
		return 0, err
	}
	defer fts.Close()
	t := time.Now()
	for i := 0; i < len(files); i += 64 {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err := fts.Begin(); err != nil {
			return 0, err
		}
		for _, f := range files[i:min(i+64, len(files))] {
			for _, s := range f.chunks {
				if err := fts.Add("", s); err != nil {
					return 0, err
				}
			}
		}
		if err := fts.Commit(); err != nil {
			return 0, err
		}
	}
	return time.Since(t).Seconds(), nil
}

func cairnIndex(ctx context.Context, path string, reg *extract.Registry, opt IndexOptions) (float64, error) {
	removeDB(path)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	t := time.Now()
	run, err := ingest.New(db, reg, ingest.Options{Chunk: opt.Chunk}).Run(ctx, opt.Corpus, nil)
	if err != nil {
		return 0, err
	}
	if run.FilesFailed > 0 {
		return 0, fmt.Errorf("%d files failed", run.FilesFailed)
	}
	return time.Since(t).Seconds(), nil
}

// childPeakRSS runs `cairn index` on corpus in a child process and returns
// its peak resident memory in MB.
func childPeakRSS(ctx context.Context, bin, corpus, db string, p chunk.Params) (float64, error) {
	removeDB(db)
	defer removeDB(db)
	cmd := exec.CommandContext(ctx, bin, "index", corpus, "--db", db, "--quiet")
	cmd.Env = append(os.Environ(), fmt.Sprintf("CAIRN_CHUNKING_SIZE=%d", p.Size), fmt.Sprintf("CAIRN_CHUNKING_OVERLAP=%d", p.Overlap))
	return runPeakRSS(cmd)
}

// runPeakRSS runs cmd and returns its peak resident memory in MB, read from
// /proc/PID/status (VmHWM) every 20 ms while it runs. Not from the rusage of
// wait: Go starts children sharing its address space until exec, and Linux
// counts that space into the child's maxrss, so a parent holding a 1 GB model
// made a 300 MB child read as 1.1 GB.
func runPeakRSS(cmd *exec.Cmd) (float64, error) {
	var out bytes.Buffer
	if cmd.Stdout == nil { // a caller may read the child's output itself
		cmd.Stdout = &out
	}
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var peakKB int64
	for {
		select {
		case err := <-done:
			if err != nil {
				return 0, fmt.Errorf("%s: %v: %s", filepath.Base(cmd.Path), err, out.Bytes())
			}
			if peakKB == 0 {
				return 0, fmt.Errorf("%s ended before its memory could be read", filepath.Base(cmd.Path))
			}
			return float64(peakKB) / 1024, nil
		case <-tick.C:
			peakKB = max(peakKB, vmHWM(status))
		}
	}
}

// vmHWM is the peak resident memory in KB a /proc status file reports, 0
// when it cannot be read (the process has ended).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// ReadQueries reads the first limit queries of a qid<TAB>text file, skipping
// lines without a query.
func ReadQueries(path string, limit int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(qs) < limit {
		if _, q, ok := strings.Cut(sc.Text(), "\t"); ok && strings.TrimSpace(q) != "" {
			qs = append(qs, q)
		}
	}
	return qs, sc.Err()
}

func removeDB(path string) {
	for _, s := range []string{"", "-wal", "-shm", ".lock"} {
		os.Remove(path + s)
	}
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
