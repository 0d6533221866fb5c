package humanize

import "testing"

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 3 << 10: "3 KB", 5<<20 + 1<<19: "5.5 MB", 2 << 30: "2.0 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
