package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"cairn/core/answer"
	"cairn/core/config"
)

// stalledWriter is a chat model that writes nothing until it is cancelled.
type stalledWriter struct{}

func (stalledWriter) ContextSize() int           { return 0 }
func (stalledWriter) TokenCount(text string) int { return len(text) / 4 }
func (stalledWriter) Name() string               { return "stalled" }
func (stalledWriter) Generate(ctx context.Context, _ answer.GenerateRequest, _ func(string)) (answer.Generation, error) {
	<-ctx.Done()
	return answer.Generation{}, ctx.Err()
}

func TestAnswerTimeoutEndsAStalledAnswerAndNamesTheSetting(t *testing.T) {
	eng := testEngine(t, nil)
	if err := eng.SetKnob("answer.timeout_sec", 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := eng.AskWith(context.Background(), eng.SearchRequest("how do I reset the router"), stalledWriter{}, nil)
	if err == nil || !strings.Contains(err.Error(), "answer.timeout_sec (1s)") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSetKnobChangesTheSettingAndRefusesWhatIsOutOfBounds(t *testing.T) {
	eng := testEngine(t, nil)
	if err := eng.SetKnob("generation.temperature", 0.7); err != nil {
		t.Fatal(err)
	}
	if err := eng.SetKnob("generation.temperature", 5); err == nil || !strings.Contains(err.Error(), "generation.temperature must be between 0 and 2, not 5") {
		t.Errorf("temperature 5: %v", err)
	}
	if err := eng.SetKnob("generation.model", 1); err == nil {
		t.Error("a setting that is no knob was set")
	}
	if got := eng.Config().Generation.Temperature; got != 0.7 {
		t.Errorf("temperature %v", got)
	}
}

func TestOnlineAnswerCostFollowsThePricesSet(t *testing.T) {
	prices := config.Answer{PricePerMTokIn: 2.5, PricePerMTokOut: 10}
	ans := &answer.Answer{Mode: answer.ModeOnline, Timing: answer.Timing{PromptTokens: 2000, Tokens: 300}}
	if got, want := estimateCost(ans, prices), (2000*2.5+300*10)/1e6; got != want {
		t.Errorf("cost %v, want %v", got, want)
	}
	ans.Mode = answer.ModeGenerative // a local model costs nothing
	if got := estimateCost(ans, prices); got != 0 {
		t.Errorf("local answer cost %v", got)
	}
}
