package humanize

import "testing"

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 3 << 10: "3 KB", 5<<20 + 1<<19: "5.5 MB", 2 << 30: "2.0 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCost(t *testing.T) {
	for c, want := range map[float64]string{0.0021: "0.0021", 0.5: "0.50", 12.345: "12.35"} {
		if got := Cost(c); got != want {
			t.Errorf("Cost(%v) = %q, want %q", c, got, want)
		}
	}
}
