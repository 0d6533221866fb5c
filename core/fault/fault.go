// Package fault gives the errors that reach a person a stable code and a fix:
// what happened, in one line, and what to do about it. A fault wraps its
// cause, so errors.Is and errors.As see through it to sqlite3 codes, fs
// errors and the packages' own sentinel errors.
//
// Codes are stable (documents and support threads quote them); never reuse
// a retired one. The catalogue below is the whole list, and docs/troubleshooting.md's
// "When something goes wrong" table mirrors it.
package fault

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code identifies a kind of fault: an area prefix and a number.
type Code string

// Settings.
const (
	ConfigUnreadable Code = "CONF-001" // the settings file cannot be read or is not valid JSON
	ConfigInvalid    Code = "CONF-002" // a setting has a value that cannot work
	ConfigEnv        Code = "CONF-003" // a CAIRN_* environment variable has a bad value
)

// Models.
const (
	ModelMissing  Code = "MODEL-001" // the configured model file does not exist
	ModelNotGGUF  Code = "MODEL-002" // the file is not a readable GGUF model
	ModelWrongUse Code = "MODEL-003" // an embedding model where a chat model belongs, or the reverse
	ModelLoad     Code = "MODEL-004" // llama.cpp could not load the model
	ModelFailed   Code = "MODEL-005" // the chat model failed while writing an answer (the answer is quoted instead)
)

// Extraction (per-file skip reasons with a remedy).
const (
	ExtractNoOCR     Code = "EXTRACT-001" // images or scanned pages, and Tesseract is missing
	ExtractOCRLang   Code = "EXTRACT-002" // Tesseract lacks a configured language
	ExtractTooLarge  Code = "EXTRACT-003" // the file is over index.max_file_mb
	ExtractTimeout   Code = "EXTRACT-004" // extraction made no progress for index.timeout_sec
	ExtractEncrypted Code = "EXTRACT-005" // password-protected or DRM file
	ExtractLegacy    Code = "EXTRACT-006" // legacy binary Office format (.doc, .xls, .ppt)
	ExtractNoPoppler Code = "EXTRACT-007" // poppler-utils (pdftotext and its siblings) is missing
)

// Knowledge base.
const (
	StoreOpen     Code = "STORE-001" // the knowledge base file cannot be created or opened
	StoreBusy     Code = "STORE-002" // another indexing run holds the knowledge base, or a writer kept a check from running
	StoreCorrupt  Code = "STORE-003" // the database file is damaged
	StoreFull     Code = "STORE-004" // the disk (or the knowledge base's size cap) is full
	StoreNewer    Code = "STORE-005" // written by a newer Cairn
	StoreNotKB    Code = "STORE-006" // the file is not a Cairn knowledge base
	StoreIO       Code = "STORE-007" // the operating system refused a read or write
	StoreInUse    Code = "STORE-008" // restore refused: another process has the knowledge base open
	StoreReadOnly Code = "STORE-009" // the file or its folder is not writable
	StoreBackup   Code = "STORE-010" // a backup to restore is damaged, not a knowledge base, or too new
	StoreLinked   Code = "STORE-011" // the file has more than one name (hard links)
	StoreOlder    Code = "STORE-012" // made by an older Cairn: a command that only reads cannot bring it up to date
)

// Network (the network gate; see core/netgate).
const (
	NetBlocked Code = "NET-001" // the network gate refused a connection
	NetNoRoute Code = "NET-002" // online mode, but no endpoint is configured or it cannot be reached
	NetFailed  Code = "NET-003" // the online endpoint failed while writing an answer (the answer is quoted instead)
)

// Error is a fault: a code, a one-line message, a fix, and the cause.
type Error struct {
	Code Code
	Msg  string // what happened; "" to use the cause's text
	Fix  string // what the person can do
	Err  error  // the cause; may be nil
}

// New returns a fault with message msg and cause err (which may be nil).
func New(code Code, msg, fix string, err error) *Error {
	return &Error{Code: code, Msg: msg, Fix: fix, Err: err}
}

// Wrap gives err a code and a fix, keeping its text as the message. It
// returns nil for a nil err, and err itself when it already carries a fault.
func Wrap(code Code, fix string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := As(err); ok {
		return err
	}
	return &Error{Code: code, Fix: fix, Err: err}
}

// Error is the message followed by the cause.
func (e *Error) Error() string {
	switch {
	case e.Msg == "" && e.Err != nil:
		return e.Err.Error()
	case e.Err == nil:
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// As returns the outermost fault in err's chain.
func As(err error) (*Error, bool) {
	var f *Error
	ok := errors.As(err, &f)
	return f, ok
}

// CodeOf returns err's code, or "" when err carries no fault.
func CodeOf(err error) Code {
	if f, ok := As(err); ok {
		return f.Code
	}
	return ""
}

// FixLine is the fix of err's fault with its code, "fix [CODE]", or "" when
// err carries none.
func FixLine(err error) string {
	f, ok := As(err)
	if !ok || f.Fix == "" {
		return ""
	}
	return fmt.Sprintf("%s [%s]", f.Fix, f.Code)
}

// OneLine is err on one line with its fix, for lists that give each item a
// single line (skipped files, doctor checks): "message (fix: ... [CODE])".
func OneLine(err error) string {
	msg := FirstLine(err.Error())
	if fix := FixLine(err); fix != "" {
		return msg + " (fix: " + fix + ")"
	}
	return msg
}

// FirstLine is s trimmed, up to its first line break: a message for a
// line of its own (a crash's stack belongs in the log).
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return Printable(s)
}

// Printable writes control characters and bytes that are not UTF-8 as Go
// escapes (\x1b, \xff): messages quote file names and damaged data, whose
// raw bytes a terminal would act on or garble.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r) // '\x1b', '\t', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// PrintableText is Printable for text of several lines (a passage, an
// answer, a stream of its tokens): it keeps line breaks and tabs, and
// bytes that are not UTF-8 (a token may end inside a character), and
// escapes every other control character, so a document's ESC]0;…BEL or
// ESC[2J is shown, never acted on by the terminal.
func PrintableText(s string) string {
	i := strings.IndexFunc(s, isUnprintable)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isUnprintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteString(s[i : i+n]) // a stray byte stays the byte it was
		}
		i += n
	}
	return b.String()
}

func isUnprintable(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }
