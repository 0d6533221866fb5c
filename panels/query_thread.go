package panels

import (
	"fmt"
	"path/filepath"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/domain"
)

// Conversation is the Ask tab's conversation row: the saved conversations
// of the knowledge base (choosing one continues it), the folders the
// conversation answers from, Delete and New conversation.
type Conversation struct {
	Threads *widget.Select
	// Folders shows the folders the conversation's questions are answered
	// from, and chooses them.
	Folders *Button
	Delete  *Button
	New     *Button
	// FolderDialog is the last folder chooser, for tests.
	FolderDialog *FolderChooser

	row     fyne.CanvasObject
	list    []domain.Thread
	current int64    // the conversation the next question continues; 0: a new one
	chosen  []string // its folders; nil: every folder
	all     []domain.Folder
	guide   string // the user guide's folder
	setting bool   // the list is being set from the worker's, not chosen
	post    func(QueryRequest)
	win     fyne.Window
}

// newConversationPlaceholder is the list's text while the next question
// starts a new conversation.
const newConversationPlaceholder = "New conversation"

func newConversation(win fyne.Window, post func(QueryRequest)) *Conversation {
	c := &Conversation{post: post, win: win}
	c.Threads = widget.NewSelect(nil, func(string) { c.choose() })
	c.Threads.PlaceHolder = newConversationPlaceholder
	c.Folders = NewButtonWithIcon(allFolders, theme.FolderIcon(), c.chooseFolders)
	c.Delete = NewButtonWithIcon("", theme.DeleteIcon(), c.confirmDelete)
	c.New = NewButtonWithIcon("New conversation", theme.ContentAddIcon(), c.Start)
	c.row = container.NewBorder(nil, nil, widget.NewLabel("Conversation:"), container.NewHBox(c.Folders, c.Delete, c.New), c.Threads)
	c.sync()
	return c
}

// Start begins a new conversation: the next question follows nothing.
func (c *Conversation) Start() { c.post(NewConversation{}) }

// Current is the saved conversation the next question continues; 0 for a
// new one.
func (c *Conversation) Current() int64 { return c.current }

// Chosen are the folders the conversation answers from; nil: every one.
func (c *Conversation) Chosen() []string { return c.chosen }

// choose reopens the conversation picked in the list.
func (c *Conversation) choose() {
	i := c.Threads.SelectedIndex()
	if c.setting || i < 0 || i >= len(c.list) || c.list[i].ID == c.current {
		return
	}
	c.post(OpenThread{ID: c.list[i].ID})
}

func (c *Conversation) confirmDelete() {
	t, ok := c.thread(c.current)
	if !ok {
		return
	}
	ShowConfirm("Delete conversation?",
		fmt.Sprintf("Delete %q and its %s from this knowledge base?\nYour documents are not touched.", t.Title, plural(t.Turns, "question", "questions")),
		func(ok bool) {
			if ok {
				c.post(DeleteThread{ID: t.ID})
			}
		}, c.win)
}

func (c *Conversation) thread(id int64) (domain.Thread, bool) {
	for _, t := range c.list {
		if t.ID == id {
			return t, true
		}
	}
	return domain.Thread{}, false
}

// listed shows the saved conversations and which one is current.
func (c *Conversation) listed(ev ThreadsListed) {
	c.list, c.current = ev.Threads, ev.Current
	opts := make([]string, len(ev.Threads))
	sel := -1
	seen := map[string]int{}
	for i, t := range ev.Threads {
		opts[i] = fmt.Sprintf("%s · %s", t.Title, plural(t.Turns, "question", "questions"))
		// The list tells its entries apart by their text: two
		// conversations that began with the same question are numbered.
		if seen[opts[i]]++; seen[opts[i]] > 1 {
			opts[i] += fmt.Sprintf(" (%d)", seen[opts[i]])
		}
		if t.ID == ev.Current {
			sel = i
		}
	}
	c.setting = true
	c.Threads.SetOptions(opts)
	if sel >= 0 {
		c.Threads.SetSelectedIndex(sel)
	} else {
		c.Threads.ClearSelected()
	}
	c.setting = false
	c.sync()
}

// opened makes the conversation the next question continues ev.ID (0: a
// new one).
func (c *Conversation) opened(ev ThreadOpened) {
	c.current = ev.ID
	c.sync()
}

