package network

import (
	"strings"
	"testing"

	"cairn/core/config"
	"cairn/core/netgate"
)

// TestModeSwitchesAndTheEnvironmentWins: the gate starts in the settings'
// mode and switches; a mode set by CAIRN_NETWORK_MODE cannot be switched,
// since it would come back at the next start anyway.
func TestModeSwitchesAndTheEnvironmentWins(t *testing.T) {
	cfg := config.Config{Network: config.Network{Mode: "offline", Endpoint: "http://127.0.0.1:9/v1", Allow: []string{"127.0.0.1"}}}
	dirs := config.Dirs{State: t.TempDir()}
	n, err := Open(cfg, dirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Mode() != netgate.Offline || n.NetworkConfig().Mode != "offline" || !strings.HasSuffix(n.AuditLog(), "audit.log") {
		t.Fatalf("mode %s, config %+v, audit log %s", n.Mode(), n.NetworkConfig(), n.AuditLog())
	}
	if err := n.SetNetworkMode("online"); err != nil || n.Mode() != netgate.Online || n.NetworkConfig().Mode != "online" {
		t.Errorf("switch to online: %v, mode %s", err, n.Mode())
	}
	if err := n.SetNetworkMode("sideways"); err == nil {
		t.Error("an unknown mode was accepted")
	}
	t.Setenv("CAIRN_NETWORK_MODE", "online")
	if err := n.SetNetworkMode("offline"); err == nil || !strings.Contains(err.Error(), "CAIRN_NETWORK_MODE") {
		t.Errorf("switch under the environment's mode: %v", err)
	}
}

// TestTeamModeAllowsTheClusterOfTheWeaviateStore: the gate built from the
// settings allows store.url's host in team mode when the backend is
// weaviate, and not when it is sqlite (a leftover URL opens nothing).
func TestTeamModeAllowsTheClusterOfTheWeaviateStore(t *testing.T) {
	cfg := config.Config{Network: config.Network{Mode: "team", Endpoint: "https://api.example.test/v1"},
		Store: config.Store{Backend: config.BackendWeaviate, URL: "https://weaviate.example.test:8443"}}
	n, err := Open(cfg, config.Dirs{State: t.TempDir()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Cluster(); len(got) != 1 || got[0] != "weaviate.example.test:8443" || n.Mode() != netgate.Team {
		t.Errorf("cluster %v, mode %s", got, n.Mode())
	}
	cfg.Store.Backend = config.BackendSQLite
	n, err = Open(cfg, config.Dirs{State: t.TempDir()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Cluster(); len(got) != 0 {
		t.Errorf("sqlite backend, cluster %v", got)
	}
}
