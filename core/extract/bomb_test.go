package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
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

	"cairn/core/humanize"
)

// Zip bombs: small office files that inflate to gigabytes. Each is built
// here, in a temporary folder; none is committed.

// bombEntry is one part of a generated archive: head, then n bytes made by
// repeating fill, then tail.
type bombEntry struct {
	name       string
	head, tail string
	fill       string
	n          int64
}

// writeBomb writes the archive with every fill shrunk by 2^shift, deflated
// at the given level.
func writeBomb(t testing.TB, path string, entries []bombEntry, shift uint, level int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, level)
	})
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.head)
		var block []byte
		if e.n > 0 {
			block = bytes.Repeat([]byte(e.fill), max(1, (1<<20)/len(e.fill)))
		}
		for left := e.n >> shift; left > 0; {
			k := min(left, int64(len(block)))
			w.Write(block[:k])
			left -= k
		}
		io.WriteString(w, e.tail)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

const (
	bombDocHead = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
	bombDocTail = `</w:body></w:document>`
	bombCT      = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"></Types>`
)

// hostileFiles are the bombs the RSS bound is checked against, by name.
var hostileFiles = map[string][]bombEntry{
	// NUL bytes inside a text run: 1 GiB from one megabyte.
	"zeros.docx": {{name: "[Content_Types].xml", head: bombCT}, {name: "word/document.xml", head: bombDocHead + "<w:p><w:r><w:t>", fill: "\x00", n: 1 << 30, tail: "</w:t></w:r></w:p>" + bombDocTail}},
	// One text run of 1 GiB of words.
	"onerun.docx": {{name: "[Content_Types].xml", head: bombCT}, {name: "word/document.xml", head: bombDocHead + "<w:p><w:r><w:t>", fill: "cairn ", n: 1 << 30, tail: "</w:t></w:r></w:p>" + bombDocTail}},
	// 1 GiB of short paragraphs: every token small, the sum huge.
	"paragraphs.docx": {{name: "[Content_Types].xml", head: bombCT}, {name: "word/document.xml", head: bombDocHead, fill: "<w:p><w:r><w:t>cairn stone</w:t></w:r></w:p>", n: 1 << 30, tail: bombDocTail}},
	// One start tag with 1 GiB of attributes.
	"attributes.docx": {{name: "[Content_Types].xml", head: bombCT}, {name: "word/document.xml", head: bombDocHead + "<w:p ", fill: `a="b" `, n: 1 << 30, tail: "/>" + bombDocTail}},
	// A worksheet of 1 GiB of cells.
	"cells.xlsx": {
		{name: "[Content_Types].xml", head: bombCT},
		{name: "xl/workbook.xml", head: `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{name: "xl/_rels/workbook.xml.rels", head: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{name: "xl/worksheets/sheet1.xml", head: `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`, fill: `<row><c t="inlineStr"><is><t>cairn</t></is></c></row>`, n: 1 << 30, tail: `</sheetData></worksheet>`},
	},
	// An ODT whose content is one text run of 1 GiB.
	"onerun.odt": {{name: "mimetype", head: "application/vnd.oasis.opendocument.text"}, {name: "content.xml", head: `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>`, fill: "cairn ", n: 1 << 30, tail: `</text:p></office:text></office:body></office:document-content>`}},
}

// TestBombChild extracts the file CAIRN_BOMB names and prints the peak
// resident set size; TestHostileFilesStayUnderRSSBound runs it in a fresh
// process per file, since a process's peak cannot be reset.
func TestBombChild(t *testing.T) {
	path := os.Getenv("CAIRN_BOMB")
	if path == "" {
		t.Skip("run by TestHostileFilesStayUnderRSSBound")
	}
	b, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := b.Stat()
	_, err = NewRegistry(DefaultLimits()).Extract(context.Background(), File{Name: path, Size: st.Size(), R: b})
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
		t.Skip("set CAIRN_RSS_BOMBS=1 to run (linux: reads /proc/self/status)")
	}
	dir := t.TempDir()
	for name, entries := range hostileFiles {
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
		t.Skip("builds 256 MiB bombs")
	}
	dir := t.TempDir()
	for name, entries := range hostileFiles {
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
	writeBomb(t, path, []bombEntry{{name: "[Content_Types].xml", head: bombCT},
		{name: "word/document.xml", head: bombDocHead, fill: para.String(), n: 48 << 20, tail: bombDocTail}}, 0, flate.BestSpeed)
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
