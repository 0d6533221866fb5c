package ui

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/serve"
)

// apiCall makes one request to the window's local service.
func apiCall(t *testing.T, method, url, token, body string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// The Engineering tab's toggle runs `cairn serve`'s service while the
// window is open: the status bar says where; a network switch through the
// API is saved by the settings worker and shown in the tab; the API does
// not index beside the window; the toggle off closes the port; the choice
// is saved as serve.enabled.
func TestEngineeringToggleServesTheAPI(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Serve.Port = 0 // a free port
	h := newHarnessWith(t, open, cfg)
	e, bar := h.shell().Tuning, h.shell().Status
	if e.Serve.Checked || bar.API.Visible() {
		t.Fatalf("serving before the toggle: checked %v, status %q", e.Serve.Checked, bar.API.Text)
	}

	test.Tap(e.Serve)
	h.until("the status bar to show the API", func() bool { return bar.API.Visible() })
	addr := strings.TrimPrefix(bar.API.Text, "API on ")
	if !strings.HasPrefix(bar.API.Text, "API on 127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("status bar %q", bar.API.Text)
	}
	h.until("the tab to say where", func() bool { return strings.Contains(e.State.Text, "http://"+addr+"/api/") })
	if !e.Serve.Checked {
		t.Error("the toggle is not ticked")
	}
	token, err := serve.Token(h.win.opt.Dirs.Config) // the token file `cairn serve` uses
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	if status, body, err := apiCall(t, "GET", base+"/api/health", token, ""); err != nil || status != 200 || !strings.Contains(body, `"version"`) {
		t.Fatalf("health: %d %s %v", status, body, err)
	}
	if status, _, _ := apiCall(t, "GET", base+"/api/health", strings.Repeat("0", 64), ""); status != 401 {
		t.Errorf("wrong token: %d", status)
	}

	// Rule 2: the window's index worker indexes, the API refuses to.
	status, body, err := apiCall(t, "POST", base+"/api/index", token, `{"folder":"/tmp"}`)
	if err != nil || status != 409 || !strings.Contains(body, "Index tab") {
		t.Errorf("index through the API: %d %s %v", status, body, err)
	}

	// Rule 1: a network switch through the API is saved by the settings
	// worker and shows in the tab and the status bar.
	status, body, err = apiCall(t, "PUT", base+"/api/network", token, `{"mode":"online","confirm":true}`)
	if err != nil || status != 200 {
		t.Fatalf("network switch: %d %s %v", status, body, err)
	}
	h.until("the tab and the bar to show online", func() bool { return e.Gate.Selected == "online" && bar.GateMode() == "online" })
	saved := h.savedConfigs()
	if len(saved) == 0 || saved[len(saved)-1].Network.Mode != "online" {
		t.Errorf("the switch was not saved: %d saves", len(saved))
	}

	test.Tap(e.Serve)
	h.until("the status bar to drop the API", func() bool { return !bar.API.Visible() })
	if _, _, err := apiCall(t, "GET", base+"/api/health", token, ""); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after the toggle off: %v, want connection refused", err)
	}
	h.until("serve.enabled saved off", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && !s[len(s)-1].Serve.Enabled
	})
	enabledOnce := false
	for _, c := range h.savedConfigs() {
		enabledOnce = enabledOnce || c.Serve.Enabled
	}
	if !enabledOnce {
		t.Error("serve.enabled was never saved on")
	}
}

// With serve.enabled, the window serves from the start; a port taken by
// another program unticks the toggle and says why.
func TestServeEnabledServesFromTheStartAndATakenPortSaysSo(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Serve.Port, cfg.Serve.Enabled = 0, true
	h := newHarnessWith(t, open, cfg)
	e, bar := h.shell().Tuning, h.shell().Status
	h.until("the status bar to show the API", func() bool { return bar.API.Visible() })
	h.until("the toggle to be ticked", func() bool { return e.Serve.Checked })

	taken, err := serve.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg2, open2 := realEngine(t)
	cfg2.Serve.Enabled = true
	cfg2.Serve.Port = taken.Addr().(*net.TCPAddr).Port
	h2 := newHarnessWith(t, open2, cfg2)
	e2 := h2.shell().Tuning
	h2.until("the tab to say the port is taken", func() bool {
		return strings.Contains(e2.State.Text, "Could not start the local service: cannot listen on 127.0.0.1:")
	})
	if e2.Serve.Checked || h2.shell().Status.API.Visible() {
		t.Errorf("a failed start shows as on: checked %v, status %q", e2.Serve.Checked, h2.shell().Status.API.Text)
	}
}

// The status bar's API label fits the smallest window beside the rest.
func TestStatusBarWithTheAPIFitsTheSmallestWindow(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Serve.Port, cfg.Serve.Enabled = 0, true
	h := newHarnessWith(t, open, cfg)
	s := h.shell().Status
	h.until("the status bar to show the API", func() bool { return s.API.Visible() && s.Counts.Text != "" })
	h.win.w.Resize(smallestCanvas())
	h.frame()
	for _, l := range []*widget.Label{s.KB, s.Counts, s.API, s.Memory} {
		if !notCut(l) {
			t.Errorf("%q is cut: %v wide", l.Text, l.Size().Width)
		}
	}
	if min := s.Content().MinSize(); min.Width > smallestCanvas().Width-2*theme.Padding() {
		t.Errorf("the status bar needs %v wide, the smallest window is %v", min.Width, smallestWindow.Width)
	}
}
