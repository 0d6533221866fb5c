package answer

import (
	"context"
	"math"
	"regexp"
	"strings"

	"cairn/core/search"
)

// Feature names one thing an extractive answer weighs about a block: how
// much of the question it holds and where, what its document and section
// say, and what kind of statement it is. A block's score is the weighted
// sum of its features (blockWeights). Features weighing 0 (density,
// length, kinds) are measured for the weight search of `cairn bench quality
// --fit`, which found no weight for them that helps on questions it was not
// fitted to (docs/bench/quality.md).
type Feature int

const (
	// Have is the share of the question's weight (each term its IDF) that
	// the block holds anywhere.
	Have Feature = iota
	// Near is the share it holds within nearWords words: a long
	// description does not win by collecting scattered words.
	Near
	// Lead is the share held by the heading whose section the block opens
	// and not by the block itself.
	Lead
	// Context is the share held by its source's title and heading trail
	// alone: "grep" for an option of grep(1), the subject of every line.
	Context
	// TermLine is 1 for a definition whose term line holds a word of the
	// question other than its document's title ("--ignore-case" for
	// "ignore case"): a document names a feature in that line, and the
	// description under it answers.
	TermLine
	// Other is 1 when the question names a document by its title and this
	// block is another's: a person who names the tool wants its own
	// manual's answer, not a line of another that mentions it.
	Other
	// Summary is 1 for the summary that opens the NAME or DESCRIPTION of
	// the document the question names: it says what the person already
	// knows ("Print the last 10 lines" for "the last 20 lines with tail").
	Summary
	// Rank is log2(1 + the source's place in the reading order): among
	// equally good blocks, the better-ranked passage answers.
	Rank
	// Qualifier is the share of the question's qualifiers (the words
	// keyword search drops that still tell two lines apart: "all", "only",
	// "once", a negation) that the block holds: "number all output lines"
	// against "number nonempty output lines".
	Qualifier
	// Density is the share of the block's own content words that are the
	// question's: a short line about exactly what was asked.
	Density
	// Length is log2(1 + the block's content words) / 8.
	Length
	// Opens is 1 for the summary that opens a document's NAME or
	// DESCRIPTION (whichever document it is).
	Opens
	// KindDefinition … KindField are 1 for a block of that kind (prose
	// is none of them).
	KindDefinition
	KindRow
	KindStep
	KindField
	// Similarity is how close the block stands to the question in meaning,
	// with an embedding model loaded: its similarity, scaled to 0..1
	// between the least and the most similar of the best blocks by the
	// other features (meaningPool); 0 without a model.
	Similarity
	// Option is 1 for a definition whose term line holds an option the
	// question names as written ("-a" in "what does ls -a do", never
	// "-A"): the line that defines it answers.
	Option
	// OptionName is the square of the share of the words of a
	// definition's long option that the question holds: "--line-number"
	// for "show the line numbers", all of them (1); "--only-matching", one
	// of two (0.25); "--bytes" for "a size in bytes", its one word (1). A
	// name the question says whole is nearly as sure as the option itself.
	OptionName
	// Phrase is the share of the question's side-by-side words that stand
	// side by side in the block ("line numbers" in "--line-number").
	Phrase
	// Place is 1 for a block that names a file or directory by its path
	// ("~/.bash_history", "/etc/hostname") when the question asks where
	// something is or which file holds it: the answer to "in which file
	// does bash save my history" is a path, not the sentence that repeats
	// the question's words around a variable's name.
	Place
	// Default is 1 for a block that says what happens by default when the
	// question asks for a default ("by default", "if I don't tell it"):
	// the answer to "how many passes does shred make if I don't tell it"
	// is the line that says "instead of the default (3)".
	Default
	// Negated is 1 for a definition whose option or opening words deny
	// ("--no-clobber", "never …", "do not …"; saysNot) when the question
	// negates nothing (negates):
	// "print the file names as headers" asks for tail's "always output
	// headers giving file names", not "never output headers giving file
	// names", two lines the question's words match alike.
	Negated
	// Defines is 1 for a block that defines what a definition question
	// asks about ("A cgroup is a mechanism…" for "What is a cgroup?"), not
	// one that mentions it; and for an expansion question, one that
	// spells its abbreviation out.
	Defines
	// Reason is 1 for a block that gives a reason ("because", "so that",
	// "otherwise", "this means") when the question asks why.
	Reason
	// Instruction is 1 for a block that tells how ("Use …", "you can …",
	// "by running …") when the question asks how to do something: not the
	// sentence that restates the problem.
	Instruction
	// Value is 1 for a block that states a number when the question asks
	// how many, how long, or for a limit.
	Value
	// Names is 1 for a block that names a command, module, function,
	// path, option or setting when the question asks which one.
	Names
	// Code is 1 for a block that reads as program code (codeLike): it
	// illustrates the sentence before it, which answers.
	Code
	// Fragment is 1 for a sentence cut by its passage's start (fragment):
	// its beginning, which may hold the answer, is in the passage before.
	Fragment
	// Restates is 1 for a statement that holds most of a question that
	// asks for something in particular (a reason, an instruction, a
	// number, a definition) and gives none of it: the problem restated,
	// not its answer.
	Restates
	numFeatures
)

