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

// ODF stores no numbers in a numbered list's text: the list style numbers
// the items (here "1." at level 1 and "a)" at level 2), and Cairn writes
// them out; bullet items keep "- ".
func TestODTListNumbersAreKept(t *testing.T) {
	content := `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0">
<office:automatic-styles>
<text:list-style style:name="L1">
<text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"/>
<text:list-level-style-number text:level="2" style:num-suffix=")" style:num-format="a"/>
</text:list-style>
<text:list-style style:name="L2"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/></text:list-style>
</office:automatic-styles>
<office:body><office:text>
<text:p>Before you start:</text:p>
<text:list text:style-name="L2"><text:list-item><text:p>Wear gloves.</text:p></text:list-item></text:list>
<text:list text:style-name="L1">
<text:list-item><text:p>Close the inlet valve.</text:p></text:list-item>
<text:list-item><text:p>Drain the pump housing.</text:p>
<text:list><text:list-item><text:p>Open the drain plug.</text:p></text:list-item><text:list-item><text:p>Wait ten minutes.</text:p></text:list-item></text:list>
</text:list-item>
<text:list-item><text:p>Replace the seal.</text:p></text:list-item>
</text:list>
</office:text></office:body></office:document-content>`
	odt := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", content)
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("steps.odt", odt))
	if err != nil {
		t.Fatal(err)
	}
	want := "Before you start:\n\n- Wear gloves.\n\n1. Close the inlet valve.\n\n2. Drain the pump housing.\n\na) Open the drain plug.\n\nb) Wait ten minutes.\n\n3. Replace the seal."
	if d.Text != want {
		t.Errorf("text\n%q\nwant\n%q", d.Text, want)
	}
}
