package teamstore

import (
	"strings"

	"cairn/core/bm25"
)

// FilePath is a file's folder and path as one path, as a search over the
// cluster shows and filters it: the file's own path when the folder is
// named by its absolute path (cairn index without --as).
func FilePath(folder, path string) string {
	return strings.TrimSuffix(folder, "/") + "/" + path
}

// fold is what a "contains" or type filter looks in: the file and the
// title, ASCII letters lowered as SQLite's lower() does for the SQLite
// store's filter, joined by foldSep. Weaviate's Like is a regular
// expression whose wildcards do not cross a line break, so line breaks
// become spaces.
func fold(file, title string) string {
	nl := strings.NewReplacer("\n", " ", "\r", " ")
	return nl.Replace(ASCIILower(file)) + foldSep + nl.Replace(ASCIILower(title))
}

// foldSep ends the file in a fold: a character no path or title holds.
const foldSep = "\x1f"

// ASCIILower lowers ASCII letters only, as SQLite's lower() does.
func ASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// stems are a text's tokens as the FTS5 index holds them, separated by
// spaces, and how many there are.
func stems(tk *bm25.Tokenizer, text string) (string, int) {
	toks := tk.Tokens(text)
	return strings.Join(toks, " "), len(toks)
}
