package serve

import (
	"context"
	"encoding/json"
	"testing"

	"cairn/core/kb"
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
