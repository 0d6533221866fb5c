package models

import (
	"os"
	"path/filepath"
	"testing"

	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/llm"
	"cairn/core/llm/testmodel"
)

// TestResolveListAndInspect: a models folder with an embedding model, a
// chat model and a file that is no model; what each setting resolves to.
func TestResolveListAndInspect(t *testing.T) {
	dir := t.TempDir()
	emb, chat := filepath.Join(dir, "a-embed.gguf"), filepath.Join(dir, "b-chat.gguf")
	if err := testmodel.Write(emb, testmodel.Tiny()); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.Write(chat, testmodel.TinyChat()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "c-broken.gguf"), []byte("not a model"), 0o600)
	c := config.Config{Paths: config.Paths{ModelsDir: dir}}

	all, err := List(c, []string{chat})
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %v %+v", err, all)
	}
	if all[0].Kind != llm.KindEmbedding || all[0].Dim == 0 || all[1].Kind != llm.KindGeneration || !all[1].InUse || all[2].Err == "" {
		t.Errorf("list: %+v", all)
	}
	for _, tc := range []struct {
		setting string
		kind    llm.Kind
		want    string
	}{
		{"", llm.KindEmbedding, emb},   // the first of its kind in the folder
		{"", llm.KindGeneration, chat}, // the broken file is passed over
		{None, llm.KindGeneration, ""},
		{"b-chat.gguf", llm.KindGeneration, chat}, // a file name in the folder
		{chat, llm.KindGeneration, chat},          // a path
	} {
		if got, err := Resolve(c, tc.setting, tc.kind); err != nil || got != tc.want {
			t.Errorf("Resolve(%q, %s) = %q, %v; want %q", tc.setting, tc.kind, got, err, tc.want)
		}
	}
	if _, err := Resolve(c, "gone.gguf", llm.KindGeneration); fault.CodeOf(err) != fault.ModelMissing {
		t.Errorf("a missing file: %v", err)
	}
	if mi, err := Inspect(emb); err != nil || mi.Kind != llm.KindEmbedding {
		t.Errorf("inspect: %+v %v", mi, err)
	}
	if _, err := Inspect(filepath.Join(dir, "c-broken.gguf")); fault.CodeOf(err) != fault.ModelNotGGUF {
		t.Errorf("inspect a broken file: %v", err)
	}
}
