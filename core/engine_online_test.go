package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/config"
	"cairn/core/netgate"
	"cairn/core/netgate/netgatetest"
	"cairn/core/remote"
	"cairn/core/remote/remotetest"
)

func openNetworkTest(t *testing.T, edit func(*config.Config)) (*Engine, config.Dirs, *netgatetest.Dialer) {
	t.Helper()
	for _, k := range []string{"CAIRN_NETWORK_MODE", "CAIRN_API_KEY"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	h := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(h, "config"), Data: filepath.Join(h, "data"), State: filepath.Join(h, "state")}
	cfg, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&cfg)
	}
	d := &netgatetest.Dialer{}
	e, err := Open(context.Background(), cfg, dirs, Options{Write: true, Dial: d.Dial, Keyring: remotetest.Keyring{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dirs, d
}

// The engine switches the gate only: the settings file has one writer (the
// window's settings worker, or `cairn network`), so a switch cannot write
// back settings from the time the engine was opened.
func TestSetNetworkModeSwitchesTheGateAndLeavesTheSettingsFile(t *testing.T) {
	e, dirs, _ := openNetworkTest(t, nil)
	if e.NetworkMode() != "offline" {
		t.Fatalf("default mode %q", e.NetworkMode())
	}
	if err := e.SetNetworkMode("online"); err != nil {
		t.Fatal(err)
	}
	st, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e.net.Mode() != netgate.Online || st.NetworkMode != "online" || e.Config().Network.Mode != "online" {
		t.Errorf("gate %s, status %s, config %s", e.net.Mode(), st.NetworkMode, e.Config().Network.Mode)
	}
	if _, err := os.Stat(dirs.SettingsFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the engine wrote the settings file (%v)", err)
	}
	if err := e.SetNetworkMode("open"); err == nil || !strings.Contains(err.Error(), "use offline, team, online or admin") {
		t.Errorf("bad mode: %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(dirs.State, "audit.log"))
	if !strings.Contains(string(raw), `"mode":"online","decision":"mode switched","reason":"switched from offline"`) {
		t.Errorf("audit log %s", raw)
	}

	t.Setenv("CAIRN_NETWORK_MODE", "online")
	err = e.SetNetworkMode("offline")
	if err == nil || !strings.Contains(err.Error(), "CAIRN_NETWORK_MODE=online in the environment") || e.NetworkMode() != "online" {
		t.Errorf("with the mode in the environment: %v, mode %s", err, e.NetworkMode())
	}
}

func TestRemoteIsNilOfflineOrWithoutEndpoint(t *testing.T) {
	e, _, _ := openNetworkTest(t, func(c *config.Config) {
		c.Network.Endpoint, c.Network.ChatModel = "https://api.example.test/v1", "gpt-test"
	})
	if c, err := e.Remote(); c != nil || err != nil {
		t.Errorf("offline: %v %v", c, err)
	}
	if err := e.SetNetworkMode("online"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_API_KEY", "sk-env-key-123456789")
	c, err := e.Remote()
	if err != nil || c == nil || c.Model() != "gpt-test" || c.API() != "openai" || c.Host() != "api.example.test" ||
		c.Key().Source != remote.KeyEnv {
		t.Fatalf("online: %+v %v", c, err)
	}

	e2, _, _ := openNetworkTest(t, func(c *config.Config) { c.Network.Mode = "online" })
	if c, err := e2.Remote(); c != nil || err != nil {
		t.Errorf("no endpoint: %v %v", c, err)
	}
}

func TestRemoteThroughAnOfflineSwitchIsRefusedBeforeDialling(t *testing.T) {
	e, _, d := openNetworkTest(t, func(c *config.Config) {
		c.Network.Mode, c.Network.Endpoint, c.Network.ChatModel = "online", "https://api.example.test/v1", "gpt-test"
	})
	c, err := e.Remote()
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	if err := e.SetNetworkMode("offline"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), remote.Request{Messages: []remote.Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, netgate.ErrBlocked) {
		t.Fatalf("err = %v", err)
	}
	if calls := d.Calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

func TestOpenRejectsABadAllowEntry(t *testing.T) {
	h := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(h, "c"), Data: filepath.Join(h, "d"), State: filepath.Join(h, "s")}
	cfg := config.Default("laptop")
	cfg.Paths.DataDir = dirs.Data
	cfg.Network.Allow = []string{"https://"}
	_, err := Open(context.Background(), cfg, dirs, Options{Write: true})
	if err == nil || !strings.Contains(err.Error(), `network gate: network.allow entry "https://"`) {
		t.Errorf("err = %v", err)
	}
}
