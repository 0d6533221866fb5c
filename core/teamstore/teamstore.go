// Package teamstore keeps a knowledge base in a team's Weaviate cluster
// (store.backend weaviate): the sibling of core/store, which keeps one in a
// SQLite file. It speaks Weaviate's REST and GraphQL API over an HTTP client
// the caller gives (the network gate's), so every request is gated and
// audited like any other connection, and it links nothing of Weaviate's.
//
// Three classes hold a knowledge base, named after Options.Collection:
//   - <C>Chunk: one object per chunk, its text, heading trail, title, path,
//     page, lines, ordinal and the fingerprint of the document version it
//     came from, with the chunk's embedding as its vector;
//   - <C>Document: one per file, its fingerprint (size, mtime, hash), written
//     after its chunks, so that it is the file's commit mark;
//   - <C>Lease: one per folder being indexed, so that two indexers do not
//     feed the same folder at once.
//
// Object ids are UUIDv5 of the folder, the path and (for chunks) the
// ordinal: writing a file again replaces its objects, so a run that stopped
// half-way is finished by running it again, without duplicates.
package teamstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"cairn/core/netgate"
)

// Options say which cluster and collection to use.
type Options struct {
	URL string // the cluster's base URL (store.url), e.g. http://weaviate.example.org:8080
	// Key is the cluster's API key (CAIRN_WEAVIATE_KEY or the keyring);
	// "" for a cluster that allows anonymous access.
	Key string
	// HTTP makes the requests: the network gate's client in Cairn. nil
	// uses a client of its own, for tools and tests on this computer.
	HTTP *http.Client
	// Collection names the knowledge base's classes: <Collection>Chunk,
	// <Collection>Document and <Collection>Lease. It must start with a
	// capital letter and hold only letters, digits and "_"; default "Cairn".
	Collection string
	// Replicas is the replication factor of classes this store creates;
	// 0 leaves it to the cluster (1 unless it sets a default).
	Replicas int
	// Consistency is the consistency level of writes and reads: ONE,
	// QUORUM or ALL; "" is the cluster's default (QUORUM).
	Consistency string
	// BatchSize is the number of objects per batch request; default 100.
	BatchSize int
	// Timeout bounds each request; default 60 s. A write that a replica's
	// crash stalls fails after it, and writing the file again is safe.
	Timeout time.Duration
}

// Store is a knowledge base in a Weaviate cluster. Its methods are safe for
// concurrent use.
type Store struct {
	base        *url.URL
	key         string
	http        *http.Client
	chunkClass  string
	docClass    string
	leaseClass  string
	replicas    int
	consistency string
	batch       int
	timeout     time.Duration
	blockMax    bool        // see BlockMaxWAND
	metaReady   atomic.Bool // the meta class exists: ensureMeta need not ask again
}

var classPrefix = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,60}$`)

// Open checks the options, asks the cluster whether it is ready, and
// creates the collection's classes that are missing. It does not wait for
// a cluster that is starting.
func Open(ctx context.Context, opt Options) (*Store, error) {
	u, err := url.Parse(strings.TrimRight(opt.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("team store: store.url %q is not an http:// or https:// URL", netgate.RedactURL(opt.URL))
	}
	if u.User != nil {
		return nil, fmt.Errorf("team store: store.url %q holds a user name or password; the key goes in CAIRN_WEAVIATE_KEY", netgate.RedactURL(opt.URL))
	}
	if opt.Collection == "" {
		opt.Collection = "Cairn"
	}
	if !classPrefix.MatchString(opt.Collection) {
		return nil, fmt.Errorf("team store: collection %q: use a name that starts with a capital letter and holds only letters, digits and _", opt.Collection)
	}
	switch opt.Consistency {
	case "", "ONE", "QUORUM", "ALL":
	default:
		return nil, fmt.Errorf("team store: consistency %q: use ONE, QUORUM or ALL", opt.Consistency)
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 100
	}
	if opt.Timeout <= 0 {
		opt.Timeout = time.Minute
	}
	hc := opt.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	s := &Store{base: u, key: opt.Key, http: hc, replicas: opt.Replicas, consistency: opt.Consistency, batch: opt.BatchSize, timeout: opt.Timeout,
		chunkClass: opt.Collection + "Chunk", docClass: opt.Collection + "Document", leaseClass: opt.Collection + "Lease"}
	if err := s.do(ctx, "GET", "/v1/.well-known/ready", nil, nil); err != nil {
		return nil, fmt.Errorf("the team cluster at %s is not ready (check store.url and that the cluster runs; docs/team.md): %w", s.where(), err)
	}
	if err := s.ensureSchema(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// where is the cluster's URL for messages.
func (s *Store) where() string { return s.base.String() }

// ErrNotFound is a 404 from the cluster: a class or object that is not
// there.
var ErrNotFound = errors.New("not found")

// errExists is the cluster's answer to creating an object whose id is
// taken.
var errExists = errors.New("already exists")

// APIError is an answer from the cluster that is not a success.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("the cluster answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// do sends one request; body is sent as JSON and a JSON answer is decoded
// into out. A 404 is ErrNotFound; other failures are *APIError with the
// cluster's message.
func (s *Store) do(parent context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base.String()+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			return fmt.Errorf("no answer within %s: %w", s.timeout, err)
		}
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("read the cluster's answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ErrNotFound
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &APIError{Status: resp.StatusCode, Message: apiMessage(raw) +
			" (set the cluster's API key in CAIRN_WEAVIATE_KEY or the keyring entry cairn/weaviate_key)"}
	case resp.StatusCode >= 300:
		msg := apiMessage(raw)
		if resp.StatusCode == http.StatusUnprocessableEntity && strings.Contains(msg, "already exists") {
			return fmt.Errorf("%w: %s", errExists, msg)
		}
		return &APIError{Status: resp.StatusCode, Message: msg}
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the cluster's answer to %s %s is not what Cairn expects: %w", method, path, err)
	}
	return nil
}

// apiMessage takes the messages out of Weaviate's error body
// ({"error":[{"message":...}]}, or {"message":...}), else the body itself.
func apiMessage(raw []byte) string {
	var e struct {
		Error []struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil {
		var parts []string
		for _, m := range e.Error {
			parts = append(parts, m.Message)
		}
		if e.Message != "" {
			parts = append(parts, e.Message)
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// query adds the consistency level to a write or read path.
func (s *Store) query(path string) string {
	if s.consistency == "" {
		return path
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "consistency_level=" + s.consistency
}
