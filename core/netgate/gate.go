// Package netgate is Cairn's one door to the network. Every outbound
// connection goes through a Gate, which decides from the destination's host
// and port alone, before anything is dialled or resolved, and writes each
// decision to an audit log.
//
// Modes:
//   - offline (the default): this computer only: the literal name
//     "localhost", 127.0.0.0/8 and ::1. Any other name is refused without
//     being looked up, since a DNS query is itself a leak.
//   - team: this computer and the team's Weaviate cluster (store.url) only:
//     for a desktop that searches a shared knowledge base and nothing else.
//   - online: also the answer endpoint's host, the model catalogue's hosts,
//     the hosts of network.allow and the team's cluster.
//   - admin: anything, every connection logged.
package netgate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Mode is how much of the network the gate lets through.
type Mode string

// The gate's modes, from the strictest.
const (
	Offline Mode = "offline"
	Team    Mode = "team"
	Online  Mode = "online"
	Admin   Mode = "admin"
)

// ModeInfo is what every surface (the window's picker, notice and status
// badge, `cairn network`, `cairn doctor`, the settings' check, the local
// API) says about a mode: one table, so that a mode is never described in
// one place and forgotten in another.
type ModeInfo struct {
	Mode Mode
	// Reaches says what the mode lets through besides this computer, as
	// "Cairn may connect to …" ends; empty for offline.
	Reaches string
	// Leaves is true when connections may leave this computer.
	Leaves bool
	// Unrestricted is true when any host may be reached (admin).
	Unrestricted bool
	// Notice is the sentence said once the gate has switched to the mode.
	Notice string
}

// modes is the table, from the strictest.
var modes = []ModeInfo{
	{Mode: Offline,
		Notice: "Network gate: offline. Only this computer can be reached."},
	{Mode: Team, Leaves: true,
		Reaches: "the team's knowledge-base cluster (store.url)",
		Notice:  "Network gate: team. The team's knowledge-base cluster (store.url) can be reached, nothing else; every connection is in the audit log."},
	{Mode: Online, Leaves: true,
		Reaches: "the answer endpoint, the model catalogue, the hosts in network.allow and the team's cluster",
		Notice:  "Network gate: online. The answer endpoint, the model catalogue, network.allow and the team's cluster can be reached; every connection is in the audit log."},
	{Mode: Admin, Leaves: true, Unrestricted: true,
		Reaches: "any host on the network (admin mode is meant for maintenance)",
		Notice:  "Network gate: admin. Any host can be reached, and every connection is in the audit log. Switch back when the maintenance is done."},
}

// Modes are the gate's modes from the strictest: the order a picker shows
// them in.
func Modes() []Mode {
	out := make([]Mode, len(modes))
	for i, mi := range modes {
		out[i] = mi.Mode
	}
	return out
}

// Info is the mode's row of the table; an unknown mode reads as
// unrestricted, the least reassuring thing to say about it.
func (m Mode) Info() ModeInfo {
	for _, mi := range modes {
		if mi.Mode == m {
			return mi
		}
	}
	return ModeInfo{Mode: m, Leaves: true, Unrestricted: true, Reaches: "any host (unknown mode " + string(m) + ")",
		Notice: "Network gate: " + string(m) + "."}
}

// Opens reports whether switching from m to to lets more through: the
// switches a person must confirm.
func (m Mode) Opens(to Mode) bool { return to.rank() > m.rank() }

