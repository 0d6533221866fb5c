package bench

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"cairn/core/extract"
	"cairn/core/extract/extracttest"
	"cairn/core/humanize"
)

// HostileRSS is the peak resident memory of a process that extracts one
// hostile file and nothing else.
type HostileRSS struct {
	File    string  `json:"file"`
	Size    int64   `json:"size"`
	PeakMB  float64 `json:"peak_mb"`
	Outcome string  `json:"outcome"` // Cairn's reason for refusing it, or the text it read
}

// hostileRSS writes extracttest's gigabyte bombs into dir and extracts each
// of them and each hostile fixture (bombs, broken and encrypted files) in a
// child process, `cairn bench extract-child FILE`, reading its peak RSS: a
// process's peak cannot be reset, so one file per process. report.docx, an
// ordinary file, gives the child's own floor.
func hostileRSS(ctx context.Context, w io.Writer, bin, fixtures, dir string) ([]HostileRSS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	entries, _ := os.ReadDir(fixtures)
	for _, e := range entries {
		if n := e.Name(); n == "report.docx" || (hostile(n) && !strings.Contains(n, "scan")) {
			paths = append(paths, filepath.Join(fixtures, n))
		}
	}
	names := make([]string, 0, len(extracttest.Bombs))
	for n := range extracttest.Bombs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, "gib-"+n)
		if _, err := os.Stat(p); err != nil { // built once: a minute of deflate
			if err := extracttest.WriteBomb(p, extracttest.Bombs[n], 0, flate.BestCompression); err != nil {
				return nil, err
			}
		}
		paths = append(paths, p)
	}
	var out []HostileRSS
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tsize\tpeak RSS MB\toutcome")
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		var stdout bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "bench", "extract-child", p)
		cmd.Stdout = &stdout
		mb, err := runPeakRSS(cmd)
		if err != nil {
			return nil, fmt.Errorf("extracting %s in a child: %w", p, err)
		}
		h := HostileRSS{File: filepath.Base(p), Size: st.Size(), PeakMB: mb, Outcome: strings.TrimSpace(stdout.String())}
		out = append(out, h)
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\n", h.File, humanize.Bytes(h.Size), h.PeakMB, h.Outcome)
	}
	tw.Flush()
	fmt.Fprintln(w)
	return out, nil
}

// ExtractChild is the child side of hostileRSS: it extracts one file as
// indexing does (no OCR) and prints the outcome on one line.
func ExtractChild(ctx context.Context, w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	doc, err := extract.NewRegistry(extract.DefaultLimits()).Extract(ctx, extract.File{Name: path, Size: st.Size(), R: f})
	if err != nil {
		// The path is in the table already; the reason is what counts.
		_, err = fmt.Fprintf(w, "refused: %s\n", strings.ReplaceAll(err.Error(), path, filepath.Base(path)))
		return err
	}
	_, err = fmt.Fprintf(w, "read: %s of text\n", humanize.Bytes(int64(len(doc.Text))))
	return err
}
