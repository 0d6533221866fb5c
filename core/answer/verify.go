package answer

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"cairn/core/search"
)

// Embedder embeds short texts for the semantic half of verification;
// vectors of one call are comparable by cosine similarity.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Thresholds of verification. A claim is supported when enough of its
// content words occur in the sources it cites and every number it states
// does; a paraphrase with fewer shared words passes when its meaning is
// close to a cited sentence (with an embedder loaded).
const (
	lexicalSupport  = 0.6  // share of content words found
	lexicalFloor    = 0.25 // below this, meaning alone does not support
	semanticSupport = 0.8  // cosine similarity to the closest cited sentence
)

// planted matches text that addresses an AI assistant instead of a reader:
// "ignore the previous instructions", "you are now…", "new instructions:".
var planted = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(instructions?|rules|prompts?|directions|guidelines)\b`),
	regexp.MustCompile(`(?i)\b(you are now|from now on,? you|new instructions?\s*:|system prompt|developer mode|jailbreak)`),
	regexp.MustCompile(`(?i)\b(as an? (ai|assistant|language model)|(ai|assistant|chatbot|language model|llm)s?\b[^.!?\n]{0,30}\b(must|should|will|shall)\b)`),
	regexp.MustCompile(`(?i)\b(tell|inform) the user\b|\b(respond|reply|answer)\s+(only\s+)?with\b`),
	regexp.MustCompile(`(?i)\b(note|message|instructions?) (to|for) (any |all )?(ai|assistants?|chatbots?|language models?|llms?|bots?)\b`),
	regexp.MustCompile(`(?i)\b(when|if) (you are |you're |you )(summariz|answer|respond|asked|repl)\w*\b[^.!?\n]{0,60}\b(say|state|tell|claim|write|reply|answer|mention)\b`),
	regexp.MustCompile(`(?i)\[/?INST\]|<\|im_start\|>|<\|system\|>|###\s*(instruction|system)|</?source\b`),
	regexp.MustCompile(`(?i)^\W*(say|state|claim|answer|reply|respond|write)\s+(that|only|with|exactly)\b`),
	regexp.MustCompile(`(?i)\bignorier\w*\s+(alle\s+)?(vorherigen|bisherigen|obigen)\s+(anweisungen|regeln)`),
}

