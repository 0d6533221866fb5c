package bench

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// allocEnv makes the test binary, started as a child, hold this many MB.
const allocEnv = "CAIRN_BENCH_TEST_ALLOC_MB"

func TestMain(m *testing.M) {
	if os.Getenv(allocEnv) != "" {
		touch(64 << 20)
		time.Sleep(300 * time.Millisecond)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// touch allocates n bytes and writes every page, so they are resident.
func touch(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b
}

func TestChildPeakMemoryIsTheChildsOwn(t *testing.T) {
	// The parent holds 400 MB, as the bench process does with a model
	// loaded; the child's 64 MB must not read as the parent's size.
	held := touch(400 << 20)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), allocEnv+"=64")
	mb, err := runPeakRSS(cmd)
	runtime.KeepAlive(held)
	if err != nil {
		t.Fatal(err)
	}
	if mb < 64 || mb > 300 {
		t.Errorf("child peak %.0f MB, want about 64 MB plus the runtime", mb)
	}
}
