package teamstore

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binEnv names the weaviate-server binary the cluster tests start; `make
// test-team` builds it from tools/weaviate (the pinned version) and sets it.
// Without it those tests are skipped, so `go test ./...` needs no cluster.
const binEnv = "CAIRN_WEAVIATE_BIN"

// testKey is the API key the test nodes accept.
const testKey = "cairn-test-key"

// node is a weaviate-server process on 127.0.0.1.
type node struct {
	name    string
	url     string
	dataDir string
	log     *bytes.Buffer
	cmd     *exec.Cmd
	done    chan struct{}
}

// weaviateBin returns the server binary, or skips the test saying how to
// get one.
func weaviateBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(binEnv)
	if bin == "" {
		t.Skipf("no Weaviate server to test against: set %s to a weaviate-server binary, or run `make test-team`, which builds the pinned one and runs these tests", binEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s=%s: %v (`make test-team` builds it)", binEnv, bin, err)
	}
	return bin
}

// freePorts returns n TCP ports free on 127.0.0.1 at the moment.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// startNode starts one single-node cluster on 127.0.0.1 with API key
// authentication, no modules and no telemetry, and waits until it is
// ready. It is stopped when the test ends.
func startNode(t testing.TB, bin string) *node {
	t.Helper()
	p := freePorts(t, 6)
	n := &node{name: "node1", url: fmt.Sprintf("http://127.0.0.1:%d", p[0]), dataDir: t.TempDir(), log: &bytes.Buffer{}, done: make(chan struct{})}
	n.cmd = exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(p[0]), "--scheme", "http")
	n.cmd.Env = append(os.Environ(),
		"PERSISTENCE_DATA_PATH="+n.dataDir,
		"CLUSTER_HOSTNAME="+n.name,
		// Without it, Raft binds the first IPv6 address and fails with
		// "too many colons in address".
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(p[1]),
		"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(p[2]),
		"RAFT_PORT="+strconv.Itoa(p[3]),
		"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(p[4]),
		"RAFT_BOOTSTRAP_EXPECT=1",
		"GRPC_PORT="+strconv.Itoa(p[5]),
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS="+testKey,
		"AUTHENTICATION_APIKEY_USERS=cairn",
		"LOG_LEVEL=warning",
	)
	var mu sync.Mutex
	n.cmd.Stdout = lockedWriter{&mu, n.log}
	n.cmd.Stderr = lockedWriter{&mu, n.log}
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { n.cmd.Wait(); close(n.done) }()
	t.Cleanup(func() { n.stop(t) })
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(n.url + "/v1/.well-known/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n
			}
		}
		select {
		case <-n.done:
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("weaviate-server exited before it was ready:\n%s", tail(n.log.String(), 3000))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("weaviate-server was not ready within 90 s:\n%s", tail(n.log.String(), 3000))
		}
	}
}

// stop ends the node: SIGTERM, then SIGKILL after 20 s.
func (n *node) stop(t testing.TB) {
	select {
	case <-n.done:
		return
	default:
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(20 * time.Second):
		n.cmd.Process.Kill()
		<-n.done
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
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
	opt.URL = shared.n.url
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
