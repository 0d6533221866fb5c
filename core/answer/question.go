package answer

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/search"
)

// Question is a question read once, where it enters (Answerer.Ask): its
// words, its terms as retrieval searches them, what kind of answer it asks
// for, its qualifiers, its situation and its signs of a follow-up. Every
// later rule (the follow-up reading, retrieval, the choice of the quoted
// line) reads this value instead of tokenizing the text again.
type Question struct {
	Text  string
	Words []string      // search.Tokens(Text)
	Terms []search.Term // search.ParseTerms(Text): what retrieval searches
	// Kinds are what the question asks for (AsksHowTo, AsksDefinition…);
	// several may hold ("which file … by default").
	Kinds Kinds
	// Subject are the words of what a definition or an expansion question
	// asks about: "magic sysrq key" in "What is the magic SysRq key?".
	Subject []string
	// Qualifiers are the qualifier groups the question holds (qualifiers):
	// "all", "only", "not"…
	Qualifiers map[string]bool
	// Negates: the question asks not to do something, or to do less.
	Negates bool
	// Names are the words the question writes as names, lower-cased:
	// capitalised past its first word ("Docker", "Windows"), in capitals
	// ("PPA") or with a capital inside ("JavaScript", "SysRq"). A name
	// no passage holds is something the documents do not mention.
	Names []string
	// situation is the byte span of the clause in which the question
	// states what the person already does ("when I use find -print0");
	// nil when it states none.
	situation []int
	follow    followSigns
	key       []string // keyTerms: the words a search is about
}

// ReadQuestion reads text as a question.
func ReadQuestion(text string) *Question {
	q := &Question{Text: text, Words: search.Tokens(text), Terms: search.ParseTerms(text)}
	q.Kinds, q.Subject = kindsOf(text)
	q.Qualifiers = qualifierGroups(q.Words)
	q.Negates = negates(q.Words)
	q.situation = situationSpan(text)
	q.follow = signsOf(text, q.Words)
	q.key = keyTerms(q.Words)
	q.Names = namesIn(text)
	return q
}

// namesIn lists the words of text written as names (Question.Names),
// lower-cased, each once. A sentence's first word, "I" and words with
// digits or symbols (versions, options, paths) are not names.
func namesIn(text string) []string {
	var out []string
	first := true
	for _, f := range strings.Fields(text) {
		w := strings.Trim(f, `"'“”‘’()[]{}.,;:!?`)
		wasFirst := first
		first = strings.HasSuffix(f, ".") || strings.HasSuffix(f, "?") || strings.HasSuffix(f, "!") || strings.HasSuffix(f, ":")
		if w, _, _ = strings.Cut(w, "'"); w == "" || w == "I" || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		upperInside := strings.ContainsFunc(w[utf8.RuneLen(r):], unicode.IsUpper)
		if !unicode.IsUpper(r) || wasFirst && !upperInside {
			continue
		}
		if l := strings.ToLower(w); !slices.Contains(out, l) && !search.IsStopword(l) {
			out = append(out, l)
		}
	}
	return out
}

// Kind is what a question asks for; the quoted sentence is chosen to be
// one that gives it (docs/answers.md, "What a question asks for").
type Kind uint16

const (
	// AsksHowTo asks how to do something: the instruction or command
	// answers, not the sentence that restates the problem.
	AsksHowTo Kind = 1 << iota
	// AsksDefinition asks what something is: the sentence that defines
	// Subject answers, not one that mentions it.
	AsksDefinition
	// AsksExpansion asks what an abbreviation stands for.
	AsksExpansion
	// AsksDefault asks what happens by default: the sentence that says
	// what the default is answers.
	AsksDefault
	// AsksNumber asks for a number, an amount or a limit: a sentence that
	// states one answers.
	AsksNumber
	// AsksWhy asks for a reason.
	AsksWhy
	// AsksPlace asks where something is kept, or which file or directory
	// holds it: a path answers.
	AsksPlace
	// AsksWhich asks which command, tool, function, option or module does
	// something: a sentence that names one answers.
	AsksWhich
	// AsksCompare asks how two things differ.
	AsksCompare
)

// Kinds is a set of Kind.
type Kinds uint16

// Has reports whether k holds kind.
func (k Kinds) Has(kind Kind) bool { return k&Kinds(kind) != 0 }

var kindNames = []struct {
	k    Kind
	name string
}{{AsksHowTo, "howto"}, {AsksDefinition, "definition"}, {AsksExpansion, "expansion"}, {AsksDefault, "default"}, {AsksNumber, "number"},
	{AsksWhy, "why"}, {AsksPlace, "place"}, {AsksWhich, "which"}, {AsksCompare, "compare"}}

// String lists the kinds' names, "+"-separated; "other" for none.
func (k Kinds) String() string {
	var names []string
	for _, n := range kindNames {
		if k.Has(n.k) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "other"
	}
	return strings.Join(names, "+")
}

