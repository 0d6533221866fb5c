package cli

import (
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"

	"cairn/core/config"
)

// Each retrieval knob with a flag is a flag of `cairn search`, defaulting
// to the settings, and its value goes through the settings' check under the
// flag's name.
func TestEveryRetrievalKnobIsASearchFlag(t *testing.T) {
	for _, k := range config.RetrievalKnobs {
		if k.Flag == "" {
			continue
		}
		t.Run(k.Flag, func(t *testing.T) {
			cfg := config.Default("laptop")
			fs := flag.NewFlagSet("search", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			kv := knobFlags(fs, cfg, config.RetrievalKnobs)
			f := fs.Lookup(k.Flag)
			if f == nil {
				t.Fatalf("no flag --%s", k.Flag)
			}
			if f.DefValue != strconv.FormatFloat(k.Get(cfg), 'g', -1, 64) {
				t.Errorf("default %s, settings have %v", f.DefValue, k.Get(cfg))
			}
			want := k.Lo + k.Step
			if err := fs.Parse([]string{"--" + k.Flag, strconv.FormatFloat(want, 'g', -1, 64)}); err != nil {
				t.Fatal(err)
			}
			kv.set(&cfg)
			if got := k.Get(cfg); got != want {
				t.Errorf("--%s %v set %v", k.Flag, want, got)
			}

			fs = flag.NewFlagSet("search", flag.ContinueOnError)
			kv = knobFlags(fs, cfg, config.RetrievalKnobs)
			if err := fs.Parse([]string{"--" + k.Flag, strconv.FormatFloat(k.Min-1, 'g', -1, 64)}); err != nil {
				t.Fatal(err)
			}
			flags := kv.set(&cfg)
			err := flagProblems(cfg.Validate(), flags)
			if err == nil || !strings.Contains(err.Error(), "--"+k.Flag+": "+k.Key) {
				t.Errorf("below the minimum: %v", err)
			}
		})
	}
}

func TestWholeNumberKnobFlagsRefuseFractions(t *testing.T) {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	knobFlags(fs, config.Default("laptop"), config.RetrievalKnobs)
	if err := fs.Parse([]string{"--top-k", "2.5"}); err == nil || !strings.Contains(err.Error(), "not a whole number") {
		t.Errorf("--top-k 2.5: %v", err)
	}
}

// TestAKnobFlagIsBlamedOnlyForItsOwnValue: a flag not given leaves its
// setting alone, so a bad value from elsewhere is never reported as the
// flag's; a whole number past int64 is quoted as typed, not wrapped round
// (issue 33, item 8).
func TestAKnobFlagIsBlamedOnlyForItsOwnValue(t *testing.T) {
	cfg := config.Default("laptop")
	cfg.Retrieval.PerDocCap = -3 // as if from the environment
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	kv := knobFlags(fs, cfg, config.RetrievalKnobs)
	if err := fs.Parse([]string{"--top-k", "9223372036854775807"}); err != nil {
		t.Fatal(err)
	}
	flags := kv.set(&cfg)
	if cfg.Retrieval.PerDocCap != -3 {
		t.Errorf("per_doc_cap %d: a flag not given changed it", cfg.Retrieval.PerDocCap)
	}
	err := flagProblems(cfg.Validate(), flags)
	want := "invalid flag value: --top-k: retrieval.top_k must be between 1 and 1000, not 9223372036854775807"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A knob's help states one default: the setting's, which flag prints; what
// 0 means is said without calling it a default too (`--bm25-pool` said
// "(0: the default, 60) (default 40)").
func TestKnobFlagHelpStatesOneDefault(t *testing.T) {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	var help strings.Builder
	fs.SetOutput(&help)
	cfg := config.Default("laptop")
	cfg.Retrieval.BM25Pool = 40
	knobFlags(fs, cfg, config.RetrievalKnobs)
	fs.PrintDefaults()
	for _, line := range strings.Split(help.String(), "\n") {
		if strings.Count(line, "default") > 1 {
			t.Errorf("two defaults: %q", line)
		}
	}
	if !strings.Contains(help.String(), "keyword candidates (new search) (0: 60 candidates) (default 40)") {
		t.Errorf("--bm25-pool:\n%s", help.String())
	}
}
