package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/search"
)

func runSearch(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	def := env.cfg.Retrieval
	knobs := knobFlags(fs, env.cfg, config.RetrievalKnobs)
	mode := fs.String("mode", def.Mode, "hybrid, bm25 or vector (default: hybrid when an embedding model is loaded)")
	fusion := fs.String("fusion", def.Fusion, "rrf or weighted")
	asJSON := fs.Bool("json", false, "print JSON")
	exact := fs.Bool("exact", false, "search the words as typed: a word no passage holds is not corrected to the nearest word that one does")
	batch := fs.String("batch", "", "read queries from `FILE` (qid<TAB>query per line)")
	format := fs.String("format", "trec", "batch output format (trec)")
	var ff filterFlags
	ff.add(fs)
	fs.StringVar(&ff.spec.Folders, "path", "", "the same as --folder (its former name)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *batch == "" && len(pos) == 0 {
		return usageError{"search needs a query: cairn search \"how do I reset the device\""}
	}
	if *batch != "" && len(pos) > 0 {
		return usageError{"give either a query or --batch FILE, not both"}
	}
	// The flags go through the settings' own check, so a value the settings
	// file may not hold is no more accepted on the command line.
	cfg := env.cfg
	flags := knobs.set(&cfg)
	cfg.Retrieval.Mode, cfg.Retrieval.Fusion = *mode, *fusion
	flags["retrieval.mode"], flags["retrieval.fusion"] = "--mode", "--fusion"
	cfg.Normalize()
	if err := flagProblems(cfg.Validate(), flags); err != nil {
		return err
	}
	filter, err := ff.filter()
	if err != nil {
		return err
	}
	eng, err := kb.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	req := search.NewRequest(strings.Join(pos, " "), cfg.Retrieval)
	req.Filter, req.Exact = filter, *exact
	if *batch != "" {
		if *format != "trec" {
			return usageError{fmt.Sprintf("unknown batch format %q (use trec)", *format)}
		}
		return searchBatch(ctx, env, eng, req, *batch)
	}
	return printSearch(ctx, env, eng, req, *asJSON)
}

// knobFlagValues are the flags knobFlags registered.
type knobFlagValues map[*config.Knob]*knobValue

// knobFlags registers a flag for each knob that has one, defaulting to its
// value in cfg.
func knobFlags(fs *flag.FlagSet, cfg config.Config, knobs []config.Knob) knobFlagValues {
	out := knobFlagValues{}
	for i := range knobs {
		k := &knobs[i]
		if k.Flag == "" {
			continue
		}
		v := &knobValue{v: k.Get(cfg), whole: k.Int}
		out[k] = v
		usage := k.Help
		if k.Zero != "" {
			usage += " (0: " + k.Zero + ")"
		}
		fs.Var(v, k.Flag, usage)
	}
	return out
}

// set writes the values of the flags given on the command line into cfg
// and returns the flag of each setting they set, for flagProblems. A flag
// not given leaves its setting alone, so a bad value from the settings or
// a CAIRN_* variable is never blamed on it.
func (kv knobFlagValues) set(cfg *config.Config) map[string]string {
	flags := map[string]string{}
	for k, v := range kv {
		if v.given {
			k.Set(cfg, v.v)
			flags[k.Key] = "--" + k.Flag
		}
	}
	return flags
}

// knobValue is a knob's flag: a whole number or a number, as the knob is.
type knobValue struct {
	v     float64
	whole bool
	given bool // set on the command line
}

func (f *knobValue) String() string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64)
}

func (f *knobValue) Set(s string) error {
	if f.whole {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return errors.New("not a whole number")
		}
		// Past int64, ParseInt gives the nearest end: the setting's check
		// then refuses that, never a value wrapped round.
		f.v, f.given = float64(n), true
		return nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	f.v, f.given = x, true
	return nil
}

