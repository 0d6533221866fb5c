package answer

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/search"
)

// What a block gives, for the kind of answer a question asks for
// (Question.Kinds): a definition of the question's subject, a reason, an
// instruction, a number, a name. Each reads the block's text as quoted
// (its sentence with the rest of its paragraph): the reason for "why" is
// often the sentence after the one that repeats the question's words.

// defining are the words by which a sentence says what its subject is.
var defining = map[string]bool{"is": true, "are": true, "means": true, "mean": true, "refers": true, "denotes": true,
	"describes": true, "represents": true, "stands": true, "was": true, "were": true, "defines": true}

// defineNext are the words that follow a defining verb in a definition
// ("is a …", "are something …", "is used to …"), not in a sentence that
// says something else of its subject ("is more efficient", "is suitable").
var defineNext = map[string]bool{"a": true, "an": true, "the": true, "one": true, "something": true, "used": true,
	"simply": true, "just": true, "basically": true, "essentially": true, "any": true, "another": true,
	"what": true, "how": true, "when": true, "where": true, "called": true, "known": true, "defined": true,
	"also": true, "typically": true, "usually": true, "generally": true, "like": true, "short": true}

// defines reports whether text defines subject: the subject's last word
// among the sentence's first words, followed by a defining verb and the
// words a definition goes on with ("A cgroup is a mechanism…", "Roles are
// something…", "The magic SysRq key is a key combination…"), or named
// after "called" or "known as" ("… is called backtracking"). lead is
// the heading or question over the sentence: "It is a 'magical' key
// combo…" under "What is the magic SysRq key?" defines it too.
func defines(text string, subject []string, lead bool) bool {
	if len(subject) == 0 {
		return false
	}
	head := stem(subject[len(subject)-1])
	words := search.Tokens(text)
	if lead && len(words) > 2 && (words[0] == "it" || words[0] == "this" || words[0] == "they") && defining[words[1]] && defineNext[words[2]] {
		return true
	}
	for i, w := range words {
		if stem(w) != head {
			continue
		}
		if i > 0 && (words[i-1] == "called" || words[i-1] == "named" || i > 1 && words[i-2] == "known" && words[i-1] == "as") {
			return true
		}
		if i > 4 {
			continue // not the sentence's subject
		}
		for j := i + 1; j < min(len(words)-1, i+3); j++ {
			if defining[words[j]] && defineNext[words[j+1]] {
				return true
			}
		}
	}
	return false
}

// givesReason matches the words by which a sentence gives a reason or a
// consequence.
var givesReason = regexp.MustCompile(`(?i)\b(?:because|due\s+to|so\s+that|in\s+order\s+to|reasons?|otherwise|therefore|hence|thus|as\s+a\s+result|this\s+means|which\s+means|that\s+means|this\s+is\s+why|that'?s\s+why|that\s+is\s+why|to\s+(?:avoid|prevent|ensure|make\s+sure|keep)|prevents?|causes?|caused|results?\s+in|leads?\s+to|since\s+(?:the|it|they|this|there|you|we|a|an|its|their|perl|each)\b|for\s+(?:this|that)\s+reason)\b`)

// instructs matches the words by which a sentence tells how to do
// something: "you can use …", "by running …", "the easiest way is to …".
var instructs = regexp.MustCompile(`(?i)\byou\s+(?:can|could|should|need\s+to|must|have\s+to|may|might\s+want\s+to|will\s+need\s+to)\s+(?:simply\s+|just\s+|also\s+)?(?:use|run|type|set|add|write|call|put|edit|press|pass|specify|give|install|remove|delete|enable|disable|configure|mount|create|invoke|change|try|file|send|mark|list|query|read|check)\b|` +
	`\b(?:by|with)\s+(?:using|running|typing|calling|setting|adding|writing|passing|invoking|enabling)\b|\b(?:easiest|simplest|best|usual|recommended|quickest)\s+(?:way|method)\b|\bis\s+to\s+(?:use|run|call|set|write|add)\b`)

// imperatives are the verbs an instruction opens with.
var imperatives = map[string]bool{"use": true, "run": true, "type": true, "set": true, "add": true, "write": true,
	"create": true, "install": true, "remove": true, "delete": true, "call": true, "put": true, "edit": true,
	"open": true, "press": true, "select": true, "enter": true, "specify": true, "pass": true, "invoke": true,
	"try": true, "give": true, "change": true, "copy": true, "move": true, "check": true,
	"configure": true, "enable": true, "disable": true, "define": true, "declare": true, "load": true,
	"import": true, "execute": true, "append": true, "insert": true, "replace": true,
	"include": true, "mount": true, "build": true, "send": true,
	"file": true, "report": true, "upgrade": true, "update": true, "reboot": true, "sign": true,
	"tap": true, "hold": true, "echo": true, "mark": true, "rename": true, "wrap": true}

