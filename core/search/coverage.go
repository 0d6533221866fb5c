package search

import "fmt"

// MeaningCoverage is how much of the collection meaning search reaches while the
// embeddings of newly indexed chunks are still being computed: keyword
// search finds every chunk the moment it is indexed, meaning search only
// those embedded.
type MeaningCoverage struct {
	Embedded int `json:"embedded"`
	Chunks   int `json:"chunks"`
}

// Complete reports whether every chunk has its embedding.
func (c MeaningCoverage) Complete() bool { return c.Embedded >= c.Chunks }

// Percent is the share embedded, rounded down so that an incomplete
// collection never reads 100 %.
func (c MeaningCoverage) Percent() int {
	if c.Chunks == 0 {
		return 100
	}
	return c.Embedded * 100 / c.Chunks
}

// Short is the coverage for a status bar: "meaning search 45 %".
func (c MeaningCoverage) Short() string { return fmt.Sprintf("meaning search %d %%", c.Percent()) }

// Note is what a search made before the coverage is complete says.
func (c MeaningCoverage) Note() string {
	return fmt.Sprintf("meaning search covers %d of %d passages so far (%d %%): embeddings are still being computed, and the rest are found by their words only",
		c.Embedded, c.Chunks, c.Percent())
}
