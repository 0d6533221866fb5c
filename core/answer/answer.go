// Package answer turns a question into a grounded answer: retrieve passages,
// number them as sources, have a generator write an answer that cites them
// as [n] (or, without a chat model, extract the best sentences), resolve every
// citation to its file, page and quote, and verify each claim against the
// sources it cites.
package answer

import (
	"context"
	"fmt"
	"time"

	"cairn/core/collection"
	"cairn/core/search"
)

// Refusal is the fixed sentence given when the sources do not answer.
const Refusal = "I don't have that information in your documents."

// NothingFound is the answer when retrieval returns no passage at all; no
// model is called then.
const NothingFound = "Nothing relevant was found in your documents."

// Withheld introduces the answer given instead of a generated one whose
// claims the sources do not support, when verification blocks.
const Withheld = "The generated answer was withheld: parts of it are not supported by your documents. What the documents say:"

// WithheldNothing is the answer under verify=block when the generated
// answer was withheld and no sentence of the sources answers the question.
const WithheldNothing = "The generated answer was withheld: parts of it are not supported by your documents, and no sentence of them answers the question."

// NotCovered is the answer when retrieval found passages but none covers
// the question well enough (search.Result.Relevance below the answer's
// MinRelevance): the closest passages are listed, marked as not an answer,
// and no chat model is called.
const NotCovered = "Your documents do not seem to cover this. The closest passages are listed below; they are not an answer."

// OffTopic is the answer when query rewriting decides the message is not a
// question about the documents (a greeting, thanks); nothing is searched.
const OffTopic = "That does not look like a question about your documents. Ask about something they contain."

// Generator writes a reply to a conversation: the local chat model, an
// online endpoint, or a script in tests.
type Generator interface {
	// Generate streams the reply to req; onToken, when not nil, receives
	// each piece of text as it is written.
	Generate(ctx context.Context, req GenerateRequest, onToken func(string)) (Generation, error)
	// ContextSize is the number of tokens the prompt and the reply share;
	// 0 when unknown (sources are then not trimmed).
	ContextSize() int
	// TokenCount is the number of tokens text takes (an estimate is fine
	// for remote models).
	TokenCount(text string) int
	// Name names the model for the answer's label.
	Name() string
}

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// GenerateRequest is one call to a Generator.
type GenerateRequest struct {
	Messages    []Message
	MaxTokens   int
	Temperature float64
	TopP        float64
	Seed        int
	Stop        []string
}

// Generation is what a Generator reports about one reply.
type Generation struct {
	Text             string
	PromptTokens     int
	CachedTokens     int // prompt tokens a previous request left in the model's cache
	Tokens           int
	TimeToFirstToken time.Duration // from the call to the first piece of text: queueing and prompt processing
	Duration         time.Duration // from the call to the end
	StopReason       string
}

// Mode says who wrote an answer.
type Mode string

const (
	ModeGenerative Mode = "generative" // a local chat model
	ModeOnline     Mode = "online"     // an OpenAI-compatible or Ollama endpoint, through the network gate
	ModeExtractive Mode = "extractive" // no model: the best sentences of the top passages
	// ModeCollection answers a question about the collection (counts,
	// lists) from the store's tables: see core/collection.
	ModeCollection Mode = "collection"
)

// Source is a passage given to the writer under the number N.
type Source struct {
	N int `json:"n"`
	search.Result
}

// Citation resolves one [n] of the answer to the passage behind it, so a
// person can check it in one click.
type Citation struct {
	N       int    `json:"n"`
	ChunkID int64  `json:"chunk_id"`
	Path    string `json:"file"`
	Title   string `json:"title"`
	Unit    string `json:"unit,omitempty"` // page, slide, sheet...; "" for plain text
	Page    int    `json:"page"`
	Line    int    `json:"line"`
	Quote   string `json:"quote"` // the sentence of the passage that best supports the claims citing it

	// PathEscaped is set when Path is not valid UTF-8: see search.EscapePath.
	PathEscaped string `json:"file_escaped,omitempty"`
}

// Claim is one sentence of the answer with its verification verdict.
type Claim struct {
	Text      string  `json:"text"`
	Citations []int   `json:"citations"`
	Supported bool    `json:"supported"`
	Support   float64 `json:"support"`          // 0..1: share of the claim's content words and numbers found in its cited sources
	Reason    string  `json:"reason,omitempty"` // why it is not supported
}

// Verdict summarises the verification of a whole answer.
type Verdict string

