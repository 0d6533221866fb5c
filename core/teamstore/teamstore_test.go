package teamstore

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/fault"
	"cairn/core/netgate"
	"cairn/core/netgate/netgatetest"
	"cairn/core/teamstore/teamtest"
)

// TestIDsAreUUIDv5AndStable: the UUIDv5 construction matches RFC 9562's
// example, and chunk ids depend on folder, path and ordinal only.
func TestIDsAreUUIDv5AndStable(t *testing.T) {
	dns := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	if got := uuidString(uuid5(dns, "www.example.com")); got != "2ed6657d-e927-568b-95e1-2665a8aea6a2" {
		t.Errorf("uuid5(DNS, www.example.com) = %s", got)
	}
	a := ChunkID("share", "docs/a.md", 3)
	if a != ChunkID("share", "docs/a.md", 3) || len(a) != 36 || a[14] != '5' {
		t.Errorf("ChunkID = %s", a)
	}
	seen := map[string]bool{}
	for _, id := range []string{a, ChunkID("share", "docs/a.md", 4), ChunkID("share/docs", "a.md", 3), ChunkID("other", "docs/a.md", 3),
		DocumentID("share", "docs/a.md"), leaseID("share")} {
		if seen[id] {
			t.Errorf("id %s repeats", id)
		}
		seen[id] = true
	}
}

// TestQueriesAreQuotedSafely: text reaches GraphQL as a string literal, so
// quotes and braces in a question cannot change the query.
func TestQueriesAreQuotedSafely(t *testing.T) {
	if got := gqlString(`a "b" } { c\d` + "\n"); got != `"a \"b\" } { c\\d\n"` {
		t.Errorf("gqlString = %s", got)
	}
	w := gqlWhere([]cond{eqText("folder", `x"y`), gteInt("ordinal", 3)})
	if w != `{operator: And, operands: [{path: ["folder"], operator: Equal, valueText: "x\"y"}, {path: ["ordinal"], operator: GreaterThanEqual, valueInt: 3}]}` {
		t.Errorf("gqlWhere = %s", w)
	}
	if v, err := gqlVector([]float32{0.5, -1, 1e-3}); err != nil || v != "[0.5,-1,0.001]" {
		t.Errorf("gqlVector = %s, %v", v, err)
	}
}

// TestOpenRefusesOptionsThatCannotWork, before any connection is made.
func TestOpenRefusesOptionsThatCannotWork(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{URL: "weaviate:8080"}, `store.url "weaviate:8080" is not an http:// or https:// URL`},
		{Options{URL: "http://ann:s3cret@127.0.0.1:1"}, `store.url "http://xxxxx@127.0.0.1:1" holds a user name or password`},
		{Options{URL: "http://127.0.0.1:1", Collection: "lower"}, `collection "lower": use a name that starts with a capital letter`},
		{Options{URL: "http://127.0.0.1:1", Consistency: "SOME"}, `consistency "SOME": use ONE, QUORUM or ALL`},
	} {
		if _, err := Open(context.Background(), c.opt); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}

// TestTheGateDecidesBeforeTheStoreConnects: through the gate's client, a
// cluster that the mode does not allow is refused before anything is
// dialled or looked up, with the gate's refusal (NET-001) in the error;
// team mode lets the same cluster through.
func TestTheGateDecidesBeforeTheStoreConnects(t *testing.T) {
	rec := &netgatetest.Dialer{}
	g, err := netgate.New(netgate.Options{Mode: netgate.Offline, Cluster: []string{"http://weaviate.example.test:8080"},
		AuditLog: filepath.Join(t.TempDir(), "audit.log"), Dial: rec.Dial})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{URL: "http://weaviate.example.test:8080", HTTP: g.HTTPClient("team store")})
	if !errors.Is(err, netgate.ErrBlocked) || fault.CodeOf(err) != fault.NetBlocked ||
		!strings.Contains(err.Error(), "the team cluster at http://weaviate.example.test:8080 is not ready") {
		t.Fatalf("offline: %v", err)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Fatalf("the gate dialled %v in offline mode", calls)
	}
	if err := g.SetMode(netgate.Team); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{URL: "http://weaviate.example.test:8080", HTTP: g.HTTPClient("team store")})
	if errors.Is(err, netgate.ErrBlocked) || !slices.Equal(rec.Calls(), []string{"weaviate.example.test:8080"}) {
		t.Fatalf("team mode: %v, dialled %v", err, rec.Calls())
	}
}

// TestARequestThatGetsNoAnswerFailsAfterTheTimeout: a cluster that holds
// a request (as a coordinator waiting for a killed replica does) fails it
// after Options.Timeout, saying so, instead of hanging the indexer.
func TestARequestThatGetsNoAnswerFailsAfterTheTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	_, err := Open(context.Background(), Options{URL: srv.URL, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
}

// TestBlockMaxWANDIsNoticed: a node left with Weaviate's default keyword
// index (BlockMax WAND) is noticed, on a class created then and on one
// found existing; Cairn's nodes (USE_INVERTED_SEARCHABLE=false) are not.
func TestBlockMaxWANDIsNoticed(t *testing.T) {
	if s := testStore(t, Options{}); s.BlockMaxWAND() {
		t.Error("a node with USE_INVERTED_SEARCHABLE=false reported BlockMax WAND")
	}
	bin := weaviateBin(t)
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.BlockMaxWAND = true
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"created", "found"} {
		s, err := Open(context.Background(), Options{URL: n.URL, Key: testKey})
		if err != nil {
			t.Fatal(err)
		}
		if !s.BlockMaxWAND() {
			t.Errorf("class %s on a default node: BlockMax WAND not noticed", what)
		}
	}
}
