package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/kb"
	"cairn/panels"
)

// kbSwitch asks the knowledge-base worker to open a knowledge base for a
// new shell.
type kbSwitch struct {
	name    string
	shell   *shell
	starter bool
}

// kbWorker owns the open engine: it stops the previous shell before closing
// the previous engine, then opens the next knowledge base and attaches it
// to its shell. Opening may take a while (migrations, loading models), so
// it never runs on the window's goroutine.
type kbWorker struct {
	open     Opener
	requests <-chan kbSwitch

	mu  sync.Mutex // guards eng and cfg, which settings reads from any goroutine
	eng Engine     // the open engine, if any
	// cfg is the settings while no engine is open: the window's at first,
	// then the last engine's as it closed, so that a switch of knowledge
	// base keeps the network mode and the knobs chosen in the window.
	cfg config.Config
}

// settings is a snapshot of the current settings: the open engine's, else
// those the next one opens with.
func (k *kbWorker) settings() config.Config {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.eng != nil {
		return k.eng.Config()
	}
	return k.cfg
}

func (k *kbWorker) run(ctx context.Context) {
	var cur *shell
	release := func() {
		if cur != nil {
			cur.stop() // its settings worker saves its last change first
			cur = nil
		}
		k.mu.Lock()
		eng := k.eng
		if eng != nil {
			k.cfg, k.eng = eng.Config(), nil
		}
		k.mu.Unlock()
		if eng != nil {
			eng.Close()
		}
	}
	defer release()
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-k.requests:
			release()
			cur = r.shell
			e, err := k.open(ctx, r.name, k.settings())
			if err != nil {
				if ctx.Err() == nil {
					r.shell.failed(err)
				}
				continue
			}
			k.mu.Lock()
			k.eng = e
			k.mu.Unlock()
			r.shell.attach(e, r.starter)
		}
	}
}

// showOpenKB lets the person pick a knowledge base to open.
func (win *window) showOpenKB() {
	names := kb.List(win.opt.Config)
	if len(names) == 0 {
		d := dialog.NewInformation("No knowledge bases", "There is no knowledge base yet. Choose File > New knowledge base.", win.w)
		panels.DialogKeys(d, win.w)
		d.Show()
		return
	}
	pick := widget.NewSelect(names, nil)
	pick.SetSelected(win.kb)
	d := dialog.NewForm("Open knowledge base", "Open", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Knowledge base", pick)},
		func(ok bool) {
			if ok && pick.Selected != "" && pick.Selected != win.kb {
				win.openKB(pick.Selected, false)
			}
		}, win.w)
	restore := panels.AnswerKeys(win.w, d.Submit, d.Hide)
	d.SetOnClosed(restore)
	d.Show()
}

// showNewKB asks for a name and opens a new, empty knowledge base.
func (win *window) showNewKB() {
	name := panels.NewEntry()
	name.SetPlaceHolder("e.g. work")
	name.Validator = func(s string) error {
		if err := kb.CheckName(s); err != nil {
			return err
		}
		switch {
		case fileExists(filepath.Join(win.opt.Config.Paths.DataDir, "kb", s+".db")):
			return fmt.Errorf("%s exists; open it with File > Open knowledge base", s)
		}
		return nil
	}
	d := dialog.NewForm("New knowledge base", "Create", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", name)},
		func(ok bool) {
			if ok {
				win.openKB(name.Text, false)
			}
		}, win.w)
	d.Resize(fyne.NewSize(420, 160))
	// The name entry has the focus: Enter there submits (widget.Form), and
	// it passes Escape to the canvas (panels.Entry).
	restore := panels.AnswerKeys(win.w, d.Submit, d.Hide)
	d.SetOnClosed(restore)
	d.Show()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
