// Package teamtest starts weaviate-server nodes on 127.0.0.1: one node,
// or a cluster of several that replicate each other. core/teamstore's tests
// and `cairn bench team` share it, so both run the cluster the same way.
package teamtest

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"time"
)

// BinEnv names the weaviate-server binary to start; `make test-team`
// builds it from tools/weaviate (the pinned version) and sets it.
const BinEnv = "CAIRN_WEAVIATE_BIN"

// Key is the API key the nodes accept.
const Key = "cairn-test-key"

// Bin returns the server binary BinEnv names, or an error that says how
// to get one.
func Bin() (string, error) {
	bin := os.Getenv(BinEnv)
	if bin == "" {
		return "", fmt.Errorf("no Weaviate server: set %s to a weaviate-server binary (`make test-team` builds the pinned one in bin/weaviate-server)", BinEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s=%s: %w (`make test-team` builds it)", BinEnv, bin, err)
	}
	return bin, nil
}

// Config is one node's name, data folder, ports and cluster.
type Config struct {
	Name    string
	DataDir string
	HTTP    int
	Gossip  int // the data port is Gossip+1, Weaviate's convention
	Raft    int // the Raft RPC port is Raft+1, as Weaviate expects on one host
	GRPC    int
	// RaftJoin lists every voter as name:raftPort; Expect is how many.
	RaftJoin string
	Expect   int
	// Join is the gossip address of a node to join ("" for the first).
	Join string
	// BlockMaxWAND lets the node keep the keyword index Weaviate makes by
	// default (USE_INVERTED_SEARCHABLE), whose top hits v1.35.2 can get
	// wrong (teamstore.Store.BlockMaxWAND); off, as Cairn's nodes run.
	BlockMaxWAND bool
	// Env holds further settings (NAME=value), after the others, e.g.
	// QUERY_MAXIMUM_RESULTS=20 for a test of work done in rounds.
	Env []string
}

// Node is a weaviate-server process on 127.0.0.1.
type Node struct {
	Config
	Bin string
	URL string

	mu   sync.Mutex
	log  *bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// New returns a node that is not started yet.
func New(bin string, cfg Config) *Node {
	return &Node{Config: cfg, Bin: bin, URL: fmt.Sprintf("http://127.0.0.1:%d", cfg.HTTP), log: &bytes.Buffer{}}
}

// PortPairs returns n pairs of consecutive TCP ports (p, p+1) free on
// 127.0.0.1 at the moment.
func PortPairs(n int) ([]int, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	var out []int
	for tries := 0; len(out) < n; tries++ {
		if tries > 200 {
			return nil, errors.New("no pairs of free ports on 127.0.0.1")
		}
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
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
	return out, nil
}

// SingleNode is the configuration of a one-node cluster in dataDir.
func SingleNode(dataDir string) (Config, error) {
	p, err := PortPairs(4)
	if err != nil {
		return Config{}, err
	}
	return Config{Name: "node1", DataDir: dataDir, HTTP: p[0], Gossip: p[1], Raft: p[2], GRPC: p[3],
		RaftJoin: fmt.Sprintf("node1:%d", p[2]), Expect: 1}, nil
}

// Launch runs the node's process (again, after a kill) with API key
// authentication, no modules and no telemetry. It does not wait.
func (n *Node) Launch() error {
	c := n.Config
	n.cmd = exec.Command(n.Bin, "--host", "127.0.0.1", "--port", strconv.Itoa(c.HTTP), "--scheme", "http")
	n.cmd.Env = append(os.Environ(),
		"PERSISTENCE_DATA_PATH="+c.DataDir,
		"CLUSTER_HOSTNAME="+c.Name,
		// Without it, Raft binds the first IPv6 address and fails with
		// "too many colons in address".
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(c.Gossip),
		"CLUSTER_DATA_BIND_PORT="+strconv.Itoa(c.Gossip+1),
		"CLUSTER_JOIN="+c.Join,
		"RAFT_PORT="+strconv.Itoa(c.Raft),
		"RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(c.Raft+1),
		"RAFT_JOIN="+c.RaftJoin,
		"RAFT_BOOTSTRAP_EXPECT="+strconv.Itoa(c.Expect),
		"GRPC_PORT="+strconv.Itoa(c.GRPC),
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS="+Key,
		"AUTHENTICATION_APIKEY_USERS=cairn",
		"LOG_LEVEL=warning",
		"USE_INVERTED_SEARCHABLE="+strconv.FormatBool(c.BlockMaxWAND),
	)
	n.cmd.Env = append(n.cmd.Env, c.Env...)
	n.cmd.Stdout = lockedWriter{&n.mu, n.log}
	n.cmd.Stderr = lockedWriter{&n.mu, n.log}
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", n.Bin, err)
	}
	done := make(chan struct{})
	n.done = done
	go func() { n.cmd.Wait(); close(done) }()
	return nil
}

// WaitReady waits until the node says it is ready: for a node of a
// cluster, until the cluster has elected its schema's leader.
func (n *Node) WaitReady(within time.Duration) error {
	done := n.done
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(n.URL + "/v1/.well-known/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("%s exited before it was ready:\n%s", n.Name, n.LogTail())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready within %s:\n%s", n.Name, within, n.LogTail())
		}
	}
}

