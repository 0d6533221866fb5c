package answer

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"cairn/core/search"
)

// askPage answers question from one man page's passage, titled title,
// without a model, and returns the answer's text.
func askPage(t *testing.T, title, page, question string) string {
	t.Helper()
	return askOne(t, title, page, question).Text
}

// askOne answers question from one man page's passage, titled title.
func askOne(t *testing.T, title, page, question string) *Answer {
	t.Helper()
	resp := results(page)
	resp.Results[0].Title = title
	resp.Candidates.Terms = search.ParseTerms(question)
	a := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, Options{})
	ans, err := a.Ask(context.Background(), question, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

// bestBlock is the block an extractive answer to question weighs best, of
// one man page's passage titled title: the answer's first quote, though
// a second one quoted beside it may come first in the page.
func bestBlock(t *testing.T, title, page, question string) string {
	t.Helper()
	ans := askOne(t, title, page, question)
	if len(ans.Weighed) == 0 {
		t.Fatalf("%q: no block weighed", question)
	}
	return ans.Weighed[0].Block.Text
}

const manLs = "ls - list directory contents\n\n" +
	"-a, --all\n    do not ignore entries starting with .\n\n" +
	"-A, --almost-all\n    do not list implied . and ..\n\n" +
	"--author\n    with -l, print the author of each file\n\n" +
	"Full documentation <https://www.gnu.org/software/coreutils/ls>\n"

// An option a question names is its most specific word, in its case: "-a"
// is the line of -a, not of -A, and not a line that says "ls".
func TestAQuestionsOptionIsQuotedInItsCase(t *testing.T) {
	if got := askPage(t, "ls", manLs, "what does ls -a do"); !strings.HasPrefix(got, "-a, --all") {
		t.Errorf("ls -a: %q", got)
	}
	if got := askPage(t, "ls", manLs, "what does ls -A do?"); !strings.HasPrefix(got, "-A, --almost-all") {
		t.Errorf("ls -A: %q", got)
	}
	cp := "-P, --no-dereference\n    never follow symbolic links in SOURCE\n\n" +
		"-p     same as --preserve=mode,ownership,timestamps\n\n" +
		"-R, -r, --recursive\n    copy directories recursively\n"
	if got := askPage(t, "cp", cp, "what does cp -p do"); !strings.HasPrefix(got, "-p ") {
		t.Errorf("cp -p: %q", got)
	}
	if got := askPage(t, "cp", cp, "what does cp -P do"); !strings.HasPrefix(got, "-P, --no-dereference") {
		t.Errorf("cp -P: %q", got)
	}
}

// The words of an option's name tell neighbouring options apart: "line
// numbers" is --line-number, not --only-matching; "numerically" is
// --numeric-sort, not --general-numeric-sort.
func TestTheOptionNamedByTheQuestionsWordsIsQuoted(t *testing.T) {
	grep := "-o, --only-matching\n    Print only the matched (non-empty) parts of a matching line, with each such part on a separate output line.\n\n" +
		"-n, --line-number\n    Prefix each line of output with the 1-based line number within its input file.\n"
	if got := askPage(t, "grep", grep, "How can grep show the line numbers of matching lines?"); !strings.HasPrefix(got, "-n, --line-number") {
		t.Errorf("grep: %q", got)
	}
	sort := "-g, --general-numeric-sort\n    compare according to general numerical value\n\n" +
		"-n, --numeric-sort\n    compare according to string numerical value\n"
	if got := askPage(t, "sort", sort, "How do I sort lines numerically?"); !strings.HasPrefix(got, "-n, --numeric-sort") {
		t.Errorf("sort: %q", got)
	}
}

// Words side by side in the question weigh more where they stand side by
// side in a line: "mime type" in one line beats "type" and "mime" apart.
func TestSideBySideWordsChooseTheLine(t *testing.T) {
	page := "The type of each file is printed first; for a mail attachment, its mime part is decoded.\n\n" +
		"Use --mime-type to print the mime type of each file.\n"
	if got := askPage(t, "file", page, "how do I print the mime type?"); !strings.HasPrefix(got, "Use --mime-type") {
		t.Errorf("answer %q", got)
	}
}

// One rare word of a question of several is not an answer: a source that
// holds only "Canada" does not answer "What is the population of Canada?",
// however high its relevance; one that holds both words does.
func TestOneSharedWordIsNotAnAnswer(t *testing.T) {
	ask := func(text, question string) *Answer {
		resp := results(text)
		resp.Results[0].Relevance = 0.6 // partial: above the refusal line
		resp.Candidates.Terms = search.ParseTerms(question)
		a := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, Options{})
		ans, err := a.Ask(context.Background(), question, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	if ans := ask("COMPLIANCE_REGIME must be one of: canada-regions-and-support, eu-regions.", "What is the population of Canada?"); !ans.Refused || !ans.Closest {
		t.Errorf("one shared word answered: %q", ans.Text)
	}
	if ans := ask("The population of Canada is counted every five years.", "What is the population of Canada?"); ans.Refused {
		t.Errorf("both words refused: %q", ans.Text)
	}
}

// A question that names an option is not refused for its sources holding
// the tool's name alone: the option's line, which seldom repeats it, is
// read further in the named document.
func TestAnOptionQuestionReadsTheNamedDocumentFurther(t *testing.T) {
	resp := results("grep searches for PATTERNS in each FILE.")
	resp.Results[0].Relevance, resp.Results[0].Title = 0.5, "grep"
	resp.Candidates.Terms = search.ParseTerms("what does grep -w do")
	a := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, Options{})
	ans, err := a.Ask(context.Background(), "what does grep -w do", nil)
	if err != nil || ans.Closest {
		t.Fatalf("refused as not covered: %q, %v", ans.Text, err)
	}
}

// An option's one-word name said whole counts as much as a longer name
// said whole, and more than half of a longer one: "in bytes" is --bytes,
// not --line-bytes; "number all output lines" is --number, not
// --number-nonblank; "decompress" is --decompress, not
// --memlimit-decompress.
func TestAOneWordOptionNameSaidWholeIsQuoted(t *testing.T) {
	split := "-C, --line-bytes=SIZE\n    put at most SIZE bytes of records per output file\n\n" +
		"-b, --bytes=SIZE\n    put SIZE bytes per output file\n"
	if got := askPage(t, "split", split, "How do I split a big file into pieces of a fixed size in bytes?"); !strings.HasPrefix(got, "-b, --bytes") {
		t.Errorf("split: %q", got)
	}
	cat := "-b, --number-nonblank\n    number nonempty output lines, overrides -n\n\n" +
		"-n, --number\n    number all output lines\n"
	if got := askPage(t, "cat", cat, "How do I number all output lines with cat?"); !strings.HasPrefix(got, "-n, --number") {
		t.Errorf("cat: %q", got)
	}
	xz := "--memlimit-decompress=limit\n    Set a memory usage limit for decompression.\n\n" +
		"-d, --decompress, --uncompress\n    Decompress.\n"
	if got := askPage(t, "xz", xz, "How do I decompress an xz file?"); !strings.HasPrefix(got, "-d, --decompress") {
		t.Errorf("xz: %q", got)
	}
}

// An option named in the question's situation ("when I use ls -l") is what
// the person already does; the best block is the line for what they ask.
func TestAnOptionInTheSituationIsNotTheAnswer(t *testing.T) {
	ls := "-l     use a long listing format\n\n" +
		"-a, --all\n    do not ignore entries starting with ., the hidden files\n"
	best := func(question string) string { return bestBlock(t, "ls", ls, question) }
	if got := best("How do I see hidden files when I use ls -l?"); !strings.HasPrefix(got, "-a, --all") {
		t.Errorf("situation: %q", got)
	}
	// Named in what is asked, the same option is the answer.
	if got := best("What does ls -l do to hidden files?"); !strings.HasPrefix(got, "-l ") {
		t.Errorf("asked: %q", got)
	}
	// The situation is what it says is used, not the rest of the question.
	q := "How do I stop grep when using -r from following symlinks?"
	var kept []string
	for _, term := range withoutSituation(q, situationSpan(q), search.ParseTerms(q)) {
		kept = append(kept, term.String())
	}
	if want := []string{"stop", "grep", "following", "symlinks"}; !slices.Equal(kept, want) {
		t.Errorf("asked of %q: %q, want %q", q, kept, want)
	}
}

// "Which file" asks for a path: the line naming ~/.bash_history answers,
// not the one that repeats the question's words around a variable.
func TestAWhichFileQuestionIsAnsweredWithAPath(t *testing.T) {
	bash := "Bash will save the command history to the file named by $HISTFILE when a shell exits.\n\n" +
		"HISTFILE\n    The name of the file to which the command history is saved. The default value is ~/.bash_history.\n"
	if got := askPage(t, "bash", bash, "In which file does bash save my command history?"); !strings.Contains(got, "~/.bash_history") {
		t.Errorf("which file: %q", got)
	}
	// Not asked where, the line that says it best still answers.
	if got := askPage(t, "bash", bash, "When does bash save my command history?"); !strings.HasPrefix(got, "Bash will save") {
		t.Errorf("when: %q", got)
	}
}

// An option's line is the one that opens with it: not a synopsis that
// lists it, nor a one-line description that mentions it.
func TestTheOptionsOwnLineDefinesIt(t *testing.T) {
	sed := "sed [-V] [--version] [--help] [-n] [--quiet] [--silent]\n" +
		"    [-l N] [--line-length=N] [-u] [--unbuffered]\n" +
		"    [file...]\n\n" +
		"-n, --quiet, --silent\n    suppress automatic printing of pattern space\n"
	if got := askPage(t, "sed", sed, "what does sed -n do"); !strings.HasPrefix(got, "-n, --quiet") {
		t.Errorf("sed -n: %q", got)
	}
	cat := "-b, --number-nonblank    number nonempty output lines, overrides -n\n\n" +
		"-n, --number    number all output lines\n"
	if got := askPage(t, "cat", cat, "what does cat -n do"); !strings.HasPrefix(got, "-n, --number ") {
		t.Errorf("cat -n: %q", got)
	}
}

// A question that asks what happens by default is answered by the line
// that says what the default is.
func TestADefaultQuestionIsAnsweredWithTheDefault(t *testing.T) {
	ionice := "When command is given, ionice will run this command with the given arguments. " +
		"If no class is specified, then command will be executed with the \"best-effort\" scheduling class. " +
		"The default priority level is 4.\n\n" +
		"-n, --classdata level\n    Specify the scheduling class data. This only has an effect if the class accepts an argument. " +
		"For realtime and best-effort, 0-7 are valid data (priority levels), and 0 represents the highest priority level.\n"
	if got := bestBlock(t, "ionice", ionice, "Which priority level does ionice use when I don't specify one?"); !strings.Contains(got, "default priority level is 4") {
		t.Errorf("default: %q", got)
	}
	// Not asked for a default, the option that sets the level answers.
	if got := bestBlock(t, "ionice", ionice, "How do I set the priority level of a command with ionice?"); !strings.HasPrefix(got, "-n, --classdata") {
		t.Errorf("set: %q", got)
	}
}

// The options listed under a subsection's title and its paragraph are
// definitions of their own, not part of the title's description.
func TestOptionsUnderASubsectionAreBlocksOfTheirOwn(t *testing.T) {
	xz := "   Operation mode\n" +
		"       If multiple operation mode options are given, the last one takes effect.\n\n" +
		"       -z, --compress\n" +
		"\t      Compress.  This is the default operation mode when no operation\n" +
		"\t      mode option is specified.\n\n" +
		"       -d, --decompress, --uncompress\n" +
		"\t      Decompress.\n\n" +
		"       -t, --test\n" +
		"\t      Test the integrity of compressed files.\n"
	var leads []string
	for _, b := range Blocks(xz) {
		if b.Kind == BlockDefinition {
			leads = append(leads, b.Lead)
		}
	}
	want := []string{"Operation mode", "-z, --compress", "-d, --decompress, --uncompress", "-t, --test"}
	if !slices.Equal(leads, want) {
		t.Errorf("definitions %q, want %q", leads, want)
	}
	if got := askPage(t, "xz", xz, "How do I decompress a file with xz?"); !strings.HasPrefix(got, "-d, --decompress") {
		t.Errorf("xz: %q", got)
	}
}

// FuzzQuestionReading: the rules that read a question's situation, what
// it asks for, whether it negates or follows up, and the option an answer
// opens with, take any text, in bounded time, without a panic, and the
// situation is a span of the question.
func FuzzQuestionReading(f *testing.F) {
	for _, q := range []string{"How do I make xargs cope with file names containing spaces when I use find -print0?",
		"How do I stop grep when using -r from following symlinks?", "when I use", "when I use (((( -x?",
		"In which file does bash save my command history?", "What does ionice give when I don't specify one?",
		"ok, can I do that with mkdir too?", "-c\n--continue\n    Continue getting a file.", "Keep (don't delete (input files"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if at := situationSpan(q); at != nil && (at[0] < 0 || at[0] > at[1] || at[1] > len(q)) {
			t.Fatalf("%q: situation %v", q, at)
		}
		terms := search.ParseTerms(q)
		if kept := withoutSituation(q, situationSpan(q), terms); len(kept) > len(terms) {
			t.Fatalf("%q: %d terms kept of %d", q, len(kept), len(terms))
		}
		placeQ.MatchString(q)
		defaultQ.MatchString(q)
		optionNames(q)
		rq := ReadQuestion(q)
		negates(rq.Words)
		saysNot(Block{Text: q, Lead: q, Kind: BlockDefinition})
		IsFollowUp(q)
		quotedOption(q)
		standalone(Turn{Question: "How do I make rm explain what is being done?", Answer: q}, rq, [][]string{{"rm"}, {"mkdir"}})
	})
}

