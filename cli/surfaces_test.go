package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/search"
	"cairn/internal/skip"
)

// surfaceDocs writes a folder of more chunks than search.pruneFrom (10,000,
// where FTS5's rare-first pruning starts) at chunking.size 150: the test
// corpus, short man pages with options of both cases, and filler.
func surfaceDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "corpus"), os.DirFS(corpusDir(t))); err != nil {
		t.Fatal(err)
	}
	man := map[string]string{
		"chmod.txt": "chmod - change file mode bits\n\nchmod u+x deploy.sh makes the script executable for its owner; chmod go-w settings.json " +
			"takes write permission from the group and others.\n\nTo keep errors with the output, redirect with 2>&1 after the file.\n",
		"ls.txt": "ls - list directory contents\n\n       -a, --all\n              do not ignore entries starting with .\n\n" +
			"       -A, --almost-all\n              do not list implied . and ..\n\n       -S     sort by file size, largest first\n\n" +
			"       -h, --human-readable\n              with -l and -s, print sizes like 1K 234M 2G etc.\n",
		"cp.txt": "cp - copy files and directories\n\n       -P, --no-dereference\n              never follow symbolic links in SOURCE\n\n" +
			"       -p     same as --preserve=mode,ownership,timestamps\n\n       -R, -r, --recursive\n              copy directories recursively\n",
		"sort.txt": "sort - sort lines of text files\n\n       -g, --general-numeric-sort\n              compare according to general numerical value\n\n" +
			"       -n, --numeric-sort\n              compare according to string numerical value\n\n       -r, --reverse\n              reverse the result of comparisons\n\n" +
			"       -R, --random-sort\n              shuffle, but group identical keys\n",
		"grep.txt": "grep - print lines that match patterns\n\n       -o, --only-matching\n              Print only the matched (non-empty) parts of a matching line.\n\n" +
			"       -n, --line-number\n              Prefix each line of output with the 1-based line number within its input file.\n\n" +
			"       -v, --invert-match\n              Invert the sense of matching, to select non-matching lines.\n",
	}
	if err := os.MkdirAll(filepath.Join(dir, "man"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range man {
		if err := os.WriteFile(filepath.Join(dir, "man", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	words := strings.Fields("pump valve pressure gauge sensor battery cable firmware manual module bracket housing seal gasket filter " +
		"spring lever panel switch relay fuse motor bearing shaft coupling flange nozzle hose clamp washer")
	if err := os.MkdirAll(filepath.Join(dir, "filler"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range 90 {
		var b strings.Builder
		for p := range 180 {
			n := f*180 + p
			fmt.Fprintf(&b, "Part %d: the %s and the %s of the %s, checked every %d days.\n\n",
				n, words[n%len(words)], words[(n/3)%len(words)], words[(n/7)%len(words)], n%90+1)
		}
		if err := os.WriteFile(filepath.Join(dir, "filler", fmt.Sprintf("log%02d.md", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// surfaceQueries are searched on every surface, each as written and
// within a filter: words, misspelt words, options and other technical
// tokens, phrases.
var surfaceQueries = []string{
	"how do I reset the device", "reset the devcie", "factory setings", "descale the machine", "descalng light",
	"pump seal kit XK-200-B", "firmware updates", "firmwear updates", "admin password label", "pasword label",
	"what does ls -a do", "what does ls -A do", "ls -S", "what does cp -p do", "cp -P", "--numeric-sort",
	"sort -r", "sort -R", "grep line numbers", "grep -n", "print only the matched parts", "recursivly copy directories",
	"u+x", "2>&1", "settings.json", "deploy.sh", "pressure gauge", "pressure gaueg", "bearing shaft coupling",
	"valve", "nozzle hose clamp", "human readable sizes", "symbolic links", "invert the sense of matching",
	"milk frother", "frother clenaing",
}

// TestEverySurfaceGivesTheSameResults searches the same queries through
// the command line (`cairn search --json`), the HTTP API, MCP over stdio
// and the engine call the window's workers make, on a knowledge base over
// the size where the keyword search's paths switch (FTS5 with rare-first
// pruning in the command line, the in-memory index in the long-running
// service once it has caught up), unfiltered and filtered: the reports
// are identical, corrections included.
func TestEverySurfaceGivesTheSameResults(t *testing.T) {
	if testing.Short() {
		skip.Because(t, "-short: indexes 10,000 chunks")
	}
	home := t.TempDir()
	t.Setenv("CAIRN_CHUNKING_SIZE", "150")
	t.Setenv("CAIRN_CHUNKING_OVERLAP", "30")
	docs := surfaceDocs(t)
	if _, errs, code := cli(t, home, "index", docs, "--kb", "work"); code != 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// The window's engine call.
	dirs, err := config.UserDirs()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := core.Open(ctx, cfg, dirs, core.Options{KB: "work"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if st, err := eng.Status(ctx); err != nil || st.Chunks <= 10000 {
		t.Fatalf("%d chunks (%v): the test needs more than 10,000", st.Chunks, err)
	}

	// The service, caught up: its keyword index answers unfiltered searches.
	cmd := cairnCmd(home, "serve", "--port", "0", "--kb", "work")
	cmd.Env = append(cmd.Env, "CAIRN_CHUNKING_SIZE=150", "CAIRN_CHUNKING_OVERLAP=30")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	tok, _, _ := cli(t, home, "serve", "--print-token")
	api := func(q string, types string) search.Report {
		v := url.Values{"q": {q}}
		if types != "" {
			v.Set("type", types)
		}
		req, _ := http.NewRequest("GET", addr+"/api/search?"+v.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(tok))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r search.Report
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&r) != nil {
			t.Fatalf("api %q: %d", q, resp.StatusCode)
		}
		return r
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	mc := cairnCmd(home, "mcp", "--kb", "work")
	mc.Env = append(mc.Env, "CAIRN_CHUNKING_SIZE=150", "CAIRN_CHUNKING_OVERLAP=30")
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: mc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	viaMCP := func(q string, types string) search.Report {
		args := map[string]any{"query": q}
		if types != "" {
			args["type"] = []string{types}
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("mcp %q: %v %v", q, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var r search.Report
		if json.Unmarshal(b, &r) != nil {
			t.Fatalf("mcp %q: %s", q, b)
		}
		return r
	}
	viaCLI := func(q string, types string) search.Report {
		args := []string{"search", "--kb", "work", "--json"}
		if types != "" {
			args = append(args, "--type", types)
		}
		args = append(args, "--", q) // "--numeric-sort" is a query, not a flag
		out, errs, code := cli(t, home, args...)
		var r search.Report
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("cli %q: %d %s", q, code, errs)
		}
		return r
	}
	viaEngine := func(q string, types string) search.Report {
		req := eng.SearchRequest(q)
		if types != "" {
			req.Filter.Types = []string{types}
		}
		resp, err := eng.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(search.NewReport(q, resp))
		var r search.Report
		json.Unmarshal(b, &r)
		return r
	}
	// The window's engine keeps the in-memory keyword index in step, so
	// its unfiltered searches take the other path from a command's FTS5.
	if err := eng.SyncKeywordIndex(ctx); err != nil {
		t.Fatal(err)
	}

	corrected := 0
	for _, q := range surfaceQueries {
		for _, types := range []string{"", "md"} {
			want := viaCLI(q, types)
			if len(want.Results) == 0 && types == "" {
				t.Errorf("%q: no results", q)
			}
			if len(want.Corrections) > 0 {
				corrected++
			}
			for name, got := range map[string]search.Report{"api": api(q, types), "mcp": viaMCP(q, types), "window's engine": viaEngine(q, types)} {
				got.TookMS, want.TookMS = 0, 0
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%q (type %q): %s differs from the command line:\n%s\n%s", q, types, name, brief(got), brief(want))
				}
			}
		}
	}
	if corrected < 10 {
		t.Errorf("only %d searches corrected a word", corrected)
	}

	// Questions, ordinary and about the collection, asked on every
	// surface: the same answer, refusal and corrections.
	type asked struct {
		Answer      string              `json:"answer"`
		Refused     bool                `json:"refused"`
		Corrections []search.Correction `json:"corrections"`
	}
	decode := func(b []byte) asked {
		var a asked
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return a
	}
	counted := 0
	for _, q := range surfaceQuestions {
		out, errs, code := cli(t, home, "ask", "--kb", "work", "--json", "--", q)
		if code != 0 {
			t.Fatalf("cli ask %q: %s", q, errs)
		}
		want := decode([]byte(out))
		if strings.Contains(want.Answer, "file") && strings.HasPrefix(q, "How many") || strings.HasPrefix(q, "Which files") {
			counted++
		}
		body, _ := json.Marshal(map[string]string{"question": q})
		req, _ := http.NewRequest("POST", addr+"/api/ask", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(tok))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fromAPI := decode(b)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": q}})
		if err != nil || res.IsError {
			t.Fatalf("mcp ask %q: %v %v", q, err, res)
		}
		b, _ = json.Marshal(res.StructuredContent)
		fromMCP := decode(b)
		ans, err := eng.Ask(ctx, eng.SearchRequest(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(ans) // as the answer's JSON carries it
		fromEngine := decode(b)
		for name, got := range map[string]asked{"api": fromAPI, "mcp": fromMCP, "window's engine": fromEngine} {
			if got.Answer != want.Answer || got.Refused != want.Refused || !reflect.DeepEqual(got.Corrections, want.Corrections) {
				t.Errorf("%q: %s answers otherwise than the command line:\n%+v\n%+v", q, name, got, want)
			}
		}
	}
	if counted < 6 {
		t.Errorf("only %d questions about the collection were counted", counted)
	}
}

// surfaceQuestions are asked on every surface: questions about the
// collection (and, or, a type word, an order, a misspelt word) and
// ordinary ones (options, a phrase, a misspelt word, an off-topic one).
var surfaceQuestions = []string{
	"How many files mention password?", "How many files mention pasword?", "Which files mention router or frother?",
	"Which files mention both reset and firmware?", "How many markdown files mention pump?", "Which files mention descale, newest first?",
	"How many files mention gasket but not valve?",
	"how do I reset the device", "what does ls -a do", "what does cp -P do", "How can grep show the line numbers of matching lines?",
	"How do I sort lines numerically?", "how do I descale the machine", "When was the Eiffel Tower built?", "how do I copy directories recursivly",
}

// brief is a report's corrections and results, one line each.
func brief(r search.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "searched %q %v:", r.Searched, r.Corrections)
	for _, x := range r.Results {
		fmt.Fprintf(&b, "\n  %d. chunk %d score %.4f relevance %.4f %s:%d", x.Rank, x.ChunkID, x.Score, x.Relevance, filepath.Base(x.Path), x.Line)
	}
	return b.String()
}
