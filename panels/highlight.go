package panels

import (
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// highlightStyle marks the query's terms inside a snippet.
var highlightStyle = widget.RichTextStyle{
	Inline:    true,
	ColorName: theme.ColorNamePrimary,
	TextStyle: widget.RichTextStyleStrong.TextStyle,
}

// highlighted splits text into plain and highlighted segments at spans
// (byte offsets into text, in order, not overlapping).
func highlighted(text string, spans []search.Span) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	plain := func(s string) {
		if s != "" {
			segs = append(segs, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: s})
		}
	}
	at := 0
	for _, sp := range spans {
		if sp.Start < at || sp.End > len(text) || sp.Start >= sp.End {
			continue // malformed or overlapping: show the text unmarked
		}
		plain(text[at:sp.Start])
		segs = append(segs, &widget.TextSegment{Style: highlightStyle, Text: text[sp.Start:sp.End]})
		at = sp.End
	}
	plain(text[at:])
	return segs
}
