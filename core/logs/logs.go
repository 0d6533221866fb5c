package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
)

// FileName is the log's name in the state folder.
const FileName = "cairn.log"

// Rotation defaults: a few megabytes per file, a handful of old files.
const (
	DefaultMaxBytes = 4 << 20
	DefaultKeep     = 3
)

// Options say where the log goes.
type Options struct {
	Dir      string     // the state folder; the log is Dir/cairn.log
	Level    slog.Level // the file's level
	MaxBytes int64      // rotate past this size; default DefaultMaxBytes
	Keep     int        // old files kept; default DefaultKeep
	// Terminal receives the warnings and errors logged through
	// Logger.Terminal (the commands' stderr), never document text.
	Terminal io.Writer
}

// Logger is an open log. Its own methods write to the file only, so the
// core can log without changing what commands print; Terminal also shows
// warnings and errors on Options.Terminal (for llama.cpp's warnings, which
// reach slog's default logger).
type Logger struct {
	*slog.Logger
	Terminal *slog.Logger
	file     *Rotator
}

// Open starts the log. Its records carry no document text, questions or
// answers unless the level is debug, and never secrets (see Redact).
func Open(opt Options) (*Logger, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.Keep == 0 {
		opt.Keep = DefaultKeep
	}
	rot, err := OpenRotator(filepath.Join(opt.Dir, FileName), opt.MaxBytes, opt.Keep)
	if err != nil {
		return nil, err
	}
	file := Redact(slog.NewTextHandler(rot, &slog.HandlerOptions{Level: opt.Level}), opt.Level <= slog.LevelDebug)
	l := &Logger{Logger: slog.New(file), Terminal: slog.New(file), file: rot}
	if opt.Terminal != nil {
		term := Redact(slog.NewTextHandler(opt.Terminal, &slog.HandlerOptions{Level: slog.LevelWarn}), false)
		l.Terminal = slog.New(fanout{file, term})
	}
	return l, nil
}

// Close closes the log file. Safe on nil.
func (l *Logger) Close() error {
	if l == nil {
		return nil
	}
	return l.file.Close()
}

// Path is the log file's path; "" when there is none.
func (l *Logger) Path() string {
	if l == nil || l.file == nil {
		return ""
	}
	return l.file.Path()
}

// ParseLevel reads a log.level setting: debug, info, warn or error.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: use debug, info, warn or error", s)
}

// Discard is a logger that writes nothing, for callers that were given none.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Attribute keys whose values are document or question text: logged only
// at debug level. Code that logs such text must use one of these keys.
var textKeys = map[string]bool{
	"query": true, "question": true, "text": true, "snippet": true, "answer": true,
	"prompt": true, "passage": true, "content": true, "heading": true, "title": true,
}

// Attribute keys whose values are secrets: never logged.
var secretKeys = map[string]bool{
	"api_key": true, "apikey": true, "password": true, "secret": true, "authorization": true,
	"credential": true, "credentials": true, "bearer": true,
}

// Redacted replaces a value kept out of the log.
const Redacted = "[redacted]"

// Redact wraps h so that attributes named like document text (query, text,
// snippet, ...) are replaced by Redacted unless showText, and attributes
// named like secrets (api_key, password, ...) always are.
func Redact(h slog.Handler, showText bool) slog.Handler {
	return &redactor{h: h, showText: showText}
}

type redactor struct {
	h        slog.Handler
	showText bool
}

func (r *redactor) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r *redactor) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, rec.Message, rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r *redactor) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = r.attr(a)
	}
	return &redactor{h: r.h.WithAttrs(clean), showText: r.showText}
}

func (r *redactor) WithGroup(name string) slog.Handler {
	return &redactor{h: r.h.WithGroup(name), showText: r.showText}
}

func (r *redactor) attr(a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	switch {
	case secretKeys[k], textKeys[k] && !r.showText:
		return slog.String(a.Key, Redacted)
	case a.Value.Kind() == slog.KindGroup:
		g := a.Value.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = r.attr(x)
		}
		return slog.Group(a.Key, clean...)
	case a.Value.Kind() == slog.KindLogValuer:
		return r.attr(slog.Attr{Key: a.Key, Value: a.Value.Resolve()})
	}
	return a
}

// fanout sends each record to every handler that wants its level.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, rec slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, rec.Level) {
			errs = append(errs, h.Handle(ctx, rec.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
