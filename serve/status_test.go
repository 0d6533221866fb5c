package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/kb"
	"cairn/core/llm/testmodel"
)

// TestStatusNamesTheDeviceAndTheWatchedFolders: /api/status says where the
// loaded models run, as the engine's status does (the window's status bar
// reads the same), and which folders the window watches.
func TestStatusNamesTheDeviceAndTheWatchedFolders(t *testing.T) {
	eng := testEngine(t)
	if err := eng.SetWatchedFolders(context.Background(), []string{corpus(t)}); err != nil {
		t.Fatal(err)
	}
	stub := stubEngine{Engine: eng, status: func(ctx context.Context) (kb.Status, error) {
		st, err := eng.Status(ctx)
		st.Device = "GPU: NVIDIA GeForce RTX 3060 (Vulkan0)"
		return st, err
	}}
	base, _ := startServer(t, stub, Options{})
	code, body := call(t, "GET", base+"/api/status", testToken, "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var st Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Device != "GPU: NVIDIA GeForce RTX 3060 (Vulkan0)" {
		t.Errorf("device %q", st.Device)
	}
	if len(st.Folders) != 1 || !st.Folders[0].Watched {
		t.Errorf("folders %+v, want the corpus, watched", st.Folders)
	}
}

// /api/status names the chat model before it is loaded (the one the first
// question loads) and once it answers, the device it runs on, the loaded
// embedding model, and the knowledge base's last index run.
func TestStatusNamesTheModelsAndTheLastRun(t *testing.T) {
	eng := testEngineWith(t, core.Options{}, func(c *config.Config) { c.Generation.MaxTokens = 8 }, testmodel.TinyChat(), testmodel.Tiny())
	base, _ := startServer(t, eng, Options{})
	status := func() Status {
		t.Helper()
		code, body := call(t, "GET", base+"/api/status", testToken, "")
		var st Status
		if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil {
			t.Fatalf("%d %s", code, body)
		}
		return st
	}
	st := status()
	if st.ChatModel != "tiny-chat-test.gguf" || st.ChatModelLoaded {
		t.Errorf("before the first question: chat model %q, loaded %v", st.ChatModel, st.ChatModelLoaded)
	}
	r := st.LastRun
	if r == nil || r.Folder != corpus(t) || r.Status != "done" || r.FinishedAt == nil || r.FilesIndexed == 0 || r.Chunks == 0 {
		t.Errorf("last run %+v", r)
	}
	if code, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device"}`); code != 200 {
		t.Fatalf("ask: %d %s", code, body)
	}
	st = status()
	if st.ChatModel != "tiny-chat-test.gguf" || !st.ChatModelLoaded || st.Device != "CPU" ||
		!strings.HasPrefix(st.EmbeddingModelLoaded, "tiny-minilm-test-32-") || !strings.HasPrefix(st.EmbeddingModel, "tiny-minilm-test-32-") {
		t.Errorf("after a question: chat model %q (loaded %v), device %q, embedding model %q (loaded %q)",
			st.ChatModel, st.ChatModelLoaded, st.Device, st.EmbeddingModel, st.EmbeddingModelLoaded)
	}
}
