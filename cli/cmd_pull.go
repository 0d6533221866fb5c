package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"cairn/core"
)

// pullModel downloads a catalogue model through the network gate, with a
// progress line on stderr.
func pullModel(ctx context.Context, env *cliEnv, eng *core.Engine, args []string, sha string) error {
	if len(args) != 1 {
		return usageError{"models pull needs one catalogue name: cairn models pull NAME (`cairn models list` shows them)"}
	}
	p := &progressLine{w: env.stderr, start: time.Now(), from: -1}
	res, err := eng.PullModel(ctx, args[0], sha, p.update)
	p.end()
	if err != nil {
		return err
	}
	w := env.stdout
	if res.Existed {
		fmt.Fprintf(w, "%s is already in the models folder: %s\n", res.Name, res.Path)
		return nil
	}
	fmt.Fprintf(w, "Downloaded %s (%s) to %s\n", res.Name, size(res.Bytes), res.Path)
	if res.Checked {
		fmt.Fprintf(w, "SHA-256 %s checked.\n", res.SHA256)
	} else {
		fmt.Fprintf(w, "SHA-256 %s (the catalogue has no digest for this model: compare it with the publisher's, "+
			"or pass --sha256 HEX to have it checked).\n", res.SHA256)
	}
	fmt.Fprintf(w, "Use it with `cairn models use %s`, or pick it in the window's Engineering tab.\n", res.Path)
	return nil
}

// progressLine redraws one terminal line: bytes, share and rate.
type progressLine struct {
	w     io.Writer
	start time.Time
	from  int64 // bytes present when this run began (a resumed .part); -1 before the first call
	last  time.Time
	shown bool
}

func (p *progressLine) update(done, total int64) {
	if p.from < 0 {
		p.from = done
	}
	now := time.Now()
	if done != total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	line := size(done)
	if total > 0 {
		line += fmt.Sprintf(" of %s  %3.0f%%", size(total), 100*float64(done)/float64(total))
	}
	if secs := now.Sub(p.start).Seconds(); secs > 0 {
		line += fmt.Sprintf("  %s/s", size(int64(float64(done-p.from)/secs)))
	}
	if p.from > 0 {
		line += fmt.Sprintf("  (resumed at %s)", size(p.from))
	}
	fmt.Fprintf(p.w, "\r%-60s", line)
	p.shown = true
}

func (p *progressLine) end() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

// size is a byte count for a person.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
