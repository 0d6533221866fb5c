package extract

import (
	"compress/flate"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/core/extract/extracttest"
	"cairn/core/humanize"
	"cairn/internal/skip"
)

// Zip bombs: small office files that inflate to gigabytes, built by
// extracttest in a temporary folder; none is committed.

// writeBomb writes an extracttest bomb or fails the test.
func writeBomb(t testing.TB, path string, entries []extracttest.BombEntry, shift uint, level int) {
	t.Helper()
	if err := extracttest.WriteBomb(path, entries, shift, level); err != nil {
		t.Fatal(err)
	}
}

// TestBombChild extracts the file CAIRN_BOMB names (a PDF with the engine
// CAIRN_BOMB_PDF_ENGINE names, "" for the default) and prints the peak
// resident set size; TestHostileFilesStayUnderRSSBound and
// TestNestedPDFsStayUnderRSSBound run it in a fresh process per file,
// since a process's peak cannot be reset.
func TestBombChild(t *testing.T) {
	path := os.Getenv("CAIRN_BOMB")
	if path == "" {
		skip.Because(t, "a child process: TestHostileFilesStayUnderRSSBound and TestNestedPDFsStayUnderRSSBound run it")
	}
	b, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := b.Stat()
	reg := NewRegistry(DefaultLimits(), WithPDFEngine(PDFEngine(os.Getenv("CAIRN_BOMB_PDF_ENGINE"))))
	_, err = reg.Extract(context.Background(), File{Name: path, Size: st.Size(), R: b})
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Printf("RSS %s\nERR %v\n", strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), err)
		}
	}
}

// No file takes more than 256 MB of memory, whatever it holds: measured as
// the peak resident set of a process that extracts only that file. It
// builds gigabyte bombs for a minute, so it runs when CAIRN_RSS_BOMBS=1;
// TestHostileFilesStayUnderHeapBound runs the same bombs at a quarter size.
func TestHostileFilesStayUnderRSSBound(t *testing.T) {
	if os.Getenv("CAIRN_RSS_BOMBS") == "" || runtime.GOOS != "linux" {
		skip.Because(t, "on demand: set CAIRN_RSS_BOMBS=1 (Linux: reads /proc/self/status)")
	}
	dir := t.TempDir()
	for name, entries := range extracttest.Bombs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			writeBomb(t, path, entries, 0, flate.BestCompression)
			st, _ := os.Stat(path)
			cmd := exec.Command(os.Args[0], "-test.run=^TestBombChild$", "-test.v")
			cmd.Env = append(os.Environ(), "CAIRN_BOMB="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var kb int64
			var reason string
			for _, l := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(l, "RSS "); ok {
					kb, _ = strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
				}
				if v, ok := strings.CutPrefix(l, "ERR "); ok {
					reason = v
				}
			}
			t.Logf("%s (%s): peak RSS %d MB: %s", name, humanize.Bytes(st.Size()), kb>>10, reason)
			if kb == 0 || kb > 256<<10 {
				t.Errorf("%s: peak RSS %d MB, want at most 256 MB", name, kb>>10)
			}
			if !strings.Contains(reason, "zip bomb") {
				t.Errorf("%s: reason %q does not say zip bomb", name, reason)
			}
		})
	}
}

// Each bomb, at a quarter of its size (256 MiB inflated), is refused as a
// zip bomb while the live heap stays small: the bytes are counted as they
// are inflated, and no text run or tag is held whole.
func TestHostileFilesStayUnderHeapBound(t *testing.T) {
	if testing.Short() {
		skip.Because(t, "-short: builds 256 MiB bombs")
	}
	dir := t.TempDir()
	for name, entries := range extracttest.Bombs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			writeBomb(t, path, entries, 2, flate.BestCompression)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var xerr error
			peak := peakHeap(func() {
				_, xerr = NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf(name, b))
			})
			wantErr(t, name, xerr, ErrTooLarge, "zip bomb?")
			if peak > 64<<20 {
				t.Errorf("%s: live heap peaked at %s, want under 64 MB", name, humanize.Bytes(int64(peak)))
			}
		})
	}
}

// peakHeap runs fn while sampling the live heap, and returns the largest
// sample: a cheap in-process bound that needs no child process.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// A large honest document (compressing only a few times, so no bomb) is
// read up to the text limit and no further: the parsers never hold more
// than about MaxTextBytes of its text, however big its parts are.
func TestTextLimitBoundsParsing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("cairn stone ridge north west valley river summit trail marker survey notes")
	var para strings.Builder
	for para.Len() < 96<<10 { // past deflate's 32 KiB window, so repeats do not compress
		para.WriteString("<w:p><w:r><w:t>")
		for range 8 {
			para.WriteString(words[rng.IntN(len(words))] + strconv.Itoa(rng.IntN(1000)) + " ")
		}
		para.WriteString("</w:t></w:r></w:p>")
	}
	path := filepath.Join(t.TempDir(), "big.docx")
	writeBomb(t, path, []extracttest.BombEntry{{Name: "[Content_Types].xml", Head: extracttest.ContentTypes},
		{Name: "word/document.xml", Head: extracttest.DocHead, Fill: para.String(), N: 48 << 20, Tail: extracttest.DocTail}}, 0, flate.BestSpeed)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lim := DefaultLimits()
	lim.MaxTextBytes = 2 << 20
	var d *Document
	peak := peakHeap(func() { d, err = NewRegistry(lim).Extract(t.Context(), fileOf("big.docx", b)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Text) > int(lim.MaxTextBytes) {
		t.Errorf("text %d bytes, over the limit", len(d.Text))
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "text cut at 2.0 MB (limit)")
	// The file's own 13.8 MB are live throughout, and the heap sampled
	// between collections runs up to 40 MB on a busy machine; without the
	// bound it held 125 MB.
	if peak > 64<<20 {
		t.Errorf("live heap peaked at %s for a 2 MB text limit (file %s)", humanize.Bytes(int64(peak)), humanize.Bytes(int64(len(b))))
	}
}
