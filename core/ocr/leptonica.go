//go:build cgo && !noocr

package ocr

/*
#cgo LDFLAGS: -llept
#include <leptonica/allheaders.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>

// Leptonica writes its messages ("Error in pixReadMemPng: ...") to stderr,
// where they interleave with the command's output. This handler keeps them
// in a buffer instead; Go drains it into the log after each call.
static pthread_mutex_t cairn_lept_mu = PTHREAD_MUTEX_INITIALIZER;
static char cairn_lept_buf[16384];
static size_t cairn_lept_len;

static void cairn_lept_handler(const char *msg) {
	pthread_mutex_lock(&cairn_lept_mu);
	size_t n = strlen(msg);
	if (n > sizeof(cairn_lept_buf) - cairn_lept_len) n = sizeof(cairn_lept_buf) - cairn_lept_len;
	memcpy(cairn_lept_buf + cairn_lept_len, msg, n);
	cairn_lept_len += n;
	pthread_mutex_unlock(&cairn_lept_mu);
}

static void cairn_lept_route(void) { leptSetStderrHandler(cairn_lept_handler); }

static size_t cairn_lept_drain(char *out, size_t cap) {
	pthread_mutex_lock(&cairn_lept_mu);
	size_t n = cairn_lept_len < cap ? cairn_lept_len : cap;
	memcpy(out, cairn_lept_buf, n);
	cairn_lept_len = 0;
	pthread_mutex_unlock(&cairn_lept_mu);
	return n;
}
*/
import "C"

import (
	"log/slog"
	"strings"
	"sync"
	"unsafe"
)

var routeOnce sync.Once

// routeLeptonica sends Leptonica's messages to the buffer drained by
// leptonicaMessages instead of stderr. Safe to call more than once.
func routeLeptonica() {
	routeOnce.Do(func() { C.cairn_lept_route() })
}

// leptonicaMessages returns and clears the messages Leptonica wrote since
// the last call, and logs them at debug level: they describe damaged
// images, which the caller reports as the file's reason.
func leptonicaMessages() []string {
	var buf [16384]byte
	n := C.cairn_lept_drain((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	if n == 0 {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(string(buf[:n]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
			slog.Debug("leptonica", "message", l)
		}
	}
	return lines
}

// releaseFreedMemory hands the memory Tesseract freed after a page back to
// the operating system. glibc keeps freed blocks in its arenas (one per
// thread that allocated, and Tesseract's OpenMP threads each get one), so
// without it a process that recognised a few 300 dpi pages keeps ~100 MB
// per arena it will not use again.
func releaseFreedMemory() { C.malloc_trim(0) }
