package search

import "strings"

// The bundled user guide is indexed into a new knowledge base so that a
// new user can ask about Cairn itself (core.Engine.EnsureStarterKB). It
// must not stand in the way of the person's own documents: a guide passage
// never ranks above a passage of theirs that answers as well, measured by
// the relevance bands, strong and partial. A question about Cairn, which
// only the guide answers, keeps the guide first: nothing of the person's
// reaches its band.

// InGuide reports whether path lies under one of guide, the guide's
// folders as Request.Guide gives them (ending with a separator).
func InGuide(path string, guide []string) bool {
	for _, g := range guide {
		if strings.HasPrefix(path, g) {
			return true
		}
	}
	return false
}

// band is a relevance's band: 2 strong, 1 partial, 0 weak.
func band(relevance float64) int {
	switch {
	case relevance >= StrongRelevance:
		return 2
	case relevance >= PartialRelevance:
		return 1
	}
	return 0
}

// yieldGuide moves each guide passage of rs (best first) below every
// passage of the person's own documents whose relevance is in its band or
// a higher one, at least partial; nothing else moves, and a guide passage
// never rises. So a strong guide passage still ranks above the person's
// partial matches, and a weak one is not moved for their weak ones.
func yieldGuide(rs []*Result) []*Result {
	var own, guide []*Result
	var at []int // at[i]: how many own passages guide[i] must follow
	for _, r := range rs {
		if r.Guide {
			guide = append(guide, r)
			at = append(at, len(own)) // where it stands now
			continue
		}
		own = append(own, r)
	}
	if len(guide) == 0 || len(own) == 0 {
		return rs
	}
	for i, g := range guide {
		b := max(band(g.Relevance), 1)
		for j := len(own) - 1; j >= at[i]; j-- {
			if band(own[j].Relevance) >= b {
				at[i] = j + 1
				break
			}
		}
	}
	out := make([]*Result, 0, len(rs))
	for j := 0; j <= len(own); j++ {
		// Guide passages that follow j own ones, in their fused order
		// among those of the same place.
		for k := range guide {
			if at[k] == j {
				out = append(out, guide[k])
			}
		}
		if j < len(own) {
			out = append(out, own[j])
		}
	}
	return out
}
