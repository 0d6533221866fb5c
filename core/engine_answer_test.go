package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
	"cairn/internal/skip"
)

// testEngine opens a knowledge base in a private home with the repository's
// test corpus indexed and the given generated models in its models folder.
func testEngine(t *testing.T, tune func(*config.Config), models ...testmodel.Spec) *Engine {
	t.Helper()
	return testEngineWith(t, tune, Options{KB: "test", Write: true}, models...)
}

func testEngineWith(t *testing.T, tune func(*config.Config), opt Options, models ...testmodel.Spec) *Engine {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CAIRN_HOME", home)
	dirs, err := config.UserDirs()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Generation.Temperature = 0 // greedy: the same answer every run
	if tune != nil {
		tune(&cfg)
	}
	if err := os.MkdirAll(cfg.Paths.ModelsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if err := testmodel.Write(filepath.Join(cfg.Paths.ModelsDir, m.Name+".gguf"), m); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := Open(context.Background(), cfg, dirs, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	corpus, _ := filepath.Abs("../testdata/corpus")
	if _, err := eng.IndexFolder(context.Background(), corpus, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

func TestAskWithTheLocalChatModel(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 24 }, testmodel.TinyChat())
	var streamed strings.Builder
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeGenerative || ans.Model != "tiny-chat-test" {
		t.Fatalf("mode %s, model %q; notes %q", ans.Mode, ans.Model, ans.Notes)
	}
	if len(ans.Sources) == 0 || !strings.HasSuffix(ans.Sources[0].Path, "router-x200.md") {
		t.Errorf("sources %+v", ans.Sources)
	}
	// The random-weight model writes nonsense, but the real path ran: a
	// prompt of the sources was processed and 24 tokens streamed.
	tm := ans.Timing
	if tm.Tokens != 24 || tm.PromptTokens < 200 || tm.PromptProcessing <= 0 || tm.Generation <= 0 || tm.TokensPerSec <= 0 {
		t.Errorf("timing %+v", tm)
	}
	if streamed.Len() == 0 || (!ans.Refused && len(ans.Removed) == 0 && ans.Text != strings.TrimSpace(streamed.String())) {
		t.Errorf("answer %q, streamed %q", ans.Text, streamed.String())
	}
	if !strings.Contains(strings.Join(ans.Notes, " "), "cut off at the token limit") {
		t.Errorf("notes %q", ans.Notes)
	}
	// The same question gives the same answer (greedy decoding).
	again, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil || again.Text != ans.Text {
		t.Errorf("second answer %q (%v), first %q", again.Text, err, ans.Text)
	}
	// ... and its prompt was already in the model's cache but for the
	// last token.
	if ans.Timing.CachedTokens != 0 || again.Timing.CachedTokens != again.Timing.PromptTokens-1 {
		t.Errorf("cached prompt tokens: first %d, second %d of %d", ans.Timing.CachedTokens, again.Timing.CachedTokens, again.Timing.PromptTokens)
	}
}

func TestAskTrimsSourcesToTheModelsContext(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) {
		// The writer reads windows of lines, not whole passages: a
		// context this small still holds only some of them.
		c.Generation.ContextSize, c.Generation.MaxTokens = 640, 8
		c.Answer.TopK, c.Retrieval.MinScore = 8, 0
	}, testmodel.TinyChat())
	// The corpus's manuals are chunked a section at a time, so the question
	// must find several sections that each hold two of its words (one
	// word of several is refused before any prompt is built).
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("router firmware update network"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Sources) == 0 || ans.Search == nil || len(ans.Sources) >= len(ans.Search.Results) {
		t.Fatalf("%d sources given of %d retrieved", len(ans.Sources), len(ans.Search.Results))
	}
	if !strings.Contains(strings.Join(ans.Notes, " "), "sources fit in the chat model's context (640 tokens)") {
		t.Errorf("notes %q", ans.Notes)
	}
	if ans.Timing.PromptTokens+8 > 640 {
		t.Errorf("prompt of %d tokens overflows the context", ans.Timing.PromptTokens)
	}
}