// An option's name said in the question counts when its description speaks
// to the question too: "--output-file" names "output" and "file", but logs
// messages; the download is written to a file by --output-document.
func TestAnOptionsNameCountsWhenItsDescriptionSpeaksToTheQuestion(t *testing.T) {
	wget := "--output-file=logfile\n    Log all messages to logfile.  The messages are normally reported to standard error.\n\n" +
		"--output-document=file\n    The documents will not be written to the appropriate files, but all will be\n" +
		"    concatenated together and written to file.\n"
	if got := bestBlock(t, "wget", wget, "How do I make wget write the output to a file?"); !strings.HasPrefix(got, "--output-document=file") {
		t.Errorf("write the output to a file: %q", got)
	}
	// A name whose description speaks to the question still counts.
	if got := bestBlock(t, "wget", wget, "How do I make wget log its messages to an output file?"); !strings.HasPrefix(got, "--output-file=logfile") {
		t.Errorf("log messages: %q", got)
	}
}

// A question that negates nothing asks for the line that does what it
// says, not for its opposite, which its words match alike: tail's -q
// "never output headers giving file names" came before -v's "always …"
// and was quoted for "print the file names as headers". A question that
// negates gets the negating line; a negation in brackets ("keep (don't
// delete)") does not count.
func TestAPositiveQuestionIsNotAnsweredByTheOppositeOption(t *testing.T) {
	tail := "-q, --quiet, --silent\n    never output headers giving file names\n\n" +
		"-v, --verbose\n    always output headers giving file names\n"
	if got := bestBlock(t, "tail", tail, "How do I make tail print the file names as headers?"); !strings.HasPrefix(got, "-v, --verbose") {
		t.Errorf("print the file names as headers: %q", got)
	}
	if got := bestBlock(t, "tail", tail, "How do I stop tail from printing file names as headers?"); !strings.HasPrefix(got, "-q, --quiet") {
		t.Errorf("stop printing the file names: %q", got)
	}
	mv := "-f, --force\n    do not prompt before overwriting\n\n" +
		"-i, --interactive\n    prompt before overwrite\n"
	if got := bestBlock(t, "mv", mv, "How do I make mv prompt before overwriting a file?"); !strings.HasPrefix(got, "-i, --interactive") {
		t.Errorf("prompt before overwriting: %q", got)
	}
	gzip := "-f --force\n    Force compression or decompression even if the file has multiple links.\n\n" +
		"-k --keep\n    Keep (don't delete) input files during compression or decompression.\n"
	if got := bestBlock(t, "gzip", gzip, "How do I keep the input files with gzip?"); !strings.HasPrefix(got, "-k --keep") {
		t.Errorf("keep the input files: %q", got)
	}
}

