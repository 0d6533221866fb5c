package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
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
	// cfg is the current settings: the window's at first, then what each
	// stopped shell's settings worker left, so that a switch of knowledge
	// base keeps the network mode and the knobs chosen in the window.
	cfg config.Config
}

func (k *kbWorker) run(ctx context.Context) {
	var cur *shell
	var eng Engine
	release := func() {
		if cur != nil {
			cur.stop()
			if c, ok := cur.lastSettings(); ok {
				k.cfg = c
			}
			cur = nil
		}
		if eng != nil {
			eng.Close()
			eng = nil
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
			e, err := k.open(ctx, r.name, k.cfg)
			if err != nil {
				if ctx.Err() == nil {
					r.shell.failed(err)
				}
				continue
			}
			eng = e
			r.shell.attach(e, r.starter)
		}
	}
}

var kbNameRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$`)

// knowledgeBases lists the knowledge bases in the data folder.
func knowledgeBases(dataDir string) []string {
	matches, _ := filepath.Glob(filepath.Join(dataDir, "kb", "*.db"))
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".db"))
	}
	slices.Sort(names)
	return names
}

// showOpenKB lets the person pick a knowledge base to open.
func (win *window) showOpenKB() {
	names := knowledgeBases(win.opt.Config.Paths.DataDir)
	if len(names) == 0 {
		dialog.ShowInformation("No knowledge bases", "There is no knowledge base yet. Choose File > New knowledge base.", win.w)
		return
	}
	pick := widget.NewSelect(names, nil)
	pick.SetSelected(win.kb)
	dialog.ShowForm("Open knowledge base", "Open", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Knowledge base", pick)},
		func(ok bool) {
			if ok && pick.Selected != "" && pick.Selected != win.kb {
				win.openKB(pick.Selected, false)
			}
		}, win.w)
}

// showNewKB asks for a name and opens a new, empty knowledge base.
func (win *window) showNewKB() {
	name := widget.NewEntry()
	name.SetPlaceHolder("e.g. work")
	name.Validator = func(s string) error {
		switch {
		case !kbNameRE.MatchString(s):
			return fmt.Errorf("use letters, digits, spaces, '.', '_' or '-'")
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
	d.Show()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
