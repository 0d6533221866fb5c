//go:build linux

package desktop

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

// painted_in looks for a window named with prefix at or under w (a window
// manager puts the client inside its frame): 1 it shows a pixel that is
// not black, 0 it is on the screen but black, -1 no such window on screen.
// named says whether w's title (_NET_WM_NAME, in UTF-8, as GLFW sets it)
// starts with prefix.
static int named(Display *d, Window w, const char *prefix) {
	Atom prop = XInternAtom(d, "_NET_WM_NAME", False), type;
	int format, match = 0;
	unsigned long n, after;
	unsigned char *data = NULL;
	if (XGetWindowProperty(d, w, prop, 0, 256, False, AnyPropertyType, &type, &format, &n, &after, &data) == Success && data) {
		match = n >= strlen(prefix) && strncmp((char *)data, prefix, strlen(prefix)) == 0;
		XFree(data);
	}
	return match;
}

static int painted_in(Display *d, Window w, const char *prefix, int depth) {
	{
		if (named(d, w, prefix)) {
			XWindowAttributes a;
			if (!XGetWindowAttributes(d, w, &a) || a.map_state != IsViewable) return -1;
			XImage *img = XGetImage(d, w, 0, 0, a.width, a.height, AllPlanes, ZPixmap);
			if (!img) return -1;
			int lit = 0;
			for (int y = 0; y < a.height && !lit; y += 4)
				for (int x = 0; x < a.width; x += 4)
					if (XGetPixel(img, x, y) & 0xffffff) { lit = 1; break; }
			XDestroyImage(img);
			return lit;
		}
	}
	if (depth == 0) return -1;
	Window root, parent, *kids = NULL;
	unsigned int n = 0;
	int found = -1;
	if (XQueryTree(d, w, &root, &parent, &kids, &n)) {
		for (unsigned int i = 0; i < n && found < 0; i++) found = painted_in(d, kids[i], prefix, depth - 1);
		if (kids) XFree(kids);
	}
	return found;
}

static int handle_error(Display *d, XErrorEvent *e) { return 0; } // windows come and go between calls

static Display *cairn_open(const char *display) {
	Display *d = XOpenDisplay(display);
	if (d) XSetErrorHandler(handle_error);
	return d;
}

static int cairn_painted(Display *d, const char *prefix) {
	return painted_in(d, DefaultRootWindow(d), prefix, 3);
}
*/
import "C"

import (
	"context"
	"fmt"
	"time"
	"unsafe"
)

// WaitPainted polls X display for a window whose title starts with prefix
// until it shows a pixel that is not black, and returns when the window
// was first on the screen (mapped; zero if it was never seen black) and
// when it was first painted. A window whose first frame is not drawn yet
// is black. It polls every 5 ms, so each time is late by at most that and
// one screen grab.
func WaitPainted(ctx context.Context, display, prefix string) (mapped, painted time.Time, err error) {
	cd, cp := C.CString(display), C.CString(prefix)
	defer C.free(unsafe.Pointer(cd))
	defer C.free(unsafe.Pointer(cp))
	d := C.cairn_open(cd)
	if d == nil {
		return mapped, painted, fmt.Errorf("cannot open X display %q", display)
	}
	defer C.XCloseDisplay(d)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		switch C.cairn_painted(d, cp) {
		case 1:
			return mapped, time.Now(), nil
		case 0:
			if mapped.IsZero() {
				mapped = time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return mapped, painted, fmt.Errorf("no painted window titled %q: %w", prefix, ctx.Err())
		case <-tick.C:
		}
	}
}
