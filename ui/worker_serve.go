package ui

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"cairn/panels"
	"cairn/serve"
)

// indexRefusal is the local API's answer to POST /api/index while the
// window serves: the window's index worker is the one that indexes, and
// two runs at once would compete for the knowledge base.
const indexRefusal = "the window is open and indexes this knowledge base itself: add or re-index the folder in its Index tab " +
	"(or close the window and use `cairn serve`)"

// serveWorker runs the local service of `cairn serve` (serve) while the
// window is open and the Engineering tab's toggle is on: the same API and
// MCP, on 127.0.0.1 with the same token file. It owns the server: a
// request turns it on or off, and the worker stops it (and waits for its
// requests) when the shell stops.
type serveWorker struct {
	eng       Engine
	configDir string // holds the token file
	version   string
	log       *slog.Logger // the request log; nil: none
	requests  <-chan bool
	events    chan<- panels.EngineeringEvent
	// saveMode saves a network mode switched through the API: it goes
	// to the settings worker, the settings file's one writer.
	saveMode func(mode string) error
	onChange func() // the status bar refreshes

	addr  atomic.Pointer[string] // "127.0.0.1:PORT" while serving
	stop  context.CancelFunc     // the running server's; nil when off
	ended chan error             // the running server's Serve returned
}

func newServeWorker(eng Engine, configDir, version string, requests <-chan bool, events chan<- panels.EngineeringEvent) *serveWorker {
	return &serveWorker{eng: eng, configDir: configDir, version: version, requests: requests, events: events}
}

// API is where the service listens, "" when it does not.
func (w *serveWorker) API() string {
	if p := w.addr.Load(); p != nil {
		return *p
	}
	return ""
}

func (w *serveWorker) run(ctx context.Context) {
	defer w.off()
	if w.eng.Config().Serve.Enabled {
		w.on(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case on := <-w.requests:
			if on {
				w.on(ctx)
			} else {
				w.off()
				w.report(ctx, "The local service is off.", false)
			}
		case err := <-w.ended: // the server stopped by itself
			w.ended, w.stop = nil, nil
			w.addr.Store(nil)
			w.changed()
			if err == nil {
				err = errors.New("the server stopped")
			}
			w.report(ctx, "The local service stopped: "+err.Error(), true)
		}
	}
}

// on starts the server unless it runs.
func (w *serveWorker) on(ctx context.Context) {
	if w.stop != nil {
		w.report(ctx, "The local service is on at http://"+w.API()+"/api/.", false)
		return
	}
	if err := w.start(ctx); err != nil {
		w.report(ctx, "Could not start the local service: "+err.Error(), true)
		return
	}
	w.report(ctx, "The local service is on at http://"+w.API()+"/api/ (MCP at /mcp); `cairn serve --print-token` shows its token.", false)
}

func (w *serveWorker) start(ctx context.Context) error {
	eng, ok := w.eng.(serve.Engine)
	if !ok {
		return errors.New("this knowledge base cannot be served")
	}
	token, err := serve.Token(w.configDir)
	if err != nil {
		return err
	}
	ln, err := serve.Listen(w.eng.Config().Serve.Port)
	if err != nil {
		return err
	}
	srv := serve.New(eng, serve.Options{Token: token, Version: w.version, Log: w.log, SaveNetworkMode: w.saveMode, IndexRefusal: indexRefusal})
	sctx, stop := context.WithCancel(ctx)
	ended := make(chan error, 1)
	go func() { ended <- srv.Serve(sctx, ln) }() // waited for by off
	addr := ln.Addr().String()
	w.stop, w.ended = stop, ended
	w.addr.Store(&addr)
	w.changed()
	return nil
}

// off stops the server, if it runs, and waits until it has.
func (w *serveWorker) off() {
	if w.stop == nil {
		return
	}
	w.stop()
	<-w.ended
	w.stop, w.ended = nil, nil
	w.addr.Store(nil)
	w.changed()
}

func (w *serveWorker) changed() {
	if w.onChange != nil {
		w.onChange()
	}
}

// report tells the Engineering tab whether the service runs, and why.
func (w *serveWorker) report(ctx context.Context, text string, isErr bool) {
	send(ctx, w.events, panels.EngineeringEvent(panels.ServingChanged{On: w.stop != nil, Addr: w.API()}))
	send(ctx, w.events, panels.EngineeringEvent(panels.SettingsNotice{Text: text, Err: isErr}))
}
