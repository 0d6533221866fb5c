package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/doctor/health"
	"cairn/core/netgate"
	"cairn/panels"
)

// hasLabel reports whether a visible label under root contains text.
func hasLabel(root fyne.CanvasObject, text string) bool {
	return len(find(root, func(o fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && strings.Contains(l.Text, text)
	})) > 0
}

func (f *fakeEngine) switches() []string {
	var out []string
	f.locked(func() { out = slices.Clone(f.netSwitches) })
	return out
}

func TestLeavingOfflineAsksFirstAndTheBadgeFollows(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e, bar := h.shell().Tuning, h.shell().Status
	h.until("the offline badge", func() bool { return bar.GateMode() == "offline" })
	if e.Gate.Disabled() || e.Gate.Selected != "offline" {
		t.Fatalf("gate picker disabled %v, showing %q", e.Gate.Disabled(), e.Gate.Selected)
	}

	e.Gate.SetSelected("online")
	dlg := h.overlay()
	if !hasLabel(dlg, "may connect to the answer endpoint, the model catalogue, the hosts in network.allow and the team's cluster") {
		t.Error("the confirmation does not say what online mode allows")
	}
	test.Tap(button(t, dlg, "Stay offline"))
	if e.Gate.Selected != "offline" || len(eng.switches()) != 0 {
		t.Fatalf("after Stay offline: picker %q, switches %v", e.Gate.Selected, eng.switches())
	}

	e.Gate.SetSelected("online")
	test.Tap(button(t, h.overlay(), "Switch to online"))
	h.until("the engine to switch", func() bool { return slices.Equal(eng.switches(), []string{"online"}) })
	h.until("the amber badge", func() bool { return bar.GateMode() == "online" && bar.Gate.Text == "Network: online" })
	h.until("the notice", func() bool { return strings.HasPrefix(e.State.Text, "Network gate: online.") })
	h.until("the settings to keep the mode", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Network.Mode == "online"
	})

	// Back to offline is stricter: no question asked.
	e.Gate.SetSelected("offline")
	h.until("the switch back", func() bool { return slices.Equal(eng.switches(), []string{"online", "offline"}) })
	if top := h.win.w.Canvas().Overlays().Top(); top != nil {
		t.Error("a dialog opened when switching back to offline")
	}
	h.until("the green badge", func() bool { return bar.GateMode() == "offline" })
}

func TestAdminModeIsConfirmedToo(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e := h.shell().Tuning
	e.Gate.SetSelected("admin")
	dlg := h.overlay()
	if !hasLabel(dlg, "may connect to any host on the network") {
		t.Error("the admin confirmation does not say it allows any host")
	}
	test.Tap(button(t, dlg, "Switch to admin"))
	h.until("admin mode", func() bool { return eng.NetworkMode() == "admin" })
	h.until("the red badge", func() bool { return h.shell().Status.GateMode() == "admin" })
}

func TestAFailedSwitchIsShownAndThePickerGoesBack(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.netErr = errors.New("the network mode comes from CAIRN_NETWORK_MODE=offline in the environment; unset it to switch the mode")
	h := newHarness(t, eng)
	e := h.shell().Tuning
	e.Gate.SetSelected("online")
	test.Tap(button(t, h.overlay(), "Switch to online"))
	h.until("the error", func() bool {
		return e.State.Text == "The network gate stays offline: the network mode comes from CAIRN_NETWORK_MODE=offline in the environment; unset it to switch the mode"
	})
	h.until("the picker to go back", func() bool { return e.Gate.Selected == "offline" })
	if eng.NetworkMode() != "offline" {
		t.Errorf("mode %s", eng.NetworkMode())
	}
}

