package panels

import (
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/humanize"
)

func TestFormats(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{humanize.Bytes(512), "512 B"},
		{humanize.Bytes(3 << 10), "3 KB"},
		{humanize.Bytes(5<<20 + 1<<19), "5.5 MB"},
		{humanize.Bytes(2 << 30), "2.0 GB"},
		{formatMs(2500 * time.Microsecond), "2.5 ms"},
		{formatMs(120 * time.Millisecond), "120 ms"},
		{formatMs(12 * time.Second), "12.0 s"},
		{formatClock(42 * time.Second), "0:42"},
		{formatClock(3*time.Hour + 5*time.Minute + 9*time.Second), "3:05:09"},
		{formatCount(1234567), "1,234,567"},
		{formatCount(999), "999"},
		{formatAgo(now.Add(-30*time.Second), now), "just now"},
		{formatAgo(now.Add(-5*time.Minute), now), "5 min ago"},
		{formatAgo(now.Add(-72*time.Hour), now), "19 Nov 2026"},
		{plural(1, "file", "files"), "1 file"},
		{plural(2000, "file", "files"), "2,000 files"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		p    domain.Progress
		want string
		frac float64
	}{
		{domain.Progress{Folder: "/d", Phase: domain.PhaseScanning, FilesSeen: 1500}, "Looking for files in /d… 1,500 found", 0},
		{domain.Progress{Phase: domain.PhaseIndexing, FilesDone: 10, FilesTotal: 40, Chunks: 300, Bytes: 10 << 20, BytesTotal: 40 << 20,
			Elapsed: 4 * time.Second, ETA: 90 * time.Second, Unchanged: 7},
			"10 / 40 files · 300 chunks · 10.0 MB / 40.0 MB · 2.5 MB/s · about 1:30 left · 7 unchanged", 0.25},
		{domain.Progress{Phase: domain.PhaseEmbedding, FilesDone: 500, FilesTotal: 2000, ETA: time.Minute}, "Embedding 500 / 2,000 passages · about 1:00 left", 0.25},
		{domain.Progress{Phase: domain.PhaseDone, FilesDone: 3, Chunks: 12, Bytes: 5 << 10, Elapsed: 65 * time.Second},
			"Finished: 3 files read, 12 chunks, 5 KB in 1:05.", 1},
		// Cancelled at 21 of 683 files: the bar stays by bytes, as while it
		// ran (1 %), not by files (3 %), and the line says which.
		{domain.Progress{Phase: domain.PhaseDone, FilesDone: 21, FilesTotal: 683, Chunks: 90, Bytes: 2 << 20, BytesTotal: 200 << 20,
			Elapsed: 30 * time.Second, Run: &domain.Run{Status: domain.RunCancelled}},
			"Stopped at 21 of 683 files, 2.0 MB of 200.0 MB read (1 % of the bytes): 90 chunks in 0:30. " +
				"Resume continues it: the files already read are not read again.", 0.01},
	} {
		if got := progressText(c.p); got != c.want {
			t.Errorf("progressText = %q\nwant            %q", got, c.want)
		}
		if got := progressFraction(c.p); got != c.frac {
			t.Errorf("progressFraction(%s) = %v, want %v", c.p.Phase, got, c.frac)
		}
	}
}
