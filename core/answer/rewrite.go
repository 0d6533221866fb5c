package answer

import (
	"context"
	"regexp"
	"strings"
)

// rewriteRules asks for a retrieval query, or a skip for small talk
// (NuraSafe's first, small, low-temperature call).
const rewriteRules = `You turn a person's message into a short search query for their own documents.
Reply with the query between <query> and </query>: the key words and names of the message, nothing else.
If the message is small talk (a greeting, thanks) that no document can answer, reply with <skip/> instead.`

var (
	queryTag = regexp.MustCompile(`(?is)<query>(.*?)</query>`)
	skipTag  = regexp.MustCompile(`(?i)<skip\s*/?>`)
)

// minKeptWords is the share of the question's content words a rewritten
// query should keep. Below it the rewrite has drifted from what the person
// asked: their own words are searched with it, or instead of it when it
// kept none.
const minKeptWords = 0.5

// rewriteOutcome is what query rewriting decided.
type rewriteOutcome struct {
	query string // what to search
	skip  bool   // small talk: search nothing
	note  string // why the question's own words were kept, if they were
}

// followUpRules extend rewriteRules in a conversation: the earlier
// questions are given so that a follow-up's query can stand alone.
const followUpRules = `
The message may follow earlier questions of the same conversation, listed before it. If it refers to them ("and for tar?", "how do I undo it?"), the query must stand alone: put in the words from them it refers to.`

// historyTurns is how many earlier questions a rewrite is shown: the
// previous one or two say what a follow-up refers to, and the call stays
// short.
const historyTurns = 3

// rewrite asks gen for a retrieval query for question, asked after the
// turns of history (oldest first). Any failure to get a usable query falls
// back to the question itself.
func rewrite(ctx context.Context, gen Generator, question string, history []Turn) (rewriteOutcome, error) {
	rules, msg := rewriteRules, oneLine(question)
	if len(history) > 0 {
		var b strings.Builder
		b.WriteString("Earlier questions:\n")
		for _, t := range history[max(0, len(history)-historyTurns):] {
			b.WriteString("- " + oneLine(t.searched()) + "\n")
		}
		b.WriteString("\nMessage: " + msg)
		rules, msg = rewriteRules+followUpRules, b.String()
	}
	g, err := gen.Generate(ctx, GenerateRequest{
		Messages:  []Message{{Role: "system", Content: rules}, {Role: "user", Content: msg}},
		MaxTokens: 48, Temperature: 0, Stop: []string{"</query>"},
	}, nil)
	if err != nil {
		if ctx.Err() != nil {
			return rewriteOutcome{}, ctx.Err()
		}
		return rewriteOutcome{query: question, note: "Query rewriting failed (" + err.Error() + "); searched your words."}, nil
	}
	return parseRewrite(question, g.Text), nil
}

// parseRewrite reads the model's reply. The closing tag may be missing: it
// is the stop sequence.
func parseRewrite(question, reply string) rewriteOutcome {
	if skipTag.MatchString(reply) && !strings.Contains(strings.ToLower(reply), "<query>") {
		return rewriteOutcome{skip: true}
	}
	q := ""
	if m := queryTag.FindStringSubmatch(reply + "</query>"); m != nil {
		q = oneLine(m[1])
	}
	if q == "" {
		return rewriteOutcome{query: question, note: "Query rewriting gave no query; searched your words."}
	}
	switch k := kept(question, q); {
	case k == 0:
		return rewriteOutcome{query: question, note: "The rewritten query (" + q + ") had none of your words; searched your words instead."}
	case k < minKeptWords:
		return rewriteOutcome{query: q + " " + oneLine(question), note: "The rewritten query (" + q + ") left out some of your words; searched it together with them."}
	}
	return rewriteOutcome{query: q}
}

// kept is the share of the question's content words found in the query.
func kept(question, query string) float64 {
	qw := contentWords(question)
	if len(qw) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, w := range contentWords(query) {
		in[w] = true
	}
	n := 0
	for _, w := range qw {
		if in[w] {
			n++
		}
	}
	return float64(n) / float64(len(qw))
}