// ParseMode checks a mode's name.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Modes(), m) {
		return m, nil
	}
	names := make([]string, len(modes))
	for i, mi := range modes {
		names[i] = string(mi.Mode)
	}
	return "", fmt.Errorf("network mode %q: use %s or %s", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// rank orders modes by how much they allow (the table's order); an
// unknown mode ranks as offline (New refuses one).
func (m Mode) rank() int {
	for i, mi := range modes {
		if mi.Mode == m {
			return i
		}
	}
	return 0
}

// catalogHosts are the model catalogue's hosts: huggingface.co serves the
// catalogue's files and redirects downloads to its content servers.
var catalogHosts = []string{"huggingface.co", "*.huggingface.co", "*.hf.co"}

// CatalogHosts returns the default model catalogue's host patterns.
func CatalogHosts() []string { return append([]string(nil), catalogHosts...) }

// DialFunc dials a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Options configure a gate.
type Options struct {
	Mode Mode
	// Endpoint is the online answer endpoint's URL; its host and port are
	// allowed in online mode.
	Endpoint string
	// Catalog are the model catalogue's hosts, allowed in online mode;
	// entries as in Allow.
	Catalog []string
	// Cluster are the URLs of the team's Weaviate cluster (store.url):
	// their hosts and ports are allowed in team and online modes.
	Cluster []string
	// Allow are network.allow's extra hosts for online mode: "host" (any
	// port), "host:port", "*.example.com" (its subdomains), an IP address,
	// or a URL whose host and port count.
	Allow []string
	// AuditLog is the JSON-lines file every decision is appended to
	// (created readable by the user only). Required.
	AuditLog string
	// Dial makes the connections the gate allows; nil uses net.Dialer.
	// Tests inject a recording dialer.
	Dial DialFunc
	// Now stamps the audit records; nil uses time.Now.
	Now func() time.Time
}

// Gate decides which connections may be made and makes them. Its methods
// are safe for concurrent use; the mode can change at any time.
type Gate struct {
	endpoint []rule // the answer endpoint
	cluster  []rule // the team's Weaviate cluster
	catalog  []rule
	allow    []rule
	dial     DialFunc
	audit    *auditLog

	switching sync.Mutex // one SetMode at a time, from its record to the change
	mu        sync.RWMutex
	mode      Mode

	transport *http.Transport // shared by every HTTPClient, so SetMode can drop its idle connections
}

// New builds a gate, checking every setting.
func New(opt Options) (*Gate, error) {
	mode, err := ParseMode(string(opt.Mode))
	if err != nil {
		return nil, err
	}
	if opt.AuditLog == "" {
		return nil, errors.New("network gate: no audit log path given")
	}
	g := &Gate{mode: mode, dial: opt.Dial, audit: newAuditLog(opt.AuditLog, opt.Now)}
	if g.dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		g.dial = d.DialContext
	}
	if opt.Endpoint != "" {
		r, err := endpointRule(opt.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("network.endpoint %q: %w", RedactURL(opt.Endpoint), err)
		}
		g.endpoint = []rule{r}
	}
	for _, s := range opt.Cluster {
		r, err := endpointRule(s)
		if err != nil {
			return nil, fmt.Errorf("store.url %q: %w", RedactURL(s), err)
		}
		g.cluster = append(g.cluster, r)
	}
	for _, s := range opt.Catalog {
		r, err := parseRule(s)
		if err != nil {
			return nil, fmt.Errorf("model catalogue host %q: %w", s, err)
		}
		g.catalog = append(g.catalog, r)
	}
	for _, s := range opt.Allow {
		r, err := parseAllow(s)
		if err != nil {
			return nil, err
		}
		g.allow = append(g.allow, r)
	}
	g.transport = &http.Transport{
		// No proxy: an environment proxy (HTTP_PROXY) on this computer
		// would be a loopback connection the gate allows, and would carry
		// requests to any host past it.
		Proxy:                 nil,
		DialContext:           g.transportDial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return g, nil
}

// Mode returns the current mode.
func (g *Gate) Mode() Mode {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.mode
}

// SetMode switches the mode; connections decided afterwards follow it. A
// request already under way is not cut: an answer being streamed from the
// endpoint continues after a switch to offline, until it ends or is
// cancelled. The switch is recorded first: when the audit log cannot be
// written the mode stays, and the error says so. A stricter mode also
// closes the idle connections kept for reuse, and every new request is
// checked again anyway, so a kept connection is not reused past the
// permission it was opened under.
func (g *Gate) SetMode(m Mode) error {
	m, err := ParseMode(string(m))
	if err != nil {
		return err
	}
	g.switching.Lock()
	defer g.switching.Unlock()
	old := g.Mode()
	if old == m {
		return nil
	}
	if err := g.audit.write(Record{Mode: m, Decision: DecisionSwitched, Reason: "switched from " + string(old)}); err != nil {
		return fmt.Errorf("the switch to %s could not be recorded: %w", m, err)
	}
	g.mu.Lock()
	g.mode = m
	g.mu.Unlock()
	if m.rank() < old.rank() {
		g.transport.CloseIdleConnections()
	}
	return nil
}

// AuditLog is the audit log's path.
func (g *Gate) AuditLog() string { return g.audit.path }

// Allowed lists what online mode allows besides this computer, for
// display: the endpoint, the team's cluster, the catalogue and
// network.allow.
func (g *Gate) Allowed() []string {
	return rulesString(g.endpoint, g.cluster, g.catalog, g.allow)
}

// Cluster lists what team mode allows besides this computer: the team's
// Weaviate cluster.
func (g *Gate) Cluster() []string { return rulesString(g.cluster) }

func rulesString(lists ...[]rule) []string {
	var out []string
	for _, rs := range lists {
		for _, r := range rs {
			out = append(out, r.String())
		}
	}
	return out
}

// Check decides whether a connection to addr ("host:port") may be made
// for purpose (a short word such as "answer" or "models pull"), records
// the decision and returns a *BlockedError when refused. It neither
// resolves nor dials.
func (g *Gate) Check(purpose, addr string) error {
	return g.check(purpose, addr, true)
}

// check decides; with recordAllowed false only refusals are recorded (the
// HTTP client records each request, and its dials repeat the check).
func (g *Gate) check(purpose, addr string, recordAllowed bool) error {
	mode := g.Mode()
	ok, reason := g.decide(mode, addr)
	rec := Record{Mode: mode, Addr: addr, Purpose: purpose, Decision: DecisionAllowed, Reason: reason}
	if !ok {
		rec.Decision = DecisionRefused
		if err := g.audit.write(rec); err != nil {
			reason += " (and " + err.Error() + ")"
		}
		return &BlockedError{Mode: mode, Addr: addr, Purpose: purpose, Reason: reason, Hint: g.hint(mode, addr)}
	}
	if recordAllowed {
		if err := g.audit.write(rec); err != nil {
			// A connection that cannot be recorded is not made.
			return &BlockedError{Mode: mode, Addr: addr, Purpose: purpose, Reason: err.Error(),
				Hint: "make the state folder writable (or free disk space) and try again"}
		}
	}
	return nil
}

// decide is the rule: loopback always, the allowlists online, anything in
// admin mode. Names are compared as written, never resolved.
func (g *Gate) decide(mode Mode, addr string) (bool, string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, "not a host:port address"
	}
	host = normalizeHost(host)
	if isLoopback(host) {
		return true, "this computer (loopback)"
	}
	switch mode {
	case Admin:
		return true, "admin mode allows every host"
	case Team:
		for _, r := range g.cluster {
			if r.matches(host, port) {
				return true, "team mode: the team's cluster"
			}
		}
		return false, "team mode allows only this computer and the team's cluster (store.url)"
	case Online:
		for _, l := range []struct {
			rules []rule
			what  string
		}{{g.endpoint, "the answer endpoint"}, {g.cluster, "the team's cluster"}, {g.catalog, "the model catalogue"}, {g.allow, "network.allow"}} {
			for _, r := range l.rules {
				if r.matches(host, port) {
					return true, "online mode: " + l.what
				}
			}
		}
		return false, "online mode allows only this computer, the answer endpoint, the team's cluster, the model catalogue and network.allow"
	}
	return false, "offline mode allows only this computer (localhost, 127.0.0.0/8, ::1)"
}

