package search

// Relevance bands: what a relevance means in words, for the window and
// the command line. A strong match covers most of the question's
// information; a weak one little of it.
const (
	StrongRelevance  = 0.7
	PartialRelevance = 0.4
)

// RelevanceLabel says a relevance in words: "strong match", "partial
// match" or "weak match".
func RelevanceLabel(r float64) string {
	switch {
	case r >= StrongRelevance:
		return "strong match"
	case r >= PartialRelevance:
		return "partial match"
	}
	return "weak match"
}
