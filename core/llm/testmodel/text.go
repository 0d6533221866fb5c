package testmodel

import "strings"

// Text returns n words of deterministic pseudo-English drawn from the
// vocabulary's word list, frequent words more often, with sentence
// punctuation: input for tests and benchmarks that tokenizes into real
// pieces. The same seed gives the same text.
func Text(n int, seed uint64) string {
	ws := words()
	rng := splitmix{state: seed}
	var b strings.Builder
	for i := range n {
		// Squaring a uniform draw favours the front of the frequency list.
		u := rng.float()
		w := ws[int(u*u*float32(len(ws)))]
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if rng.next()%12 == 0 {
			b.WriteByte('.')
		} else if rng.next()%20 == 0 {
			b.WriteByte(',')
		}
	}
	return b.String()
}
