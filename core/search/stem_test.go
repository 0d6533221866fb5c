package search

import (
	"sync"
	"testing"
)

// Searches run at once in the window (a question, the test-set metrics)
// and stem words with diacritics at the same time; run with -race.
func TestStemWithDiacriticsIsSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if got := stem("Pièces"); got != "piec" {
					t.Errorf("stem(Pièces) = %q, want piec", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// An irregular form counts as its base wherever a passage is matched
// against the question, even when it begins with other letters ("found"
// for "find"); a form that means something else in technical text ("bit")
// does not.
func TestIrregularFormsMatchTheirBase(t *testing.T) {
	for _, c := range []struct {
		text, question string
		want           []string
	}{
		{"The signal to be sent.", "send a signal", []string{"send", "signal"}},
		{"Files found by the search.", "find files", []string{"find", "files"}},
		{"The key was chosen at random.", "choose a key", []string{"choose", "key"}},
		{"Rebuild the indices.", "rebuild the index", []string{"rebuild", "index"}},
		{"Set the bit.", "bite", nil},
	} {
		_, _, got := Snippet(c.text, ParseTerms(c.question))
		if len(got) != len(c.want) || (len(got) > 0 && (got[0] != c.want[0] || got[len(got)-1] != c.want[len(c.want)-1])) {
			t.Errorf("Snippet(%q) for %q matched %q, want %q", c.text, c.question, got, c.want)
		}
	}
}

// An adverb meets its adjective ("quietly" and wget's "--quiet"), where
// FTS5's Porter stemmer leaves "-li" on; short words keep theirs.
func TestAnAdverbMeetsItsAdjective(t *testing.T) {
	for w, want := range map[string]string{
		"quietly": "quiet", "exactly": "exact", "directly": "direct", "monthly": "month",
		"quiet": "quiet", "recursively": "recurs", "silently": "silent",
		"early": "earli", "only": "onli", "ugly": "ugli", "family": "famili", "apply": "appli",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}
