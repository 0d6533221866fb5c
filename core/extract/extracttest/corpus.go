package extracttest

import (
	"compress/flate"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Place is where a hostile case is built: Dir is the folder indexed, Home
// the home folder the run sees (its HOME), Outside a folder beside Dir.
type Place struct{ Dir, Home, Outside string }

// Case is one input of the hostile corpus: a file (or link, or special
// file) that an independent test of Cairn found costly or wrong, and the
// settings it was found with. `cairn-dev bench hostile` builds each in a
// folder of its own beside ordinary files and indexes that folder.
type Case struct {
	Name  string // the case's folder name
	Issue int    // the pass that found it: 15, 33 or 43
	What  string // what the input is, in a few words
	// Env are the CAIRN_* settings the case runs with: the size cap
	// raised to 2 GB for the inputs measured past it.
	Env   []string
	Build func(p Place) error
	// Command, when set, is run instead of `cairn index DIR`; "DIR" in
	// it stands for Dir.
	Command []string
}

// raisedCap is the setting issue 43 measured the large text-like inputs
// with: the size cap raised to 2 GB.
var raisedCap = []string{"CAIRN_INDEX_MAX_FILE_MB=2048"}

// Corpus lists every hostile input of issues 15, 33 and 43; fixtures is
// testdata/formats, whose hostile files (bombs, encrypted, truncated and
// misnamed files) are copied from there.
func Corpus(fixtures string) []Case {
	var cs []Case
	add := func(c Case) { cs = append(cs, c) }
	file := func(name string, data []byte) func(Place) error {
		return func(p Place) error { return os.WriteFile(filepath.Join(p.Dir, name), data, 0o644) }
	}

	// Issue 43.
	add(Case{Name: "link-ssh-key", Issue: 43, What: "notes.txt -> ~/.ssh/id_rsa",
		Build: func(p Place) error {
			key := filepath.Join(p.Home, ".ssh", "id_rsa")
			if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA secret\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600); err != nil {
				return err
			}
			return os.Symlink(key, filepath.Join(p.Dir, "notes.txt"))
		}})
	add(Case{Name: "link-ssh-key-follow-out", Issue: 43, What: "the same, with index.follow_links_out on", Env: []string{"CAIRN_INDEX_FOLLOW_LINKS_OUT=true"},
		Build: cs[len(cs)-1].Build})
	add(Case{Name: "link-etc-passwd", Issue: 43, What: "passwd.txt -> /etc/passwd",
		Build: func(p Place) error { return os.Symlink("/etc/passwd", filepath.Join(p.Dir, "passwd.txt")) }})
	add(Case{Name: "link-chain-out", Issue: 43, What: "a.txt -> sub/b.txt -> ../../outside/x.txt (relative, chained)",
		Build: func(p Place) error {
			if err := os.WriteFile(filepath.Join(p.Outside, "x.txt"), []byte("outside the folder"), 0o644); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(p.Dir, "sub"), 0o755); err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(p.Dir, "sub"), filepath.Join(p.Outside, "x.txt"))
			if err := os.Symlink(rel, filepath.Join(p.Dir, "sub", "b.txt")); err != nil {
				return err
			}
			return os.Symlink("sub/b.txt", filepath.Join(p.Dir, "a.txt"))
		}})
	for _, mb := range []int{8, 4} {
		add(Case{Name: fmt.Sprintf("xlsx-shared-%dmb", mb), Issue: 43, What: fmt.Sprintf("one %d MB shared string in 100 cells (10 x 10)", mb),
			Build: func(p Place) error {
				return SharedStringsXLSX(filepath.Join(p.Dir, "sheet.xlsx"), mb<<20, 10, 10)
			}})
	}
	add(Case{Name: "xlsx-shared-32k-chars-10000-cells", Issue: 43, What: "one shared string of Excel's 32,767 characters in 10,000 cells (327 MB of cells)",
		Build: func(p Place) error { return SharedStringsXLSX(filepath.Join(p.Dir, "sheet.xlsx"), 32767, 1000, 10) }})
	for _, pt := range []int{11000, 8000} {
		add(Case{Name: fmt.Sprintf("pdf-mediabox-%d", pt), Issue: 43, What: fmt.Sprintf("one %d pt page, a small filled rectangle, no text", pt),
			Build: file("page.pdf", PDF([]PDFPage{{W: float64(pt), H: float64(pt), Content: "0 0 0 rg 100 100 50 50 re f"}}, ""))})
	}
	add(Case{Name: "pdf-mediabox-11000-image", Issue: 43, What: "one 11000 pt page showing a scan-like image across it",
		Build: file("poster.pdf", posterPDF())})
	add(Case{Name: "pdf-blank-2000", Issue: 43, What: "2,000 empty pages",
		Build: func(p Place) error {
			pages := make([]PDFPage, 2000)
			for i := range pages {
				pages[i] = PDFPage{W: 612, H: 792}
			}
			return os.WriteFile(filepath.Join(p.Dir, "blank.pdf"), PDF(pages, ""), 0o644)
		}})
	add(Case{Name: "html-200mb-one-line", Issue: 43, What: "200 MB of HTML on one line", Env: raisedCap,
		Build: func(p Place) error {
			return writeRepeated(filepath.Join(p.Dir, "page.html"), "<html><head><title>one line</title></head><body><p>",
				"<span>cairn stone</span> marker ", 200<<20, "</p></body></html>")
		}})
	add(Case{Name: "text-1gb-one-word", Issue: 43, What: "1 GB of one word", Env: raisedCap,
		Build: func(p Place) error { return writeRepeated(filepath.Join(p.Dir, "word.txt"), "", "a", 1<<30, "\n") }})
	add(Case{Name: "mbox-200mb-attachment", Issue: 43, What: "a message with a 200 MB attachment", Env: raisedCap,
		Build: func(p Place) error { return MboxWithAttachment(filepath.Join(p.Dir, "archive.mbox"), 200<<20) }})
	add(Case{Name: "csv-50mb-open-quote", Issue: 43, What: "50 MB CSV with an unterminated quote",
		Build: func(p Place) error {
			return writeRepeated(filepath.Join(p.Dir, "data.csv"), "name,value\nfirst,\"", "cairn stone, ", 50<<20, "\n")
		}})
	add(Case{Name: "zero-width-password", Issue: 43, What: "p\\u200ba\\u200bs... : text made of zero-width spaces between letters",
		Build: func(p Place) error {
			return writeRepeated(filepath.Join(p.Dir, "hidden.txt"), "", "p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd\u200b \u200b", 12<<20, "\n")
		}})
	add(Case{Name: "zero-width-only", Issue: 43, What: "1 MB of zero-width characters and nothing else",
		Build: func(p Place) error {
			return writeRepeated(filepath.Join(p.Dir, "invisible.txt"), "", "\u200b\u200c\u200d\u2060\ufeff", 1<<20, "")
		}})
	add(Case{Name: "tiff-10000-frames", Issue: 43, What: "a TIFF of 10,000 frames (64 x 64)",
		Build: func(p Place) error { return MultiPageTIFF(filepath.Join(p.Dir, "frames.tif"), 10000, 64, 64) }})
	add(Case{Name: "restore-not-a-kb", Issue: 43, What: "cairn restore of a text file",
		Build:   file("notes.db", []byte("these are notes, not a database\n")),
		Command: []string{"restore", "DIR/notes.db"}})

	// Issue 33.
	for _, c := range []struct {
		where string
		depth int
	}{{"page", 200_000}, {"catalog", 200_000}, {"page", 1_000_000}, {"catalog", 1_000_000}, {"content", 1_000_000},
		{"lone", 1_000_000}, {"page", 2_000_000}, {"catalog", 2_000_000}} {
		add(Case{Name: fmt.Sprintf("pdf-nested-%s-%dk", c.where, c.depth/1000), Issue: 33,
			What:  fmt.Sprintf("arrays nested %d levels deep in the %s", c.depth, c.where),
			Build: file("nested.pdf", NestedPDF(c.depth, c.where))})
	}
	add(Case{Name: "pdf-xref-20m", Issue: 33, What: "a cross-reference table listing object 20,000,000", Build: file("xref.pdf", HugeXrefPDF())})
	add(Case{Name: "fifo", Issue: 33, What: "a named pipe named like a document",
		Build: func(p Place) error { return syscall.Mkfifo(filepath.Join(p.Dir, "pipe.txt"), 0o644) }})
	add(Case{Name: "mail-escape-codes", Issue: 33, What: "a mail header holding ESC]0;...BEL and ESC[2J",
		Build: file("escape.eml", []byte("From: a@example.org\r\nSubject: hello \x1b]0;owned\x07\x1b[2J\r\n\r\nbody text about turbines\r\n"))})
	add(Case{Name: "link-parent", Issue: 33, What: "up -> .. (a folder link out)",
		Build: func(p Place) error { return os.Symlink("..", filepath.Join(p.Dir, "up")) }})
	add(Case{Name: "link-proc", Issue: 33, What: "proc -> /proc/self, environ.txt -> /proc/self/environ",
		Build: func(p Place) error {
			if err := os.Symlink("/proc/self", filepath.Join(p.Dir, "proc")); err != nil {
				return err
			}
			return os.Symlink("/proc/self/environ", filepath.Join(p.Dir, "environ.txt"))
		}})

	// Issue 15 and the fixtures of the first passes.
	names := make([]string, 0, len(Bombs))
	for n := range Bombs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(Case{Name: "gib-" + strings.ReplaceAll(n, ".", "-"), Issue: 15, What: "an office file that inflates to 1 GiB (" + n + ")",
			Build: func(p Place) error { return WriteBomb(filepath.Join(p.Dir, n), Bombs[n], 0, flate.BestCompression) }})
	}
	add(Case{Name: "text-mixed-utf8", Issue: 15, What: "UTF-8 with stray Latin-1 bytes",
		Build: file("mixed.txt", []byte("caf\xc3\xa9 and na\xefve and r\xe9sum\xe9\n"))})
	add(Case{Name: "mail-unquoted-boundary", Issue: 15, What: "a MIME boundary=----=_NextPart not quoted",
		Build: file("next.eml", []byte("From: a@example.org\r\nSubject: parts\r\nMIME-Version: 1.0\r\n"+
			"Content-Type: multipart/alternative; boundary=----=_NextPart_000_0001\r\n\r\n"+
			"------=_NextPart_000_0001\r\nContent-Type: text/plain; charset=windows-1252\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"+
			"Caf=E9 opening hours\r\n------=_NextPart_000_0001--\r\n"))})
	if entries, err := os.ReadDir(fixtures); err == nil {
		for _, e := range entries {
			n := e.Name()
			if !hostileFixture(n) {
				continue
			}
			src := filepath.Join(fixtures, n)
			add(Case{Name: "fixture-" + strings.ReplaceAll(n, ".", "-"), Issue: 15, What: "testdata/formats/" + n,
				Build: func(p Place) error {
					b, err := os.ReadFile(src)
					if err != nil {
						return err
					}
					return os.WriteFile(filepath.Join(p.Dir, n), b, 0o644)
				}})
		}
	}
	return cs
}

// hostileFixture reports the fixtures of testdata/formats that test
// refusals: bombs, encrypted, truncated and misnamed files.
func hostileFixture(name string) bool {
	for _, p := range []string{"zipbomb", "laughs", "deep", "hugesheet", "encrypted", "truncated", "-named"} {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// posterPDF is one 11000 x 11000 pt page covered by an 8 x 8 grey image:
// a page that must be drawn to be read, far too large to draw at 300 dpi.
func posterPDF() []byte {
	img := strings.Repeat("\x80", 64)
	content := "q 11000 0 0 11000 0 0 cm /Im1 Do Q"
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	var offs []int
	obj := func(body string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), body)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 11000 11000] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream", len(img), img))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return []byte(b.String())
}