var featureNames = [numFeatures]string{"have", "near", "lead", "context", "term_line", "other", "summary", "rank",
	"qualifier", "density", "length", "opens", "definition", "row", "step", "field", "similarity",
	"option", "option_name", "phrase", "place", "default", "negated",
	"defines", "reason", "instruction", "value", "names", "code", "fragment", "restates"}

func (f Feature) String() string { return featureNames[f] }

// Features are a block's values of every Feature.
type Features [numFeatures]float64

// blockWeights weigh the features into a block's score.
var blockWeights = Features{
	// Have 0.3 -> 0.2 and Lead 0.8 -> 0.9 (2026-12-02, from the weight
	// search of `cairn bench quality --fit` over eight sets, prose and man
	// pages, which put Lead higher still): the heading a block opens (a
	// FAQ's question) says as much as the words the block holds close
	// together, more than words scattered in it; no more than them, or a
	// block would win on its heading's words alone.
	Have:     0.2,
	Near:     0.7,
	Lead:     0.9,
	Context:  0.9,
	TermLine: 0.15,
	Other:    -0.2,
	Summary:  -0.2,
	Rank:     -0.02,
	// A tie-breaker: the words that tell two option lines apart.
	Qualifier: 0.05,
	// Similarity reorders blocks the keyword evidence ranks alike: a quarter
	// of what holding the whole question is worth. Not measured: no
	// embedding model's weights can be had where Cairn is built
	// (docs/answers.md).
	Similarity: 0.25,
	// The option a question names as written decides between the lines
	// of one manual; the words of an option's name and the question's
	// side-by-side words tell neighbouring options apart
	// (docs/bench/quality.md, options).
	Option:     0.6,
	OptionName: 0.4,
	Phrase:     0.2,
	// What a where- or a default-question asks for (a path, the line
	// that says the default) outweighs the side-by-side words, not a
	// block holding most of the question.
	Place:   0.3,
	Default: 0.3,
	// A tie-breaker between an option and its opposite, as Qualifier.
	Negated: -0.1,
	// What the question asks for (Question.Kinds), in the sentence quoted.
	Defines:     0.4,
	Reason:      0.3,
	Instruction: 0.2,
	Value:       0.2,
	// Names is measured, not weighed: the weight search found blocks that
	// name a path or an option less often the answer to "which …" than
	// not.
	Names:    0,
	Code:     -0.3,
	Fragment: -0.2,
	// Restates is measured, not weighed: at -0.3 it passed over manuals'
	// summaries and titles the tests hold to, and moved no set.
}

// meaningPool is how many of the best blocks by keyword evidence an
// embedding model weighs: one short call, and a block further down would
// need more than meaning to be the answer.
const meaningPool = 16

// Meaning embeds a question and texts with an embedding model, each as the
// model expects (a query, passages); the vectors of one call compare by
// cosine similarity.
type Meaning interface {
	Embed(ctx context.Context, question string, texts []string) (q []float32, vectors [][]float32, err error)
}

// Score is the weighted sum of the features.
func (f Features) Score() float64 { return f.Weighted(blockWeights) }

// Weighted is the sum of the features weighted by w.
func (f Features) Weighted(w Features) float64 {
	var s float64
	for i, v := range f {
		s += w[i] * v
	}
	return s
}

// BlockWeights are the weights in force, for the quality bench's weight
// search.
func BlockWeights() Features { return blockWeights }

