package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"cairn/core/answer"
)

// FitQuestion is one question's weighed blocks as the weight search sees
// them: the blocks an extractive answer weighed and did not pass over, in
// its order, their features, and which of them show the answer string.
// Only questions with such a block are kept.
type FitQuestion struct {
	Set      string
	Features []answer.Features
	Answers  []bool
}

// fitQuestion keeps ans's weighed blocks for the weight search; ok is false
// when none of them shows answerString.
func fitQuestion(set string, ans *answer.Answer, answerString string) (FitQuestion, bool) {
	fq := FitQuestion{Set: set}
	hit := false
	for _, w := range ans.Weighed {
		if w.Passed {
			continue
		}
		a := Contains(w.Block.Text, answerString)
		hit = hit || a
		fq.Features = append(fq.Features, w.Features)
		fq.Answers = append(fq.Answers, a)
	}
	return fq, hit
}

// FitReport says how far the answering block can be brought to the top by
// weighing the blocks' features differently: with the weights in force,
// with the best weights for all the questions (in-sample: a ceiling for
// these features, not a figure to expect), and with the best weights for
// the other sets, tried on each set in turn (leave one set out: what a
// refit would give on questions nobody tuned on).
type FitReport struct {
	Questions        int                `json:"questions"`
	Top1             int                `json:"top1_current"`
	Top2             int                `json:"top2_current"`
	BestTop1         int                `json:"top1_in_sample_best"`
	BestTop2         int                `json:"top2_in_sample_best"`
	HeldOutTop1      int                `json:"top1_leave_one_set_out"`
	HeldOutBySet     map[string][2]int  `json:"leave_one_set_out_by_set"` // current, refit
	BestWeights      map[string]float64 `json:"best_weights"`
	CurrentBySet     map[string]int     `json:"top1_current_by_set"`
	QuestionsPerSets map[string]int     `json:"questions_by_set"`
}

// FitBlockWeights searches the block weights that put an answering block
// first for the most questions (coordinate search from the weights in
// force, each weight moved by steps relative to its size).
func FitBlockWeights(qs []FitQuestion) FitReport {
	cur := answer.BlockWeights()
	r := FitReport{Questions: len(qs), HeldOutBySet: map[string][2]int{}, CurrentBySet: map[string]int{}, QuestionsPerSets: map[string]int{}}
	r.Top1, r.Top2 = topK(cur, qs, 1), topK(cur, qs, 2)
	best := searchWeights(cur, qs, 4)
	r.BestTop1, r.BestTop2 = topK(best, qs, 1), topK(best, qs, 2)
	r.BestWeights = map[string]float64{}
	for i, v := range best {
		r.BestWeights[answer.Feature(i).String()] = v
	}
	var sets []string
	for _, q := range qs {
		if !slices.Contains(sets, q.Set) {
			sets = append(sets, q.Set)
		}
		r.QuestionsPerSets[q.Set]++
	}
	for _, s := range sets {
		var train, test []FitQuestion
		for _, q := range qs {
			if q.Set == s {
				test = append(test, q)
			} else {
				train = append(train, q)
			}
		}
		w := searchWeights(cur, train, 2)
		r.CurrentBySet[s] = topK(cur, test, 1)
		r.HeldOutBySet[s] = [2]int{r.CurrentBySet[s], topK(w, test, 1)}
		r.HeldOutTop1 += topK(w, test, 1)
	}
	return r
}

// topK counts the questions whose answering block is among the k best
// under weights w (ties keep the answer's own order).
func topK(w answer.Features, qs []FitQuestion, k int) int {
	n := 0
	for _, q := range qs {
		idx := make([]int, len(q.Features))
		score := make([]float64, len(q.Features))
		for i, f := range q.Features {
			idx[i], score[i] = i, f.Weighted(w)
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case score[a] > score[b]:
				return -1
			case score[a] < score[b]:
				return 1
			}
			return 0
		})
		for _, i := range idx[:min(k, len(idx))] {
			if q.Answers[i] {
				n++
				break
			}
		}
	}
	return n
}

// searchWeights moves one weight at a time while that puts more answering
// blocks first: a local search, so its in-sample best is a floor of the
// true best, not the best itself.
func searchWeights(w answer.Features, qs []FitQuestion, rounds int) answer.Features {
	// Blocks score between about 0 and 1.5, so steps are absolute: a
	// feature weighing nothing yet can be given a weight that matters.
	steps := []float64{-1, -0.5, -0.2, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 0.2, 0.5, 1}
	best := topK(w, qs, 1)
	for range rounds {
		for j := range w {
			for _, d := range steps {
				try := w
				try[j] += d
				if n := topK(try, qs, 1); n > best {
					best, w = n, try
				}
			}
		}
	}
	return w
}

// PrintFit writes the report as the bench prints it.
func PrintFit(w io.Writer, r FitReport) {
	pct := func(n int) string {
		return fmt.Sprintf("%d/%d (%.0f%%)", n, r.Questions, 100*float64(n)/float64(max(r.Questions, 1)))
	}
	fmt.Fprintf(w, "\n### Block weights: how far keyword evidence goes (%d questions whose answering block was weighed)\n\n", r.Questions)
	fmt.Fprintln(w, "| weights | answering block first | among the first two |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| in force | %s | %s |\n", pct(r.Top1), pct(r.Top2))
	fmt.Fprintf(w, "| best for these very questions (in-sample ceiling) | %s | %s |\n", pct(r.BestTop1), pct(r.BestTop2))
	fmt.Fprintf(w, "| best for the other sets, on each set in turn | %s | |\n", pct(r.HeldOutTop1))
	var parts []string
	for s, v := range r.HeldOutBySet {
		parts = append(parts, fmt.Sprintf("%s %d→%d of %d", s, v[0], v[1], r.QuestionsPerSets[s]))
	}
	slices.Sort(parts)
	fmt.Fprintf(w, "\nLeave one set out (in force → refit): %s.\n", strings.Join(parts, "; "))
	var ws []string
	var all answer.Features
	for i := range all {
		name := answer.Feature(i).String()
		ws = append(ws, fmt.Sprintf("%s %.3g", name, r.BestWeights[name]))
	}
	fmt.Fprintf(w, "In-sample best weights: %s.\n", strings.Join(ws, ", "))
}
