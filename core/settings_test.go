package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"cairn/core/config"
	"cairn/core/llm/models"
	"cairn/core/llm/testmodel"
)

// The engine never writes the settings file. Here the window opened online,
// `cairn network offline` then switched the file to offline, and the person
// picked a chat model: the engine must not write back the online mode it was
// opened with, and the window's writer (config.Update) keeps the file's.
// The next start is offline, with the chat model.
func TestAModelSwitchDoesNotUndoAnOfflineSwitchMadeElsewhere(t *testing.T) {
	os.Unsetenv("CAIRN_NETWORK_MODE")
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
	cfg.Network.Mode = "online"
	if err := config.Save(dirs, cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cfg.Paths.ModelsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(cfg.Paths.ModelsDir, "tiny-chat.gguf")
	if err := testmodel.Write(chat, testmodel.TinyChat()); err != nil {
		t.Fatal(err)
	}
	eng, err := Open(context.Background(), cfg, dirs, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()

	// `cairn network offline`, in another process.
	other, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	other.Network.Mode = "offline"
	if err := config.Save(dirs, other); err != nil {
		t.Fatal(err)
	}

	if err := eng.UseChatModel(context.Background(), chat); err != nil {
		t.Fatal(err)
	}
	if got, err := config.Load(dirs); err != nil || got.Network.Mode != "offline" || got.Generation.Model != "" {
		t.Fatalf("after the switch, before any save, the file has mode %q and chat model %q (%v); the engine wrote it",
			got.Network.Mode, got.Generation.Model, err)
	}
	if err := config.Update(dirs, cfg, eng.Config()); err != nil { // the window's settings worker
		t.Fatal(err)
	}

	next, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if next.Network.Mode != "offline" || next.Generation.Model != chat {
		t.Errorf("the next start has mode %q and chat model %q; want offline and %s", next.Network.Mode, next.Generation.Model, chat)
	}
	eng2, err := Open(context.Background(), next, dirs, Options{KB: "other", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	if m := eng2.NetworkMode(); m != "offline" {
		t.Errorf("the next engine opens %s", m)
	}
}

// Searches, questions about the settings and the models run while the
// window switches models and changes knobs. Run with -race: every setting
// has one owner, read and written under its lock.
func TestModelSwitchesWhileSearching(t *testing.T) {
	eng := testEngine(t, nil, testmodel.Tiny(), testmodel.TinyChat())
	ctx := context.Background()
	if _, err := eng.embedder(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := eng.Search(ctx, eng.SearchRequest("how do I reset the router")); err != nil {
					errs <- fmt.Errorf("search: %w", err)
					return
				}
				if _, err := eng.ChatModelPath(ctx); err != nil {
					errs <- fmt.Errorf("chat model path: %w", err)
					return
				}
				if _, err := eng.Models(ctx); err != nil {
					errs <- fmt.Errorf("models: %w", err)
					return
				}
				_ = eng.Config()
			}
		}()
	}
	modelsDir := eng.Config().Paths.ModelsDir
	for i := range 6 {
		chat := ""
		if i%2 == 0 {
			chat = filepath.Join(modelsDir, "tiny-chat-test.gguf")
		}
		if err := eng.UseChatModel(ctx, chat); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.UseModel(ctx, filepath.Join(modelsDir, "tiny-minilm-test.gguf")); err != nil {
			t.Fatal(err)
		}
		r := eng.Config().Retrieval
		r.TopK = 5 + i
		if err := eng.SetRetrieval(r); err != nil {
			t.Fatal(err)
		}
		a := eng.Config().Answer
		a.Rewrite = i%2 == 0
		if err := eng.SetAnswering(a); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c := eng.Config()
	if c.Generation.Model != models.None || c.Retrieval.TopK != 10 || c.Answer.Rewrite {
		t.Errorf("settings after the switches: chat %q, top_k %d, rewrite %v", c.Generation.Model, c.Retrieval.TopK, c.Answer.Rewrite)
	}
}
