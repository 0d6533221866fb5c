package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/core/extract/extracttest"
	"cairn/core/fault"
	"cairn/core/humanize"
)

// HostileOptions configure `cairn-dev bench hostile`.
type HostileOptions struct {
	Bin      string   // the cairn binary each case runs
	Dir      string   // where the corpus is built; built inputs are kept and reused
	Fixtures string   // testdata/formats
	Only     []string // run the cases whose name contains one of these; all when empty
}

// HostileResult is what one hostile input did to `cairn index` of a folder
// holding it beside two ordinary files.
type HostileResult struct {
	Case    string  `json:"case"`
	Issue   int     `json:"issue"`
	What    string  `json:"what"`
	Size    int64   `json:"size"`    // bytes of the hostile input
	RC      int     `json:"rc"`      // the run's exit status
	Message string  `json:"message"` // the last line the run printed on stderr, if any
	Reason  string  `json:"reason"`  // what the knowledge base records for the input (status --issues), or "indexed"
	PeakMB  float64 `json:"peak_mb"` // peak resident memory of Cairn and its child processes together (sampled)
	OwnMB   float64 `json:"own_mb"`  // Cairn's own peak (VmHWM), or its largest child's
	Seconds float64 `json:"seconds"`
	Rest    bool    `json:"rest"`      // both ordinary files were indexed and are found
	Check   string  `json:"integrity"` // `cairn doctor`'s integrity, full-text and consistency checks: "ok" or what failed
	// Again is the second run of the unchanged folder: its exit status,
	// time and whether it read the input again.
	Again string `json:"again"`
}

// ordinary are the files beside each hostile input; both hold the word
// that finds them.
var ordinary = map[string]string{
	"ordinary-notes.txt": "The quartzledger of the spring inspection lists every turbine blade.\n",
	"ordinary-guide.md":  "# Guide\n\nThe quartzledger is kept in the store room, beside the spare seals.\n",
}

// Hostile builds every case of extracttest.Corpus (once: a later run
// reuses what it built) and runs each: `cairn index` of its folder in a
// fresh home, sampling the memory of the process and its children, then
// the knowledge base's record of the input, a search for the ordinary
// files, `cairn doctor`'s checks of the database, and a second run.
func Hostile(ctx context.Context, w io.Writer, opt HostileOptions) ([]HostileResult, error) {
	var out []HostileResult
	// SQLite's WebAssembly is compiled on first use and the result kept in
	// the home's cache (7 s and some 60 MB more): each case's fresh home
	// starts with the cache a person's home has.
	warm, err := filepath.Abs(filepath.Join(opt.Dir, ".warm"))
	if err != nil {
		return nil, err
	}
	if err := warmCache(ctx, opt.Bin, warm); err != nil {
		return nil, err
	}
	for _, c := range extracttest.Corpus(opt.Fixtures) {
		if !selected(c.Name, opt.Only) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := hostileCase(ctx, opt, c, filepath.Join(warm, "cache"))
		if err != nil {
			return out, fmt.Errorf("%s: %w", c.Name, err)
		}
		fmt.Fprintf(w, "%s: rc %d, %.0f MB (own %.0f), %.1f s, rest %v, %s; %s; again: %s\n",
			r.Case, r.RC, r.PeakMB, r.OwnMB, r.Seconds, r.Rest, r.Check, r.Reason, r.Again)
		out = append(out, r)
	}
	return out, nil
}

func selected(name string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o != "" && strings.Contains(name, o) {
			return true
		}
	}
	return false
}

// warmCache runs one index of an empty folder in the home dir, so that its
// cache holds the compiled SQLite.
func warmCache(ctx context.Context, bin, dir string) error {
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "index", "--quiet", empty)
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("warming the compile cache: %v: %s", err, out)
	}
	return nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
}

