package netgate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/core/fault"
	"cairn/core/netgate/netgatetest"
)

func newGate(t *testing.T, opt Options) (*Gate, *netgatetest.Dialer) {
	t.Helper()
	rec := &netgatetest.Dialer{Loopback: true}
	if opt.AuditLog == "" {
		opt.AuditLog = filepath.Join(t.TempDir(), "state", "audit.log")
	}
	opt.Dial = rec.Dial
	g, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return g, rec
}

func readAudit(t *testing.T, g *Gate) []Record {
	t.Helper()
	f, err := os.Open(g.AuditLog())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// listener is a TCP server on 127.0.0.1 that accepts and closes.
func listener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func TestOfflineAllowsOnlyThisComputerAndNeverDialsOrResolvesOthers(t *testing.T) {
	_, port, _ := net.SplitHostPort(listener(t))
	cases := []struct {
		addr      string
		allowed   bool
		dialledAs string
	}{
		{"127.0.0.1:" + port, true, "127.0.0.1:" + port},
		{"localhost:" + port, true, "127.0.0.1:" + port}, // dialled by address: no lookup of the name
		{"LOCALHOST.:" + port, true, "127.0.0.1:" + port},
		{"[::1]:1", true, "[::1]:1"}, // allowed; nothing listens there, so the dial itself fails
		{"127.8.9.10:1", true, "127.8.9.10:1"},
		{"192.0.2.1:443", false, ""},
		{"[2001:db8::1]:443", false, ""},
		{"api.example.test:443", false, ""},
		{"foo.localhost:80", false, ""},          // a name: would need a lookup
		{"127.0.0.1.nip.io:80", false, ""},       // looks like loopback, is a name
		{"[::ffff:192.0.2.1]:80", false, ""},     // IPv4-mapped, not loopback
		{"2130706433:80", false, ""},             // 127.0.0.1 as a number: a name to the gate
		{"no-port.example.test", false, ""},      // not host:port
		{"/run/some.sock", false, ""},            // not host:port
		{"[fe80::1%eth0]:80", false, ""},         // link-local is not loopback
		{"[::ffff:127.0.0.1]:" + port, true, ""}, // mapped loopback; dialled as written
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			g, rec := newGate(t, Options{Mode: Offline, Endpoint: "https://api.example.test/v1", Allow: []string{"192.0.2.1"}})
			conn, err := g.DialContext(context.Background(), "tcp", c.addr)
			if conn != nil {
				conn.Close()
			}
			calls := rec.Calls()
			if !c.allowed {
				if !errors.Is(err, ErrBlocked) {
					t.Fatalf("err = %v, want ErrBlocked", err)
				}
				if len(calls) != 0 {
					t.Fatalf("the gate dialled %v for a refused address", calls)
				}
				return
			}
			if errors.Is(err, ErrBlocked) {
				t.Fatalf("refused: %v", err)
			}
			if len(calls) == 0 {
				t.Fatal("allowed but not dialled")
			}
			if c.dialledAs != "" && calls[0] != c.dialledAs {
				t.Errorf("dialled %v, want %s first", calls, c.dialledAs)
			}
		})
	}
}

