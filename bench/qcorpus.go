package bench

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CorpusFile is a file of the quality corpus, the Debian package that
// installs it, and its name in the corpus folder.
type CorpusFile struct{ Package, Path, Name string }

// QualityDocs are the documents the questions of testdata/quality are
// about: man pages (rendered to text as the man-page corpus is), a PDF
// manual and HTML pages. The Makefile's BENCH_PACKAGES installs them.
var QualityDocs = []CorpusFile{
	{"grep", "/usr/share/man/man1/grep.1.gz", "man/grep.1.txt"},
	{"sed", "/usr/share/man/man1/sed.1.gz", "man/sed.1.txt"},
	{"findutils", "/usr/share/man/man1/find.1.gz", "man/find.1.txt"},
	{"findutils", "/usr/share/man/man1/xargs.1.gz", "man/xargs.1.txt"},
	{"coreutils", "/usr/share/man/man1/sort.1.gz", "man/sort.1.txt"},
	{"coreutils", "/usr/share/man/man1/ls.1.gz", "man/ls.1.txt"},
	{"coreutils", "/usr/share/man/man1/cp.1.gz", "man/cp.1.txt"},
	{"coreutils", "/usr/share/man/man1/du.1.gz", "man/du.1.txt"},
	{"coreutils", "/usr/share/man/man1/df.1.gz", "man/df.1.txt"},
	{"coreutils", "/usr/share/man/man1/wc.1.gz", "man/wc.1.txt"},
	{"coreutils", "/usr/share/man/man1/cut.1.gz", "man/cut.1.txt"},
	{"coreutils", "/usr/share/man/man1/head.1.gz", "man/head.1.txt"},
	{"coreutils", "/usr/share/man/man1/tail.1.gz", "man/tail.1.txt"},
	{"coreutils", "/usr/share/man/man1/uniq.1.gz", "man/uniq.1.txt"},
	{"coreutils", "/usr/share/man/man1/tr.1.gz", "man/tr.1.txt"},
	{"coreutils", "/usr/share/man/man1/ln.1.gz", "man/ln.1.txt"},
	{"coreutils", "/usr/share/man/man1/chmod.1.gz", "man/chmod.1.txt"},
	{"coreutils", "/usr/share/man/man1/date.1.gz", "man/date.1.txt"},
	{"tar", "/usr/share/man/man1/tar.1.gz", "man/tar.1.txt"},
	{"rsync", "/usr/share/man/man1/rsync.1.gz", "man/rsync.1.txt"},
	{"openssh-client", "/usr/share/man/man1/ssh.1.gz", "man/ssh.1.txt"},
	{"openssh-client", "/usr/share/man/man1/ssh-keygen.1.gz", "man/ssh-keygen.1.txt"},
	{"openssh-client", "/usr/share/man/man1/scp.1.gz", "man/scp.1.txt"},
	{"bash-doc", "/usr/share/doc/bash/bashref.pdf", "bashref.pdf"},
	{"debian-reference-en", "/usr/share/debian-reference/ch01.en.html", "debian-reference/ch01.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch02.en.html", "debian-reference/ch02.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch03.en.html", "debian-reference/ch03.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch04.en.html", "debian-reference/ch04.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch05.en.html", "debian-reference/ch05.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch06.en.html", "debian-reference/ch06.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch07.en.html", "debian-reference/ch07.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch08.en.html", "debian-reference/ch08.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch09.en.html", "debian-reference/ch09.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch10.en.html", "debian-reference/ch10.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch11.en.html", "debian-reference/ch11.en.html"},
	{"debian-reference-en", "/usr/share/debian-reference/ch12.en.html", "debian-reference/ch12.en.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-stash.html", "git/git-stash.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-commit.html", "git/git-commit.html"},
	{"git-doc", "/usr/share/doc/git-doc/gittutorial.html", "git/gittutorial.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-bisect.html", "git/git-bisect.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-tag.html", "git/git-tag.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-clone.html", "git/git-clone.html"},
	{"git-doc", "/usr/share/doc/git-doc/gitignore.html", "git/gitignore.html"},
	{"git-doc", "/usr/share/doc/git-doc/git-log.html", "git/git-log.html"},
}

// QualityManuals are the PDF manuals of the page set, from four producers
// (pdfTeX twice, xdvipdfmx, Apache FOP), each with an outline.
var QualityManuals = []CorpusFile{
	{"bash-doc", "/usr/share/doc/bash/bashref.pdf", "bashref.pdf"},
	{"debian-reference-en", "/usr/share/debian-reference/debian-reference.en.pdf", "debian-reference.en.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-intro.pdf", "R-intro.pdf"},
	{"valgrind", "/usr/share/doc/valgrind/valgrind_manual.pdf.gz", "valgrind_manual.pdf"},
}

// QualityCorpus is the quality suite's corpus on disk.
type QualityCorpus struct {
	Docs    string // QualityDocs: what the questions are about
	Manuals string // QualityManuals: the page set
}

// BuildQualityCorpus copies the quality corpus into dir (gunzipping, and
// rendering man pages to text), unless dir already holds it.
func BuildQualityCorpus(ctx context.Context, dir string) (QualityCorpus, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return QualityCorpus{}, err
	}
	qc := QualityCorpus{Docs: filepath.Join(dir, "docs"), Manuals: filepath.Join(dir, "manuals")}
	if _, ok := finished(dir); ok {
		return qc, nil
	}
	var missing []string
	for _, f := range append(append([]CorpusFile(nil), QualityDocs...), QualityManuals...) {
		if _, err := os.Stat(f.Path); err != nil {
			missing = append(missing, fmt.Sprintf("%s (package %s)", f.Path, f.Package))
		}
	}
	if len(missing) > 0 {
		return qc, fmt.Errorf("the quality corpus needs %s; install the packages with `make bench BENCH_ARGS=quality` or apt-get", strings.Join(missing, ", "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return qc, err
	}
	put := func(root string, f CorpusFile) error {
		out := filepath.Join(root, f.Name)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if strings.HasPrefix(f.Path, "/usr/share/man/") {
			text, _, err := renderMan(ctx, f.Path)
			if err != nil {
				return fmt.Errorf("render %s: %w", f.Path, err)
			}
			return os.WriteFile(out, []byte(text), 0o644)
		}
		return copyFile(f.Path, out)
	}
	for _, f := range QualityDocs {
		if err := put(qc.Docs, f); err != nil {
			return qc, err
		}
	}
	for _, f := range QualityManuals {
		if err := put(qc.Manuals, f); err != nil {
			return qc, err
		}
	}
	return qc, os.WriteFile(filepath.Join(dir, "DONE"), []byte(fmt.Sprint(len(QualityDocs)+len(QualityManuals))), 0o644)
}

// copyFile copies src to dst, decompressing a .gz source.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var r io.Reader = in
	if strings.HasSuffix(src, ".gz") {
		gz, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		defer gz.Close()
		r = gz
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