// Map is the features by name, for reports.
func (f Features) Map() map[string]float64 {
	m := make(map[string]float64, numFeatures)
	for i, v := range f {
		m[featureNames[i]] = math.Round(v*1e4) / 1e4
	}
	return m
}

// Weighed is a block an extractive answer weighed, for the quality
// bench's reports: which passage of the reading order it came from, its
// features and its score.
type Weighed struct {
	Source   int // the passage's place in the reading order (sources, then those read further), from 0
	Path     string
	Page     int
	Block    Block
	Features Features
	Score    float64
	// Passed: the question names a document with a block of its own that
	// holds a word of the question beyond its title, and this is another
	// document's block, or one of its own that does not: not quoted.
	Passed bool
	// Holds are the question's terms the block holds itself, under its
	// heading or in its passage's title and headings.
	Holds []string
}

// qualifiers map the words keyword search drops as stopwords, but that
// tell two lines of a manual apart, to the group they count in: a
// question's "not" is matched by a line's "non-", "without" or "rather
// than" as well.
var qualifiers = map[string]string{
	"all": "all", "every": "all", "entire": "all", "whole": "all",
	"only": "only", "just": "only", "solely": "only",
	"once": "once", "single": "once",
	"each": "each", "per": "each",
	"not": "not", "no": "not", "non": "not", "never": "not", "without": "not", "instead": "not", "rather": "not",
	"except": "not", "excluding": "not", "don": "not", "doesn": "not", "isn": "not", "cannot": "not",
	"before": "before", "after": "after",
	"more": "more", "most": "more", "less": "less", "fewer": "less", "few": "less",
	"same": "same", "other": "other", "both": "both", "again": "again",
}

// qualifierGroups are the qualifier groups words hold.
func qualifierGroups(words []string) map[string]bool {
	g := map[string]bool{}
	for _, t := range words {
		if q, ok := qualifiers[t]; ok {
			g[q] = true
		}
	}
	return g
}

// qualifierShare is the share of the question's qualifier groups q that
// text holds; 0 when the question has none.
func qualifierShare(q map[string]bool, text string) float64 {
	if len(q) == 0 {
		return 0
	}
	have := 0
	for g := range qualifierGroups(search.Tokens(text)) {
		if q[g] {
			have++
		}
	}
	return float64(have) / float64(len(q))
}

// longOption finds the long options of a term line: "--line-number" in
// "-n, --line-number".
var longOption = regexp.MustCompile(`(?:^|[\s,\[|])--([A-Za-z0-9][A-Za-z0-9-]*)`)

// optionNameShare is the best square of the share, over the long options a
// term line names, of the option's words that match a term of the question
// (as words match: stems, synonyms); 0 for a line without a long option.
func optionNameShare(lead string, terms []search.Term) float64 {
	best := 0.0
	for _, m := range longOption.FindAllStringSubmatch(lead, -1) {
		words := strings.FieldsFunc(m[1], func(r rune) bool { return r == '-' })
		if len(words) == 0 {
			continue
		}
		have := 0
		for _, w := range words {
			if len(matchedTerms(w, terms)) > 0 {
				have++
			}
		}
		// A one-word name said is a whole name said: "--bytes" for "in
		// bytes" is as sure as "--line-number" for "line numbers", and
		// surer than half of "--line-bytes".
		share := float64(have) / float64(len(words))
		best = max(best, share*share)
	}
	return best
}