func TestOnlineAllowsEndpointCatalogueAndAllowList(t *testing.T) {
	g, rec := newGate(t, Options{
		Mode:     Online,
		Endpoint: "https://api.example.test/v1",
		Catalog:  CatalogHosts(),
		Allow:    []string{"mirror.example.test:8443", "*.cdn.example.test", "192.0.2.7", "https://hub.example.test:9000/x"},
	})
	cases := map[string]bool{
		"api.example.test:443":           true,
		"API.EXAMPLE.TEST.:443":          true,
		"api.example.test:80":            false, // the endpoint is https: port 443 only
		"huggingface.co:443":             true,
		"cdn-lfs.huggingface.co:443":     true,
		"cas-bridge.xethub.hf.co:443":    true,
		"evilhuggingface.co:443":         false,
		"mirror.example.test:8443":       true,
		"mirror.example.test:443":        false,
		"a.cdn.example.test:443":         true,
		"cdn.example.test:443":           false, // *.domain means its subdomains
		"192.0.2.7:22":                   true,
		"[::ffff:192.0.2.7]:22":          true,
		"192.0.2.1:443":                  false,
		"[2001:db8::1]:443":              false,
		"hub.example.test:9000":          true,
		"hub.example.test:443":           false,
		"other.example.test:443":         false,
		"api.example.test.evil.test:443": false,
		"localhost:1":                    true,
	}
	for addr, want := range cases {
		err := g.Check("test", addr)
		if got := err == nil; got != want {
			t.Errorf("%s: allowed %v, want %v (%v)", addr, got, want, err)
		}
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("Check dialled %v", calls)
	}
	want := []string{"api.example.test:443", "huggingface.co", "*.huggingface.co", "*.hf.co", "mirror.example.test:8443",
		"*.cdn.example.test", "192.0.2.7", "hub.example.test:9000"}
	if got := g.Allowed(); !slices.Equal(got, want) {
		t.Errorf("Allowed() = %q, want %q", got, want)
	}
}

