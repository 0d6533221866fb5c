package panels

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// FilterRow is the Ask tab's filter row: the folder, file type,
// modification dates and title or path text a question's sources must
// come from. It narrows retrieval itself, as `cairn ask`'s flags do.
type FilterRow struct {
	Folder   *Entry
	Type     *Entry
	Since    *Entry
	Until    *Entry
	Contains *Entry
	Clear    *Button
	// Toggle shows and hides the row, which starts hidden: the smallest
	// window has no height to spare for it. It stands out while a hidden
	// row holds a filter.
	Toggle *Button

	row fyne.CanvasObject
}

// filterLabels name the filter's fields (search.FilterError's Field) as
// the row shows them.
var filterLabels = map[string]string{
	"folder": "Folder", "type": "Type", "since": "Modified from", "until": "Modified to", "path-contains": "Title or path",
}

func newFilterRow() *FilterRow {
	entry := func(placeholder string) *Entry {
		e := NewEntry()
		e.SetPlaceHolder(placeholder)
		return e
	}
	f := &FilterRow{
		Folder:   entry("Folder"),
		Type:     entry("Type: pdf, md…"),
		Since:    entry("From: 2024-03"),
		Until:    entry("To: 2024-12"),
		Contains: entry("Title or path"),
	}
	f.Clear = NewButtonWithIcon("", theme.ContentClearIcon(), f.reset)
	f.Toggle = NewButton("Filter", f.toggle)
	f.row = container.NewBorder(nil, nil, widget.NewLabel("Only:"), f.Clear,
		container.NewGridWithColumns(5, f.Folder, f.Type, f.Since, f.Until, f.Contains))
	f.row.Hide()
	for _, e := range f.entries() {
		e.OnChanged = func(string) { f.mark() }
	}
	return f
}

func (f *FilterRow) entries() []*Entry {
	return []*Entry{f.Folder, f.Type, f.Since, f.Until, f.Contains}
}

// Shown reports whether the row is shown.
func (f *FilterRow) Shown() bool { return f.row.Visible() }

func (f *FilterRow) toggle() {
	if f.row.Visible() {
		f.row.Hide()
	} else {
		f.row.Show()
	}
	f.mark()
}

// mark makes Toggle stand out while the hidden row holds a filter.
func (f *FilterRow) mark() {
	imp := widget.MediumImportance
	if f.Set() && !f.row.Visible() {
		imp = widget.WarningImportance
	}
	if f.Toggle.Importance != imp {
		f.Toggle.Importance = imp
		f.Toggle.Refresh()
	}
}

// Spec is the filter as typed.
func (f *FilterRow) Spec() search.FilterSpec {
	return search.FilterSpec{Folders: f.Folder.Text, Types: f.Type.Text, Since: f.Since.Text, Until: f.Until.Text, Contains: f.Contains.Text}
}

// Set reports whether any field of the filter is filled in.
func (f *FilterRow) Set() bool { return f.Spec() != search.FilterSpec{} }

func (f *FilterRow) reset() {
	for _, e := range f.entries() {
		e.SetText("")
	}
}

// filterProblem says which field of the filter row cannot be read, or ""
// when err is not about the filter.
func filterProblem(err error) string {
	var fe *search.FilterError
	if !errors.As(err, &fe) {
		return ""
	}
	return "Check the filter: " + filterLabels[fe.Field] + ": " + fe.Err.Error()
}
