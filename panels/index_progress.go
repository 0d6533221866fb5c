package panels

import (
	"fmt"
	"strings"
	"time"

	"cairn/core/domain"
	"cairn/core/humanize"
)

// progressText describes a run's progress for a person: files, chunks, MB,
// rate and time left.
func progressText(p domain.Progress) string {
	switch p.Phase {
	case domain.PhaseScanning:
		return fmt.Sprintf("Looking for files in %s… %s found", p.Folder, formatCount(p.FilesSeen))
	case domain.PhaseRemoving:
		return "Forgetting files that were deleted…"
	case domain.PhaseEmbedding:
		s := fmt.Sprintf("Embedding %s / %s passages", formatCount(p.FilesDone), formatCount(p.FilesTotal))
		if p.ETA > 0 {
			s += " · about " + formatClock(p.ETA) + " left"
		}
		return s
	case domain.PhaseDone:
		if stopped(p) {
			// The button under it then reads Resume (IndexTab.sync): the
			// line names it by that word, not "Start".
			s := fmt.Sprintf("Stopped at %s of %s files, %s (%d %% of the %s): %s in %s.", formatCount(p.FilesDone), formatCount(p.FilesTotal),
				progressBasis(p), int(100*progressFraction(p)), progressUnit(p), plural(p.Chunks, "chunk", "chunks"), formatClock(p.Elapsed))
			return s + " " + resumeHint
		}
		return fmt.Sprintf("Finished: %s read, %s, %s in %s.", plural(p.FilesDone, "file", "files"),
			plural(p.Chunks, "chunk", "chunks"), humanize.Bytes(p.Bytes), formatClock(p.Elapsed))
	}
	parts := []string{
		fmt.Sprintf("%s / %s files", formatCount(p.FilesDone), formatCount(p.FilesTotal)),
		plural(p.Chunks, "chunk", "chunks"),
		humanize.Bytes(p.Bytes) + " / " + humanize.Bytes(p.BytesTotal),
	}
	if p.Elapsed > time.Second && p.Bytes > 0 {
		parts = append(parts, fmt.Sprintf("%.1f MB/s", mb(p.Bytes)/p.Elapsed.Seconds()))
	}
	switch {
	case p.ETA > 0:
		parts = append(parts, "about "+formatClock(p.ETA)+" left")
	case p.Elapsed > 2*time.Second && p.Bytes < p.BytesTotal:
		// The indexer gives no time until each kind of file it has left
		// to read has been measured (a first PDF beside text).
		parts = append(parts, "time left: measuring")
	}
	if n := p.Unchanged; n > 0 {
		parts = append(parts, formatCount(n)+" unchanged")
	}
	return strings.Join(parts, " · ")
}

// progressFraction is how far a run is, 0..1: the bytes read of the bytes
// to read, while it runs and where it stopped alike (files vary in size, so
// 21 of 683 files can be 1 % of the work; the bar read by bytes while
// running and by files after a cancel, 1 % then 3 %). Files count only when
// the sizes are not known, and passages while they are embedded.
func progressFraction(p domain.Progress) float64 {
	switch {
	case p.Phase == domain.PhaseDone && !stopped(p):
		return 1
	case byBytes(p):
		return min(1, float64(p.Bytes)/float64(p.BytesTotal))
	case p.FilesTotal <= 0:
		return 0
	default:
		return min(1, float64(p.FilesDone)/float64(p.FilesTotal))
	}
}

// byBytes says whether the bar of p measures bytes.
func byBytes(p domain.Progress) bool {
	return p.BytesTotal > 0 && (p.Phase == domain.PhaseIndexing || p.Phase == domain.PhaseDone)
}

// progressUnit names what the bar of p measures.
func progressUnit(p domain.Progress) string {
	if byBytes(p) {
		return "bytes"
	}
	return "files"
}

// progressBasis is the amount read, of the amount to read, in bytes.
func progressBasis(p domain.Progress) string {
	if byBytes(p) {
		return humanize.Bytes(p.Bytes) + " of " + humanize.Bytes(p.BytesTotal) + " read"
	}
	return humanize.Bytes(p.Bytes) + " read"
}

// stopped says a run ended before its last file: cancelled, failed or
// interrupted. Its bar must show where it stopped, not a full run.
func stopped(p domain.Progress) bool {
	return p.Run != nil && p.Run.Status != domain.RunDone
}

// runSummary is the one-line outcome of a finished run.
func runSummary(files, indexed, unchanged, skipped, failed, removed, chunks int, took time.Duration) string {
	return fmt.Sprintf("%s seen: %s indexed, %s unchanged, %s skipped, %s failed, %s removed; %s in %s.",
		plural(files, "file", "files"), formatCount(indexed), formatCount(unchanged), formatCount(skipped),
		formatCount(failed), formatCount(removed), plural(chunks, "chunk", "chunks"), formatClock(took))
}

// resumeHint says what Resume does after a stopped run; the button reads
// Resume, and every line about the stopped run names it so.
const resumeHint = "Resume continues it: the files already read are not read again."

func mb(n int64) float64 { return float64(n) / (1 << 20) }
