//go:build linux

// Package xwindow opens a plain X11 window for tests of the desktop
// package: black until painted, as a GL window is until its first frame.
package xwindow

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <string.h>

static Display *xw_open(const char *display) { return XOpenDisplay(display); }

static Window xw_create(Display *d, const char *title) {
	Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 200, 100, 0, 0, BlackPixel(d, DefaultScreen(d)));
	Atom name = XInternAtom(d, "_NET_WM_NAME", False), utf8 = XInternAtom(d, "UTF8_STRING", False);
	XChangeProperty(d, w, name, utf8, 8, PropModeReplace, (const unsigned char *)title, strlen(title));
	XMapWindow(d, w);
	XSync(d, False);
	return w;
}

static void xw_paint(Display *d, Window w) {
	GC gc = XCreateGC(d, w, 0, NULL);
	XSetForeground(d, gc, WhitePixel(d, DefaultScreen(d)));
	XFillRectangle(d, w, gc, 0, 0, 200, 100);
	XFreeGC(d, gc);
	XSync(d, False);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Window is a mapped X11 window.
type Window struct {
	d *C.Display
	w C.Window
}

// Open maps a black window titled title on display.
func Open(display, title string) (*Window, error) {
	cd, ct := C.CString(display), C.CString(title)
	defer C.free(unsafe.Pointer(cd))
	defer C.free(unsafe.Pointer(ct))
	d := C.xw_open(cd)
	if d == nil {
		return nil, errors.New("cannot open X display " + display)
	}
	return &Window{d: d, w: C.xw_create(d, ct)}, nil
}

// Paint fills the window with white.
func (w *Window) Paint() { C.xw_paint(w.d, w.w) }

// Close destroys the window and closes the connection.
func (w *Window) Close() {
	C.XDestroyWindow(w.d, w.w)
	C.XCloseDisplay(w.d)
}