func TestAskWithoutChatModelIsExtractive(t *testing.T) {
	eng := testEngine(t, nil)
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeExtractive || ans.Model != "" || len(ans.Citations) == 0 || ans.Verdict != answer.VerdictQuoted {
		t.Errorf("%+v", ans)
	}
}

func TestAnOffTopicQuestionIsRefusedInEveryMode(t *testing.T) {
	eng := testEngine(t, nil)
	for _, q := range []string{"What is the boiling point of water on Mount Everest?", "Give me a recipe for banana bread"} {
		ans, err := eng.Ask(context.Background(), eng.SearchRequest(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(ans.Refused && ans.Text == answer.NotCovered || ans.NoSources && ans.Text == answer.NothingFound) || len(ans.Citations) != 0 {
			t.Errorf("%q: %+v", q, ans)
		}
		for _, s := range ans.Sources {
			if s.Relevance >= search.PartialRelevance {
				t.Errorf("%q: closest passage %s is a %s (%.2f)", q, s.Path, search.RelevanceLabel(s.Relevance), s.Relevance)
			}
		}
	}
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil || ans.Refused || ans.Sources[0].Relevance < search.StrongRelevance {
		t.Errorf("a question the guide answers: %+v %v", ans, err)
	}
}

func TestAskWithABrokenChatModelFallsBackWithANote(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Generation.Model = "broken.gguf" })
	if err := os.WriteFile(filepath.Join(eng.cfg.Paths.ModelsDir, "broken.gguf"), []byte("GGUF but not really"), 0o600); err != nil {
		t.Fatal(err)
	}
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeExtractive || len(ans.Notes) == 0 || !strings.Contains(ans.Notes[0], "chat model could not be loaded") {
		t.Errorf("mode %s, notes %q", ans.Mode, ans.Notes)
	}
}

func TestAskCancelledMidAnswer(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 400 }, testmodel.TinyChat())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	_, err := eng.Ask(ctx, eng.SearchRequest("how do I reset the router"), func(string) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// The model is free for the next question at once.
	if _, err := eng.Ask(context.Background(), eng.SearchRequest("coffee machine"), nil); err != nil {
		t.Error(err)
	}
}

func TestAskVerifiesWithTheEmbedderLoaded(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 16 }, testmodel.TinyChat(), testmodel.Tiny())
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeGenerative || ans.Search.Candidates.Mode != "hybrid" {
		t.Errorf("mode %s, retrieval %s; notes %q", ans.Mode, ans.Search.Candidates.Mode, ans.Notes)
	}
}

func TestAnExtractiveAnswerWeighsMeaningWithTheEmbedderLoaded(t *testing.T) {
	eng := testEngine(t, nil, testmodel.Tiny())
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeExtractive || ans.Search.Candidates.Mode != "hybrid" || len(ans.Weighed) < 2 {
		t.Fatalf("mode %s, retrieval %s, %d blocks weighed; notes %q", ans.Mode, ans.Search.Candidates.Mode, len(ans.Weighed), ans.Notes)
	}
	// The random-weight model's similarities mean nothing, but they came
	// from the real llama.cpp path: the most similar block weighs 1, the
	// least 0, and no note says the model failed.
	var lo, hi float64 = 1, 0
	for _, w := range ans.Weighed {
		s := w.Features[answer.Similarity]
		lo, hi = min(lo, s), max(hi, s)
	}
	if lo != 0 || hi != 1 || len(ans.Notes) != 0 {
		t.Errorf("similarities from %v to %v, notes %q", lo, hi, ans.Notes)
	}
}