// nameWeight is how much of what the question asks a one-word option
// name says ("--output" in "make sort output only the first of equal
// lines"): twice the share of the asked terms beyond the document's title
// and headings that the name holds, capped at 1. A longer name said whole
// ("--line-number" for "line numbers") is sure as it is: 1.
func nameWeight(lead string, asked []search.Term, context map[string]bool) float64 {
	var named []string
	for _, m := range longOption.FindAllStringSubmatch(lead, -1) {
		if strings.Contains(m[1], "-") {
			return 1
		}
		named = append(named, m[1])
	}
	in := map[string]bool{}
	for _, t := range matchedTerms(strings.Join(named, " "), asked) {
		in[t] = true
	}
	have, all := 0, 0
	for _, t := range asked {
		if k := t.String(); !context[k] {
			all++
			if in[k] {
				have++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return min(1, 2*float64(have)/float64(all))
}

// namesOption reports whether a term line defines an option the question
// names as written: the option is among the names the line opens with
// (optionNames), not in a synopsis that lists it ("sed [-n] [--quiet]") or
// in a one-line description that mentions it ("overrides -n").
func namesOption(lead string, terms []search.Term) bool {
	var opts []search.Term
	for _, t := range terms {
		if isOption(t) {
			opts = append(opts, t)
		}
	}
	names := optionNames(lead)
	return len(opts) > 0 && names != "" && len(matchedTerms(names, opts)) > 0
}

// description is a definition's text below its term lines: what the
// option does, not its names.
func description(b Block) string {
	lines := strings.Split(b.Text, "\n")
	i := 0
	for i < len(lines) && optionNames(lines[i]) != "" && optionNames(lines[i]) == strings.TrimSpace(lines[i]) {
		i++
	}
	return strings.Join(lines[i:], "\n")
}

// speaksTo reports whether text holds a term of asked beyond those of its
// document's title and headings (context): an option's name said in the
// question is sure only when its description speaks to the question too
// (`--output-file=logfile  Log all messages to logfile` names "output" and
// "file" but says nothing of writing the download to a file).
func speaksTo(text string, asked []search.Term, context map[string]bool) bool {
	for _, t := range matchedTerms(text, asked) {
		if !context[t] {
			return true
		}
	}
	return false
}

// isOption reports whether a term is an option as written ("-a",
// "--all"): a literal that only a line naming it answers.
func isOption(t search.Term) bool { return strings.HasPrefix(t.Literal, "-") }

// optionNames is the part of a term line that names its options: from its
// first option to the gap before a description on the same line ("-l" in
// "-l     use a long listing format"); "" for a line that does not open
// with an option.
func optionNames(lead string) string {
	lead = strings.TrimSpace(lead)
	if !strings.HasPrefix(lead, "-") && !strings.HasPrefix(lead, "+") {
		return ""
	}
	if i := strings.IndexByte(lead, '\t'); i >= 0 {
		lead = lead[:i]
	}
	if i := strings.Index(lead, "  "); i >= 0 {
		lead = lead[:i]
	}
	return lead
}

// saysDefault matches a block that says what the default is.
var saysDefault = regexp.MustCompile(`(?i)\bdefaults?\b`)

// denials are the words that negate what a line does; "instead" and
// "without" name another way of doing it ("make symbolic links instead of
// hard links").
var denials = map[string]bool{"not": true, "no": true, "never": true, "don": true, "doesn": true, "cannot": true, "non": true}

// saysNot reports whether a definition's options or the opening words of
// its description negate ("-n, --no-clobber", "never output headers", "do
// not prompt"): what it defines is the opposite of doing something. A
// negation further on, or in brackets, qualifies what the line does ("keep
// (don't delete) input files"; "… and the quotes are not special"), and
// one that denies leaving out is no negation ("do not ignore").
func saysNot(b Block) bool {
	for _, t := range search.Tokens(optionNames(b.Lead)) {
		if denials[t] {
			return true
		}
	}
	opening := search.Tokens(parenthetical.ReplaceAllString(description(b), " "))
	for i, t := range opening[:min(len(opening), 3)] {
		if !denials[t] {
			continue
		}
		// "do not ignore entries starting with ." (ls -a) shows them: a
		// denial of a verb of leaving out is no negation.
		for _, next := range opening[i+1 : min(len(opening), i+3)] {
			if negating[next] {
				return false
			}
		}
		return true
	}
	return false
}

// parenthetical matches a bracketed aside.
var parenthetical = regexp.MustCompile(`\([^()]*\)`)

// pathToken matches a path in a block: "/etc/hostname", "~/.bash_history",
// "$HOME/.config/fontconfig"; not the slash of "and/or".
var pathToken = regexp.MustCompile(`(?:^|[\s"'(\x60=:,])(?:~|\$[A-Za-z_]+)?/[A-Za-z0-9._-]*[A-Za-z0-9_]`)

// holdsPath reports whether text names a path.
func holdsPath(text string) bool { return pathToken.MatchString(text) }

// isQuestion reports whether a block is itself a question.
func isQuestion(text string) bool {
	return strings.HasSuffix(strings.TrimSpace(text), "?")
}