// TestTeamAllowsOnlyTheClusterAndDecidesBeforeDialling: team mode lets
// through this computer and the cluster's host and port, nothing else (not
// the answer endpoint, the catalogue or network.allow), and a refused
// address is never dialled.
func TestTeamAllowsOnlyTheClusterAndDecidesBeforeDialling(t *testing.T) {
	g, rec := newGate(t, Options{
		Mode:     Team,
		Endpoint: "https://api.example.test/v1",
		Catalog:  CatalogHosts(),
		Cluster:  []string{"https://weaviate.example.test", "http://10.0.0.7:8080"},
		Allow:    []string{"mirror.example.test"},
	})
	cases := map[string]bool{
		"weaviate.example.test:443":   true,
		"WEAVIATE.example.test.:443":  true,
		"weaviate.example.test:80":    false, // https: port 443 only
		"10.0.0.7:8080":               true,
		"10.0.0.7:50051":              false, // the gRPC port is not the cluster's URL
		"api.example.test:443":        false, // the answer endpoint is online mode's
		"huggingface.co:443":          false,
		"mirror.example.test:443":     false,
		"x.weaviate.example.test:443": false,
		"127.0.0.1:8080":              true,
	}
	var be *BlockedError
	for addr, want := range cases {
		err := g.Check("team store", addr)
		if got := err == nil; got != want {
			t.Errorf("%s: allowed %v, want %v (%v)", addr, got, want, err)
		}
		if !want && (!errors.As(err, &be) || !strings.Contains(be.Reason, "team mode allows only this computer and the team's cluster")) {
			t.Errorf("%s: refusal %v", addr, err)
		}
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("Check dialled %v", calls)
	}
	if _, err := g.DialContext(context.Background(), "tcp", "api.example.test:443"); !errors.Is(err, ErrBlocked) {
		t.Errorf("dial of the endpoint in team mode: %v", err)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("a refused address was dialled: %v", calls)
	}
	if got := g.Cluster(); !slices.Equal(got, []string{"weaviate.example.test:443", "10.0.0.7:8080"}) {
		t.Errorf("Cluster() = %q", got)
	}

	// Online mode allows the cluster too; offline only this computer, and
	// its refusal says team mode would allow the cluster.
	if err := g.SetMode(Online); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"weaviate.example.test:443", "api.example.test:443", "mirror.example.test:443"} {
		if err := g.Check("test", addr); err != nil {
			t.Errorf("online: %s refused: %v", addr, err)
		}
	}
	if err := g.SetMode(Offline); err != nil {
		t.Fatal(err)
	}
	if err := g.Check("team store", "weaviate.example.test:443"); !errors.As(err, &be) || !strings.Contains(be.Hint, "`cairn network team`") {
		t.Errorf("offline: %v, want a refusal whose hint names `cairn network team`", err)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

func TestAdminAllowsEverythingAndRecordsIt(t *testing.T) {
	g, rec := newGate(t, Options{Mode: Admin})
	rec.Route("anything.example.test:443", listener(t))
	c, err := g.DialContext(context.Background(), "tcp", "anything.example.test:443")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if calls := rec.Calls(); !slices.Equal(calls, []string{"anything.example.test:443"}) {
		t.Errorf("dialled %v", calls)
	}
	recs := readAudit(t, g)
	if len(recs) != 1 || recs[0].Decision != DecisionAllowed || recs[0].Mode != Admin || recs[0].Addr != "anything.example.test:443" ||
		recs[0].Purpose != "dial" || recs[0].Reason != "admin mode allows every host" {
		t.Errorf("audit %+v", recs)
	}
}

func TestAuditLogRecordsEveryDecisionWithoutPathsOrCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	g, rec := newGate(t, Options{Mode: Online, Allow: []string{"api.example.test"}, Now: func() time.Time { return now }})
	rec.Route("api.example.test:80", srv.Listener.Addr().String())
	client := g.HTTPClient("answer")

	req, _ := http.NewRequest("GET", "http://api.example.test/v1/secret-path?api_key=sk-verysecret", nil)
	req.Header.Set("Authorization", "Bearer sk-verysecret")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = client.Get("https://192.0.2.1/other-path?token=abc")
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("err = %v", err)
	}

	raw, err := os.ReadFile(g.AuditLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"secret", "sk-", "path", "token", "abc", "Bearer"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the audit log contains %q:\n%s", leak, raw)
		}
	}
	st, err := os.Stat(g.AuditLog())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	want := []Record{
		{Time: now, Mode: Online, Addr: "api.example.test:80", Purpose: "answer", Decision: DecisionAllowed, Reason: "online mode: network.allow"},
		{Time: now, Mode: Online, Addr: "192.0.2.1:443", Purpose: "answer", Decision: DecisionRefused,
			Reason: "online mode allows only this computer, the answer endpoint, the team's cluster, the model catalogue and network.allow"},
	}
	if got := readAudit(t, g); !slices.Equal(got, want) {
		t.Errorf("audit\n got %+v\nwant %+v", got, want)
	}
	if calls := rec.Calls(); !slices.Equal(calls, []string{"api.example.test:80"}) {
		t.Errorf("dialled %v", calls)
	}
	wantLine := `{"time":"2026-11-21T10:00:00Z","mode":"online","addr":"api.example.test:80","purpose":"answer","decision":"allowed","reason":"online mode: network.allow"}`
	if first, _, _ := strings.Cut(string(raw), "\n"); first != wantLine {
		t.Errorf("first line\n got %s\nwant %s", first, wantLine)
	}
}

func TestBlockedErrorSaysWhatAndHowToAllowIt(t *testing.T) {
	g, _ := newGate(t, Options{Mode: Offline, Endpoint: "https://api.example.test/v1"})
	err := g.Check("answer", "api.example.test:443")
	var be *BlockedError
	if !errors.As(err, &be) || !errors.Is(err, ErrBlocked) {
		t.Fatalf("err %T %v", err, err)
	}
	want := "the network gate (offline mode) refused a connection to api.example.test:443 for answer: " +
		"offline mode allows only this computer (localhost, 127.0.0.0/8, ::1)"
	wantFix := "switch the network gate to online: run `cairn network online`, or pick online under Network gate in the Engineering tab [NET-001]"
	if err.Error() != want || fault.FixLine(err) != wantFix || fault.CodeOf(fmt.Errorf("answer: %w", err)) != fault.NetBlocked {
		t.Errorf("message\n got %s\nwant %s\nfix\n got %s\nwant %s", err, want, fault.FixLine(err), wantFix)
	}
	err = g.Check("answer", "192.0.2.1:443")
	if !strings.Contains(fault.FixLine(err), "add the host to network.allow in the settings file and switch the network gate to online") {
		t.Errorf("a host online mode would not allow either: %v, fix %s", err, fault.FixLine(err))
	}
	g.SetMode(Online)
	err = g.Check("answer", "192.0.2.1:443")
	if !strings.Contains(err.Error(), "(online mode) refused a connection to 192.0.2.1:443") || !strings.Contains(fault.FixLine(err), "`cairn network admin`") {
		t.Errorf("online refusal: %v, fix %s", err, fault.FixLine(err))
	}
}

