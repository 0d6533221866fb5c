package panels

import (
	"image"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/preview"
	"cairn/core/search"
)

// QueryRequest is a request of the query panel to its worker: Ask,
// CancelAsk, OpenSource, JudgeSource, or a conversation's NewConversation,
// OpenThread and DeleteThread.
type QueryRequest interface{ queryRequest() }

// Ask answers a question from the documents the filter lets through.
type Ask struct {
	Question string
	Filter   search.FilterSpec
	// Again: the question shown, answered again under the current knobs,
	// in place of its answer in the conversation.
	Again bool
	// Exact searches the words as typed, without correcting a word no
	// passage holds ("Search for … instead").
	Exact bool
	// WordForms: a question about the collection counts every form of its
	// words, not whole words only (search.Request.WordForms).
	WordForms bool
	// Fresh asks it in a new conversation ("Ask as a new question"): it
	// follows nothing asked before.
	Fresh bool
}

// ChooseFolders sets the folders the conversation's questions are
// answered from (its collection); nil: every folder.
type ChooseFolders struct{ Folders []string }

// OpenCited shows a passage a reopened conversation's answer cites, by the
// chunk id and file saved with it.
type OpenCited struct {
	ChunkID int64
	Path    string
}

// MoreResults lists more of the passages that matched the question shown.
type MoreResults struct{}

// CancelAsk stops the question being answered.
type CancelAsk struct{}

// OpenSource opens a passage's file with the system viewer, at its page
// where the viewer supports it.
type OpenSource struct {
	Path  string
	Page  int    // 0 when the format has no pages
	Label string // printed page label, when the document has one
	Line  int
}

// ShowSource shows a passage in the preview pane: its page or lines, the
// passage highlighted.
type ShowSource struct{ Passage *search.Passage }

// ShowInFolder opens the folder holding a file in the file manager.
type ShowInFolder struct{ Path string }

// JudgeSource marks (Right) or unmarks a file as the right answer to a
// question, for the personal test set.
type JudgeSource struct {
	Question string
	Path     string
	ChunkID  int64
	Right    bool
}

// NewConversation starts a fresh conversation: the next question follows
// nothing.
type NewConversation struct{}

// OpenThread reopens a saved conversation: the next question continues it.
type OpenThread struct{ ID int64 }

// DeleteThread deletes a saved conversation from the knowledge base.
type DeleteThread struct{ ID int64 }

func (ChooseFolders) queryRequest()   {}
func (OpenCited) queryRequest()       {}
func (MoreResults) queryRequest()     {}
func (NewConversation) queryRequest() {}
func (OpenThread) queryRequest()      {}
func (DeleteThread) queryRequest()    {}

func (Ask) queryRequest()          {}
func (CancelAsk) queryRequest()    {}
func (OpenSource) queryRequest()   {}
func (JudgeSource) queryRequest()  {}
func (ShowSource) queryRequest()   {}
func (ShowInFolder) queryRequest() {}

// QueryEvent is news from the query worker: QueryReady, ModelsKnown,
// Asking, Token, Answered, AskFailed, Ranked, QueryNotice, ThreadsListed
// or ThreadOpened.
type QueryEvent interface{ queryEvent() }

// QueryReady says the knowledge base is open: questions can be asked.
type QueryReady struct{}

// ModelsKnown says which models the engine runs, hence which modes.
type ModelsKnown struct {
	EmbeddingModel string // "" when retrieval is BM25 only
	ChatModel      string // "" when answers are extractive
}

// Asking says a question is being answered; Again: in place of the
// answer shown (Answer again, the words as typed, every form).
type Asking struct {
	Question string
	Again    bool
}

// Token is the next piece of the answer being written.
type Token struct{ Text string }

// Answered carries the finished answer; Filtered says a filter narrowed
// the documents it was answered from.
type Answered struct {
	Answer   *answer.Answer
	Filtered bool
}

// AskFailed says the question could not be answered, or was cancelled.
type AskFailed struct {
	Question  string
	Err       error
	Cancelled bool
}

// Ranked is the current ranking of the last question's candidates under the
// tuning sliders, and which files are marked as the right answer.
type Ranked struct {
	Question string
	Mode     search.Mode
	Results  []search.Result
	Params   search.Params     // the fusion behind the ranking, for "why this result"
	Rerank   *search.Reranking // what the reranker did (nil: off), for "why this result"
	Right    map[int64]bool    // chunk id -> the passage marked right for Question
	Notes    []string
	// Matched is how many passages matched the question well enough to be
	// listed (the minimum relevance), of which Results are the best; More
	// says more may match than the search's candidates held, which a
	// further search with larger pools finds.
	Matched int
	More    bool
	// Stale says the list no longer agrees with the last answer: a source
	// the answer was written from is not listed any more, or passages are
	// listed where the answer found none. The answer is then marked, not
	// written again: re-ranking must stay free while a slider is dragged
	// (no search, no model), and a chat model's answer takes seconds to
	// minutes. Answer again writes it under the knobs as they are.
	Stale bool
}

// QueryNotice is a message for the person, e.g. a file that could not be
// opened.
type QueryNotice struct {
	Text string
	Err  bool
}

// PreviewShown is a passage's preview for the preview pane.
type PreviewShown struct {
	Passage  *search.Passage
	Preview  preview.Preview
	Err      error       // the file could not be read: the passage as indexed is shown
	Image    image.Image // the PDF page, decoded off the window's goroutine; nil for other formats
	ImageErr error       // why the page could not be drawn
}

// OpenFailed says the external viewer (Folder: the file manager) could not
// show Path.
type OpenFailed struct {
	Path   string
	Folder bool
	Err    error
}

// ThreadsListed is the knowledge base's saved conversations, the most
// recently continued first, and the one the next question continues (0:
// a new one).
type ThreadsListed struct {
	Threads []domain.Thread
	Current int64
}

// ThreadOpened says which conversation the next question continues: a
// reopened one with its turns, oldest first, or (ID 0) a new one.
type ThreadOpened struct {
	ID    int64
	Turns []domain.Turn
}

// FoldersChosen is the folders the conversation's questions are answered
// from (nil: every folder), after a choice or a change of conversation.
type FoldersChosen struct{ Folders []string }

func (FoldersChosen) queryEvent() {}

func (ThreadsListed) queryEvent() {}
func (ThreadOpened) queryEvent()  {}

func (PreviewShown) queryEvent() {}
func (OpenFailed) queryEvent()   {}

func (QueryReady) queryEvent()  {}
func (ModelsKnown) queryEvent() {}
func (Asking) queryEvent()      {}
func (Token) queryEvent()       {}
func (Answered) queryEvent()    {}
func (AskFailed) queryEvent()   {}
func (Ranked) queryEvent()      {}
func (QueryNotice) queryEvent() {}