// "Replace an existing file" is what a manual's --force does (ln, cp, gzip):
// the ln(1) line "remove existing destination files" shares only
// "existing" with the question, as --backup's line does.
func TestReplacingAnExistingFileIsForcing(t *testing.T) {
	ln := "--backup[=CONTROL]\n    make a backup of each existing destination file\n\n" +
		"-f, --force\n    remove existing destination files\n\n" +
		"-s, --symbolic\n    make symbolic links instead of hard links\n"
	if got := bestBlock(t, "ln", ln, "How do I make ln replace an existing link?"); !strings.HasPrefix(got, "-f, --force") {
		t.Errorf("replace an existing link: %q", got)
	}
}

// A manual's word for what the question says: "verify" is "check"
// (sha256sum's -c), "null" is "NUL" (sort's -z), "deep" is "depth" (du's
// --max-depth), "argument" is "arg" (xargs's "-n max-args" over "-L
// max-lines"); each line otherwise shares less with the question than its
// neighbour, and is not quoted.
func TestAManualsWordForTheQuestionsChoosesTheLine(t *testing.T) {
	for _, c := range []struct {
		title, page, question, want string
		first                       bool // the best block, not only one quoted
	}{
		{"sha256sum", "The following five options are useful only when verifying checksums:\n\n" +
			"--ignore-missing\n    don't fail or report status for missing files\n\n" +
			"-c, --check\n    read checksums from the FILEs and check them\n",
			"How do I verify checksums from a file with sha256sum?", "-c, --check", true},
		{"sort", "-t, --field-separator=SEP\n    use SEP instead of non-blank to blank transition\n\n" +
			"-z, --zero-terminated\n    line delimiter is NUL, not newline\n",
			"How do I make sort take null as the separator?", "-z, --zero-terminated", false},
		{"du", "--time\n    show time of the last modification of any file in the directory\n\n" +
			"-d, --max-depth=N\n    print the total for a directory only if it is N or fewer levels below\n",
			"How do I limit how deep du descends into a directory?", "-d, --max-depth=N", true},
		{"xargs", "-L max-lines\n    Use at most max-lines nonblank input lines per command line.\n\n" +
			"-n max-args, --max-args=max-args\n    Use at most max-args arguments per command line.\n",
			"How do I make xargs pass one argument per command line?", "-n max-args", true},
	} {
		got := askPage(t, c.title, c.page, c.question)
		if c.first {
			got = bestBlock(t, c.title, c.page, c.question)
		}
		if !strings.Contains(got, c.want) || c.first && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %s", c.question, got, c.want)
		}
	}
}