func hostileCase(ctx context.Context, opt HostileOptions, c extracttest.Case, cache string) (HostileResult, error) {
	r := HostileResult{Case: c.Name, Issue: c.Issue, What: c.What}
	root, err := filepath.Abs(filepath.Join(opt.Dir, c.Name))
	if err != nil {
		return r, err
	}
	p := extracttest.Place{Dir: filepath.Join(root, "folder"), Home: filepath.Join(root, "home"), Outside: filepath.Join(root, "outside")}
	built := filepath.Join(root, ".built")
	if _, err := os.Stat(built); err != nil {
		os.RemoveAll(root)
		for _, d := range []string{p.Dir, p.Home, p.Outside} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return r, err
			}
		}
		if err := c.Build(p); err != nil {
			return r, err
		}
		for name, text := range ordinary {
			if err := os.WriteFile(filepath.Join(p.Dir, name), []byte(text), 0o644); err != nil {
				return r, err
			}
		}
		if err := os.WriteFile(built, nil, 0o644); err != nil {
			return r, err
		}
	}
	r.Size = inputSize(p.Dir)
	home := filepath.Join(root, "cairn")
	os.RemoveAll(home) // every run starts from an empty knowledge base
	if err := copyTree(cache, filepath.Join(home, "cache")); err != nil {
		return r, err
	}
	env := append(os.Environ(), "CAIRN_HOME="+home, "HOME="+p.Home)
	env = append(env, c.Env...)
	run := func(args ...string) (string, string, int, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, opt.Bin, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return stdout.String(), stderr.String(), ee.ExitCode(), nil
		}
		return stdout.String(), stderr.String(), 0, err
	}

	args := []string{"index", "--quiet", p.Dir}
	if len(c.Command) > 0 {
		args = nil
		for _, a := range c.Command {
			args = append(args, strings.ReplaceAll(a, "DIR", p.Dir))
		}
		// A knowledge base to restore over: the ordinary files'.
		if _, errs, code, err := run("index", "--quiet", p.Dir); err != nil || code != 0 {
			return r, fmt.Errorf("index before %s: %d %v %s", args[0], code, err, errs)
		}
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, opt.Bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, io.Discard, &stderr
	start := time.Now()
	peak, own, err := treePeakRSS(cmd)
	r.Seconds = time.Since(start).Seconds()
	if ee, ok := err.(*exec.ExitError); ok {
		r.RC = ee.ExitCode()
	} else if err != nil {
		return r, err
	}
	r.PeakMB, r.OwnMB = peak, own
	r.Message = shortPaths(errorLine(stderr.String()), p, root)
	if len(c.Command) > 0 {
		r.Reason, r.Check, r.Again, r.Rest = r.Message, "-", "-", true
		return r, nil
	}

	status, _, _, err := run("status", "--issues")
	if err != nil {
		return r, err
	}
	r.Reason = shortPaths(hostileReason(status), p, root)
	found, _, _, err := run("search", "--top-k", "10", "--", "quartzledger")
	if err != nil {
		return r, err
	}
	r.Rest = strings.Contains(found, "ordinary-notes.txt") && strings.Contains(found, "ordinary-guide.md")
	doctor, _, _, err := run("doctor")
	if err != nil {
		return r, err
	}
	r.Check = integrity(doctor)

	t := time.Now()
	out2, errs2, code2, err := run("index", p.Dir)
	if err != nil {
		return r, err
	}
	r.Again = fmt.Sprintf("rc %d, %.1f s, %s", code2, time.Since(t).Seconds(), readAgain(out2, errs2))
	return r, nil
}

// shortPaths writes the case's paths in s as a reader of the table needs
// them: a file of the folder by its name, the home folder as ~, the
// case's own folder as ….
func shortPaths(s string, p extracttest.Place, root string) string {
	s = strings.ReplaceAll(s, p.Dir+string(os.PathSeparator), "")
	s = strings.ReplaceAll(s, p.Home, "~")
	return strings.ReplaceAll(s, root, "…")
}

// inputSize is the size of what the case put beside the ordinary files
// (links and special files count as 0).
func inputSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || ordinary[d.Name()] != "" {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// hostileReason is the first line `cairn status --issues` lists for a file
// (the hostile input, the ordinary files being indexed), or "indexed".
func hostileReason(status string) string {
	var reasons []string
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, "skipped: ") || strings.HasPrefix(l, "failed: ") {
			reasons = append(reasons, l)
		}
	}
	if len(reasons) == 0 {
		return "indexed"
	}
	if len(reasons) > 1 {
		return fmt.Sprintf("%s (and %d more)", reasons[0], len(reasons)-1)
	}
	return reasons[0]
}

