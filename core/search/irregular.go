package search

// irregular maps English word forms that the Porter stemmer cannot bring
// to their base ("sent" stays "sent", "send" is "send") to that base, so
// that "the signal to be sent" holds the question's "send". Like a
// synonym, it counts wherever passages are matched against the question
// (relevance, highlights, the block an answer quotes), not in what the
// keyword search fetches: FTS5's tokenizer stems with Porter alone. On the
// development sets it turned one more answer right ("the signal to be
// sent" for kill(1)) and none wrong.
//
// Forms that also mean something else in technical text are left out:
// "bit" (bite), "left" (leave), "bound" (bind), "saw" (see), "lay", "lie",
// "ground", "wound", "rose", "fell", "data" (datum).
var irregular = map[string]string{
	"began": "begin", "begun": "begin",
	"bent": "bend",
	"blew": "blow", "blown": "blow",
	"broke": "break", "broken": "break",
	"brought": "bring",
	"built":   "build",
	"bought":  "buy",
	"caught":  "catch",
	"chose":   "choose", "chosen": "choose",
	"came":  "come",
	"dealt": "deal",
	"did":   "do", "done": "do", "does": "do",
	"drew": "draw", "drawn": "draw",
	"drove": "drive", "driven": "drive",
	"ate": "eat", "eaten": "eat",
	"fed":    "feed",
	"felt":   "feel",
	"fought": "fight",
	"found":  "find",
	"flew":   "fly", "flown": "fly",
	"forgot": "forget", "forgotten": "forget",
	"froze": "freeze", "frozen": "freeze",
	"gave": "give", "given": "give",
	"went": "go", "gone": "go", "goes": "go",
	"got": "get", "gotten": "get",
	"grew": "grow", "grown": "grow",
	"had": "have", "has": "have",
	"heard": "hear",
	"hid":   "hide", "hidden": "hide",
	"held": "hold",
	"kept": "keep",
	"knew": "know", "known": "know",
	"led":   "lead",
	"lent":  "lend",
	"lost":  "lose",
	"made":  "make",
	"meant": "mean",
	"met":   "meet",
	"paid":  "pay",
	"ran":   "run",
	"rang":  "ring", "rung": "ring",
	"rewrote": "rewrite", "rewritten": "rewrite",
	"said":   "say",
	"sought": "seek",
	"sold":   "sell",
	"sent":   "send",
	"shook":  "shake", "shaken": "shake",
	"shown":  "show",
	"shrank": "shrink", "shrunk": "shrink",
	"slept": "sleep",
	"spoke": "speak", "spoken": "speak",
	"spent": "spend",
	"spun":  "spin",
	"stood": "stand",
	"stole": "steal", "stolen": "steal",
	"struck": "strike",
	"swore":  "swear", "sworn": "swear",
	"took": "take", "taken": "take",
	"taught":  "teach",
	"told":    "tell",
	"thought": "think",
	"threw":   "throw", "thrown": "throw",
	"understood": "understand",
	"undid":      "undo", "undone": "undo",
	"woke": "wake", "woken": "wake",
	"wore": "wear", "worn": "wear",
	"won":   "win",
	"wrote": "write", "written": "write",
	"overrode": "override", "overridden": "override",
	"overwrote": "overwrite", "overwritten": "overwrite",
	"children":   "child",
	"men":        "man",
	"women":      "woman",
	"mice":       "mouse",
	"feet":       "foot",
	"teeth":      "tooth",
	"indices":    "index",
	"matrices":   "matrix",
	"vertices":   "vertex",
	"appendices": "appendix",
	"analyses":   "analysis",
	"bases":      "basis",
	"crises":     "crisis",
	"criteria":   "criterion",
	"phenomena":  "phenomenon",
}

// irregularForms maps the stem of a base to its irregular forms, for
// termWords to know which words may match a term whose letters they do
// not begin with ("found" for "find").
var irregularForms = func() map[string][]string {
	m := map[string][]string{}
	for form, base := range irregular {
		st := stem(base)
		m[st] = append(m[st], form)
	}
	return m
}()
