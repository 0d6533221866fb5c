package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// QuestionSet is a set of questions over documents of its own, kept apart
// from the quality suite's so that choices tuned on one are checked on
// another (testdata/quality/dev, dev2, ...). Its folder holds three files:
//
//   - corpus.txt: "manwidth N", then one document a line: "man:NAME" (a
//     man page, rendered with `MANWIDTH=N man -P cat NAME | col -bx`, as a
//     person saves one), the absolute path of an installed file (a .gz
//     is gunzipped), or a path relative to the set's folder (a document
//     the set made from installed ones: an EPUB, a DOCX, an e-mail); #
//     starts a comment;
//   - answerable.tsv: "question<TAB>answer string" a line, optionally
//     "<TAB>kind" (Question.Kind);
//   - offtopic.txt: a question a line that the documents cannot answer.
type QuestionSet struct {
	Name      string
	Dir       string
	ManWidth  int
	Docs      []string
	Questions []Question // answerable ones first, ids a01…, then off-topic o01…
}

// ReadQuestionSet reads the set in dir.
func ReadQuestionSet(dir string) (QuestionSet, error) {
	qs, err := readSetCorpus(dir)
	if err != nil {
		return qs, err
	}
	err = eachLine(filepath.Join(dir, "answerable.tsv"), func(n int, line string) error {
		f := strings.Split(line, "\t")
		if len(f) < 2 || len(f) > 3 || strings.TrimSpace(f[0]) == "" || strings.TrimSpace(f[1]) == "" {
			return fmt.Errorf("want question<TAB>answer string[<TAB>kind]")
		}
		q := Question{ID: fmt.Sprintf("a%02d", len(qs.Questions)+1), Answer: strings.TrimSpace(f[1]), Text: strings.TrimSpace(f[0])}
		if len(f) == 3 {
			if q.Kind = strings.TrimSpace(f[2]); !slices.Contains(QuestionKinds, q.Kind) {
				return fmt.Errorf("kind %q: want one of %s", q.Kind, strings.Join(QuestionKinds, ", "))
			}
		}
		qs.Questions = append(qs.Questions, q)
		return nil
	})
	if err != nil {
		return qs, err
	}
	off := 0
	err = eachLine(filepath.Join(dir, "offtopic.txt"), func(n int, line string) error {
		off++
		qs.Questions = append(qs.Questions, Question{ID: fmt.Sprintf("o%02d", off), Text: line})
		return nil
	})
	if err == nil && (len(qs.Docs) == 0 || len(qs.Questions) == off) {
		err = fmt.Errorf("question set %s: no documents or no answerable questions", dir)
	}
	return qs, err
}

// readSetCorpus reads dir/corpus.txt: its width for man pages and its
// documents.
func readSetCorpus(dir string) (QuestionSet, error) {
	qs := QuestionSet{Name: filepath.Base(filepath.Clean(dir)), Dir: dir, ManWidth: 100}
	err := eachLine(filepath.Join(dir, "corpus.txt"), func(n int, line string) error {
		if w, ok := strings.CutPrefix(line, "manwidth "); ok {
			v, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || v < 40 {
				return fmt.Errorf("manwidth %q: want a number of columns, at least 40", w)
			}
			qs.ManWidth = v
			return nil
		}
		if !strings.HasPrefix(line, "man:") && !filepath.IsAbs(line) {
			line = filepath.Join(dir, line) // a document the set made, beside it
			if abs, err := filepath.Abs(line); err == nil {
				line = abs
			}
		}
		qs.Docs = append(qs.Docs, line)
		return nil
	})
	return qs, err
}

// eachLine calls f with every line of path that is neither blank nor a #
// comment, trimmed; an error names the file and line.
func eachLine(path string, f func(n int, line string) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := f(n, line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// BuildSetCorpus writes the set's documents into dir (man pages rendered,
// files copied), unless dir already holds them, and returns dir.
func BuildSetCorpus(ctx context.Context, qs QuestionSet, dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if n, ok := finished(dir); ok && n == len(qs.Docs) {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, d := range qs.Docs {
		if name, ok := strings.CutPrefix(d, "man:"); ok {
			text, err := renderManPage(ctx, name, qs.ManWidth)
			if err != nil {
				return "", fmt.Errorf("question set %s: man page %s: %w", qs.Name, name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, setFile(d)), text, 0o644); err != nil {
				return "", err
			}
			continue
		}
		if err := copyFile(d, filepath.Join(dir, setFile(d))); err != nil {
			return "", fmt.Errorf("question set %s: %w", qs.Name, err)
		}
	}
	return dir, os.WriteFile(filepath.Join(dir, "DONE"), []byte(fmt.Sprint(len(qs.Docs))), 0o644)
}

// setFile is the name a document of a set's corpus.txt has in its folder.
func setFile(doc string) string {
	if name, ok := strings.CutPrefix(doc, "man:"); ok {
		return name + ".txt"
	}
	return strings.TrimSuffix(filepath.Base(doc), ".gz")
}

// renderManPage renders a man page by name as a person saves one to read:
// `MANWIDTH=width man -P cat NAME | col -bx`. "mount.8" names a section.
func renderManPage(ctx context.Context, name string, width int) ([]byte, error) {
	args := []string{"-P", "cat", name}
	if page, sec, ok := strings.Cut(name, "."); ok && sec != "" && sec[0] >= '1' && sec[0] <= '9' {
		args = []string{"-P", "cat", sec, page}
	}
	man := exec.CommandContext(ctx, "man", args...)
	man.Env = append(os.Environ(), fmt.Sprintf("MANWIDTH=%d", width), "LC_ALL=C.UTF-8")
	raw, err := man.Output()
	if err != nil {
		return nil, err
	}
	col := exec.CommandContext(ctx, "col", "-bx")
	col.Stdin = strings.NewReader(string(raw))
	return col.Output()
}

// SetBench asks the questions of a set over its documents (built under
// dir) as a new user would, next to the FTS5 baseline, as AnswerBench does
// for the suite's questions.
func SetBench(ctx context.Context, st QualityStore, qs QuestionSet, dir, work string, scale *ScaleBase, log io.Writer) (AnswerReport, error) {
	docs, err := BuildSetCorpus(ctx, qs, filepath.Join(dir, "sets", qs.Name))
	if err != nil {
		return AnswerReport{}, err
	}
	return askQuestions(ctx, st, docs, qs.Questions, filepath.Join(work, "set-"+qs.Name), scale, log)
}
