package eval

import (
	"slices"

	"cairn/core/domain"
	"cairn/core/search"
)

// PersonalSet scores a person's own test set: the sources they marked as
// the right answer (judgments) against each judged question's candidates
// fused under p, files ranked by their best passage, at k = p.TopK (at
// least 1). Questions without cached candidates are left out. The window's
// Engineering tab shows it as the sliders move.
func PersonalSet(judgments []domain.Judgment, candidates map[string]*search.Candidates, p search.Params) Metrics {
	qrels, run := Qrels{}, Run{}
	for _, j := range judgments {
		if qrels[j.Query] == nil {
			qrels[j.Query] = map[string]int{}
		}
		qrels[j.Query][j.Path] = 1
	}
	for q := range qrels {
		c := candidates[q]
		if c == nil {
			continue
		}
		var files []string
		for _, r := range search.Fuse(c, p) {
			if !slices.Contains(files, r.Path) {
				files = append(files, r.Path)
			}
		}
		run[q] = files
	}
	return Evaluate(qrels, run, max(p.TopK, 1))
}
