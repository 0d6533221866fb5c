package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// manSubcommands are the commands whose flags belong to a subcommand: the
// manual shows each subcommand's (`cairn models --help` has none of its
// own).
var manSubcommands = map[string][]string{
	"eval":   {"golden", "injection"},
	"models": {"list"},
	"bench":  {"", "gpu"},
}

// WriteManPage writes cairn(1) in roff, from the commands' own usage lines,
// summaries and flags (what `cairn help` and `cairn COMMAND --help` print),
// so the manual cannot disagree with the program. date is the page's date
// (the build's).
func WriteManPage(w io.Writer, date string) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH CAIRN 1 %q %q \"User Commands\"\n", date, "cairn "+Version)
	b.WriteString(".SH NAME\ncairn \\- answers questions from your own documents, offline\n")
	b.WriteString(".SH SYNOPSIS\n.B cairn\n.br\n.B cairn\n.I COMMAND\n.RI [ flags ]\n")
	b.WriteString(".SH DESCRIPTION\n" + roff("Cairn indexes the documents in your folders (PDF, Office and OpenDocument files, "+
		"e-books, mail, web pages, text, and scanned pages and images through OCR) into a knowledge base, and answers "+
		"questions from them with citations to the file and page, without sending anything off the machine. "+
		"Without a command it opens the window (or, with no display, shows the knowledge base); "+
		"each command below runs headless. Flags may come before or after the arguments.") + "\n")
	b.WriteString(".SH COMMANDS\n")
	env := &cliEnv{cliIO: cliIO{stdout: io.Discard, stderr: io.Discard}}
	for _, c := range commands() {
		fmt.Fprintf(&b, ".SS %s\n", roff("cairn "+strings.TrimSpace(c.name+" "+c.args)))
		b.WriteString(roff(c.summary) + "\n")
		subs, ok := manSubcommands[c.name]
		if !ok {
			subs = []string{""}
		}
		for _, sub := range subs {
			args := []string{"--help"}
			if sub != "" {
				args = []string{sub, "--help"}
			}
			var help helpShown
			if err := c.run(context.Background(), env, args); !errors.As(err, &help) || help.flags == nil {
				return fmt.Errorf("cairn %s --help did not show its flags: %v", strings.TrimSpace(c.name+" "+sub), err)
			}
			writeManFlags(&b, help.flags, sub)
		}
	}
	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range [][2]string{
		{"CAIRN_HOME", "one folder for the settings, knowledge bases, models, state and cache instead of the XDG folders"},
		{"CAIRN_*", "any setting, named by its section and key in capitals (CAIRN_RETRIEVAL_TOP_K=8), over the settings file"},
		{"CAIRN_LIBRARY_PATH", "a folder holding the GPU backend (libggml-vulkan.so), looked in before lib/ and ../lib/cairn beside the program"},
		{"TESSDATA_PREFIX", "the folder of Tesseract's language data"},
	} {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(e[0]), roff(e[1]))
	}
	b.WriteString(".SH EXIT STATUS\n" + roff("0 done; 1 failed; 2 a wrong command line; 3 done except for some files; 130 stopped (Ctrl+C).") + "\n")
	b.WriteString(".SH SEE ALSO\n" + roff("cairn help, cairn COMMAND --help, and the guide in the window (F1).") + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeManFlags lists fs's flags as a tagged paragraph each; sub, when not
// empty, heads them.
func writeManFlags(b *strings.Builder, fs *flag.FlagSet, sub string) {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	if sub != "" {
		fmt.Fprintf(b, ".PP\n%s\n", roff("Flags of "+sub+":"))
	}
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		tag := `\-\-` + roff(f.Name)
		if name != "" {
			tag += ` \fI` + roff(name) + `\fR`
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", tag, roff(usage))
	})
}

// roff escapes text for a roff line: backslashes, hyphens (as minus signs,
// so options can be searched and copied), and a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
