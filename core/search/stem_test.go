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
