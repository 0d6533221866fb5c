package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"cairn/panels"
	cairntheme "cairn/theme"
)

// Keyboard shortcuts. Enter asks (in the question entry) and Escape
// cancels what the visible tab is doing.
var (
	shortcutAddFolder = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutQuestion  = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutQuit      = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutClose     = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
)

// menu builds the main menu: File (add folder, open and new knowledge
// base, quit), View (theme, question) and Help (user guide,
// health checks, about).
func (win *window) menu() *fyne.MainMenu {
	addFolder := fyne.NewMenuItem("Add folder…", win.addFolder)
	addFolder.Shortcut = shortcutAddFolder
	question := fyne.NewMenuItem("Ask a question", win.focusQuestion)
	question.Shortcut = shortcutQuestion
	// Fyne's own Quit item has no shortcut; this one replaces it (IsQuit).
	quit := fyne.NewMenuItem("Quit", win.quit)
	quit.IsQuit = true
	quit.Shortcut = shortcutQuit

	var themeItems []*fyne.MenuItem
	current := cairntheme.ParseChoice(win.prefs.String(prefTheme))
	for _, c := range cairntheme.Choices() {
		item := fyne.NewMenuItem(c.Label(), nil)
		item.Checked = c == current
		themeItems = append(themeItems, item)
	}
	themeMenu := fyne.NewMenuItem("Theme", nil)
	themeMenu.ChildMenu = fyne.NewMenu("", themeItems...)
	help := []*fyne.MenuItem{fyne.NewMenuItem("User guide", win.showGuide)}
	if win.opt.Doctor != nil {
		win.healthItem = fyne.NewMenuItem("Check health…", win.showHealth)
		help = append(help, win.healthItem)
	}
	help = append(help, fyne.NewMenuItem("About Cairn", win.showAbout))
	main := fyne.NewMainMenu(
		fyne.NewMenu("File",
			addFolder,
			fyne.NewMenuItemSeparator(),
			fyne.NewMenuItem("Open knowledge base…", win.showOpenKB),
			fyne.NewMenuItem("New knowledge base…", win.showNewKB),
			fyne.NewMenuItemSeparator(),
			quit,
		),
		fyne.NewMenu("View", question, themeMenu),
		fyne.NewMenu("Help", help...),
	)
	for i, c := range cairntheme.Choices() {
		item := themeItems[i]
		item.Action = func() {
			win.prefs.SetString(prefTheme, string(c))
			win.app.Settings().SetTheme(cairntheme.New(c))
			for _, it := range themeItems {
				it.Checked = it == item
			}
			main.Refresh()
		}
	}
	return main
}

// addShortcuts registers the shortcuts on the canvas too: the menu handles
// them in the desktop driver, the canvas when no menu is shown (and in
// tests). Escape reaches the canvas when no entry has the focus.
func (win *window) addShortcuts() {
	c := win.w.Canvas()
	c.AddShortcut(shortcutAddFolder, func(fyne.Shortcut) { win.addFolder() })
	c.AddShortcut(shortcutQuestion, func(fyne.Shortcut) { win.focusQuestion() })
	c.AddShortcut(shortcutQuit, func(fyne.Shortcut) { win.quit() })
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			win.escape()
		}
	})
}

// quit saves the window's size and place and ends the app, as closing
// the window does.
func (win *window) quit() {
	win.saveState()
	win.app.Quit()
}

func (win *window) addFolder() {
	win.shell.showTab(tabIndex)
	win.shell.Index.Choose(true)
}

func (win *window) focusQuestion() {
	win.shell.showTab(tabAsk)
	win.shell.Query.FocusQuestion()
}

// escape cancels what the visible tab is doing: the question being
// answered, or the indexing run.
func (win *window) escape() {
	switch win.shell.Tabs.SelectedIndex() {
	case tabAsk:
		win.shell.Query.Cancel()
	case tabIndex:
		win.shell.Index.Cancel()
	}
}

func (win *window) showAbout() {
	// One label a line: Markdown's hard line breaks ran the lines together.
	lines := []string{
		"Answers questions from your own documents, offline, citing file and page.",
		"",
		"Knowledge base: " + win.kb,
		"Data folder: " + win.opt.Config.Paths.DataDir,
		"Settings: " + win.opt.Dirs.SettingsFile(),
	}
	box := container.NewVBox(widget.NewLabelWithStyle(fmt.Sprintf("Cairn %s", win.opt.Version), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	for _, l := range lines {
		lbl := widget.NewLabel(l)
		lbl.Wrapping = fyne.TextWrapWord
		box.Add(lbl)
	}
	win.aboutView = box
	d := dialog.NewCustom("About Cairn", "Close", box, win.w)
	d.Resize(fyne.NewSize(520, 260))
	panels.DialogKeys(d, win.w)
	d.Show()
}
