//go:build linux

package desktop

/*
#cgo LDFLAGS: -lX11 -lXinerama
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/extensions/Xinerama.h>

// A window may be gone between two calls (the person closed it in its first
// second): Xlib's default error handler would end the process on its
// BadWindow, so these connections ignore errors and the calls report failure.
static int cairn_ignore_error(Display *d, XErrorEvent *e) { return 0; }

static Display *cairn_open_quiet(void) {
	Display *d = XOpenDisplay(NULL);
	if (d) XSetErrorHandler(cairn_ignore_error);
	return d;
}

// frame_extents reads _NET_FRAME_EXTENTS (left, right, top, bottom): the
// window manager's decorations around the client window.
static int frame_extents4(Display *d, Window w, long *left, long *right, long *top, long *bottom) {
	*left = 0; *right = 0; *top = 0; *bottom = 0;
	Atom prop = XInternAtom(d, "_NET_FRAME_EXTENTS", True);
	if (prop == None) return 0;
	Atom type; int format; unsigned long n, after; unsigned char *data = NULL;
	int ok = 0;
	if (XGetWindowProperty(d, w, prop, 0, 4, False, XA_CARDINAL, &type, &format, &n, &after, &data) == Success && data) {
		if (n == 4 && format == 32) {
			long *v = (long *)data;
			*left = v[0]; *right = v[1]; *top = v[2]; *bottom = v[3];
			ok = 1;
		}
		XFree(data);
	}
	return ok;
}

static void frame_extents(Display *d, Window w, long *left, long *top) {
	long right, bottom;
	frame_extents4(d, w, left, &right, top, &bottom);
}

// cairn_frame_extents stores the window manager's decorations around the
// window; 0 when it sets none (no window manager, or not yet).
static int cairn_frame_extents(unsigned long w, long *left, long *right, long *top, long *bottom) {
	Display *d = cairn_open_quiet();
	if (!d) return 0;
	int ok = frame_extents4(d, (Window)w, left, right, top, bottom);
	XCloseDisplay(d);
	return ok;
}

// cairn_work_area stores the part of the screen at (px, py) that windows
// may take: the monitor holding the point (Xinerama; the first monitor
// when none does), less the panels the window manager reserves
// (_NET_WORKAREA of the current desktop). 0 when there is no display.
static int cairn_work_area(int px, int py, int *x, int *y, int *w, int *h) {
	Display *d = cairn_open_quiet();
	if (!d) return 0;
	int scr = DefaultScreen(d);
	*x = 0; *y = 0; *w = DisplayWidth(d, scr); *h = DisplayHeight(d, scr);
	int n = 0;
	if (XineramaIsActive(d)) {
		XineramaScreenInfo *s = XineramaQueryScreens(d, &n);
		if (s && n > 0) {
			int pick = 0;
			for (int i = 0; i < n; i++)
				if (px >= s[i].x_org && px < s[i].x_org + s[i].width && py >= s[i].y_org && py < s[i].y_org + s[i].height) { pick = i; break; }
			*x = s[pick].x_org; *y = s[pick].y_org; *w = s[pick].width; *h = s[pick].height;
		}
		if (s) XFree(s);
	}
	Atom prop = XInternAtom(d, "_NET_WORKAREA", True);
	if (prop != None) {
		Atom type; int format; unsigned long items, after; unsigned char *data = NULL;
		if (XGetWindowProperty(d, DefaultRootWindow(d), prop, 0, 4, False, XA_CARDINAL, &type, &format, &items, &after, &data) == Success && data) {
			if (items >= 4 && format == 32) {
				long *v = (long *)data;
				// The desktop's work area spans every monitor: keep its
				// part on this one.
				int x0 = *x > v[0] ? *x : v[0], y0 = *y > v[1] ? *y : v[1];
				int x1 = (*x + *w) < (v[0] + v[2]) ? (*x + *w) : (v[0] + v[2]);
				int y1 = (*y + *h) < (v[1] + v[3]) ? (*y + *h) : (v[1] + v[3]);
				if (x1 > x0 && y1 > y0) { *x = x0; *y = y0; *w = x1 - x0; *h = y1 - y0; }
			}
			XFree(data);
		}
	}
	XCloseDisplay(d);
	return 1;
}

// cairn_window_pos stores the position of the window's frame (its
// decorations included) on the screen; 0 on failure.
static int cairn_window_pos(unsigned long w, int *x, int *y) {
	Display *d = cairn_open_quiet();
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
	Display *d = cairn_open_quiet();
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

// Rect is a rectangle of the screen, in pixels.
type Rect struct{ X, Y, W, H int }

// WorkArea is the part of the screen a window at (x, y) may take: its
// monitor, less the desktop's panels. ok is false without an X display.
func WorkArea(x, y int) (r Rect, ok bool) {
	var cx, cy, cw, ch C.int
	if C.cairn_work_area(C.int(x), C.int(y), &cx, &cy, &cw, &ch) == 0 {
		return Rect{}, false
	}
	return Rect{int(cx), int(cy), int(cw), int(ch)}, true
}

// FrameExtents are the window manager's decorations around the X11
// window, in pixels; ok is false when it sets none.
func FrameExtents(win uintptr) (left, right, top, bottom int, ok bool) {
	var l, r, t, b C.long
	if C.cairn_frame_extents(C.ulong(win), &l, &r, &t, &b) == 0 {
		return 0, 0, 0, 0, false
	}
	return int(l), int(r), int(t), int(b), true
}

// MoveWindow moves the X11 window's frame to x, y.
func MoveWindow(win uintptr, x, y int) bool {
	return C.cairn_move_window(C.ulong(win), C.int(x), C.int(y)) != 0
}
