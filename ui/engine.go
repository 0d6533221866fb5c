package ui

import (
	"context"
	"time"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/preview"
	"cairn/core/search"
)

// Engine is what the workers need of a knowledge base. *core.Engine
// satisfies it; tests use a fake.
type Engine interface {
	Config() config.Config
	Close() error

	IndexFolder(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error)
	// RetryFailed is IndexFolder reading again the files earlier runs
	// skipped or failed on, changed or not.
	RetryFailed(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error)
	EnsureStarterKB(ctx context.Context, progress chan<- domain.Progress) (bool, error)
	GuideDir() string // where EnsureStarterKB installs the user guide
	Folders(ctx context.Context) ([]domain.Folder, error)
	// RemoveFolder forgets a folder and what was indexed from it: from
	// the team cluster, for everyone, with store.backend weaviate, progress
	// following it (core.Engine.RemoveFolder).
	RemoveFolder(ctx context.Context, path string, progress func(domain.Removal)) (domain.Removal, error)
	Issues(ctx context.Context) ([]domain.Issue, error)
	// Watch follows folder until ctx ends, calling changed after each
	// settled burst of changes, with the indexer's skip rules.
	Watch(ctx context.Context, folder string, debounce time.Duration, changed func(paths []string)) error
	// WatchedFolders and SetWatchedFolders read and record the folders
	// the window watches, in the knowledge base, where the command line
	// and the API see them too.
	WatchedFolders(ctx context.Context) ([]string, error)
	SetWatchedFolders(ctx context.Context, folders []string) error

	Search(ctx context.Context, req search.Request) (*search.Response, error)
	Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error)
	// AskInThread answers req as the next question of saved conversation
	// thread (0: a new one) and saves it there; a follow-up is made
	// standalone first (the answer's Query) and Thread names the
	// conversation. Threads, ThreadTurns and DeleteThread list, reopen and
	// delete the conversations of this knowledge base.
	AskInThread(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error)
	// AnswerAgain answers thread's latest question again in its place.
	AnswerAgain(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error)
	Threads(ctx context.Context) ([]domain.Thread, error)
	ThreadTurns(ctx context.Context, thread int64) ([]domain.Turn, error)
	DeleteThread(ctx context.Context, thread int64) error
	// SetThreadFolders keeps the folders a conversation's questions are
	// answered from (none: every folder); AskInThread narrows to them.
	SetThreadFolders(ctx context.Context, thread int64, folders []string) error
	// Passage is the passage of a chunk id, as a reopened conversation's
	// citation saved it.
	Passage(ctx context.Context, id int64) (domain.ChunkInfo, error)

	Status(ctx context.Context) (kb.Status, error)

	// Preview shows a passage where it sits in its file; RenderPage draws
	// a PDF page width pixels wide as a PNG.
	Preview(ctx context.Context, p *search.Passage) (preview.Preview, error)
	RenderPage(ctx context.Context, path string, page, width int) ([]byte, error)

	// The settings that change while the window runs, each through its
	// setter; Config is a snapshot of them all. The engine saves nothing:
	// the settings worker writes Config to the settings file.
	//
	// NetworkMode is the network gate's mode; SetNetworkMode switches it.
	NetworkMode() string
	SetNetworkMode(mode string) error
	// SetRetrieval changes the retrieval knobs of the next searches.
	SetRetrieval(r config.Retrieval) error
	// SetProfile switches the hardware profile (config.WithProfile).
	SetProfile(name string) error
	// SetAnswering changes the answer settings (verification, rewriting)
	// for the next questions.
	SetAnswering(a config.Answer) error
	// SetKnob sets one of config.Knobs by its key (the chat model's and
	// the answer's sliders).
	SetKnob(key string, v float64) error
	// SetServing records whether the window serves the local API
	// (serve.enabled); the serve worker starts or stops the server.
	SetServing(on bool) error
	// UseEmbeddingModel loads path ("" for none) and re-embeds the stored
	// chunks, reporting through progress with phase "embedding".
	UseEmbeddingModel(ctx context.Context, path string, progress chan<- domain.Progress) error
	// UseChatModel loads path ("" for extractive answers).
	UseChatModel(ctx context.Context, path string) error
	// UseReranker loads path as the reranker ("" for none).
	UseReranker(ctx context.Context, path string) error
	// ModelOffers lists the download catalogue's models with what the
	// models folder holds of each; PullModel downloads one through the
	// network gate (a stopped download resumes from its part file; a
	// cancelled context pauses it), progress getting the bytes done and
	// the total (-1 when unknown).
	ModelOffers() []domain.ModelOffer
	PullModel(ctx context.Context, name, wantSHA256 string, progress func(done, total int64)) (domain.ModelPull, error)
	// Devices are the llm.device values this computer offers (auto, cpu,
	// its GPUs), with a note when no GPU is listed; UseDevice switches to
	// one, the loaded models loading again on it at their next use.
	Devices() ([]domain.DeviceChoice, string)
	UseDevice(setting string) error

	Judge(ctx context.Context, query, path string, chunkID int64) error
	Unjudge(ctx context.Context, query, path string) error
	Judgments(ctx context.Context) ([]domain.Judgment, error)
}

// Opener opens knowledge base kb ("" for the configured default) with the
// current settings cfg, which carry the changes made in the window.
type Opener func(ctx context.Context, kb string, cfg config.Config) (Engine, error)
