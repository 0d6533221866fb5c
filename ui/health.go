package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/doctor/health"
	"cairn/panels"
)

// showHealth runs the health checks of `cairn doctor` on the open knowledge
// base in the background and shows one line per check, with the fix of
// each warning and failure. One check runs at a time: the menu item is
// disabled meanwhile, and closing the dialog stops the check.
func (win *window) showHealth() {
	if win.healthRunning {
		return
	}
	view := widget.NewRichTextWithText("Checking the knowledge base, the models, OCR, the disk and the settings…")
	view.Wrapping = fyne.TextWrapWord
	busy := widget.NewProgressBarInfinite()
	d := dialog.NewCustom("Health of Cairn", "Close", container.NewBorder(busy, nil, nil, nil, container.NewVScroll(view)), win.w)
	d.Resize(fyne.NewSize(640, 460))
	panels.DialogKeys(d, win.w)
	d.Show()
	win.healthView = view
	ctx, cancel := context.WithCancel(win.ctx)
	d.SetOnClosed(cancel)
	win.setHealthRunning(true)
	kb, doctor := win.kb, win.opt.Doctor
	win.healthDone.Add(1)
	go func() { // win.close waits for it
		defer win.healthDone.Done()
		checks := doctor(ctx, kb, win.kbs.settings())
		cancel()
		win.env.do(func() {
			win.setHealthRunning(false)
			busy.Stop()
			busy.Hide()
			view.Segments = healthSegments(checks)
			view.Refresh()
		})
	}()
}

// setHealthRunning disables Help > Check health while a check runs; on the
// window's goroutine.
func (win *window) setHealthRunning(running bool) {
	win.healthRunning = running
	if win.healthItem != nil {
		win.healthItem.Disabled = running
		if m := win.w.MainMenu(); m != nil {
			m.Refresh()
		}
	}
}

// healthSegments renders checks one paragraph each, the verdict in its
// colour, failures and warnings followed by their fixes.
func healthSegments(checks []health.Check) []widget.RichTextSegment {
	failed, warned := 0, 0
	for _, c := range checks {
		switch c.Verdict {
		case health.Fail:
			failed++
		case health.Warn:
			warned++
		}
	}
	summary := fmt.Sprintf("All %d checks passed.", len(checks))
	switch {
	case failed > 0:
		summary = fmt.Sprintf("%d of %d checks failed. The fixes say what to do.", failed, len(checks))
	case warned > 0:
		summary = fmt.Sprintf("Everything works; %d of %d checks have a warning.", warned, len(checks))
	}
	head := widget.RichTextStyleStrong
	head.Inline = false // a paragraph of its own
	segs := []widget.RichTextSegment{&widget.TextSegment{Text: summary, Style: head}}
	for _, c := range checks {
		verdict := widget.RichTextStyleStrong // inline: the name follows on its line
		verdict.ColorName = map[health.Verdict]fyne.ThemeColorName{
			health.Pass: theme.ColorNameSuccess, health.Warn: theme.ColorNameWarning, health.Fail: theme.ColorNameError}[c.Verdict]
		segs = append(segs,
			&widget.TextSegment{Text: string(c.Verdict) + " ", Style: verdict},
			&widget.TextSegment{Text: c.Name + ": " + c.Detail, Style: widget.RichTextStyleParagraph})
		if c.Verdict != health.Pass && c.Fix != "" {
			fix := "fix: " + c.Fix
			if c.Code != "" {
				fix += " [" + string(c.Code) + "]"
			}
			segs = append(segs, &widget.TextSegment{Text: fix, Style: widget.RichTextStyleBlockquote})
		}
	}
	return segs
}
