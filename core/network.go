package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/llm"
	"cairn/core/netgate"
	"cairn/core/remote"
)

// modeEnv overrides network.mode at every start; a switch cannot be saved
// past it.
const modeEnv = "CAIRN_NETWORK_MODE"

// newGate builds the network gate from the settings, with its audit log in
// the state folder.
func newGate(cfg config.Config, dirs config.Dirs, dial netgate.DialFunc) (*netgate.Gate, error) {
	if dirs.State == "" {
		return nil, errors.New("no state folder for the network audit log")
	}
	catalog := netgate.CatalogHosts()
	if cfg.Network.Catalog != "" {
		catalog = []string{cfg.Network.Catalog}
	}
	return netgate.New(netgate.Options{
		Mode:     netgate.Mode(cfg.Network.Mode),
		Endpoint: cfg.Network.Endpoint,
		Catalog:  catalog,
		Allow:    cfg.Network.Allow,
		AuditLog: filepath.Join(dirs.State, "audit.log"),
		Dial:     dial,
	})
}

// Network is the network gate and the keyring of the online endpoint's API
// key, without a knowledge base: `cairn network` opens only this, so it works
// while the window holds the knowledge base or when that is damaged. An
// Engine holds one.
type Network struct {
	conf    config.Network // as opened; the mode is the gate's, which switches
	gate    *netgate.Gate  // every connection goes through it
	mu      sync.Mutex     // one mode switch at a time
	keyring remote.Keyring // where the online endpoint's API key may be
}

// OpenNetwork builds the network gate from the settings; opt gives the
// gate's dialer and the keyring (nil: the real ones).
func OpenNetwork(cfg config.Config, dirs config.Dirs, opt Options) (*Network, error) {
	gate, err := newGate(cfg, dirs, opt.Dial)
	if err != nil {
		return nil, fault.New(fault.ConfigInvalid, "network gate", "fix the network section of the settings", err)
	}
	kr := opt.Keyring
	if kr == nil {
		kr = remote.SystemKeyring{}
	}
	conf := cfg.Network
	conf.Allow = slices.Clone(conf.Allow) // the caller's copy is theirs
	return &Network{conf: conf, gate: gate, keyring: kr}, nil
}

// Gate is the network gate every connection goes through.
func (n *Network) Gate() *netgate.Gate { return n.gate }

// NetworkMode is the gate's current mode: offline, online or admin.
func (n *Network) NetworkMode() string { return string(n.gate.Mode()) }

// NetworkConfig is the network section of the settings, with the gate's
// current mode.
func (n *Network) NetworkConfig() config.Network {
	c := n.conf
	c.Allow = slices.Clone(c.Allow)
	c.Mode = n.NetworkMode()
	return c
}

// SetNetworkMode switches the gate to mode. It does not save the mode: the
// settings file has one writer at a time (the window's settings worker, or
// `cairn network`), which saves the mode with the rest of the settings it
// holds. It refuses when CAIRN_NETWORK_MODE decides the mode at every start
// anyway.
func (n *Network) SetNetworkMode(mode string) error {
	m, err := netgate.ParseMode(mode)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if m == n.gate.Mode() {
		return nil
	}
	if v := os.Getenv(modeEnv); v != "" {
		return fmt.Errorf("the network mode comes from %s=%s in the environment, which wins over the settings at every start; "+
			"unset it to switch the mode", modeEnv, v)
	}
	return n.gate.SetMode(m)
}

// APIKey finds the online endpoint's API key: CAIRN_API_KEY, then the
// system keyring.
func (n *Network) APIKey() remote.Key { return remote.LookupKey(nil, n.keyring) }

// Keyring is where `cairn network key set` stores the API key.
func (n *Network) Keyring() remote.Keyring { return n.keyring }

