package ui

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The Ask tab's filter row narrows retrieval itself (a real engine): with
// a folder and a type set, every source comes from the one file they let
// through, though another file matches the question better; a date that
// cannot be read is named; Clear empties the row.
func TestAskTabFilterRowKeepsSourcesInTheFilteredFiles(t *testing.T) {
	cfg, open := realEngine(t)
	h := newHarnessWith(t, open, cfg)
	p, q := h.shell().IndexTab, h.shell().Query
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	corpus := copyCorpus(t)
	startIndexing(h, corpus)
	h.until("the corpus", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+corpus+".") })
	h.shell().showTab(tabAsk)

	h.ask("how do I reset the router on the office network")
	waitAnswered(h, "the unfiltered answer")
	h.until("the sources", func() bool { return len(q.Rows()) > 0 })
	// Unfiltered, both the router's manual and the network page answer
	// (their order is the ranking's: the question's side-by-side "office
	// network" lifts the network page to a near-tie's first place).
	if got := titles(q); !slices.Contains(got, "router-x200.md") || !slices.Contains(got, "network-setup.html") {
		t.Fatalf("unfiltered sources %q, want router-x200.md and network-setup.html", got)
	}

	f := q.Filter
	if f.Shown() {
		t.Error("the filter row is shown before Filter is pressed")
	}
	test.Tap(f.Toggle)
	if !f.Shown() {
		t.Fatal("Filter does not show the filter row")
	}
	test.Type(f.Folder, filepath.Join(corpus, "manuals"))
	test.Type(f.Type, "html")
	h.ask("how do I reset the router on the office network")
	h.until("the filtered answer", func() bool { return strings.HasPrefix(q.State.Text, "Within the filter.") })
	// The rows follow the answer in their own event: wait for the
	// filtered answer's rows, which must all be the one file let through.
	h.until("the filtered sources, network-setup.html only", func() bool {
		rows := q.Rows()
		for _, r := range rows {
			if r.Title.Text != "network-setup.html" {
				return false
			}
		}
		return len(rows) > 0
	})
	test.Type(f.Since, "March")
	h.ask("how do I reset the router on the office network")
	h.until("the bad date named", func() bool { return strings.HasPrefix(q.State.Text, "Check the filter: ") })
	if got := q.State.Text; got != `Check the filter: Modified from: "March" is not a date: write 2024, 2024-03 or 2024-03-15` {
		t.Errorf("state %q", got)
	}

	test.Tap(f.Toggle)
	if f.Shown() || f.Toggle.Importance != widget.WarningImportance {
		t.Errorf("hidden with a filter set: shown %v, Filter importance %v; want hidden, and Filter marked", f.Shown(), f.Toggle.Importance)
	}
	test.Tap(f.Toggle)
	test.Tap(f.Clear)
	if f.Set() {
		t.Errorf("Clear left %+v", f.Spec())
	}
}
