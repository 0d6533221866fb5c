package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/core/llm/testmodel"
)

func loadGenerator(t testing.TB, opt GeneratorOptions) *Generator {
	t.Helper()
	g, err := LoadGenerator(writeModel(t, testmodel.TinyChat(), "chat.gguf"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

var question = []Message{
	{Role: "system", Content: "Answer from the sources."},
	{Role: "user", Content: "What is the default port?"},
}

// collect drains a stream, returning the text and the final token.
func collect(t *testing.T, ch <-chan Token) (string, []string, Token) {
	t.Helper()
	var b strings.Builder
	var pieces []string
	var last Token
	for tok := range ch {
		if tok.Done {
			last = tok
			continue
		}
		pieces = append(pieces, tok.Text)
		b.WriteString(tok.Text)
	}
	if !last.Done || last.Stats == nil {
		t.Fatal("stream closed without a Done token carrying Stats")
	}
	return b.String(), pieces, last
}

func TestGenerateStreamsTokensWithStats(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	ch, err := g.Generate(context.Background(), GenerateRequest{Messages: question, MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	text, pieces, last := collect(t, ch)
	if last.Err != nil {
		t.Fatal(last.Err)
	}
	st := last.Stats
	if len(pieces) < 2 || text == "" {
		t.Fatalf("got %d pieces %q, want a stream of several", len(pieces), text)
	}
	if st.GeneratedTokens != 12 || st.StopReason != StopMaxTokens {
		t.Errorf("stats = %+v, want 12 tokens stopped by length", st)
	}
	if n, err := g.PromptTokens(question); err != nil || n != st.PromptTokens {
		t.Errorf("PromptTokens(question) = %d, %v; the generation used %d", n, err, st.PromptTokens)
	}
	prompt, _ := g.FormatPrompt(question)
	if want := g.TokenCount(prompt); st.PromptTokens >= want || st.PromptTokens < 10 {
		// The template's control tokens are single tokens in the prompt,
		// but several characters each when counted as plain text.
		t.Errorf("PromptTokens = %d, plain-text count %d", st.PromptTokens, want)
	}
	if st.TimeToFirstToken <= 0 || st.PromptTokensPerSecond <= 0 || st.GenerationTokensPerSecond <= 0 {
		t.Errorf("timings not measured: %+v", st)
	}
}

func TestGenerateGreedyIsDeterministic(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	run := func(req GenerateRequest) string {
		ch, err := g.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		text, _, _ := collect(t, ch)
		return text
	}
	greedy := GenerateRequest{Messages: question, MaxTokens: 10}
	if a, b := run(greedy), run(greedy); a != b {
		t.Errorf("greedy runs differ: %q vs %q", a, b)
	}
	hot := GenerateRequest{Messages: question, MaxTokens: 10, Temperature: 1.5, Seed: 7}
	if a, b := run(hot), run(hot); a != b {
		t.Errorf("seeded sampling differs: %q vs %q", a, b)
	}
	hot2 := hot
	hot2.Seed = 8
	if run(hot) == run(hot2) && run(hot) == run(greedy) {
		t.Error("temperature and seed have no effect")
	}
}

func TestGenerateStopSequenceAcrossTokens(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	ch, err := g.Generate(context.Background(), GenerateRequest{Messages: question, MaxTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	full, pieces, _ := collect(t, ch)
	// Choose a stop string that spans the boundary between two tokens in
	// the middle of the answer.
	var before string
	var stop string
	for i := 3; i+1 < len(pieces); i++ {
		a, b := pieces[i], pieces[i+1]
		if len(a) >= 2 && len(b) >= 2 {
			stop = a[len(a)-2:] + b[:2]
			before = strings.Join(pieces[:i], "") + a[:len(a)-2]
			break
		}
	}
	if stop == "" {
		t.Fatalf("no two adjacent multi-byte pieces in %q", pieces)
	}
	if i := strings.Index(full, stop); i < len(before) {
		before = full[:i]
	}
	ch, err = g.Generate(context.Background(), GenerateRequest{Messages: question, MaxTokens: 20, Stop: []string{"never appears", stop}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, last := collect(t, ch)
	if got != before {
		t.Errorf("with stop %q: got %q, want %q", stop, got, before)
	}
	if last.Stats.StopReason != StopSequence {
		t.Errorf("StopReason = %q, want stop", last.Stats.StopReason)
	}
}

func TestGenerateCancelStopsPromptly(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := g.Generate(ctx, GenerateRequest{Messages: question}) // no MaxTokens: runs to the context end
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for tok := range ch {
		if tok.Done {
			t.Fatalf("finished before cancellation: %+v", tok.Stats)
		}
		n++
		if n == 3 {
			cancel()
			break
		}
	}
	deadline := time.After(2 * time.Second)
	extra := 0
	for {
		select {
		case tok, ok := <-ch:
			if !ok {
				// Only tokens already buffered when cancel came may follow
				// it; an uncancelled run would send ~250 more.
				if extra > streamBuffer {
					t.Errorf("%d tokens arrived after cancel", extra)
				}
				// The model is free again at once.
				ch2, err := g.Generate(context.Background(), GenerateRequest{Messages: question, MaxTokens: 2})
				if err != nil {
					t.Fatal(err)
				}
				if _, _, last := collect(t, ch2); last.Err != nil {
					t.Fatal(last.Err)
				}
				return
			}
			if tok.Done {
				if !errors.Is(tok.Err, context.Canceled) || tok.Stats.StopReason != StopCancelled {
					t.Errorf("final token after cancel: err %v, stats %+v", tok.Err, tok.Stats)
				}
				continue
			}
			extra++
		case <-deadline:
			t.Fatal("stream did not close within 2s of cancel")
		}
	}
}

func TestGenerateRequestsAreSerialized(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	req := GenerateRequest{Messages: question, MaxTokens: 8}
	want := func() string {
		ch, err := g.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := collect(t, ch)
		return s
	}()
	var chans []<-chan Token
	for range 3 {
		ch, err := g.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	for i, ch := range chans {
		if got, _, _ := collect(t, ch); got != want {
			t.Errorf("concurrent request %d = %q, want %q", i, got, want)
		}
	}
}

func TestGeneratePromptTooLong(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{ContextSize: 64})
	if g.ContextSize() != 64 {
		t.Fatalf("ContextSize() = %d", g.ContextSize())
	}
	long := []Message{{Role: "user", Content: strings.Repeat("many words here ", 40)}}
	_, err := g.Generate(context.Background(), GenerateRequest{Messages: long})
	if !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("err = %v, want ErrPromptTooLong", err)
	}
	// Generation stops at the end of the context.
	ch, err := g.Generate(context.Background(), GenerateRequest{Messages: question})
	if err != nil {
		t.Fatal(err)
	}
	_, _, last := collect(t, ch)
	if r := last.Stats.StopReason; r != StopContext && r != StopEndOfTurn {
		t.Errorf("StopReason = %q, want context (or end)", r)
	}
	if n := last.Stats.PromptTokens + last.Stats.GeneratedTokens; n > 64 {
		t.Errorf("used %d tokens of a 64-token context", n)
	}
}

func TestTokenCount(t *testing.T) {
	g := loadGenerator(t, GeneratorOptions{})
	if n := g.TokenCount(""); n != 0 {
		t.Errorf("TokenCount(\"\") = %d", n)
	}
	// Vocabulary words are one token each (SentencePiece, U+2581 word
	// starts); an unknown word falls apart into pieces.
	if n := g.TokenCount("the file"); n != 2 {
		t.Errorf("TokenCount(\"the file\") = %d, want 2", n)
	}
	if n := g.TokenCount("the file xqzv"); n <= 3 {
		t.Errorf("TokenCount with an unknown word = %d, want > 3", n)
	}
	short, long := g.TokenCount("a b"), g.TokenCount(strings.Repeat("a b ", 50))
	if long <= short*10 {
		t.Errorf("TokenCount does not grow with text: %d vs %d", short, long)
	}
}

func TestLoadGeneratorRejectsEmbedder(t *testing.T) {
	p := writeModel(t, testmodel.Tiny(), "minilm.gguf")
	_, err := LoadGenerator(p, GeneratorOptions{})
	if err == nil || !strings.Contains(err.Error(), "embedding model") || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v", err)
	}
}

func TestGenerateReusesTheCachedPrefix(t *testing.T) {
	// Greedy answers to a prompt must not depend on what an earlier prompt
	// left in the cache: compare with a generator that starts empty.
	long := []Message{{Role: "system", Content: strings.Repeat("Answer only from the numbered sources and cite them. ", 8)},
		{Role: "user", Content: "What is the default port?"}}
	other := []Message{long[0], {Role: "user", Content: "How do I reset the router?"}}
	run := func(g *Generator, msgs []Message) (string, *Stats) {
		ch, err := g.Generate(context.Background(), GenerateRequest{Messages: msgs, MaxTokens: 12})
		if err != nil {
			t.Fatal(err)
		}
		s, _, last := collect(t, ch)
		return s, last.Stats
	}
	fresh := loadGenerator(t, GeneratorOptions{})
	wantOther, _ := run(fresh, other)

	g := loadGenerator(t, GeneratorOptions{})
	first, st1 := run(g, long)
	if st1.CachedTokens != 0 {
		t.Errorf("first request found %d cached tokens", st1.CachedTokens)
	}
	again, st2 := run(g, long)
	if again != first || st2.CachedTokens != st2.PromptTokens-1 {
		t.Errorf("same prompt again: %q (cached %d of %d), first %q", again, st2.CachedTokens, st2.PromptTokens, first)
	}
	got, st3 := run(g, other)
	system := g.TokenCount(long[0].Content)
	if got != wantOther || st3.CachedTokens < system || st3.CachedTokens >= st3.PromptTokens {
		t.Errorf("shared system prompt: %q (cached %d of %d, system %d), fresh generator %q", got, st3.CachedTokens, st3.PromptTokens, system, wantOther)
	}
}
