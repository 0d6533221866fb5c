package search

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EscapePath returns path with every byte that is not part of valid UTF-8,
// and every "%", written as %XX, so that percent-decoding it gives back the
// exact bytes of the file name; "" when path is valid UTF-8. JSON can only
// carry UTF-8 and replaces other bytes with U+FFFD, which would leave a
// result that cannot be opened.
func EscapePath(path string) string {
	if utf8.ValidString(path) {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(path); {
		r, n := utf8.DecodeRuneInString(path[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "%%%02X", path[i])
		case r == '%':
			b.WriteString("%25")
		default:
			b.WriteString(path[i : i+n])
		}
		i += n
	}
	return b.String()
}