// integrity reads `cairn doctor`'s checks of the knowledge base: "ok" when
// the integrity, full-text and consistency checks pass.
func integrity(doctor string) string {
	var bad []string
	seen := 0
	for _, l := range strings.Split(doctor, "\n") {
		for _, name := range []string{"integrity:", "full-text index:", "consistency:"} {
			if strings.Contains(l, " "+name) {
				seen++
				if !strings.HasPrefix(l, "PASS") {
					bad = append(bad, l)
				}
			}
		}
	}
	switch {
	case len(bad) > 0:
		return strings.Join(bad, "; ")
	case seen < 3:
		return "not checked: " + lastLine(doctor)
	}
	return "ok"
}

// readAgain says whether a second run read any file again: its summary's
// indexed, skipped and failed counts, less what it reported unchanged.
func readAgain(stdout, stderr string) string {
	for _, l := range strings.Split(stdout, "\n") {
		if i := strings.Index(l, " files seen, "); i >= 0 {
			l = l[i+len(" files seen, "):]
			if strings.HasPrefix(l, "0 indexed") && !strings.Contains(stderr, "skipped: ") && !strings.Contains(stderr, "failed: ") {
				return "nothing read again"
			}
			return "read again: " + strings.SplitN(l, ";", 2)[0]
		}
	}
	return "no summary: " + lastLine(stderr)
}

// errorLine is the last line of a command's stderr that starts with
// "cairn:" (an error, or a run's last word), else its last line.
func errorLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "cairn:") {
			return fault.Printable(lines[i])
		}
	}
	return lastLine(s)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return fault.Printable(strings.TrimSpace(lines[len(lines)-1]))
}

// treePeakRSS runs cmd and samples, every 20 ms, the resident memory of
// its process and every process below it (pdftotext, pdftoppm): the peak
// of their sum, and the process's own peak from the kernel (the largest
// of its and its waited-for children's, exact).
func treePeakRSS(cmd *exec.Cmd) (peakMB, ownMB float64, err error) {
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	page := int64(os.Getpagesize())
	var peak int64
	for {
		select {
		case err := <-done:
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				ownMB = float64(ru.Maxrss) / 1024
			}
			return float64(peak) / (1 << 20), ownMB, err
		case <-tick.C:
			peak = max(peak, treeRSS(cmd.Process.Pid)*page)
		}
	}
}

// treeRSS is the resident pages of pid and its descendants.
func treeRSS(pid int) int64 {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var sum int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = append(queue[1:], children[p]...)
		sum += residentPages(p)
	}
	return sum
}

// parentOf reads a process's parent from /proc/PID/stat (field 4, after
// the command name, which may hold spaces and parentheses).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// residentPages reads the resident set of pid from /proc/PID/statm.
func residentPages(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return 0
	}
	fields := strings.Fields(s.Text())
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(fields[1], 10, 64)
	return n
}

// cutRunes cuts s to at most n bytes at a character's start.
func cutRunes(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// HostileTable is the results as a Markdown table, for docs/performance.md.
func HostileTable(w io.Writer, rs []HostileResult) {
	fmt.Fprintln(w, "| input | issue | size | rc | peak RSS, Cairn and children | s | rest indexed | integrity | what Cairn says | second run |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		rest := "yes"
		if !r.Rest {
			rest = "**no**"
		}
		reason := r.Reason
		if r.RC != 0 && r.Message != "" && r.Message != r.Reason {
			reason += " — " + r.Message
		}
		if len(reason) > 200 {
			reason = cutRunes(reason, 197) + "…"
		}
		fmt.Fprintf(w, "| %s (%s) | %d | %s | %d | %.0f MB | %.1f | %s | %s | %s | %s |\n", r.Case, r.What, r.Issue, humanize.Bytes(r.Size),
			r.RC, r.PeakMB, r.Seconds, rest, r.Check, strings.ReplaceAll(reason, "|", "\\|"), r.Again)
	}
}
