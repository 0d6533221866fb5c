package teamstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// testKey is the API key the test nodes accept.
const testKey = teamtest.Key

// node is a weaviate-server process on 127.0.0.1 (see teamtest).
type node = teamtest.Node

// weaviateBin returns the server binary, or skips the test saying how to
// get one. Without it the cluster tests are skipped, so `go test ./...`
// needs no cluster.
func weaviateBin(t testing.TB) string {
	t.Helper()
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
	}
	return bin
}

// startNode starts a one-node cluster in a temporary folder and waits
// until it is ready. It is stopped when the test ends.
func startNode(t testing.TB, bin string) *node {
	t.Helper()
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	return n
}

// sharedNode is one node for every test of the package that needs one;
// each test uses a collection of its own.
var shared struct {
	once sync.Once
	n    *node
	err  string
}

// testStore opens a store in a fresh collection on the shared node.
func testStore(t *testing.T, opt Options) *Store {
	t.Helper()
	bin := weaviateBin(t)
	shared.once.Do(func() {
		st := &stopper{}
		stopShared = st.run
		defer func() {
			if r := recover(); r != nil {
				shared.err = fmt.Sprint(r)
			}
		}()
		shared.n = startNode(st, bin)
	})
	if shared.n == nil {
		t.Fatalf("the shared Weaviate node did not start: %s", shared.err)
	}
	opt.URL = shared.n.URL
	if opt.Key == "" {
		opt.Key = testKey
	}
	if opt.Collection == "" {
		opt.Collection = "T" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	}
	s, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stopShared stops the shared node; TestMain calls it after every test.
var stopShared = func() {}

func TestMain(m *testing.M) {
	code := m.Run()
	stopShared()
	os.Exit(code)
}

// stopper is a testing.TB for the shared node, which outlives the test
// that started it: its cleanups run from TestMain, and a failure to start
// panics with the server's log (there is no test to fail).
type stopper struct {
	testing.TB
	dir      string
	cleanups []func()
}

func (s *stopper) Helper() {}
func (s *stopper) TempDir() string {
	if s.dir == "" {
		d, err := os.MkdirTemp("", "cairn-weaviate-")
		if err != nil {
			panic(err)
		}
		s.dir = d
	}
	return s.dir
}
func (s *stopper) Cleanup(f func())                  { s.cleanups = append(s.cleanups, f) }
func (s *stopper) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (s *stopper) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (s *stopper) Skipf(format string, args ...any)  { panic(fmt.Sprintf(format, args...)) }
func (s *stopper) run() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	if s.dir != "" {
		os.RemoveAll(filepath.Clean(s.dir))
	}
}
