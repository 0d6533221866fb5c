//go:build linux

package desktop

/*
#cgo LDFLAGS: -lX11
#include <X11/Xlib.h>
#include <X11/Xatom.h>

// frame_extents reads _NET_FRAME_EXTENTS (left, right, top, bottom): the
// window manager's decorations around the client window.
static void frame_extents(Display *d, Window w, long *left, long *top) {
	*left = 0; *top = 0;
	Atom prop = XInternAtom(d, "_NET_FRAME_EXTENTS", True);
	if (prop == None) return;
	Atom type; int format; unsigned long n, after; unsigned char *data = NULL;
	if (XGetWindowProperty(d, w, prop, 0, 4, False, XA_CARDINAL, &type, &format, &n, &after, &data) == Success && data) {
		if (n == 4 && format == 32) {
			long *v = (long *)data;
			*left = v[0]; *top = v[2];
		}
		XFree(data);
	}
}

// cairn_window_pos stores the position of the window's frame (its
// decorations included) on the screen; 0 on failure.
static int cairn_window_pos(unsigned long w, int *x, int *y) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	Window child;
	int ok = XTranslateCoordinates(d, (Window)w, DefaultRootWindow(d), 0, 0, x, y, &child);
	long left, top;
	frame_extents(d, (Window)w, &left, &top);
	*x -= left; *y -= top;
	XCloseDisplay(d);
	return ok;
}

// cairn_move_window moves the window's frame to x, y; 0 on failure.
static int cairn_move_window(unsigned long w, int x, int y) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	XMoveWindow(d, (Window)w, x, y);
	XFlush(d);
	XCloseDisplay(d);
	return 1;
}
*/
import "C"

// WindowPosition returns where the X11 window's frame sits on the screen.
func WindowPosition(win uintptr) (x, y int, ok bool) {
	var cx, cy C.int
	if C.cairn_window_pos(C.ulong(win), &cx, &cy) == 0 {
		return 0, 0, false
	}
	return int(cx), int(cy), true
}

// MoveWindow moves the X11 window's frame to x, y.
func MoveWindow(win uintptr, x, y int) bool {
	return C.cairn_move_window(C.ulong(win), C.int(x), C.int(y)) != 0
}