const (
	VerdictSupported   Verdict = "supported"   // every claim is supported by a cited source
	VerdictPartial     Verdict = "partial"     // some claims are not
	VerdictUnsupported Verdict = "unsupported" // none is
	VerdictBlocked     Verdict = "blocked"     // unsupported claims and verify=block: the answer was replaced
	VerdictNone        Verdict = "none"        // nothing to verify (refusal, nothing found, verification off)
	// VerdictQuoted is an extractive answer: passages quoted word for word
	// from the sources, so nothing was generated and nothing needs checking.
	VerdictQuoted Verdict = "quoted"
)

// Timing splits where an answer's time went.
type Timing struct {
	Retrieval        time.Duration `json:"retrieval_ns"`
	PromptProcessing time.Duration `json:"prompt_ns"`     // until the first token
	Generation       time.Duration `json:"generation_ns"` // first token to last
	Total            time.Duration `json:"total_ns"`
	PromptTokens     int           `json:"prompt_tokens"`
	CachedTokens     int           `json:"cached_prompt_tokens"` // of PromptTokens, not processed again
	Tokens           int           `json:"tokens"`
	TokensPerSec     float64       `json:"tokens_per_sec"`
}

// FollowUp is how a question was read as a follow-up.
type FollowUp struct {
	Of       string `json:"of"`       // the earlier question it follows
	Searched string `json:"searched"` // what was searched for it
}

// The parts of a follow-up's Statement, for a reader of it (the
// OpenAI-compatible endpoint reads the words searched back from a reply a
// client sends again).
const (
	FollowUpLead     = "Read as a follow-up of "
	FollowUpSearched = "; searched for: "
)

// Statement is the line every surface shows for a follow-up: what it was
// read as following, and the words searched.
func (f FollowUp) Statement() string {
	return fmt.Sprintf("%s%q%s%s", FollowUpLead, f.Of, FollowUpSearched, f.Searched)
}

// Answer is the outcome of Ask.
type Answer struct {
	Question  string `json:"question"`
	Text      string `json:"answer"` // as shown, after verification
	Mode      Mode   `json:"mode"`
	Model     string `json:"model,omitempty"`
	Refused   bool   `json:"refused"`    // the sources do not contain the answer
	NoSources bool   `json:"no_sources"` // retrieval found nothing (Refused too); no model was called
	// Closest says Refused came from weak retrieval: Sources are the
	// closest passages found, listed as "closest, not an answer".
	Closest   bool       `json:"closest_not_answer,omitempty"`
	Sources   []Source   `json:"sources"`
	Citations []Citation `json:"citations"`
	Claims    []Claim    `json:"claims"`
	Removed   []int      `json:"removed_citations,omitempty"` // [n] that pointed to no source, taken out of Text
	Verdict   Verdict    `json:"verdict"`
	Notes     []string   `json:"notes,omitempty"` // e.g. sources trimmed to fit the context window
	// Query is what was searched when it differs from the question (query
	// rewriting, a follow-up made standalone, a word corrected); ""
	// otherwise.
	Query string `json:"query,omitempty"`
	// Corrections are the words of the question no passage holds that
	// were searched as the nearest word passages hold (search.Correction).
	Corrections []search.Correction `json:"corrections,omitempty"`
	// FollowUp is set when the question was read as a follow-up of the
	// conversation's previous question and searched with its words; nil
	// for a question read on its own. Every surface says so and shows
	// FollowUp.Searched, and offers to ask the question afresh.
	FollowUp *FollowUp `json:"follow_up,omitempty"`
	// NewSubject: the question follows others but is not a follow-up and
	// shares none of the key words of the question before it; a
	// conversation kept by Cairn starts anew with it (Engine.AskInThread).
	NewSubject bool `json:"new_subject,omitempty"`
	// Thread is the saved conversation the question was asked in (0: none).
	Thread int64  `json:"thread,omitempty"`
	Timing Timing `json:"timing"`
	// Cost is an online answer's estimated cost at the prices per million
	// tokens the person set (answer.price_per_mtok_in and _out); 0 when
	// unknown.
	Cost float64 `json:"cost_estimate,omitempty"`

	// Collection is the complete list behind a ModeCollection answer,
	// whose Text shows its first page.
	Collection *collection.Result `json:"collection,omitempty"`

	// Search is the retrieval behind the answer, for re-ranking and "why
	// this result" views.
	Search *search.Response `json:"-"`
	// Weighed are the blocks an extractive answer weighed, best first
	// (after the rule that keeps to the document a question names), for
	// the quality bench's reports.
	Weighed []Weighed `json:"-"`
}