func TestAskOnlineThroughTheGate(t *testing.T) {
	var prompt string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		json.NewDecoder(r.Body).Decode(&body)
		if r.URL.Path != "/v1/chat/completions" || body.Model != "fake-gpt" || r.Header.Get("Authorization") != "Bearer sk-test-1234" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		prompt = body.Messages[len(body.Messages)-1].Content
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{"Press and hold the RESET button", " for ten seconds [1]."} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", piece)
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":300,\"completion_tokens\":12}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	var dialed []string
	// The endpoint's name is mapped onto the local test server; nothing
	// else is reachable.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		if addr != "api.example.test:80" {
			return nil, errors.New("test dialer: only the endpoint")
		}
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	t.Setenv("CAIRN_API_KEY", "sk-test-1234")
	eng := testEngineWith(t, func(c *config.Config) {
		c.Network.Mode, c.Network.API, c.Network.Endpoint, c.Network.ChatModel = "online", "openai", "http://api.example.test/v1", "fake-gpt"
	}, Options{KB: "test", Write: true, Dial: dial}, testmodel.TinyChat())

	var streamed strings.Builder
	ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := "Press and hold the RESET button for ten seconds [1]."
	if ans.Text != want || streamed.String() != want || ans.Mode != answer.ModeOnline || ans.Model != "fake-gpt at api.example.test" {
		t.Fatalf("answer %q (streamed %q), mode %s, model %q, notes %q", ans.Text, streamed.String(), ans.Mode, ans.Model, ans.Notes)
	}
	if ans.Verdict != answer.VerdictSupported || len(ans.Citations) != 1 || !strings.HasSuffix(ans.Citations[0].Path, "router-x200.md") {
		t.Errorf("verdict %s, citations %+v", ans.Verdict, ans.Citations)
	}
	if ans.Timing.PromptTokens != 300 || ans.Timing.Tokens != 12 {
		t.Errorf("timing %+v", ans.Timing)
	}
	if !strings.Contains(prompt, "<source n=1>") || !strings.Contains(prompt, "Question: how do I reset the router") {
		t.Errorf("prompt sent:\n%s", prompt)
	}
	if len(dialed) != 1 {
		t.Errorf("dialed %q", dialed)
	}

	// Back offline, the local model answers and nothing is dialled.
	if err := eng.SetNetworkMode("offline"); err != nil {
		t.Fatal(err)
	}
	ans, err = eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil)
	if err != nil || ans.Mode != answer.ModeGenerative || len(dialed) != 1 {
		t.Errorf("offline: mode %s, err %v, dialed %q", ans.Mode, err, dialed)
	}
}

// promptRecorder is the local chat model, recording the conversations it
// is asked to continue.
type promptRecorder struct {
	localWriter
	asked [][]answer.Message
}

func (r *promptRecorder) Generate(ctx context.Context, req answer.GenerateRequest, onToken func(string)) (answer.Generation, error) {
	r.asked = append(r.asked, req.Messages)
	return r.localWriter.Generate(ctx, req, onToken)
}