// hint says how a refused connection could be allowed.
func (g *Gate) hint(mode Mode, addr string) string {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "give a host and a port"
	}
	if mode == Offline || mode == Team {
		if ok, _ := g.decide(Team, addr); ok && mode == Offline {
			return "switch the network gate to team (or online): run `cairn network team`, or pick it under Network gate in the Engineering tab"
		}
		if ok, _ := g.decide(Online, addr); ok {
			return "switch the network gate to online: run `cairn network online`, or pick online under Network gate in the Engineering tab"
		}
		return "add the host to network.allow in the settings file and switch the network gate to online (`cairn network online`, or the Engineering tab)"
	}
	return "add the host to network.allow in the settings file (or CAIRN_NETWORK_ALLOW), or switch to admin mode for maintenance (`cairn network admin`)"
}

// DialContext dials addr if the gate allows it, as net.Dialer.DialContext
// does; the decision is recorded with purpose "dial".
func (g *Gate) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := g.check("dial", addr, true); err != nil {
		return nil, err
	}
	return g.dialAllowed(ctx, network, addr)
}

// dialAllowed dials an address the gate has allowed. "localhost" is dialled
// as 127.0.0.1 (then ::1), so not even that name reaches a resolver.
func (g *Gate) dialAllowed(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || normalizeHost(host) != "localhost" {
		return g.dial(ctx, network, addr)
	}
	var first error
	for _, ip := range []string{"127.0.0.1", "::1"} {
		if (network == "tcp4" && ip == "::1") || (network == "tcp6" && ip == "127.0.0.1") {
			continue
		}
		c, err := g.dial(ctx, network, net.JoinHostPort(ip, port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// transportDial is the HTTP transport's dialer: the request was already
// checked and recorded, and is checked again here in case the mode
// changed in between.
func (g *Gate) transportDial(ctx context.Context, network, addr string) (net.Conn, error) {
	purpose, _ := ctx.Value(purposeKey{}).(string)
	if purpose == "" {
		purpose = "http"
	}
	if err := g.check(purpose, addr, false); err != nil {
		return nil, err
	}
	return g.dialAllowed(ctx, network, addr)
}

type purposeKey struct{}

// HTTPClient returns a client whose every request, redirects included, is
// checked by the gate before it leaves, and recorded with purpose.
// Environment proxies are ignored. Clients share one connection pool.
func (g *Gate) HTTPClient(purpose string) *http.Client {
	return &http.Client{
		Transport: &roundTripper{g: g, purpose: purpose},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return fmt.Errorf("%s: stopped after 10 redirects", req.URL.Host)
			}
			return nil // the round trip checks the new destination
		},
	}
}

// roundTripper checks each request against the gate, so that a connection
// kept from before a mode switch is not reused past it.
type roundTripper struct {
	g       *Gate
	purpose string
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil || req.URL.Host == "" {
		return nil, errors.New("network gate: request without a host")
	}
	if err := rt.g.check(rt.purpose, requestAddr(req.URL), true); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	ctx := context.WithValue(req.Context(), purposeKey{}, rt.purpose)
	return rt.g.transport.RoundTrip(req.WithContext(ctx))
}

// requestAddr is a URL's host:port, with the scheme's default port.
func requestAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// normalizeHost lower-cases a host and drops a trailing dot and the
// brackets of an IPv6 literal; a zone ("%eth0") stays.
func normalizeHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

// RedactURL is a URL for display, with anything before an "@" in its host
// part (a user name, a password, a token) replaced by "xxxxx". Unlike
// url.URL.Redacted it also hides a user name alone, which is often a
// token, and works on a URL that does not parse.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return s
	}
	return scheme + "://xxxxx" + rest[at:]
}

