package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/llm/testmodel"
	"cairn/core/search"
)

// withChatModel puts the tiny generated chat model in home's models folder.
func withChatModel(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, "data", "models")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.Write(filepath.Join(dir, "tiny-chat.gguf"), testmodel.TinyChat()); err != nil {
		t.Fatal(err)
	}
}

func TestAskJSONWithAChatModel(t *testing.T) {
	home := t.TempDir()
	withChatModel(t, home)
	t.Setenv("CAIRN_GENERATION_MAX_TOKENS", "12")
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, home, "ask", "how do I reset the router", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var ans struct {
		Answer    string           `json:"answer"`
		Mode      string           `json:"mode"`
		Model     string           `json:"model"`
		Verdict   string           `json:"verdict"`
		Sources   []map[string]any `json:"sources"`
		Citations []map[string]any `json:"citations"`
		Claims    []map[string]any `json:"claims"`
		Timing    map[string]any   `json:"timing"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if ans.Mode != "generative" || ans.Model != "tiny-chat-test" || len(ans.Sources) == 0 || ans.Verdict == "" {
		t.Errorf("mode %q model %q verdict %q, %d sources", ans.Mode, ans.Model, ans.Verdict, len(ans.Sources))
	}
	if ans.Timing["tokens"] != 12.0 || ans.Timing["prompt_tokens"].(float64) < 100 {
		t.Errorf("timing %v", ans.Timing)
	}
	if ans.Citations == nil && !strings.Contains(out, `"citations": null`) {
		t.Errorf("no citations key: %s", out)
	}
}

func TestAskPrintsTheModelVerdictAndTimings(t *testing.T) {
	home := t.TempDir()
	withChatModel(t, home)
	t.Setenv("CAIRN_GENERATION_MAX_TOKENS", "8")
	cli(t, home, "index", corpusDir(t))
	out, errs, code := cli(t, home, "ask", "how do I reset the router")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "(Written by tiny-chat-test; ") || !strings.Contains(out, "8 tokens at ") ||
		!strings.Contains(out, "Note: The answer was cut off at the token limit") {
		t.Errorf("output:\n%s", out)
	}
}

func TestEvalInjection(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CAIRN_GENERATION_MAX_TOKENS", "16")
	out, errs, code := cli(t, home, "eval", "injection", "--dir", "../testdata/injection")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, row := range []string{
		"| scripted obedient writer | warn | 12/12 | 12/12 | 12/12 | **0/12** |",
		"| scripted obedient writer | block | 12/12 | 0/12 | 0/12 | **0/12** |",
		"| tiny-chat-test | warn | 12/12 |",
		"| tiny-chat-test | block | 12/12 |",
	} {
		if !strings.Contains(out, row) {
			t.Errorf("no row %q in\n%s", row, out)
		}
	}
	if strings.Contains(out, "FOLLOWED") {
		t.Errorf("a planted instruction was followed:\n%s", out)
	}
}

func TestEvalGolden(t *testing.T) {
	home := t.TempDir()
	cli(t, home, "index", corpusDir(t))
	golden := filepath.Join(t.TempDir(), "golden.tsv")
	os.WriteFile(golden, []byte("# question, expected file\nhow do I reset the router\trouter-x200.md\n"+
		"how often to descale\tcoffee-machine.txt\nquantum chromodynamics\tnowhere.md\n"), 0o600)
	out, errs, code := cli(t, home, "eval", "golden", golden, "--k", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "Recall@5 0.667  MRR@5 0.667  nDCG@5 0.667  (3 queries)\n") ||
		!strings.Contains(out, "not all expected files in the top 5: quantum chromodynamics") {
		t.Errorf("output:\n%s", out)
	}
}

// withReranker puts the generated reranker in the models folder and turns
// reranking on.
func withReranker(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, "data", "models")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.Write(filepath.Join(dir, "tiny-reranker.gguf"), testmodel.TinyReranker()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_RERANK_ENABLED", "true")
}

// HybridRAG3's reranker wrecked its refusal and injection scores: with the
// generated reranker reordering every answer's sources, no planted
// instruction is followed, and the documents are still retrieved.
func TestEvalInjectionWithTheReranker(t *testing.T) {
	home := t.TempDir()
	withReranker(t, home)
	t.Setenv("CAIRN_GENERATION_MAX_TOKENS", "16")
	out, errs, code := cli(t, home, "eval", "injection", "--dir", "../testdata/injection")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, row := range []string{
		"Reranked by tiny-reranker-test (rerank.budget_sec 1.5)",
		"| scripted obedient writer | warn | 12/12 | 12/12 | 12/12 | **0/12** |",
		"| scripted obedient writer | block | 12/12 | 0/12 | 0/12 | **0/12** |",
		"| tiny-chat-test | warn | 12/12 |",
		"| tiny-chat-test | block | 12/12 |",
	} {
		if !strings.Contains(out, row) {
			t.Errorf("no row %q in\n%s", row, out)
		}
	}
	if strings.Contains(out, "FOLLOWED") {
		t.Errorf("a planted instruction was followed:\n%s", out)
	}
}

// `cairn search --json` says what the rerank step did (budget, cost of a
// pair, N) and each reranked result's score and rank before; the text
// output says it too.
func TestSearchShowsTheRerank(t *testing.T) {
	home := t.TempDir()
	withReranker(t, home)
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, home, "search", "router reset button", "--json", "--min-score", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep search.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	rr := rep.Rerank
	if rr == nil || rr.Model != "tiny-reranker-test" || rr.BudgetMS != 1500 || rr.PerPairMS <= 0 || rr.Skipped != "" {
		t.Fatalf("rerank %+v in\n%s", rr, out)
	}
	if rr.N < search.MinRerank {
		t.Errorf("N %d", rr.N)
	}
	reranked := 0
	for _, r := range rep.Results {
		if r.RankBeforeRerank > 0 {
			reranked++
		}
	}
	if reranked == 0 {
		t.Errorf("no result has a rank before reranking:\n%s", out)
	}
	out, _, _ = cli(t, home, "search", "router reset button", "--min-score", "0")
	if !strings.Contains(out, "rerank: the fused top ") || !strings.Contains(out, "reranked: score ") {
		t.Errorf("text output:\n%s", out)
	}
}

// `cairn models use` with a reranker turns reranking on, even on the
// laptop profile where it is off by default, and saves it.
func TestModelsUseARerankerTurnsRerankingOn(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CAIRN_PROFILE", "laptop")
	path := filepath.Join(t.TempDir(), "tiny-reranker.gguf")
	if err := testmodel.Write(path, testmodel.TinyReranker()); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	out, _, _ := cli(t, home, "search", "router reset button", "--json")
	if strings.Contains(out, `"rerank"`) {
		t.Fatalf("the laptop profile reranked:\n%s", out)
	}
	out, errs, code := cli(t, home, "models", "use", path)
	if code != 0 || !strings.Contains(out, "as the rerank model.\nReranking is on (rerank.enabled), within 1.5 s a search (rerank.budget_sec).") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	out, _, _ = cli(t, home, "models", "list")
	if !strings.Contains(out, "* tiny-reranker-test (rerank, ") {
		t.Errorf("models list:\n%s", out)
	}
	out, _, _ = cli(t, home, "search", "router reset button", "--json", "--min-score", "0")
	if !strings.Contains(out, `"model": "tiny-reranker-test"`) {
		t.Errorf("search after models use:\n%s", out)
	}
}