var (
	// whyQ matches a question that asks for a reason.
	whyQ = regexp.MustCompile(`(?i)\bwhy\b|\bhow\s+come\b|\bwhat(?:'s|\s+is|\s+was)\s+the\s+(?:reason|point|purpose|rationale)\b|\bfor\s+what\s+reason\b`)
	// howToQ matches a question that asks how to do something.
	howToQ = regexp.MustCompile(`(?i)\bhow\s+(?:do|does|can|could|should|would|might|must|may|to)\b|` +
		`\bwhat(?:'s|\s+is)\s+the\s+(?:best|easiest|right|proper|simplest|quickest|fastest|correct|recommended|usual)?\s*(?:way|method)\s+to\b|` +
		`\bis\s+there\s+(?:a|an|any)\s+(?:way|option|command|setting)\b|^\s*(?:can|could)\s+(?:i|you|we)\b|\bwhat\s+(?:should|do|can|must)\s+(?:i|you|we)\s+do\b`)
	// compareQ matches a question about how two things differ.
	compareQ = regexp.MustCompile(`(?i)\bdiff[a-z]*\s+between\b|\bdiffer(?:s|ent|ence)?\s+(?:from|to)\b|\b(?:vs\.?|versus)\b|\bcompared?\s+(?:to|with)\b|\bbetter\s+than\b`)
	// whichQ matches a question that asks which command, tool,
	// function, option, module or setting does something.
	whichQ = regexp.MustCompile(`(?i)\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:command|program|tool|utility|module|function|option|flag|switch|package|script|setting|key|library|method|variable|field|parameter|directive|operator|keyword|token|signal|syscall|class|controller|mode|letter)s?\b|^\s*which\b`)
	// expansionQ matches a question about what an abbreviation stands
	// for.
	expansionQ = regexp.MustCompile(`(?i)\bstand\s+for\b|\bshort\s+for\b|\babbreviation\s+(?:of|for)\b|\bacronym\b`)
	// numberQ matches a question that asks for a number or a limit.
	numberQ = regexp.MustCompile(`(?i)\bhow\s+(?:many|much|long|often|big|large|small|old|far|fast|high|low)\b|` +
		`\b(?:maximum|minimum|max|min|limit|limits|at\s+most|at\s+least|largest|smallest|shortest|longest|biggest|highest|lowest)\b|` +
		`\bwhat\s+(?:value|size|number|length|percentage|version|range)\b|\bout\s+of\s+the\s+box\b|\bunless\s+i\s+(?:change|set|configure)\b`)
	// definitionQ matches a question that asks what something is ("What is
	// a cgroup?", "In Perl, what are roles?", "What does polymorphism
	// mean?", "define backtracking"); its group is the subject.
	definitionQ = regexp.MustCompile(`(?i)^(?:[^,?]*,\s*)?(?:so\s+|and\s+)?(?:what|who)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:a\s+|an\s+|the\s+)?([^?]+?)\s*\??$|` +
		`^(?:[^,?]*,\s*)?what\s+(?:does|do)\s+(?:a\s+|an\s+|the\s+)?(?:term\s+|word\s+)?([^?]+?)\s+(?:mean|stand\s+for|do)\s*\??$|` +
		`^\s*(?:define|definition\s+of|meaning\s+of|explain)\s+(?:a\s+|an\s+|the\s+)?([^?]+?)\s*\??$`)
	// subjectEnd cuts a definition's subject at a preposition that places
	// it ("object in object-oriented Perl", "key on a laptop").
	subjectEnd = regexp.MustCompile(`(?i)\s+(?:in|on|for|within|under|when|if|with|from|used|exactly|actually|really|called)\b.*$`)
	// notDefinition are the heads of a "what is the …" question that asks
	// for something else than what a thing is: a default, a way, a command.
	notDefinition = map[string]bool{"default": true, "way": true, "best": true, "easiest": true, "command": true,
		"difference": true, "reason": true, "point": true, "purpose": true, "maximum": true, "minimum": true,
		"limit": true, "name": true, "number": true, "size": true, "value": true, "option": true, "syntax": true}
)

// kindsOf reads what text asks for, and the subject of a definition.
func kindsOf(text string) (Kinds, []string) {
	var k Kinds
	add := func(kind Kind, ok bool) {
		if ok {
			k |= Kinds(kind)
		}
	}
	add(AsksWhy, whyQ.MatchString(text))
	add(AsksCompare, compareQ.MatchString(text))
	add(AsksDefault, defaultQ.MatchString(text))
	add(AsksNumber, numberQ.MatchString(text))
	add(AsksPlace, placeQ.MatchString(text))
	add(AsksWhich, whichQ.MatchString(text))
	add(AsksExpansion, expansionQ.MatchString(text))
	add(AsksHowTo, howToQ.MatchString(text) && !k.Has(AsksWhy))
	var subject []string
	if m := definitionQ.FindStringSubmatch(strings.TrimSpace(text)); m != nil && k&Kinds(AsksCompare|AsksWhy|AsksDefault|AsksNumber|AsksWhich) == 0 {
		s := m[1] + m[2] + m[3]
		s = subjectEnd.ReplaceAllString(s, "")
		var words []string
		for _, w := range search.Tokens(s) {
			if !search.IsStopword(w) {
				words = append(words, w)
			}
		}
		if len(words) > 0 && len(words) <= 4 && !notDefinition[words[0]] {
			k |= Kinds(AsksDefinition)
			subject = words
		}
	}
	if k.Has(AsksExpansion) && subject == nil {
		subject = expansionSubject(text)
	}
	return k, subject
}