// Remote returns a chat client for the configured online endpoint, its
// requests going through the network gate; nil without error when the gate
// is offline or no endpoint is configured (answers stay local).
func (e *Engine) Remote() (*remote.Client, error) {
	n := e.net.conf
	if e.net.gate.Mode() == netgate.Offline || n.Endpoint == "" {
		return nil, nil
	}
	c, err := remote.New(remote.Options{API: n.API, Endpoint: n.Endpoint, Model: n.ChatModel, Key: e.net.APIKey(),
		HTTP: e.net.gate.HTTPClient("answer")})
	if err != nil {
		return nil, fmt.Errorf("online answers: %w", err)
	}
	return c, nil
}

// PullResult is what PullModel did.
type PullResult struct {
	Name    string
	URL     string // where it came from
	Path    string // the GGUF file in the models folder
	Bytes   int64
	SHA256  string // the file's digest
	Checked bool   // the digest matched an expected one (the catalogue's or the caller's)
	Existed bool   // the file was already there: nothing was downloaded
}

// PullModel downloads the catalogue model name into the models folder
// through the network gate. An interrupted download resumes from its
// .part file (here or in a later call); the file must hash to wantSHA256
// when given, else to the catalogue's digest when it has one. progress, if
// not nil, gets the bytes done and the total (-1 when unknown).
func (e *Engine) PullModel(ctx context.Context, name, wantSHA256 string, progress func(done, total int64)) (PullResult, error) {
	entry, ok := llm.LookupCatalog(name)
	if !ok {
		return PullResult{}, fmt.Errorf("no model %q in the catalogue; `cairn models list` shows the names", name)
	}
	want := strings.ToLower(strings.TrimSpace(wantSHA256))
	if want != "" {
		if b, err := hex.DecodeString(want); err != nil || len(b) != sha256.Size {
			return PullResult{}, fmt.Errorf("--sha256 %q is not a SHA-256 digest (64 hex digits)", wantSHA256)
		}
		if entry.SHA256 != "" && !strings.EqualFold(entry.SHA256, want) {
			return PullResult{}, fmt.Errorf("the SHA-256 given for %s differs from the catalogue's (%s)", entry.Name, entry.SHA256)
		}
	} else {
		want = strings.ToLower(entry.SHA256)
	}
	src := entry.URL
	if base := e.net.conf.Catalog; base != "" {
		var err error
		if src, err = entry.MirrorURL(base); err != nil {
			return PullResult{}, err
		}
	}
	u, err := url.Parse(src)
	if err != nil {
		return PullResult{}, err
	}
	dir := e.Config().Paths.ModelsDir
	res := PullResult{Name: entry.Name, URL: src, Path: filepath.Join(dir, path.Base(u.Path)), Checked: want != ""}
	if st, err := os.Stat(res.Path); err == nil {
		res.Existed, res.Bytes = true, st.Size()
		if want == "" {
			return res, nil
		}
		if res.SHA256, err = fileSHA256(res.Path); err != nil {
			return res, err
		}
		if res.SHA256 != want {
			return res, fmt.Errorf("%s is already in the models folder but hashes to %s, not %s; delete it to download it again",
				res.Path, res.SHA256, want)
		}
		return res, nil
	}
	// Private like everything Cairn creates: the models folder says which
	// models someone uses.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, fmt.Errorf("models folder %s: %w", dir, err)
	}
	err = llm.Download(ctx, e.net.gate.HTTPClient("models pull"), src, res.Path, want, progress)
	var blocked *netgate.BlockedError
	switch {
	case errors.As(err, &blocked):
		return res, fmt.Errorf("cannot download %s: %w", entry.Name, blocked)
	case err != nil:
		return res, fmt.Errorf("models pull %s: %w", entry.Name, err)
	}
	res.SHA256 = want // Download checked it
	if want == "" {
		if res.SHA256, err = fileSHA256(res.Path); err != nil {
			return res, err
		}
	}
	st, err := os.Stat(res.Path)
	if err != nil {
		return res, err
	}
	res.Bytes = st.Size()
	return res, nil
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