// A knowledge base opened from the File menu gets the settings as the
// window left them: the network mode chosen in the Engineering tab and the
// knobs, not those of the start; the health checks see them too.
func TestTheNetworkModeAndKnobsSurviveASwitchOfKnowledgeBase(t *testing.T) {
	dataDir := t.TempDir()
	var mu sync.Mutex
	openedWith := map[string]config.Config{}
	var doctored []config.Config
	open := func(_ context.Context, kb string, cfg config.Config) (Engine, error) {
		e := newFakeEngine(dataDir)
		e.cfg, e.status.NetworkMode = cfg, cfg.Network.Mode
		mu.Lock()
		openedWith[kb] = cfg
		mu.Unlock()
		return e, nil
	}
	h := startHarness(t, open, newFakeEngine(dataDir).Config(), func(o *Options) {
		o.Doctor = func(_ context.Context, _ string, cfg config.Config) []health.Check {
			mu.Lock()
			doctored = append(doctored, cfg)
			mu.Unlock()
			return nil
		}
	})
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	e := h.shell().Tuning
	e.Gate.SetSelected("online")
	test.Tap(button(t, h.overlay(), "Switch to online"))
	h.until("the mode to be saved", func() bool {
		s := h.savedConfigs()
		return len(s) > 0 && s[len(s)-1].Network.Mode == "online"
	})
	e.Profile.SetSelected("server") // saved after a delay: the switch below comes first
	h.until("the server defaults", func() bool { return e.Knob("retrieval.top_k").Slider.Value == 15 })

	h.win.openKB("work", false)
	h.until("the new knowledge base", func() bool { return h.shell().ready == 3 })
	mu.Lock()
	got := openedWith["work"]
	mu.Unlock()
	if got.Network.Mode != "online" || got.Profile != "server" || got.Retrieval.TopK != 15 {
		t.Errorf("work opened with network mode %q, profile %q, top_k %d; want online, server, 15",
			got.Network.Mode, got.Profile, got.Retrieval.TopK)
	}
	h.until("the picker of the new shell", func() bool { return h.shell().Tuning.Gate.Selected == "online" })
	for _, c := range h.savedConfigs() {
		if c.Network.Mode != "online" {
			t.Errorf("a save after the switch put back mode %q", c.Network.Mode)
		}
	}

	h.win.showHealth()
	h.until("the health checks", func() bool { mu.Lock(); defer mu.Unlock(); return len(doctored) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if doctored[0].Network.Mode != "online" || doctored[0].Profile != "server" {
		t.Errorf("the health checks saw network mode %q, profile %q", doctored[0].Network.Mode, doctored[0].Profile)
	}
}

// The settings worker saves the mode the engine switched to; when it
// cannot, the gate goes back, so the window never shows a mode the next
// start would not have.
func TestASwitchThatCannotBeSavedIsUndone(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	events := make(chan panels.EngineeringEvent, 16)
	save := func(_, _ config.Config) error { return errors.New("settings.json: read-only file system") }
	w := newSettingsWorker(eng, save, nil, events, nil)
	if w.setNetworkMode(context.Background(), "online") {
		t.Error("the worker wants to save again")
	}
	if got := eng.switches(); !slices.Equal(got, []string{"online", "offline"}) || eng.NetworkMode() != "offline" || eng.Config().Network.Mode != "offline" {
		t.Errorf("switches %v, mode %s, worker's mode %s", got, eng.NetworkMode(), eng.Config().Network.Mode)
	}
	var notice string
	for len(events) > 0 {
		if n, ok := (<-events).(panels.SettingsNotice); ok {
			notice = n.Text
		}
	}
	if notice != "The network gate stays offline: could not save the settings: settings.json: read-only file system" {
		t.Errorf("notice %q", notice)
	}
}

// A knob saved from the window keeps the network mode the settings file
// holds (`cairn network offline` may have written it meanwhile); only a
// switch made in the window writes the mode: the writer is given the
// mode as the window last saved it, and a new one only after a switch.
func TestOnlyAWindowSwitchWritesTheNetworkMode(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	type saved struct {
		mode     string
		withMode bool
	}
	got := make(chan saved, 4)
	save := func(base, c config.Config) error {
		got <- saved{c.Network.Mode, base.Network.Mode != c.Network.Mode}
		return nil
	}
	reqs := make(chan panels.SettingsRequest)
	events := make(chan panels.EngineeringEvent, 64)
	w := newSettingsWorker(eng, save, reqs, events, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.run(ctx)
	go func() {
		for range events {
		}
	}()

	reqs <- panels.UseProfile{Name: "laptop"}
	if s := <-got; s.withMode {
		t.Errorf("a profile change wrote the network mode: %+v", s)
	}
	reqs <- panels.SetNetworkMode{Mode: "online"}
	if s := <-got; !s.withMode || s.mode != "online" {
		t.Errorf("a switch in the window: %+v", s)
	}
}

// TestEveryModeSwitchIsAnnounced walks every mode of the gate's table
// through the window: the confirmation says what the mode reaches, and
// the notice after the switch names the mode (team mode showed none).
func TestEveryModeSwitchIsAnnounced(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	e := h.shell().Tuning
	// From offline each mode opens more than the one before, so each asks
	// first; back to offline asks nothing.
	for _, m := range []netgate.Mode{netgate.Team, netgate.Online, netgate.Admin, netgate.Offline} {
		info := m.Info()
		e.Gate.SetSelected(string(m))
		if m != netgate.Offline {
			dlg := h.overlay()
			if !hasLabel(dlg, info.Reaches) {
				t.Errorf("%s: the confirmation does not say %q", m, info.Reaches)
			}
			test.Tap(button(t, dlg, "Switch to "+string(m)))
		}
		h.until(string(m)+" mode", func() bool { return eng.NetworkMode() == string(m) })
		h.until(string(m)+"'s notice", func() bool { return e.State.Text == info.Notice })
	}
}
