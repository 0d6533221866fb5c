// Package bench measures Cairn on real corpora and prints the figures the
// README reports: indexing throughput against a bare FTS5 loop, re-index
// time, query latency, memory, and retrieval quality on a known-item set.
// `cairn bench` and `make bench` drive it; nothing here runs in `make test`.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// ManCorpus is a benchmark corpus rendered from the installed man pages.
type ManCorpus struct {
	Dir     string // one .txt per page, NAME section removed
	Queries string // qid<TAB>description, one per page whose description is unique
	Qrels   string // TREC qrels: qid 0 path 1
	Pages   int
}

var (
	sectionHeader = regexp.MustCompile(`^[A-Z][A-Z0-9 ,/&()-]*$`)
	overstrike    = regexp.MustCompile(`.\x08`)
)

// BuildManCorpus renders every page of man sections 1 and 8 under manRoot
// (normally /usr/share/man) to plain text in dir, unless dir already holds a
// finished corpus. The NAME section is cut out of each page and its
// description becomes the page's known-item query, so a query never matches
// its answer by the very words it was taken from. limit > 0 caps the pages.
func BuildManCorpus(ctx context.Context, manRoot, dir string, limit int, log io.Writer) (ManCorpus, error) {
	// Absolute paths: the qrels must name files exactly as the index does.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ManCorpus{}, err
	}
	mc := ManCorpus{Dir: filepath.Join(dir, "pages"), Queries: filepath.Join(dir, "queries.tsv"), Qrels: filepath.Join(dir, "qrels.txt")}
	if n, ok := finished(dir); ok {
		mc.Pages = n
		return mc, nil
	}
	if _, err := exec.LookPath("man"); err != nil {
		return mc, fmt.Errorf("the man-page corpus needs `man` (Debian package man-db): %w", err)
	}
	var files []string
	for _, sec := range []string{"man1", "man8"} {
		ents, err := os.ReadDir(filepath.Join(manRoot, sec))
		if err != nil {
			return mc, fmt.Errorf("man pages: %w", err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() { // symlinks are aliases of other pages
				files = append(files, filepath.Join(manRoot, sec, e.Name()))
			}
		}
	}
	sort.Strings(files)
	if limit > 0 && len(files) > limit {
		files = files[:limit]
	}
	if err := os.RemoveAll(dir); err != nil {
		return mc, err
	}
	if err := os.MkdirAll(mc.Dir, 0o755); err != nil {
		return mc, err
	}
	type page struct{ path, desc string }
	results := make([]page, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				text, desc, err := renderMan(ctx, files[i])
				if err != nil || len(text) < 200 {
					continue
				}
				name := strings.TrimSuffix(filepath.Base(files[i]), ".gz") + ".txt"
				out := filepath.Join(mc.Dir, name)
				if os.WriteFile(out, []byte(text), 0o644) == nil {
					results[i] = page{out, desc}
				}
				mu.Lock()
				if done++; done%1000 == 0 && log != nil {
					fmt.Fprintf(log, "rendered %d/%d man pages\n", done, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return mc, err
	}
	// Known-item queries: a description shared by several pages (aliases,
	// variants) has no single right answer, so it is left out.
	count := map[string]int{}
	for _, p := range results {
		if p.path != "" && len(strings.Fields(p.desc)) >= 2 {
			count[strings.ToLower(p.desc)]++
		}
	}
	var q, r bytes.Buffer
	for _, p := range results {
		if p.path == "" {
			continue
		}
		mc.Pages++
		if count[strings.ToLower(p.desc)] != 1 {
			continue
		}
		qid := strings.TrimSuffix(filepath.Base(p.path), ".txt")
		fmt.Fprintf(&q, "%s\t%s\n", qid, p.desc)
		fmt.Fprintf(&r, "%s 0 %s 1\n", qid, p.path)
	}
	if err := os.WriteFile(mc.Queries, q.Bytes(), 0o644); err != nil {
		return mc, err
	}
	if err := os.WriteFile(mc.Qrels, r.Bytes(), 0o644); err != nil {
		return mc, err
	}
	return mc, os.WriteFile(filepath.Join(dir, "DONE"), []byte(fmt.Sprint(mc.Pages)), 0o644)
}

func finished(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "DONE"))
	if err != nil {
		return 0, false
	}
	var n int
	_, err = fmt.Sscan(string(b), &n)
	return n, err == nil
}

// renderMan formats one page as plain text and splits off its NAME section.
func renderMan(ctx context.Context, path string) (text, desc string, err error) {
	cmd := exec.CommandContext(ctx, "man", "--no-hyphenation", "--no-justification", "-l", path)
	cmd.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		return "", "", err
	}
	out = overstrike.ReplaceAll(out, nil)
	var keep []string
	var name []string
	inName := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if sectionHeader.MatchString(line) && line != "" {
			inName = line == "NAME"
			if inName {
				continue
			}
		}
		if inName {
			name = append(name, strings.TrimSpace(line))
			continue
		}
		keep = append(keep, line)
	}
	full := strings.Join(strings.Fields(strings.Join(name, " ")), " ")
	if _, d, ok := strings.Cut(full, " - "); ok {
		desc = strings.TrimSpace(d)
	}
	return strings.Join(keep, "\n") + "\n", desc, sc.Err()
}