// A one-word option name said in passing counts for the share of the
// question it says, doubled: "output" is one of five words of "make sort
// output only the first of equal lines" (sort's -u answers, not -o);
// "gzip", one of three of "compress a tar archive with gzip". A longer
// name said is sure as it is. On the how-to options set this answered
// sort's -u and grep's -r, which the one word's name had taken.
func TestAOneWordNameSaidInPassingCountsForItsShare(t *testing.T) {
	for _, c := range []struct {
		lead, question string
		context        map[string]bool
		want           float64
	}{
		{"-o, --output=FILE", "How do I make sort output only the first of equal lines?", map[string]bool{"sort": true}, 0.4},
		{"-z, --gzip, --gunzip, --ungzip", "How do I compress a tar archive with gzip?", map[string]bool{"tar": true}, 2.0 / 3},
		{"-n, --line-number", "How can grep show the line numbers of matching lines?", map[string]bool{"grep": true}, 1},
		{"-R, --recursive", "How do I make ls recursive?", map[string]bool{"ls": true}, 1},
	} {
		if got := nameWeight(c.lead, search.ParseTerms(c.question), c.context); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s for %q: %v, want %v", c.lead, c.question, got, c.want)
		}
	}
}

// A shell prompt's line is an example, not a term: tar's "$ tar
// --warning=decompress-program -x -f archive.Z" over the messages it
// prints was read as the definition of an option.
func TestAShellPromptsLineIsNoDefinition(t *testing.T) {
	page := "       $ tar --warning=decompress-program -x -f archive.Z\n" +
		"       tar (child): cannot run compress: No such file or directory\n" +
		"       tar (child): trying gzip\n\n" +
		"       -z, --gzip, --gunzip, --ungzip\n              Filter the archive through gzip(1).\n"
	for _, b := range Blocks(page) {
		if strings.HasPrefix(b.Text, "$ tar") && b.Kind == BlockDefinition {
			t.Errorf("the example is a definition: %q", b.Text)
		}
	}
}
