package config

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestUpdateWritesOnlyTheChangedKeys: a writer whose copy is stale (it
// read the file before another writer chose a model and switched the mode
// to offline) changes top_k; the other writer's keys stay as they are.
func TestUpdateWritesOnlyTheChangedKeys(t *testing.T) {
	dirs := Dirs{Config: t.TempDir(), Data: t.TempDir(), State: t.TempDir()}
	os.Unsetenv("CAIRN_NETWORK_MODE")
	base := Default("desktop")
	base.Network.Mode = "online"
	if err := Save(dirs, base); err != nil {
		t.Fatal(err)
	}
	other := base
	other.Network.Mode, other.Paths.KB = "offline", "work"
	if err := Update(dirs, base, other); err != nil { // `cairn network offline`, another knowledge base
		t.Fatal(err)
	}
	mine := base
	mine.Retrieval.TopK = 7 // the window's slider, from its stale copy
	if err := Update(dirs, base, mine); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if back.Network.Mode != "offline" || back.Paths.KB != "work" || back.Retrieval.TopK != 7 {
		t.Errorf("mode %s, kb %s, top_k %d; want offline, work, 7", back.Network.Mode, back.Paths.KB, back.Retrieval.TopK)
	}
}

// TestTwoProcessesUpdateTheSettingsAtOnce: this test's binary, started
// again as a second process, changes answer.top_k forty times while this
// one changes retrieval.top_k forty times, each from its own copy; the
// file ends with both last values (without the merge and the lock one
// process's saves undo the other's).
func TestTwoProcessesUpdateTheSettingsAtOnce(t *testing.T) {
	if dir := os.Getenv("CAIRN_TEST_UPDATE_DIR"); dir != "" {
		writeMany(t, Dirs{Config: dir, Data: dir, State: dir}, func(c *Config, i int) { c.Answer.TopK = 1 + i%10 })
		return
	}
	dir := t.TempDir()
	dirs := Dirs{Config: dir, Data: dir, State: dir}
	if err := Save(dirs, Default("desktop")); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestTwoProcessesUpdateTheSettingsAtOnce$", "-test.count=1")
	child.Env = append(os.Environ(), "CAIRN_TEST_UPDATE_DIR="+dir)
	out := make(chan error, 1)
	var childOut []byte
	go func() {
		var err error
		childOut, err = child.CombinedOutput()
		out <- err
	}()
	writeMany(t, dirs, func(c *Config, i int) { c.Retrieval.TopK = 11 + i%20 })
	if err := <-out; err != nil {
		t.Fatalf("second process: %v\n%s", err, childOut)
	}
	back, err := Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if back.Retrieval.TopK != 11+39%20 || back.Answer.TopK != 1+39%10 {
		t.Errorf("retrieval.top_k %d (want %d), answer.top_k %d (want %d)", back.Retrieval.TopK, 11+39%20, back.Answer.TopK, 1+39%10)
	}
}

// writeMany changes the settings forty times through Update, each time
// from the copy it saved last, as the window's settings worker does.
func writeMany(t *testing.T, dirs Dirs, set func(*Config, int)) {
	base, err := Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		c := base
		set(&c, i)
		if err := Update(dirs, base, c); err != nil {
			t.Fatal(fmt.Errorf("update %s: %w", strconv.Itoa(i), err))
		}
		base = c
	}
}