// Start launches the node and waits until it is ready (2 minutes at most).
func (n *Node) Start() error {
	if err := n.Launch(); err != nil {
		return err
	}
	if err := n.WaitReady(2 * time.Minute); err != nil {
		n.Stop()
		return err
	}
	return nil
}

// PID is the process id of the running node, 0 before Launch.
func (n *Node) PID() int {
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// LogTail is the end of what the node wrote.
func (n *Node) LogTail() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.log.String()
	if len(s) > 3000 {
		s = "…" + s[len(s)-3000:]
	}
	return s
}

// Kill ends the node at once (SIGKILL), as a crash or a power cut would.
func (n *Node) Kill() {
	if n.done == nil {
		return
	}
	n.cmd.Process.Kill()
	<-n.done
}

// Stop ends the node: SIGTERM, then SIGKILL after 20 s. It is safe on a
// node that was never started or has ended.
func (n *Node) Stop() {
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

// StartCluster starts count nodes on 127.0.0.1, with data folders
// dir/node1, dir/node2…, that form one cluster (a Raft quorum of all of
// them for the schema), and waits until every node is healthy. On an error
// it stops the nodes it started.
func StartCluster(bin, dir string, count int) ([]*Node, error) {
	p, err := PortPairs(4 * count)
	if err != nil {
		return nil, err
	}
	var voters []string
	for i := range count {
		voters = append(voters, fmt.Sprintf("node%d:%d", i+1, p[4*i+2]))
	}
	nodes := make([]*Node, count)
	stopAll := func() {
		for _, n := range nodes {
			if n != nil {
				n.Stop()
			}
		}
	}
	for i := range nodes {
		cfg := Config{Name: fmt.Sprintf("node%d", i+1), DataDir: filepath.Join(dir, fmt.Sprintf("node%d", i+1)),
			HTTP: p[4*i], Gossip: p[4*i+1], Raft: p[4*i+2], GRPC: p[4*i+3], RaftJoin: strings.Join(voters, ","), Expect: count}
		if i > 0 {
			cfg.Join = fmt.Sprintf("127.0.0.1:%d", p[1])
		}
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			stopAll()
			return nil, err
		}
		nodes[i] = New(bin, cfg)
		// All at once: none is ready before the Raft quorum forms. The
		// others join node1's gossip once, at start, so it must listen.
		if err := nodes[i].Launch(); err != nil {
			stopAll()
			return nil, err
		}
		if i == 0 {
			err := poll(60*time.Second, "gossip port of node1", func() (bool, string) {
				c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Gossip), time.Second)
				if err == nil {
					c.Close()
				}
				return err == nil, fmt.Sprint(err)
			})
			if err != nil {
				stopAll()
				return nil, fmt.Errorf("%w\n%s", err, nodes[0].LogTail())
			}
		}
	}
	for _, n := range nodes {
		if err := n.WaitReady(2 * time.Minute); err != nil {
			stopAll()
			return nil, err
		}
	}
	err = poll(90*time.Second, fmt.Sprintf("%d healthy nodes", count), func() (bool, string) {
		st, err := Status(nodes[0].URL, "")
		healthy := 0
		for _, n := range st {
			if n.Status == "HEALTHY" {
				healthy++
			}
		}
		return err == nil && healthy == count, fmt.Sprintf("%+v %v", st, err)
	})
	if err != nil {
		stopAll()
		return nil, err
	}
	return nodes, nil
}

// NodeState is one node as GET /v1/nodes describes it.
type NodeState struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Shards []struct {
		Class       string `json:"class"`
		ObjectCount int    `json:"objectCount"`
	} `json:"shards"`
}

// Status is GET /v1/nodes: each node's health and, for class, the objects
// each of its shards holds.
func Status(url, class string) ([]NodeState, error) {
	q := "/v1/nodes"
	if class != "" {
		q += "/" + class + "?output=verbose"
	}
	req, err := http.NewRequest("GET", url+q, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Nodes []NodeState `json:"nodes"`
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s", q, resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.Nodes, err
}

// poll calls ok every half second until it says done, for d at most.
func poll(d time.Duration, what string, ok func() (bool, string)) error {
	deadline := time.Now().Add(d)
	for {
		done, state := ok()
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s within %s: %s", what, d, state)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