// isLoopback: the name "localhost" or a loopback IP literal. Other names,
// even ones that usually resolve to loopback, are not trusted: resolving
// them would itself go to the network.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// rule is one allowed host pattern.
type rule struct {
	host     string // lower case; the suffix after "*." for wildcards
	wildcard bool   // subdomains of host
	ip       netip.Addr
	port     string // "" for any
}

func (r rule) matches(host, port string) bool {
	if r.port != "" && r.port != port {
		return false
	}
	if r.ip.IsValid() {
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Unmap() == r.ip
	}
	if r.wildcard {
		return strings.HasSuffix(host, "."+r.host)
	}
	return host == r.host
}

func (r rule) String() string {
	h := r.host
	if r.ip.IsValid() {
		h = r.ip.String()
	}
	if r.wildcard {
		h = "*." + h
	}
	if r.port != "" {
		return net.JoinHostPort(h, r.port)
	}
	return h
}

// CheckAllow checks a network.allow entry as New reads it, so that the
// settings can be refused with a clear message when they load.
func CheckAllow(s string) error {
	_, err := parseAllow(s)
	return err
}

func parseAllow(s string) (rule, error) {
	r, err := parseRule(s)
	if err != nil {
		return rule{}, fmt.Errorf("network.allow entry %q: %w (use host, host:port, *.domain or an IP address)", RedactURL(s), err)
	}
	return r, nil
}

// parseRule reads "host", "host:port", "*.domain", an IP or a URL.
func parseRule(s string) (rule, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "://") {
		return endpointRule(s)
	}
	if s == "" || strings.ContainsAny(s, "/?#@ ") {
		return rule{}, errors.New("not a host")
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	}
	return makeRule(host, port)
}

// endpointRule allows exactly a URL's host and port.
func endpointRule(s string) (rule, error) {
	u, err := url.Parse(s)
	if err != nil {
		return rule{}, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return rule{}, errors.New("not an http or https URL")
	}
	if u.Hostname() == "" {
		return rule{}, errors.New("the URL has no host")
	}
	host, port, _ := net.SplitHostPort(requestAddr(u))
	return makeRule(host, port)
}

func makeRule(host, port string) (rule, error) {
	host = normalizeHost(host)
	r := rule{port: port}
	if ip, err := netip.ParseAddr(host); err == nil {
		r.ip = ip.Unmap()
		return r, nil
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.wildcard, host = true, rest
	}
	if host == "" || strings.ContainsAny(host, "*:[]") {
		return rule{}, errors.New("not a host name")
	}
	r.host = host
	return r, nil
}
