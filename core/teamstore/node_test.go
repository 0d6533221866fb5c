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
	cfg  nodeConfig
	bin  string
	url  string
	mu   sync.Mutex
	log  *bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// nodeConfig is one node's name, ports and cluster.
type nodeConfig struct {
	name    string
	dataDir string
	http    int
	gossip  int // the data port is gossip+1, Weaviate's convention
	raft    int // the Raft RPC port is raft+1, as Weaviate expects on one host
	grpc    int
	// raftJoin lists every voter as name:raftPort; expect is how many.
	raftJoin string
	expect   int
	// join is the gossip address of a node to join ("" for the first).
	join string
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

// portPairs returns n pairs of consecutive TCP ports (p, p+1) free on
// 127.0.0.1 at the moment.
func portPairs(t testing.TB, n int) []int {
	t.Helper()
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	var out []int
	for tries := 0; len(out) < n; tries++ {
		if tries > 200 {
			t.Fatal("no pairs of free ports on 127.0.0.1")
		}
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := a.Addr().(*net.TCPAddr).Port
		b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1))
		if err != nil {
			a.Close()
			continue
		}
		held = append(held, a, b)
		out = append(out, p)
	}
	return out
}

// singleNode is the configuration of a one-node cluster.
func singleNode(t testing.TB) nodeConfig {
	p := portPairs(t, 4)
	return nodeConfig{name: "node1", dataDir: t.TempDir(), http: p[0], gossip: p[1], raft: p[2], grpc: p[3],
		raftJoin: fmt.Sprintf("node1:%d", p[2]), expect: 1}
}

// startNode starts a node on 127.0.0.1 with API key authentication, no
// modules and no telemetry, and waits until it is ready. It is stopped
// when the test ends.
func startNode(t testing.TB, bin string, cfg nodeConfig) *node {
	t.Helper()
	n := &node{cfg: cfg, bin: bin, url: fmt.Sprintf("http://127.0.0.1:%d", cfg.http), log: &bytes.Buffer{}}
	t.Cleanup(func() { n.stop() })
	n.launch(t)
	n.waitReady(t)
	return n
}

// launch runs the node's process (again, after a kill).
func (n *node) launch(t testing.TB) {
	t.Helper()
	c := n.cfg
	n.cmd = exec.Command(n.bin, "--host", "127.0.0.1", "--port", strconv.Itoa(c.http), "--scheme", "http")
	n.cmd.Env = append(os.Environ(),
		"PERSISTENCE_DATA_PATH="+c.dataDir,
		"CLUSTER_HOSTNAME="+c.name,
		// Without it, Raft binds the first IPv6 address and fails with
		// "too many colons in address".
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(c.gossip),
		"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(c.gossip+1),
		"CLUSTER_JOIN="+c.join,
		"RAFT_PORT="+strconv.Itoa(c.raft),
		"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(c.raft+1),
		"RAFT_JOIN="+c.raftJoin,
		"RAFT_BOOTSTRAP_EXPECT="+strconv.Itoa(c.expect),
		"GRPC_PORT="+strconv.Itoa(c.grpc),
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS="+testKey,
		"AUTHENTICATION_APIKEY_USERS=cairn",
		"LOG_LEVEL=warning",
	)
	n.cmd.Stdout = lockedWriter{&n.mu, n.log}
	n.cmd.Stderr = lockedWriter{&n.mu, n.log}
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", n.bin, err)
	}
	done := make(chan struct{})
	n.done = done
	go func() { n.cmd.Wait(); close(done) }()
}

// waitReady waits until the node says it is ready: for a node of a
// cluster, until the cluster has elected its schema's leader.
func (n *node) waitReady(t testing.TB) {
	t.Helper()
	c, done := n.cfg, n.done
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := http.Get(n.url + "/v1/.well-known/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-done:
			t.Fatalf("%s exited before it was ready:\n%s", c.name, n.logTail())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not ready within 120 s:\n%s", c.name, n.logTail())
		}
	}
}

func (n *node) logTail() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return tail(n.log.String(), 3000)
}

// kill ends the node at once (SIGKILL), as a crash or a power cut would.
func (n *node) kill() {
	n.cmd.Process.Kill()
	<-n.done
}

// stop ends the node: SIGTERM, then SIGKILL after 20 s.
func (n *node) stop() {
	if n.done == nil {
		return
	}
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
		shared.n = startNode(st, bin, singleNode(st))
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
