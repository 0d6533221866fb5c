package panels

import "cairn/core/domain"

// IndexRequest is a request of the index panel to its worker: ChooseFolder,
// IndexFolder, CancelIndex, RemoveFolder or WatchFolder.
type IndexRequest interface{ indexRequest() }

// ChooseFolder asks for the system's folder picker; the answer comes back
// as FolderChosen (or ShowFolderDialog when there is no native picker).
// With Start, the chosen folder is indexed at once.
type ChooseFolder struct{ Start bool }

// IndexFolder indexes (or re-indexes) a folder; it waits its turn when
// another folder is being indexed. With Retry, the files earlier runs
// skipped or failed on are read again too, changed or not
// (core.Engine.RetryFailed).
type IndexFolder struct {
	Path  string
	Retry bool
}

// CancelIndex stops the running indexing run; what was written stays.
type CancelIndex struct{}

// RemoveFolder forgets a folder and everything indexed from it.
type RemoveFolder struct{ Path string }

// WatchFolder turns re-indexing on change on or off for a folder.
type WatchFolder struct {
	Path string
	On   bool
}

func (ChooseFolder) indexRequest() {}
func (IndexFolder) indexRequest()  {}
func (CancelIndex) indexRequest()  {}
func (RemoveFolder) indexRequest() {}
func (WatchFolder) indexRequest()  {}

// IndexEvent is news from the index worker.
type IndexEvent interface{ indexEvent() }

// IndexReady says the knowledge base is open.
type IndexReady struct{}

// FoldersListed is the knowledge base's folders with their counts.
type FoldersListed struct {
	Folders  []domain.Folder
	Watching map[string]bool
	// Cluster names the team cluster the folders' documents are in
	// ("the team cluster at URL"), whose counts Folders then has; "" for
	// the knowledge base file. Removing a folder removes it from there,
	// for everyone who searches it.
	Cluster string
	// Guide is the bundled user guide's folder when it is the only one:
	// the person has not added documents of their own yet.
	Guide *domain.Folder
	// GuideDir is where the user guide is installed, to name it.
	GuideDir string
}

// IssuesListed is every file a run could not index, with the reason.
type IssuesListed struct{ Issues []domain.Issue }

// Progressed is one progress report of the running run.
type Progressed struct{ Progress domain.Progress }

// IndexQueued says a folder waits for the running run to finish.
type IndexQueued struct{ Path string }

// IndexFinished says a run ended: done, cancelled or failed (Err).
type IndexFinished struct {
	Path      string
	Run       domain.Run
	Err       error
	Cancelled bool
}

// RemoveProgressed is how far removing a folder from a team cluster has
// gone.
type RemoveProgressed struct {
	Path    string
	Removal domain.Removal
}

// FolderRemoved says a folder removal ended, with what was removed; Err
// when it failed.
type FolderRemoved struct {
	Path    string
	Removal domain.Removal
	Err     error
}

// FolderChosen is the folder the person picked; Path is "" when they
// closed the picker without choosing.
type FolderChosen struct {
	Path  string
	Start bool
}

// ShowFolderDialog asks the panel to show Fyne's folder dialog, because the
// desktop has no native picker.
type ShowFolderDialog struct{ Start bool }

// IndexNotice is a message for the person.
type IndexNotice struct {
	Text string
	Err  bool
}

func (IndexReady) indexEvent()       {}
func (FoldersListed) indexEvent()    {}
func (IssuesListed) indexEvent()     {}
func (Progressed) indexEvent()       {}
func (IndexQueued) indexEvent()      {}
func (IndexFinished) indexEvent()    {}
func (FolderChosen) indexEvent()     {}
func (FolderRemoved) indexEvent()    {}
func (RemoveProgressed) indexEvent() {}
func (ShowFolderDialog) indexEvent() {}
func (IndexNotice) indexEvent()      {}
