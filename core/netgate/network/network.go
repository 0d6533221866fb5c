// Package network is Cairn's network gate as the rest of Cairn sees it: the
// gate built from the settings (core/netgate does the gating), its mode and
// its switches, and the keyring of the online endpoint's API key. It opens
// no knowledge base, so `cairn network` works while the window holds one.
package network

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"cairn/core/config"
	"cairn/core/fault"
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
	var cluster []string
	if cfg.Store.Backend == config.BackendWeaviate && cfg.Store.URL != "" {
		cluster = []string{cfg.Store.URL}
	}
	return netgate.New(netgate.Options{
		Mode:     netgate.Mode(cfg.Network.Mode),
		Endpoint: cfg.Network.Endpoint,
		Cluster:  cluster,
		Catalog:  catalog,
		Allow:    cfg.Network.Allow,
		AuditLog: filepath.Join(dirs.State, "audit.log"),
		Dial:     dial,
	})
}

// Network is the network gate and the keyring of the online endpoint's API
// key. An Engine holds one; `cairn network` opens only this.
type Network struct {
	conf    config.Network // as opened; the mode is the gate's, which switches
	gate    *netgate.Gate  // every connection goes through it
	mu      sync.Mutex     // one mode switch at a time
	keyring remote.Keyring // where the online endpoint's API key may be
}

// Options give the gate's dialer and the keyring (nil: the real ones;
// tests give others).
type Options struct {
	Dial    netgate.DialFunc
	Keyring remote.Keyring
}

// Open builds the network gate from the settings.
func Open(cfg config.Config, dirs config.Dirs, opt Options) (*Network, error) {
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

// HTTPClient is an HTTP client whose connections go through the gate,
// recorded in its audit log under purpose.
func (n *Network) HTTPClient(purpose string) *http.Client { return n.gate.HTTPClient(purpose) }

// Mode is the gate's current mode.
func (n *Network) Mode() netgate.Mode { return n.gate.Mode() }

// Allowed lists the hosts online mode allows.
func (n *Network) Allowed() []string { return n.gate.Allowed() }

// AuditLog is the file every connection is recorded in.
func (n *Network) AuditLog() string { return n.gate.AuditLog() }

// Cluster lists what team mode allows besides this computer.
func (n *Network) Cluster() []string { return n.gate.Cluster() }

// NetworkMode is the gate's current mode: offline, team, online or admin.
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

// WeaviateKey finds the team cluster's API key: CAIRN_WEAVIATE_KEY, then
// the system keyring.
func (n *Network) WeaviateKey() remote.Key { return remote.LookupWeaviateKey(nil, n.keyring) }

// Keyring is where `cairn network key set` stores the API key.
func (n *Network) Keyring() remote.Keyring { return n.keyring }
