package extract

import "testing"

// Numbered list items keep their numbers: "step 2" must be findable and
// an answer must be able to quote the order. RTF writers render the number
// into \listtext, which was skipped with the list tables.
func TestRTFListNumbersAreKept(t *testing.T) {
	rtf := `{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}}{\*\listtable{\list\listtemplateid1{\listlevel\levelnfc0{\leveltext\'02\'00.;}{\levelnumbers\'01;}}\listid1}}` +
		`{\*\listoverridetable{\listoverride\listid1\ls1}}` +
		`\pard{\listtext\pard\plain 1.\tab}\ls1 Close the inlet valve.\par` +
		`\pard{\listtext\pard\plain 2.\tab}\ls1 Drain the pump housing.\par}`
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("steps.rtf", []byte(rtf)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "1.\tClose the inlet valve.\n\n2.\tDrain the pump housing."; d.Text != want {
		t.Errorf("text %q, want %q", d.Text, want)
	}
}