func TestHTTPClientIgnoresEnvironmentProxies(t *testing.T) {
	var proxied sync.Mutex
	proxyHits := 0
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Lock()
		proxyHits++
		proxied.Unlock()
		io.WriteString(w, "via proxy")
	}))
	defer proxy.Close()
	direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	defer direct.Close()
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	g, rec := newGate(t, Options{Mode: Online, Allow: []string{"api.example.test"}})
	rec.Route("api.example.test:80", direct.Listener.Addr().String())
	resp, err := g.HTTPClient("test").Get("http://api.example.test/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "direct" || proxyHits != 0 {
		t.Errorf("body %q, proxy hits %d: the request went through the environment's proxy", body, proxyHits)
	}
	if calls := rec.Calls(); !slices.Equal(calls, []string{"api.example.test:80"}) {
		t.Errorf("dialled %v", calls)
	}
}

func TestRedirectToARefusedHostIsBlockedBeforeDialling(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	g, rec := newGate(t, Options{Mode: Offline})
	_, err := g.HTTPClient("models pull").Get(srv.URL + "/model.gguf")
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "refused a connection to 192.0.2.1:80 for models pull") {
		t.Fatalf("err = %v", err)
	}
	if calls := rec.Calls(); !slices.Equal(calls, []string{srv.Listener.Addr().String()}) {
		t.Errorf("dialled %v, want only the first server", calls)
	}
	recs := readAudit(t, g)
	if len(recs) != 2 || recs[0].Decision != DecisionAllowed || recs[1].Decision != DecisionRefused || recs[1].Addr != "192.0.2.1:80" {
		t.Errorf("audit %+v", recs)
	}
}

func TestSwitchingOfflineStopsReuseOfKeptConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	g, rec := newGate(t, Options{Mode: Online, Endpoint: "http://api.example.test"})
	rec.Route("api.example.test:80", srv.Listener.Addr().String())
	client := g.HTTPClient("answer")
	get := func() error {
		resp, err := client.Get("http://api.example.test/v1/models")
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	for i := 0; i < 2; i++ { // the second request reuses the kept connection
		if err := get(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(rec.Calls()); n != 1 {
		t.Fatalf("%d dials for two requests; the connection was not kept, so this test proves nothing", n)
	}
	if err := g.SetMode(Offline); err != nil {
		t.Fatal(err)
	}
	if err := get(); !errors.Is(err, ErrBlocked) {
		t.Fatalf("after switching offline: %v", err)
	}
	if n := len(rec.Calls()); n != 1 {
		t.Errorf("%d dials", n)
	}
	recs := readAudit(t, g)
	if len(recs) != 4 || recs[2].Decision != DecisionSwitched || recs[2].Mode != Offline || recs[2].Reason != "switched from online" ||
		recs[3].Decision != DecisionRefused {
		t.Errorf("audit %+v", recs)
	}
}

func TestSetModeIsSafeWhileConnectionsAreChecked(t *testing.T) {
	g, _ := newGate(t, Options{Mode: Offline, Allow: []string{"api.example.test"}})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				g.SetMode([]Mode{Offline, Online}[j%2])
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				g.Check("test", "api.example.test:443")
				g.Check("test", "192.0.2.1:443")
			}
		}()
	}
	wg.Wait()
	for _, r := range readAudit(t, g) {
		if r.Addr == "192.0.2.1:443" && r.Decision != DecisionRefused {
			t.Fatalf("192.0.2.1 was allowed: %+v", r)
		}
	}
}