// expansionSubject is the abbreviation a "what does X stand for" question
// asks about: its words written in capitals, else its last key word
// before "stand".
func expansionSubject(text string) []string {
	for _, f := range strings.Fields(text) {
		f = strings.Trim(f, `?.,;:!"'()`)
		if len(f) >= 2 && strings.ToUpper(f) == f && strings.ToLower(f) != f {
			return search.Tokens(f)
		}
	}
	return nil
}

// placeQ matches a question that asks where something is kept or which
// file or directory holds it; "which files" asks for a list, not a place.
var placeQ = regexp.MustCompile(`(?i)\b(?:(?:which|what)\s+(?:\w+\s+)?(?:file|directory|folder|path)\b|where\s+(?:is|are|does|do|did|will|would|should|can)\b)`)

// defaultQ matches a question that asks what happens by default: "by
// default", "what is the default …", "if I don't tell it", "when I don't
// specify one", "without specifying".
var defaultQ = regexp.MustCompile(`(?i)\bby default\b|\bwhat(?:'s|\s+is|\s+are)\s+the\s+default\b|\b(?:if|when|unless)\s+(?:i|you|we)\s+(?:don'?t|do\s+not|never)\s+(?:tell|specify|give|choose|pick|say|set|pass|provide|supply|name|configure|change)\b|\bwithout\s+(?:specifying|telling|giving|choosing|setting|passing|configuring)\b`)

// negating are the words by which a question asks not to do something, or
// to do less: beside the qualifiers of the "not" group, the verbs of
// turning something off ("how do I stop rm from asking", "leave out the
// matching lines").
var negating = map[string]bool{"stop": true, "avoid": true, "prevent": true, "disable": true, "suppress": true,
	"skip": true, "exclude": true, "omit": true, "leave": true, "hide": true, "ignore": true, "quiet": true,
	"silence": true, "silent": true, "off": true, "less": true, "fewer": true, "unless": true, "nothing": true}

// negates reports whether a question's words ask not to do something.
func negates(words []string) bool {
	for _, t := range words {
		if negating[t] || qualifiers[t] == "not" {
			return true
		}
	}
	return false
}

// situation matches the head of the clause a question states its situation
// in: "when I use", "while using".
var situation = regexp.MustCompile(`(?i)\b(?:when|while|if|after|before|since)\s+(?:(?:i|you|we)\s+(?:am\s+|'m\s+|are\s+|'re\s+)?)?(?:use|using|run|running|call|calling|pipe|piping|invoke|invoking)\b`)

// situationSpan is the question's situation: the clause head and what it
// says is used, up to the next common word or punctuation ("when I use find
// -print0" in "… when I use find -print0?", "when using -r" in "… when
// using -r from following symlinks?"); nil when it states none.
func situationSpan(question string) []int {
	at := situation.FindStringIndex(question)
	if at == nil {
		return nil
	}
	end := at[1]
	for rest := question[end:]; ; {
		trimmed := strings.TrimLeft(rest, " \t")
		word, _, _ := strings.Cut(trimmed, " ")
		bare := strings.TrimRight(word, "?.,;:!)\"'")
		if bare == "" || search.IsStopword(strings.ToLower(bare)) {
			break
		}
		end += len(rest) - len(trimmed) + len(bare)
		if bare != word {
			break // punctuation ends the clause
		}
		rest = question[end:]
	}
	return []int{at[0], end}
}

// withoutSituation are the asked terms less those the question says only
// in its situation ("use", "find", "-print0" in "… when I use find
// -print0"): they still find the documents, but a line they name is what
// the person already does, not the answer. text is the question's (or
// the searched query's) text the span was read in.
func withoutSituation(text string, at []int, asked []search.Term) []search.Term {
	if at == nil {
		return asked
	}
	elsewhere := map[string]bool{}
	for _, t := range matchedTerms(text[:at[0]]+" "+text[at[1]:], asked) {
		elsewhere[t] = true
	}
	given := map[string]bool{}
	for _, t := range matchedTerms(text[at[0]:at[1]], asked) {
		given[t] = !elsewhere[t]
	}
	return slices.DeleteFunc(slices.Clone(asked), func(t search.Term) bool { return given[t.String()] })
}
