// Command fitz measures github.com/gen2brain/go-fitz (MuPDF, AGPL-3.0) on
// the same PDFs and with the same word-level F1 against `pdftotext -layout`
// as `cairn bench extract`, for the comparison in docs/pdf-extraction.md.
// It is a module of its own so that Cairn never links MuPDF:
//
//	cd testdata/pdfcompare/fitz && go run . /usr/share/doc/.../*.pdf
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/gen2brain/go-fitz"
	"golang.org/x/text/unicode/norm"
)

func main() {
	var f1s []float64
	pages := 0
	var elapsed time.Duration
	failures := 0
	for _, p := range os.Args[1:] {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Println("left out", p, err)
			continue
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err == nil {
				data, err = io.ReadAll(zr)
			}
			if err != nil {
				fmt.Println("left out", p, err)
				continue
			}
		}
		cmd := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
		cmd.Stdin = bytes.NewReader(data)
		ref, err := cmd.Output()
		if err != nil {
			fmt.Println("left out", p, err)
			continue
		}
		start := time.Now()
		doc, err := fitz.NewFromMemory(data)
		var sb strings.Builder
		n := 0
		if err == nil {
			n = doc.NumPage()
			for i := 0; i < n; i++ {
				t, err := doc.Text(i)
				if err != nil {
					break
				}
				sb.WriteString(t)
				sb.WriteString("\n")
			}
			doc.Close()
		}
		elapsed += time.Since(start)
		pages += n
		if err != nil {
			failures++
			f1s = append(f1s, 0)
			fmt.Printf("%-28s failed: %v\n", filepath.Base(p), err)
			continue
		}
		f := f1(words(sb.String()), words(string(ref)))
		f1s = append(f1s, f)
		fmt.Printf("%-28s %4d pages  F1 %.3f\n", filepath.Base(p), n, f)
	}
	mean, low := 0.0, 1.0
	for _, f := range f1s {
		mean += f
		low = min(low, f)
	}
	mean /= float64(max(1, len(f1s)))
	fmt.Printf("go-fitz (MuPDF %s): %d files, mean F1 %.3f, min %.3f, %.0f pages/s, %d failures\n",
		fitz.FzVersion, len(f1s), mean, low, float64(pages)/elapsed.Seconds(), failures)
}

func words(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func f1(got, want []string) float64 {
	counts := map[string]int{}
	for _, w := range want {
		counts[w]++
	}
	match := 0
	for _, g := range got {
		if counts[g] > 0 {
			counts[g]--
			match++
		}
	}
	if match == 0 {
		return 0
	}
	p, r := float64(match)/float64(len(got)), float64(match)/float64(len(want))
	return 2 * p * r / (p + r)
}