// A follow-up answered by the local chat model (through llama.cpp) is
// written with the conversation's latest turns before it, their citations
// taken out, and the prompt stays within the model's context: the oldest
// turns are left out first.
func TestAFollowUpsWriterSeesTheLatestTurnsWithinItsContext(t *testing.T) {
	const ctxSize, maxTokens = 2048, 8
	eng := testEngine(t, func(c *config.Config) {
		c.Generation.ContextSize, c.Generation.MaxTokens = ctxSize, maxTokens
		c.Answer.TopK, c.Answer.Verify = 2, "off"
	}, testmodel.TinyChat())
	ctx := context.Background()
	long := strings.Repeat("The router keeps its settings in flash memory and restores them after a power cut [1]. ", 12)
	var thread int64
	for i := 1; i <= 5; i++ {
		var err error
		thread, err = eng.db.AddTurn(ctx, thread, domain.Turn{Question: fmt.Sprintf("question number %d about the router", i),
			Answer: fmt.Sprintf("Answer %d [2]. %s", i, long)})
		if err != nil {
			t.Fatal(err)
		}
	}
	history, err := eng.threadHistory(ctx, thread)
	if err != nil || len(history) != 5 {
		t.Fatalf("history %d turns, %v", len(history), err)
	}
	lw, err := eng.LocalWriter(ctx)
	if err != nil || lw == nil {
		t.Fatalf("no local chat model: %v", err)
	}
	rec := &promptRecorder{localWriter: lw.(localWriter)}
	ans, err := eng.askWith(ctx, eng.SearchRequest("and the firmware?"), rec, history, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != answer.ModeGenerative || len(rec.asked) != 2 {
		t.Fatalf("mode %s, %d calls (want the rewrite, then the answer); notes %q", ans.Mode, len(rec.asked), ans.Notes)
	}
	msgs := rec.asked[1]
	var questions []string
	for _, m := range msgs[1 : len(msgs)-1] {
		if m.Role == "user" {
			questions = append(questions, m.Content)
		}
		if m.Role == "assistant" && strings.ContainsAny(m.Content, "[]") {
			t.Errorf("an earlier answer keeps its citations: %q", m.Content)
		}
	}
	if len(questions) == 0 || len(questions) == 5 || questions[len(questions)-1] != "Question: question number 5 about the router" {
		t.Fatalf("earlier questions shown %q: want the latest ones, not all five", questions)
	}
	if first := questions[0]; first != fmt.Sprintf("Question: question number %d about the router", 6-len(questions)) {
		t.Errorf("earlier questions shown %q: not the latest ones in order", questions)
	}
	n, err := rec.PromptTokens(msgs)
	if err != nil || n+maxTokens > ctxSize || ans.Timing.PromptTokens+maxTokens > ctxSize {
		t.Errorf("prompt of %d tokens (%d processed; %v) and a %d-token answer overflow the %d-token context", n, ans.Timing.PromptTokens, err, maxTokens, ctxSize)
	}
	if !strings.Contains(strings.Join(ans.Notes, " "), fmt.Sprintf("shown %d of the 5 earlier questions", len(questions))) {
		t.Errorf("notes %q", ans.Notes)
	}
	last := msgs[len(msgs)-1].Content
	if !strings.Contains(last, "<source n=1>") || !strings.Contains(last, "Question: and the firmware?") {
		t.Errorf("the question's message %q", last)
	}
}

// Answer again (the knobs changed) puts the new answer in place of the
// latest turn: the conversation holds the question once. A question that
// is not the latest is asked as the next one.
func TestAnswerAgainReplacesTheLatestTurn(t *testing.T) {
	eng := testEngine(t, nil)
	ctx := context.Background()
	first, err := eng.AskInThread(ctx, 0, eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	thread := first.Thread
	if _, err := eng.AskInThread(ctx, thread, eng.SearchRequest("what is the default admin password"), nil); err != nil {
		t.Fatal(err)
	}
	req := eng.SearchRequest("what is the default admin password")
	req.TopK = 1
	again, err := eng.AnswerAgain(ctx, thread, req, nil)
	if err != nil || again.Thread != thread || len(again.Sources) == 0 {
		t.Fatalf("answer again: %+v, %v", again, err)
	}
	turns, err := eng.ThreadTurns(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[1].Question != "what is the default admin password" || turns[1].Answer != again.Text {
		t.Fatalf("turns after answering again: %+v", turns)
	}
	if _, err := eng.AnswerAgain(ctx, thread, eng.SearchRequest("how do I reset the router"), nil); err != nil {
		t.Fatal(err)
	}
	if turns, _ := eng.ThreadTurns(ctx, thread); len(turns) != 3 {
		t.Errorf("a question that is not the latest is the next turn: %d turns", len(turns))
	}
}

// TestStatusNamesTheDeviceOfTheLoadedModels: once the chat model and the
// embedder are loaded (on the CPU, as llm.device cpu asks), the status
// names the CPU, once for both.
func TestStatusNamesTheDeviceOfTheLoadedModels(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 4; c.LLM.Device = "cpu" }, testmodel.TinyChat(), testmodel.Tiny())
	if _, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), nil); err != nil {
		t.Fatal(err)
	}
	st, err := eng.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Device != "CPU" {
		t.Errorf("device %q, want CPU", st.Device)
	}
}

