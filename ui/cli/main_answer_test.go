package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/llm/testmodel"
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
	out, errs, code := cli(t, home, "eval", "injection", "--dir", "../../testdata/injection")
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
