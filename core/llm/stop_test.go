package llm

import "testing"

func TestStopFilter(t *testing.T) {
	tests := []struct {
		name    string
		stops   []string
		pieces  []string
		want    []string // text released after each piece
		stopped int      // index of the piece that hit a stop, -1 for none
		flush   string
	}{
		{"no stops", nil, []string{"a", "b"}, []string{"a", "b"}, -1, ""},
		{"stop inside one piece", []string{"END"}, []string{"abc", "xENDy"}, []string{"abc", "x"}, 1, ""},
		{"stop across pieces", []string{"</s>"}, []string{"yes<", "/", "s>more"}, []string{"yes", "", ""}, 2, ""},
		{"false start released", []string{"</s>"}, []string{"a<", "/b"}, []string{"a", "</b"}, -1, ""},
		{"held prefix flushed at end", []string{"Sources:"}, []string{"see Sour"}, []string{"see "}, -1, "Sour"},
		{"earliest of several", []string{"ZZ", "B"}, []string{"aBcZZ"}, []string{"a"}, 0, ""},
		{"split UTF-8 held", nil, []string{"caf\xc3", "\xa9!"}, []string{"caf", "\u00e9!"}, -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := stopFilter{stops: tc.stops}
			stoppedAt := -1
			for i, p := range tc.pieces {
				out, stopped := f.push(p)
				if out != tc.want[i] {
					t.Errorf("piece %d %q: released %q, want %q", i, p, out, tc.want[i])
				}
				if stopped {
					stoppedAt = i
					break
				}
			}
			if stoppedAt != tc.stopped {
				t.Errorf("stopped at %d, want %d", stoppedAt, tc.stopped)
			}
			if got := f.flush(); got != tc.flush {
				t.Errorf("flush = %q, want %q", got, tc.flush)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	v := Normalize([]float32{3, 4})
	if v[0] != 0.6 || v[1] != 0.8 {
		t.Errorf("Normalize(3,4) = %v", v)
	}
	z := Normalize([]float32{0, 0})
	if z[0] != 0 || z[1] != 0 {
		t.Errorf("Normalize(0,0) = %v", z)
	}
}
