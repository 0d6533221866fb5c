package answer

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/chunk"
	"cairn/core/search"
)

// maxExtracted bounds the sentences of an extractive answer; keepShare is
// how close to the best sentence's score another must come to be quoted.
const (
	maxExtracted = 3
	keepShare    = 0.85
	// maxTitleWords is the longest line without a full stop, alone in
	// its paragraph, that Sentences takes for a title.
	maxTitleWords = 10
)

// extract writes an extractive answer: the sentences of the sources that
// best match the query terms, in source order, each followed by its [n].
// Every claim is a verbatim quote, so each is supported by construction.
// When no sentence shares a term with the question, the answer is the
// refusal.
//
// Sentences that read as instructions planted for an AI are never quoted.
// A sentence scores the sum of its matched terms' weights, rarer terms
// (among the sources' sentences) weighing more, so "reset" outweighs
// "router" in a router manual. A heading's terms count for the sentence
// that opens its section ("## Reset the device" / "Press and hold…"), not
// for every later sentence under it.
func extract(ans *Answer, terms []search.Term) {
	type cand struct {
		src   int // index in ans.Sources
		pos   int // sentence position in the source
		sent  Sentence
		terms map[string]bool
		score float64
	}
	var cands []cand
	df := map[string]int{}
	sentences := 0
	for si, s := range ans.Sources {
		heading := map[string]bool{} // terms of the heading over the next sentence
		for _, t := range matchedTerms(s.Heading, terms) {
			heading[t] = true
		}
		st := prepare(s)
		for pi, sent := range st.sentences {
			if st.plantedAt[pi] {
				continue // never quote instructions planted for an AI
			}
			m := matchedTerms(sent.Text, terms)
			if sent.Heading {
				heading = map[string]bool{}
				for _, t := range m {
					heading[t] = true
				}
				continue
			}
			sentences++
			all := map[string]bool{}
			for _, t := range m {
				all[t] = true
				df[t]++
			}
			for t := range heading {
				all[t] = true
			}
			heading = nil
			if len(all) > 0 {
				cands = append(cands, cand{src: si, pos: pi, sent: sent, terms: all})
			}
		}
	}
	if len(cands) == 0 {
		ans.Refused, ans.Text = true, Refusal
		return
	}
	for i := range cands {
		c := &cands[i]
		for t := range c.terms {
			c.score += math.Log(1 + float64(sentences)/float64(1+df[t]))
		}
		// Among equals, better-ranked sources and earlier sentences.
		c.score -= 0.001*float64(c.src) + 0.00001*float64(c.pos)
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	// Keep only sentences nearly as on-topic as the best one.
	need := keepShare * cands[0].score
	var picked []cand
	seen := map[string]bool{}
	for _, c := range cands {
		if c.score < need {
			break
		}
		key := strings.ToLower(c.sent.Text)
		if seen[key] {
			continue
		}
		seen[key] = true
		picked = append(picked, c)
		if len(picked) == maxExtracted {
			break
		}
	}
	sort.SliceStable(picked, func(i, j int) bool {
		if picked[i].src != picked[j].src {
			return picked[i].src < picked[j].src
		}
		return picked[i].pos < picked[j].pos
	})
	var b strings.Builder
	cited := map[int]bool{}
	for i, c := range picked {
		n := ans.Sources[c.src].N
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s [%d]", c.sent.Text, n)
		ans.Claims = append(ans.Claims, Claim{Text: c.sent.Text, Citations: []int{n}, Supported: true, Support: 1})
		if !cited[n] {
			cited[n] = true
			ans.Citations = append(ans.Citations, citationOf(ans.Sources[c.src], c.sent))
		}
	}
	ans.Text = b.String()
	ans.Verdict = VerdictSupported
}

// citationOf resolves source s for a claim, quoting sentence q of it; the
// line is the quote's own line, not the passage's first.
func citationOf(s Source, q Sentence) Citation {
	return Citation{N: s.N, ChunkID: s.ChunkID, Path: s.Path, Title: s.Title, Unit: s.UnitKind, Page: s.Page,
		Line: s.LineStart + strings.Count(s.Text[:q.Start], "\n"), Quote: q.Text}
}

// matchedTerms lists the query terms found in text.
func matchedTerms(text string, terms []search.Term) []string {
	_, _, m := search.Snippet(text, terms)
	return m
}

// Sentence is a sentence of a text and the byte offset where it starts.
type Sentence struct {
	Text    string // white space collapsed
	Start   int
	Heading bool // a heading line ("# Title"), not a statement
}

// Sentences splits text into sentences. Paragraphs are separated by blank
// lines; inside one, list items, headings and table rows ("a | b") stand
// alone while other lines are wrapped prose, joined and split at ".", "!" or
// "?" followed by a space and an upper-case letter, digit or quote.
func Sentences(text string) []Sentence {
	var out []Sentence
	// Prose lines are joined with single spaces; joined[i] maps back to the
	// text through the start offset of each line piece.
	type piece struct{ joined, orig int }
	var prose strings.Builder
	var pieces []piece
	emit := func(s string, at func(int) int, heading bool) {
		splitSentences(s, func(i int, sent string) {
			if sent = strings.Join(strings.Fields(sent), " "); len(sent) > 1 {
				out = append(out, Sentence{Text: sent, Start: at(i), Heading: heading})
			}
		})
	}
	// flush ends a paragraph; titled says it ended at a blank line or the
	// end of the text, so that a lone short line without a full stop
	// ("Pump P-101 maintenance log") reads as a title.
	flush := func(titled bool) {
		if prose.Len() == 0 {
			return
		}
		ps := pieces
		p := prose.String()
		title := titled && len(ps) == 1 && len(strings.Fields(p)) <= maxTitleWords && !strings.ContainsAny(p[len(p)-1:], ".!?:;,")
		emit(p, func(i int) int {
			k := 0
			for k+1 < len(ps) && ps[k+1].joined <= i {
				k++
			}
			return ps[k].orig + (i - ps[k].joined)
		}, title)
		prose.Reset()
		pieces = nil
	}
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		t := strings.TrimSpace(line)
		start := off + lead
		switch {
		case t == "":
			flush(true)
		case isItem(t):
			flush(false)
			emit(t, func(i int) int { return start + i }, strings.HasPrefix(t, "#"))
		case chunk.IsAllCaps(t): // "WARRANTY": a title, as the chunker reads it
			flush(false)
			emit(t, func(i int) int { return start + i }, true)
		default:
			if prose.Len() > 0 {
				prose.WriteByte(' ')
			}
			pieces = append(pieces, piece{prose.Len(), start})
			prose.WriteString(t)
		}
		off += len(line)
	}
	flush(true)
	return out
}

func isItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "• ") ||
		strings.HasPrefix(t, "#") || strings.Contains(t, " | ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// splitSentences calls add with the byte offset and text of each sentence
// of s.
func splitSentences(s string, add func(int, string)) {
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			next, _ := utf8.DecodeRuneInString(s[i+2:])
			if unicode.IsUpper(next) || unicode.IsDigit(next) || next == '"' || next == '“' || next == '[' {
				if s[i] == '.' && (isAbbrev(s, i) || isDigits(s[start:i])) {
					continue // "Dr. Okafor", "3. Step three"
				}
				add(start, s[start:i+1])
				start = i + 2
			}
		}
	}
	add(start, s[start:])
}

// isAbbrev reports whether the dot at rs[i] ends a common abbreviation or a
// single letter ("Dr.", "e.g.", "J. Smith"), which does not end a sentence.
func isAbbrev(s string, i int) bool {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		j -= size
	}
	word := strings.ToLower(s[j:i])
	if utf8.RuneCountInString(word) == 1 {
		return true
	}
	switch word {
	case "dr", "mr", "mrs", "ms", "prof", "st", "no", "fig", "vs", "etc", "approx", "inc", "ltd", "e.g", "i.e":
		return true
	}
	return false
}