// doing are the verbs that are never nouns in an instruction's place
// ("configure" and "file" are, in "…, configure uses the values").
var doing = map[string]bool{"use": true, "run": true, "type": true, "write": true, "add": true, "call": true,
	"pass": true, "specify": true, "put": true, "edit": true, "press": true, "install": true, "remove": true,
	"delete": true, "enable": true, "disable": true, "create": true, "give": true, "try": true, "invoke": true,
	"execute": true, "append": true, "insert": true, "replace": true, "mount": true, "send": true, "set": true}

// instruction reports whether text tells how to do something: it opens
// with a verb of doing and names what to do it with ("Use the -A file
// test", "Write a character to /proc/sysrq-trigger", "Install the
// libpaper1 package"), or says what one can do with what ("you can use
// …", "by running …"). A manual's description of what its command does
// ("Wrap input lines in each FILE") opens with a verb too, but names no
// command, path or option to use.
func instruction(text string) bool {
	words := search.Tokens(text)
	if len(words) > 0 && imperatives[words[0]] && namesThing.MatchString(text) {
		return true
	}
	// "To run a command from a shell, write …": the purpose, then the
	// imperative.
	if len(words) > 0 && words[0] == "to" {
		if _, rest, ok := strings.Cut(text, ", "); ok {
			if next := search.Tokens(rest); len(next) > 0 && doing[next[0]] {
				return true
			}
		}
	}
	return instructs.MatchString(text)
}

// statesNumber matches a number in a sentence: digits, or a number said in
// words.
var statesNumber = regexp.MustCompile(`(?i)\b\d+(?:[.,]\d+)?\b|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|dozen|half|once|twice)\b`)

// namesThing matches a name a "which" question asks for: a module
// ("Term::ANSIColor"), a function ("utime()"), a path, an option, a
// configuration symbol ("CONFIG_MODULE_SIG"), a variable ("@INC"), or a
// thing called by its kind ("the debsign command").
var namesThing = regexp.MustCompile(`\w::\w|\w\(\)|(?:^|\s)[/~]\w|(?:^|\s)--?\w|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|[@%$][A-Za-z_]\w*|` +
	`(?i)\bthe\s+[\w.:-]+\s+(?:command|function|module|tool|utility|program|script|package|file|option|key|setting|directive|method|variable)\b`)

// codeLike reports whether text reads as program code rather than
// language: most of its lines end as statements do (";", "{", "}") or are
// mostly symbols. Code under a sentence illustrates it; the sentence
// that introduces it is the answer (and is quoted with it when it
// announces it: Blocks).
func codeLike(text string) bool {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	code := 0
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasSuffix(l, ";") || strings.HasSuffix(l, "{") || l == "}" || strings.HasPrefix(l, "} ") ||
			symbolShare(l) > 0.2 {
			code++
		}
	}
	return code > 0 && 2*code >= len(lines)
}

// symbolShare is the share of a line's non-space characters that are
// neither letters nor digits.
func symbolShare(l string) float64 {
	sym, all := 0, 0
	for _, r := range l {
		if unicode.IsSpace(r) {
			continue
		}
		all++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			sym++
		}
	}
	if all == 0 {
		return 0
	}
	return float64(sym) / float64(all)
}

// codeLead matches the first line of a definition that is a line of code
// over the lines of its block ("sub scrub_package {", "my @keys = sort {
// … };"), not a term over its description: an option line never ends so.
var codeLead = regexp.MustCompile(`[;{]\s*$|^(?:my|our|local)\s+[$@%(]|=~|^\$\w+\s*=`)

// fragment reports whether a prose block's sentence starts mid-sentence:
// a lower-case first word where its passage begins, cut there by the
// passage's start.
func fragment(b Block) bool {
	if b.Kind != BlockProse || b.Start > 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(b.Scored()))
	return unicode.IsLower(r)
}

// sectionNumber matches a line that opens with a section's number ("11.1.
// How can I …", "5.3 Who wrote …").
var sectionNumber = regexp.MustCompile(`^\d+\.\d+(?:\.\d+)*\.?\s`)

// isContents reports whether a block lists sections by number, as a table
// of contents does: at least two lines, most of them opening with a
// section number. It says where the answer is, not what.
func isContents(text string) bool {
	n, numbered := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		n++
		if sectionNumber.MatchString(l) {
			numbered++
		}
	}
	return numbered >= 2 && 2*numbered > n
}