// isPlanted reports whether a sentence reads as instructions planted for an
// AI rather than as a statement of the document.
func isPlanted(s string) bool {
	for _, re := range planted {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// absence matches sentences that say what the sources lack; they state no
// fact to check.
var absence = regexp.MustCompile(`(?i)\b(do|does|did)\s+not\s+(say|mention|state|specify|contain|include|cover|describe|give|list|explain)\b|\bnot\s+(mentioned|stated|specified|covered|described|given|listed)\b|\bno\s+(information|mention|details?)\b`)

// sourceText is a cited source prepared for verification.
type sourceText struct {
	sentences []Sentence
	plantedAt []bool            // sentences that read as planted instructions
	words     []map[string]bool // stemmed content words of each sentence
	negated   []bool            // sentences that say no, not, never…
	heading   map[string]bool   // the passage's heading gives its sentences their subject
	all       map[string]bool   // words of the sentences that are not planted, and the heading
}

// negation matches the words that turn a statement into its opposite.
var negation = regexp.MustCompile(`(?i)\b(no|not|never|none|nothing|neither|nor|without|cannot)\b|n't\b`)

func prepare(s Source) *sourceText {
	st := &sourceText{sentences: Sentences(s.Text), heading: map[string]bool{}, all: map[string]bool{}}
	for _, w := range contentWords(s.Heading) {
		st.heading[w], st.all[w] = true, true
	}
	inBlock := false // inside a fake [INST] … [/INST] turn
	for _, sent := range st.sentences {
		opens, closes := instOpen.MatchString(sent.Text), instClose.MatchString(sent.Text)
		p := inBlock || opens || isPlanted(sent.Text)
		inBlock = (inBlock || opens) && !closes
		ws := map[string]bool{}
		for _, w := range contentWords(sent.Text) {
			ws[w] = true
			if !p {
				st.all[w] = true
			}
		}
		st.plantedAt = append(st.plantedAt, p)
		st.words = append(st.words, ws)
		st.negated = append(st.negated, negation.MatchString(sent.Text))
	}
	return st
}

var (
	instOpen  = regexp.MustCompile(`(?i)\[INST\]|<\|im_start\|>`)
	instClose = regexp.MustCompile(`(?i)\[/INST\]|<\|im_end\|>`)
)

// window is up to two neighbouring sentences of a source: a claim usually
// restates one sentence, sometimes joins two.
type window struct {
	found   int
	negated bool
}

// bestWindow finds the window of st that holds most of words; planted
// sentences take part only when withPlanted.
func (st *sourceText) bestWindow(words []string, withPlanted bool) (window, bool) {
	best, ok := window{}, false
	for i := range st.sentences {
		for j := i; j < min(i+2, len(st.sentences)); j++ {
			if !withPlanted && (st.plantedAt[i] || st.plantedAt[j]) {
				continue
			}
			w := window{negated: st.negated[i] || st.negated[j]}
			for _, word := range words {
				if st.heading[word] || st.words[i][word] || st.words[j][word] {
					w.found++
				}
			}
			if !ok || w.found > best.found {
				best, ok = w, true
			}
		}
	}
	return best, ok
}

// contentWords lists the stemmed words of s that carry meaning: no
// stopwords, no one-letter words, numbers kept whole.
func contentWords(s string) []string {
	var out []string
	for _, t := range search.Tokens(s) {
		if search.IsStopword(t) || (len(t) == 1 && !isDigits(t)) || filler[t] {
			continue
		}
		out = append(out, stem(t))
	}
	return out
}

// filler are words answers use to talk about the sources themselves.
var filler = map[string]bool{"source": true, "sources": true, "document": true, "documents": true,
	"according": true, "states": true, "state": true, "says": true, "mentioned": true, "also": true}

// stem folds common English inflections so that "resets", "reset" and
// "resetting" meet; it is deliberately crude and never touches numbers.
func stem(w string) string {
	if isDigits(w) || len(w) <= 4 {
		return w
	}
	for _, suf := range []string{"ingly", "edly", "ing", "ied", "ies", "ed", "es", "ly", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ied" || suf == "ies" {
				w += "y"
			}
			break
		}
	}
	// "resetting" -> "resett" -> "reset"
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// verifier checks an answer's claims against the sources they cite.
type verifier struct {
	sources []Source
	prep    map[int]*sourceText // by source number, prepared on demand
	emb     Embedder
}

func newVerifier(sources []Source, emb Embedder) *verifier {
	return &verifier{sources: sources, prep: map[int]*sourceText{}, emb: emb}
}

func (v *verifier) source(n int) *sourceText {
	if st, ok := v.prep[n]; ok {
		return st
	}
	st := prepare(v.sources[n-1])
	v.prep[n] = st
	return st
}

// claims verifies each sentence of text. Sentences that state nothing to
// check (headings, "Here are the steps:", an uncited "The sources do not
// say…") are left out. Its only error is cancellation.
func (v *verifier) claims(ctx context.Context, text string) ([]Claim, error) {
	var out []Claim
	var semantic []int // claims to check by meaning
	for _, sp := range splitClaims(text) {
		words := contentWords(sp.text)
		if len(words) == 0 || strings.HasSuffix(sp.text, ":") || (absence.MatchString(sp.text) && len(sp.cites) == 0) || sp.text == Refusal {
			continue
		}
		c := Claim{Text: sp.text, Citations: sp.cites}
		if c.Citations == nil {
			c.Citations = []int{}
		}
		if v.lexical(&c, words) == fewWords && c.Support >= lexicalFloor && v.emb != nil {
			semantic = append(semantic, len(out))
		}
		out = append(out, c)
	}
	if len(semantic) > 0 {
		if err := v.semantic(ctx, out, semantic); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// failure is why lexical did not support a claim. Only too few shared
// words may be made good by meaning: an embedding barely tells "must be
// closed" from "must not be closed", a number is right or wrong, and the
// meaning of a planted sentence is exactly what must not be repeated.
type failure int

const (
	passed failure = iota
	uncited
	wrongNumber
	opposite
	fromPlanted
	fewWords
)

// lexical scores c by the share of its content words found in the best
// window of its cited sources. Every number it states must be in a cited
// source, and a claim must not negate what that window says (or the
// reverse): "no known allergies" is not supported by "allergic to
// penicillin".
func (v *verifier) lexical(c *Claim, words []string) failure {
	if len(c.Citations) == 0 {
		c.Reason = "no source is cited"
		return uncited
	}
	var best, bestAll window
	var missingNumber string
	for _, w := range words {
		in := false
		for _, n := range c.Citations {
			in = in || v.source(n).all[w]
		}
		if !in && hasDigit(w) && missingNumber == "" {
			missingNumber = w
		}
	}
	for _, n := range c.Citations {
		st := v.source(n)
		if w, ok := st.bestWindow(words, false); ok && w.found > best.found {
			best = w
		}
		if w, ok := st.bestWindow(words, true); ok && w.found > bestAll.found {
			bestAll = w
		}
	}
	c.Support = math.Round(100*float64(best.found)/float64(len(words))) / 100
	claimNegated := negation.MatchString(c.Text)
	switch {
	case missingNumber != "":
		c.Reason = fmt.Sprintf("the number %s is not in %s", missingNumber, citeList(c.Citations))
		return wrongNumber
	case c.Support >= lexicalSupport && claimNegated != best.negated:
		c.Reason = fmt.Sprintf("it says the opposite of %s (one of them is negated)", citeList(c.Citations))
		return opposite
	case c.Support >= lexicalSupport:
		c.Supported = true
		return passed
	case float64(bestAll.found)/float64(len(words)) >= lexicalSupport:
		c.Reason = fmt.Sprintf("its words come from text in %s that reads as instructions planted for an AI, not from what the document states", citeList(c.Citations))
		return fromPlanted
	}
	c.Reason = fmt.Sprintf("only %.0f%% of its words are in %s", 100*c.Support, citeList(c.Citations))
	return fewWords
}

// semantic accepts the claims at idx whose meaning is close to a sentence of
// a source they cite. Each source's sentences are embedded once, however
// many claims cite it. An embedding failure leaves the lexical verdicts
// standing (meaning is an extra check); cancellation is returned.
func (v *verifier) semantic(ctx context.Context, claims []Claim, idx []int) error {
	type span struct{ from, to int }
	var texts []string
	bySource := map[int]span{}
	for _, ci := range idx {
		for _, n := range claims[ci].Citations {
			if _, ok := bySource[n]; ok {
				continue
			}
			from, st := len(texts), v.source(n)
			for k, s := range st.sentences {
				if !st.plantedAt[k] && !s.Heading {
					texts = append(texts, s.Text)
				}
			}
			bySource[n] = span{from, len(texts)}
		}
	}
	first := len(texts)
	for _, ci := range idx {
		texts = append(texts, claims[ci].Text)
	}
	vecs, err := v.emb.Embed(ctx, texts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil || len(vecs) != len(texts) {
		return nil
	}
	for i, ci := range idx {
		best := 0.0
		for _, n := range claims[ci].Citations {
			for k := bySource[n].from; k < bySource[n].to; k++ {
				best = max(best, cosine(vecs[first+i], vecs[k]))
			}
		}
		if best >= semanticSupport {
			claims[ci].Supported, claims[ci].Reason = true, ""
		} else {
			claims[ci].Reason += fmt.Sprintf(", and its meaning is not close to any sentence there (similarity %.2f)", best)
		}
	}
	return nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func citeList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	if len(ns) == 1 {
		return "source " + parts[0]
	}
	return "sources " + strings.Join(parts, ", ")
}

// quote picks, for source n, the sentence that best supports the claims
// citing it: the one sharing most of their content words.
func (v *verifier) quote(n int, claims []Claim) Sentence {
	st := v.source(n)
	want := map[string]bool{}
	for _, c := range claims {
		if slices.Contains(c.Citations, n) {
			for _, w := range contentWords(c.Text) {
				want[w] = true
			}
		}
	}
	best, bestScore := -1, -1
	for k, s := range st.sentences {
		if st.plantedAt[k] || s.Heading {
			continue
		}
		score := 0
		for _, w := range contentWords(s.Text) {
			if want[w] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	if best < 0 {
		// Only headings and planted text: quote a heading, never planted
		// text (extractive answers keep the same rule).
		for k, s := range st.sentences {
			if !st.plantedAt[k] {
				return s
			}
		}
		if text := oneLine(v.sources[n-1].Text); len(st.sentences) == 0 && !isPlanted(text) {
			return Sentence{Text: text}
		}
		return Sentence{}
	}
	return st.sentences[best]
}

// verdict sums up claims.
func verdict(claims []Claim) Verdict {
	if len(claims) == 0 {
		return VerdictNone
	}
	ok := 0
	for _, c := range claims {
		if c.Supported {
			ok++
		}
	}
	switch ok {
	case len(claims):
		return VerdictSupported
	case 0:
		return VerdictUnsupported
	}
	return VerdictPartial
}

// plantedNotes names the given sources that carry text reading as planted
// instructions, which the writer was told to treat as data.
func plantedNotes(v *verifier, given int) []string {
	var out []string
	for n := 1; n <= given; n++ {
		if slices.Contains(v.source(n).plantedAt, true) {
			out = append(out, fmt.Sprintf("Source [%d] (%s) contains text that reads as instructions to an AI; it was treated as data, not followed.",
				n, baseName(v.sources[n-1].Path)))
		}
	}
	return out
}

// plantedIn reports whether a planted sentence starts in text[start:end].
func (st *sourceText) plantedIn(start, end int) bool {
	for k, s := range st.sentences {
		if st.plantedAt[k] && s.Start >= start && s.Start < end {
			return true
		}
	}
	return false
}