// flagProblems turns the settings' complaints about values that flags set
// into a usage error naming each flag and its value. Other settings were
// checked when they loaded.
func flagProblems(err error, flags map[string]string) error {
	var inv *config.InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	var msgs []string
	for _, p := range inv.Problems {
		if f, ok := flags[p.Key]; ok {
			p.From = f
			msgs = append(msgs, p.String())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return usageError{"invalid flag value: " + strings.Join(msgs, "; ")}
}

func printSearch(ctx context.Context, env *cliEnv, eng *core.Engine, req search.Request, asJSON bool) error {
	resp, err := eng.Search(ctx, req)
	if err != nil {
		return err
	}
	if asJSON {
		return search.WriteJSON(env.stdout, search.NewReport(req.Query, resp))
	}
	printResults(env.stdout, resp, isTerminal(env.stdout))
	return nil
}

// printResults prints a search's results for a person: rank, relevance in
// words and number, where, and the snippet with the query's terms marked
// (bold on a terminal).
func printResults(w io.Writer, resp *search.Response, tty bool) {
	if c := resp.Candidates; len(c.Corrections) > 0 {
		fmt.Fprintln(w, fault.Printable(search.SearchedFor(c.Query, c.Corrections))+"; --exact searches what you typed")
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(w, "No matching passages.")
		return
	}
	for _, r := range resp.Results {
		fmt.Fprintf(w, "%2d. %s (%.2f)  %s\n", r.Rank, r.MatchLabel(), r.Relevance, location(r.Passage))
		if r.PreRank > 0 {
			fmt.Fprintf(w, "    reranked: score %.3f, rank %d before\n", r.RerankScore, r.PreRank)
		}
		if r.Heading != "" {
			fmt.Fprintf(w, "    § %s\n", fault.Printable(r.Heading))
		}
		fmt.Fprintln(w, indent(highlight(r.Snippet, r.Highlights, tty), "    "))
	}
	for _, n := range resp.Candidates.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if rr := resp.Candidates.Rerank; rr != nil {
		fmt.Fprintln(w, "rerank:", rr.Summary())
	}
	fmt.Fprintf(w, "(%s, %d results in %.1f ms)\n", resp.Candidates.Mode, len(resp.Results),
		float64(resp.Timing.Total.Microseconds())/1000)
}

// indent prefixes every line of s, so that a passage's own lines stay
// under the result they belong to.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// location is "path:line" plus the page, slide or sheet when there is one.
func location(p *search.Passage) string {
	path := fault.Printable(p.Path)
	loc := fmt.Sprintf("%s:%d", path, p.LineStart)
	if p.Page > 0 {
		kind := p.UnitKind
		if kind == "" {
			kind = "page"
		}
		loc = fmt.Sprintf("%s (%s %d", path, kind, p.Page)
		if p.Label != "" {
			loc += ", " + fault.Printable(p.Label)
		}
		loc += ")"
	}
	return loc
}

// highlight marks the spans in s: bold on a terminal, **stars** otherwise.
// The passage's own control characters are escaped (after the spans,
// whose offsets are into s), so only the marks reach the terminal as codes.
func highlight(s string, spans []search.Span, tty bool) string {
	open, closeTag := "**", "**"
	if tty {
		open, closeTag = "\033[1m", "\033[0m"
	}
	var b strings.Builder
	pos := 0
	for _, sp := range spans {
		if sp.Start < pos || sp.End > len(s) {
			continue
		}
		b.WriteString(fault.PrintableText(s[pos:sp.Start]))
		b.WriteString(open + fault.PrintableText(s[sp.Start:sp.End]) + closeTag)
		pos = sp.End
	}
	b.WriteString(fault.PrintableText(s[pos:]))
	return b.String()
}

// searchBatch runs every query of a qid<TAB>query file and prints a TREC
// run: one line per file (its best chunk), ranked.
func searchBatch(ctx context.Context, env *cliEnv, eng *core.Engine, req search.Request, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	defer f.Close()
	if err := eng.SyncKeywordIndex(ctx); err != nil {
		return err
	}
	w := bufio.NewWriter(env.stdout)
	defer w.Flush()
	req.PerDocCap = 1 // best chunk per file
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		qid, q, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.TrimSpace(q) == "" {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			return fmt.Errorf("%s:%d: want qid<TAB>query", path, line)
		}
		if strings.ContainsRune(sc.Text(), 0) {
			// SQLite would end the query at it and find nothing.
			return fmt.Errorf("%s:%d: query %q holds a NUL byte; remove it", path, line, qid)
		}
		req.Query = q
		resp, err := eng.Search(ctx, req)
		if err != nil {
			return fmt.Errorf("query %s: %w", qid, err)
		}
		writeTREC(w, qid, resp.Results)
	}
	return sc.Err()
}

// writeTREC prints TREC run lines. TREC fields are separated by white
// space and a run is one line per result, so "%", white space and other
// control characters in paths are written as %XX (percent-decoding gives
// the path back).
func writeTREC(w io.Writer, qid string, results []search.Result) {
	for _, r := range results {
		fmt.Fprintf(w, "%s Q0 %s %d %.6f cairn\n", qid, trecPath(r.Path), r.Rank, r.Score)
	}
}

func trecPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '%' || c <= ' ' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