// TestUseDeviceUnloadsTheModelsForTheirNextLoad: a device that is not here
// is refused and changes nothing; one that is ("AUTO", as typed) becomes
// the setting, the loaded models are unloaded, and the next question loads
// them again. With llm.device cpu, Devices offers auto and the CPU and
// says why it lists no GPU.
func TestUseDeviceUnloadsTheModelsForTheirNextLoad(t *testing.T) {
	ctx := context.Background()
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 4; c.LLM.Device = "cpu" }, testmodel.TinyChat(), testmodel.Tiny())
	choices, note := eng.Devices()
	if len(choices) != 2 || choices[0].Setting != "auto" || choices[1].Setting != "cpu" || note == "" {
		t.Errorf("devices with llm.device cpu: %v, note %q", choices, note)
	}
	device := func() string {
		t.Helper()
		st, err := eng.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Device
	}
	if _, err := eng.Ask(ctx, eng.SearchRequest("how do I reset the router"), nil); err != nil {
		t.Fatal(err)
	}
	if d := device(); d != "CPU" {
		t.Fatalf("device %q after a question, want CPU", d)
	}
	if err := eng.UseDevice("Vulkan7"); err == nil || !strings.Contains(err.Error(), "is not here") {
		t.Errorf("a device that is not here: %v", err)
	}
	if d := eng.Config().LLM.Device; d != "cpu" || device() != "CPU" {
		t.Errorf("after a refused device: setting %q, models on %q", d, device())
	}
	if err := eng.UseDevice("AUTO"); err != nil {
		t.Fatal(err)
	}
	if d := eng.Config().LLM.Device; d != "auto" {
		t.Errorf("setting %q, want auto", d)
	}
	if d := device(); d != "" {
		t.Errorf("models still loaded on %q after the switch", d)
	}
	if _, err := eng.Ask(ctx, eng.SearchRequest("how do I reset the router"), nil); err != nil {
		t.Fatal(err)
	}
	if d := device(); d == "" {
		t.Error("the next question loaded no model")
	}
}

// TestUseDeviceRunsTheModelsOnVulkan: the window's Device picker lists the
// GPU the Vulkan backend finds (lavapipe under `make test-vulkan`) and, once
// it is picked, the next question loads the models on it. Skipped where no
// backend or device is found, unless CAIRN_REQUIRE_VULKAN=1.
func TestUseDeviceRunsTheModelsOnVulkan(t *testing.T) {
	ctx := context.Background()
	eng := testEngine(t, func(c *config.Config) { c.Generation.MaxTokens = 4; c.LLM.Device = "cpu" }, testmodel.TinyChat(), testmodel.Tiny())
	if err := eng.UseDevice("auto"); err != nil {
		t.Fatal(err)
	}
	choices, note := eng.Devices()
	if len(choices) < 3 {
		if os.Getenv("CAIRN_REQUIRE_VULKAN") == "1" {
			t.Fatalf("CAIRN_REQUIRE_VULKAN=1 but no GPU among %v: %s", choices, note)
		}
		t.Log(note)
		skip.Because(t, "no Vulkan device: `make test-vulkan` builds the backend and runs these tests on lavapipe")
	}
	gpu := choices[2]
	if err := eng.UseDevice(gpu.Setting); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Ask(ctx, eng.SearchRequest("how do I reset the router"), nil); err != nil {
		t.Fatal(err)
	}
	st, err := eng.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Device != gpu.Label {
		t.Errorf("models on %q, want %q (the device picked)", st.Device, gpu.Label)
	}
}
