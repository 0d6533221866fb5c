// Package panels holds the window's panels: question and answer, indexing,
// status and engineering. Each panel is a constructor that receives what it
// needs (the window for its dialogs, the channels its requests go out on)
// and returns a value holding its widgets; no panel reaches into another.
//
// Panels hold no business logic. They send typed requests on channels to
// the workers of package ui, and the workers' events come back through the
// panels' Apply methods, which must run on the window's goroutine (inside
// fyne.Do).
package panels
