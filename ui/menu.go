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
	shortcutNewConvo  = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutQuit      = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutClose     = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutOpenKB    = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	shortcutNewKB     = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	shortcutGuide     = &desktop.CustomShortcut{KeyName: fyne.KeyF1}
	shortcutHealth    = &desktop.CustomShortcut{KeyName: fyne.KeyH, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	shortcutAbout     = &desktop.CustomShortcut{KeyName: fyne.KeyI, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	// The theme choices, in cairntheme.Choices' order: follow the system,
	// light, dark.
	shortcutThemes = []fyne.Shortcut{
		&desktop.CustomShortcut{KeyName: fyne.KeyY, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift},
		&desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift},
		&desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift},
	}
)

// item is a menu item whose shortcut also works on the window's canvas.
func item(label string, shortcut fyne.Shortcut, action func()) *fyne.MenuItem {
	it := fyne.NewMenuItem(label, action)
	it.Shortcut = shortcut
	return it
}

// menu builds the main menu: File (add folder, open and new knowledge
// base, quit), View (theme, question, new conversation) and Help (user guide,
// health checks, about).
func (win *window) menu() *fyne.MainMenu {
	addFolder := item("Add folder…", shortcutAddFolder, win.addFolder)
	question := item("Ask a question", shortcutQuestion, win.focusQuestion)
	newConvo := item("New conversation", shortcutNewConvo, win.newConversation)
	// Fyne's own Quit item has no shortcut; this one replaces it (IsQuit).
	quit := item("Quit", shortcutQuit, win.quit)
	quit.IsQuit = true

	var themeItems []*fyne.MenuItem
	current := cairntheme.ParseChoice(win.prefs.String(prefTheme))
	for i, c := range cairntheme.Choices() {
		it := item(c.Label(), shortcutThemes[i], nil)
		it.Checked = c == current
		themeItems = append(themeItems, it)
	}
	themeMenu := fyne.NewMenuItem("Theme", nil)
	themeMenu.ChildMenu = fyne.NewMenu("", themeItems...)
	help := []*fyne.MenuItem{item("User guide", shortcutGuide, win.showGuide)}
	if win.opt.Doctor != nil {
		win.healthItem = item("Check health…", shortcutHealth, win.showHealth)
		help = append(help, win.healthItem)
	}
	help = append(help, item("About Cairn", shortcutAbout, win.showAbout))
	main := fyne.NewMainMenu(
		fyne.NewMenu("File",
			addFolder,
			fyne.NewMenuItemSeparator(),
			item("Open knowledge base…", shortcutOpenKB, win.showOpenKB),
			item("New knowledge base…", shortcutNewKB, win.showNewKB),
			fyne.NewMenuItemSeparator(),
			quit,
		),
		fyne.NewMenu("View", question, newConvo, themeMenu),
		fyne.NewMenu("Help", help...),
	)
	for i, c := range cairntheme.Choices() {
		chosen := themeItems[i]
		chosen.Action = func() {
			win.prefs.SetString(prefTheme, string(c))
			win.app.Settings().SetTheme(cairntheme.New(c))
			for _, it := range themeItems {
				it.Checked = it == chosen
			}
			main.Refresh()
		}
	}
	return main
}

// addShortcuts registers the shortcuts on the canvas too: the menu handles
// them in the desktop driver, the canvas when no menu is shown (and in
// tests).
func (win *window) addShortcuts() {
	c := win.w.Canvas()
	var add func(items []*fyne.MenuItem)
	add = func(items []*fyne.MenuItem) {
		for _, it := range items {
			if it.ChildMenu != nil {
				add(it.ChildMenu.Items)
			}
			if it.Shortcut != nil && it.Action != nil {
				action := it.Action
				c.AddShortcut(it.Shortcut, func(fyne.Shortcut) {
					if !it.Disabled { // a health check already running
						action()
					}
				})
			}
		}
	}
	for _, m := range win.w.MainMenu().Items {
		add(m.Items)
	}
	// Fyne makes a shortcut only of a key with Ctrl, Alt or Super, so F1
	// (shown in the Help menu) is a typed key; Cairn's entries and buttons
	// pass it and Escape here when they have the focus (panels.PassKey).
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		switch k.Name {
		case fyne.KeyEscape:
			win.escape()
		case fyne.KeyF1:
			win.showGuide()
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
	win.shell.IndexTab.Choose(true)
}

func (win *window) focusQuestion() {
	win.shell.showTab(tabAsk)
	win.shell.Query.FocusQuestion()
}

// newConversation starts a fresh conversation in the Ask tab, ready for
// its first question.
func (win *window) newConversation() {
	win.shell.showTab(tabAsk)
	win.shell.Query.Conversation.Start()
	win.shell.Query.FocusQuestion()
}

// escape cancels what the visible tab is doing: the question being
// answered, or the indexing run.
func (win *window) escape() {
	switch win.shell.Tabs.SelectedIndex() {
	case tabAsk:
		win.shell.Query.Cancel()
	case tabIndex:
		win.shell.IndexTab.Cancel()
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