// answered takes in the conversation an answer was saved in (thread 0:
// not saved), and reports whether a new one began in place of the one
// the question was asked in: the engine starts one for a question on
// another subject.
func (c *Conversation) answered(thread int64) (began bool) {
	if thread == 0 {
		return false
	}
	began = c.current != 0 && thread != c.current
	c.current = thread
	c.sync()
	return began
}

// setFolders takes in the knowledge base's folders, and the user guide's.
func (c *Conversation) setFolders(all []domain.Folder, guide string) {
	c.all, c.guide = all, guide
	c.showChosen()
	c.sync()
}

// folders shows the folders the conversation answers from.
func (c *Conversation) folders(chosen []string) {
	c.chosen = slices.Clone(chosen)
	c.showChosen()
}

// allFolders is the folder button's text while every folder is used.
const allFolders = "All folders"

func (c *Conversation) showChosen() {
	text := allFolders
	switch n := len(c.chosen); {
	case n == 1:
		text = "Only " + c.folderName(c.chosen[0])
	case n > 1:
		text = fmt.Sprintf("%d of %d folders", n, max(n, len(c.all)))
	}
	imp := widget.MediumImportance
	if len(c.chosen) > 0 {
		imp = widget.WarningImportance // it narrows every answer: it stands out
	}
	if c.Folders.Text != text || c.Folders.Importance != imp {
		c.Folders.Text, c.Folders.Importance = text, imp
		c.Folders.Refresh()
	}
}

// folderName is how a folder is named on the button and in the chooser.
func (c *Conversation) folderName(path string) string {
	if c.guide != "" && filepath.Clean(path) == filepath.Clean(c.guide) {
		return "Cairn's user guide"
	}
	return filepath.Base(path)
}

// FolderChooser is the dialog that chooses the folders a conversation
// answers from: one box per folder of the knowledge base.
type FolderChooser struct {
	Boxes []*widget.Check
	Use   *Button
	d     dialog.Dialog
}

// Close closes the chooser as Cancel does.
func (f *FolderChooser) Close() { f.d.Hide() }

// chooseFolders opens the chooser.
func (c *Conversation) chooseFolders() {
	if len(c.all) == 0 {
		return
	}
	f := &FolderChooser{}
	var list []fyne.CanvasObject
	ticked := func() []string {
		var out []string
		for i, b := range f.Boxes {
			if b.Checked {
				out = append(out, c.all[i].Path)
			}
		}
		return out
	}
	for _, fo := range c.all {
		label := fmt.Sprintf("%s · %s", shortFolder(fo.Path), plural(fo.Documents, "document", "documents"))
		if c.folderName(fo.Path) != filepath.Base(fo.Path) {
			label = c.folderName(fo.Path) + " · " + plural(fo.Documents, "document", "documents")
		}
		b := widget.NewCheck(label, func(bool) {
			if len(ticked()) == 0 {
				f.Use.Disable()
			} else {
				f.Use.Enable()
			}
		})
		b.Checked = len(c.chosen) == 0 || slices.ContainsFunc(c.chosen, func(p string) bool {
			return filepath.Clean(p) == filepath.Clean(fo.Path)
		})
		f.Boxes = append(f.Boxes, b)
		list = append(list, b)
	}
	intro := widget.NewLabel("This conversation's questions are answered from the folders ticked; the choice is kept with it.")
	intro.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(container.NewVBox(list...))
	scroll.SetMinSize(fyne.NewSize(420, min(float32(len(list))*40, 240)))
	f.Use = NewButtonWithIcon("Use these folders", theme.ConfirmIcon(), func() {
		chosen := ticked()
		if len(chosen) == len(c.all) {
			chosen = nil // every folder, those indexed later too
		}
		f.d.Hide()
		c.post(ChooseFolders{Folders: chosen})
	})
	f.Use.Importance = widget.HighImportance
	cancel := NewButton("Cancel", func() { f.d.Hide() })
	d := dialog.NewCustomWithoutButtons("Folders this conversation uses", container.NewBorder(intro, nil, nil, nil, scroll), c.win)
	d.SetButtons([]fyne.CanvasObject{cancel, f.Use})
	f.d = d
	c.FolderDialog = f
	d.SetOnClosed(AnswerKeys(c.win, func() {
		if !f.Use.Disabled() {
			f.Use.OnTapped()
		}
	}, d.Hide))
	d.Show()
}

func (c *Conversation) sync() {
	enable(c.Delete, c.current != 0)
	enable(c.Threads, len(c.list) > 0)
	enable(c.Folders, len(c.all) > 0)
}
