package invisible

import "testing"

func TestRemove(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"password", "password"},
		{"p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd", "password"},
		{"\ufeffBOM at the start", "BOM at the start"},
		{"word\u2060joiner and soft\u00adhyphen", "wordjoiner and softhyphen"},
		{"rtl \u202eoverride\u202c here", "rtl override here"},
		{"tags \U000E0041\U000E0042 end", "tags  end"},
		{"café — naïve ½ 日本語", "café — naïve ½ 日本語"}, // visible characters stay
		{"\u200b\u200c\u200d", ""},
	} {
		if got := Remove(c.in); got != c.want {
			t.Errorf("Remove(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Spans("a\u200b\u200cb\u2060"); len(got) != 2 || got[0] != [2]int{1, 7} || got[1] != [2]int{8, 11} {
		t.Errorf("Spans = %v", got)
	}
}
