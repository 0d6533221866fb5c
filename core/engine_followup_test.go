package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// followUpPages are man pages saved as text (their titles are their names),
// short but laid out as `man` prints them.
var followUpPages = map[string]string{
	"tail": `TAIL(1)                          User Commands                         TAIL(1)

NAME
       tail - output the last part of files

DESCRIPTION
       Print the last 10 lines of each FILE to standard output.

       -f, --follow
              output appended data as the file grows

       -n, --lines=[+]NUM
              output the last NUM lines, instead of the last 10
`,
	"head": `HEAD(1)                          User Commands                         HEAD(1)

NAME
       head - output the first part of files

DESCRIPTION
       Print the first 10 lines of each FILE to standard output.

       -c, --bytes=[-]NUM
              print the first NUM bytes of each file

       -n, --lines=[-]NUM
              print the first NUM lines instead of the first 10; with the
              leading '-', print all but the last NUM lines of each file
`,
	"gzip": `GZIP(1)                     General Commands Manual                    GZIP(1)

NAME
       gzip - compress or expand files

OPTIONS
       -d --decompress
              Decompress.

       -# --fast --best
              Regulate the speed of compression using the specified digit #.
              -9 or --best indicates the slowest compression method (best
              compression).
`,
	"bzip2": `BZIP2(1)                    General Commands Manual                   BZIP2(1)

NAME
       bzip2 - a block-sorting file compressor

OPTIONS
       -k --keep
              Keep (don't delete) input files during compression or
              decompression.

       -1 (or --fast) to -9 (or --best)
              Set the block size to 100 k, 200 k ...  900 k when compressing.
`,
}

// A follow-up asked in a conversation (cairn ask --continue) that names
// another man page searches that page with the previous question's intent
// and without the page that question named, and answers from it.
func TestAFollowUpInAThreadSearchesTheSubjectItNames(t *testing.T) {
	eng := testEngine(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	for name, text := range followUpPages {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.IndexFolder(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		first, followUp, searched, page, line string
	}{
		{"How do I show the last 20 lines of a file with tail?", "and with head?",
			"head last 20 lines file", "head.txt", "print the first NUM lines"},
		{"How do I compress a file with gzip at the best compression level?", "what about bzip2?",
			"bzip2 compress file best compression level", "bzip2.txt", "-9 (or --best)"},
	} {
		first, err := eng.AskInThread(ctx, 0, eng.SearchRequest(tc.first), nil)
		if err != nil || first.Thread == 0 {
			t.Fatalf("%q: %+v, %v", tc.first, first, err)
		}
		ans, err := eng.AskInThread(ctx, first.Thread, eng.SearchRequest(tc.followUp), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Query != tc.searched {
			t.Errorf("%q after %q: searched %q, want %q", tc.followUp, tc.first, ans.Query, tc.searched)
		}
		if len(ans.Sources) == 0 || filepath.Base(ans.Sources[0].Path) != tc.page || !strings.Contains(ans.Text, tc.line) {
			top := ""
			if len(ans.Sources) > 0 {
				top = ans.Sources[0].Path
			}
			t.Errorf("%q after %q: first source %s, answer %q; want %s quoting %q", tc.followUp, tc.first, top, ans.Text, tc.page, tc.line)
		}
	}
}