func TestAConnectionThatCannotBeRecordedIsNotMade(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "state")
	os.WriteFile(blocker, nil, 0o600) // a file where the state folder should be
	g, rec := newGate(t, Options{Mode: Admin, AuditLog: filepath.Join(blocker, "audit.log")})
	_, err := g.DialContext(context.Background(), "tcp", "127.0.0.1:1")
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "could not write the network audit log") {
		t.Fatalf("err = %v", err)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

// A switch that cannot be recorded does not happen: the caller's report
// of a failed switch is then true.
func TestASwitchThatCannotBeRecordedLeavesTheMode(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "state")
	os.WriteFile(blocker, nil, 0o600) // a file where the state folder should be
	g, _ := newGate(t, Options{Mode: Offline, Allow: []string{"api.example.test"}, AuditLog: filepath.Join(blocker, "audit.log")})
	err := g.SetMode(Online)
	if err == nil || !strings.Contains(err.Error(), "the switch to online could not be recorded: could not write the network audit log") {
		t.Errorf("err = %v", err)
	}
	if g.Mode() != Offline {
		t.Errorf("mode %s after a switch that was not recorded", g.Mode())
	}
	if ok, _ := g.decide(g.Mode(), "api.example.test:443"); ok {
		t.Error("the online allowlist applies after the failed switch")
	}
}

func TestNewRejectsSettingsThatCannotWork(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.log")
	cases := []struct {
		opt  Options
		want string
	}{
		{Options{Mode: "open", AuditLog: log}, `network mode "open": use offline, team, online or admin`},
		{Options{Mode: Team, AuditLog: log, Cluster: []string{"weaviate.example.test:8080"}}, `store.url "weaviate.example.test:8080": not an http or https URL`},
		{Options{Mode: Online, AuditLog: log, Allow: []string{"example.test/path"}}, `network.allow entry "example.test/path": not a host`},
		{Options{Mode: Online, AuditLog: log, Endpoint: "ftp://x.example.test"}, `network.endpoint "ftp://x.example.test": not an http or https URL`},
		{Options{Mode: Online}, "no audit log path"},
	}
	for _, c := range cases {
		if _, err := New(c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.opt, err, c.want)
		}
	}
}

func TestRedactURLHidesCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example.test/v1":                   "https://api.example.test/v1",
		"https://ann:s3cret@api.example.test/v1":        "https://xxxxx@api.example.test/v1",
		"https://sk-tok3n@api.example.test:8443/v1?q=1": "https://xxxxx@api.example.test:8443/v1?q=1",
		"https://ann:s3 cret@api.example.test":          "https://xxxxx@api.example.test", // does not parse
		"http://api.example.test/a@b":                   "http://api.example.test/a@b",    // "@" in the path only
		"api.example.test":                              "api.example.test",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModesInOrderAndWhichSwitchesOpen(t *testing.T) {
	if got := Modes(); !slices.Equal(got, []Mode{Offline, Team, Online, Admin}) {
		t.Errorf("modes %v", got)
	}
	for _, c := range []struct {
		from, to Mode
		opens    bool
	}{{Offline, Online, true}, {Online, Admin, true}, {Offline, Admin, true}, {Admin, Online, false}, {Online, Offline, false}, {Online, Online, false},
		{Offline, Team, true}, {Team, Online, true}, {Online, Team, false}, {Team, Offline, false}} {
		if got := c.from.Opens(c.to); got != c.opens {
			t.Errorf("%s -> %s opens: %v", c.from, c.to, got)
		}
	}
}
