package serve

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cairn/core/answer"
	"cairn/core/collection"
	"cairn/core/search"
)

// A chat client shows the reply's text and nothing else, and sends it
// back with the next question. So the reply is the answer followed by
// what `cairn ask` prints after it (the follow-up statement, the notes,
// the closest passages of a refusal, the sources), each block after a
// blank line and starting with one of the headings below; and a reply
// sent back is read as the answer it was, without them, and with what was
// searched for it (the follow-up statement's).

const (
	followUpPrefix = answer.FollowUpLead // answer.FollowUp.Statement's start
	searchedPrefix = "Searched for: "    // search.SearchedFor's
	notePrefix     = "Note: "
	nextPagePrefix = "Say \"next page\""
	closestHeading = "Closest passages — not an answer:"
	sourcesHeading = "Sources:"
)

var footerStarts = []string{followUpPrefix, searchedPrefix, notePrefix, nextPagePrefix, closestHeading, sourcesHeading}

// chatFooter is what follows the answer's text in a chat reply: the
// answer is text plus this, streamed or whole. page is the page of a list
// of files shown.
func chatFooter(ans *answer.Answer, page int) string {
	var blocks []string
	var info []string
	switch {
	case ans.FollowUp != nil:
		info = append(info, ans.FollowUp.Statement())
	case ans.Query != "":
		info = append(info, search.SearchedFor(ans.Query, ans.Corrections))
	}
	for _, n := range ans.Notes {
		info = append(info, notePrefix+oneLine(n))
	}
	if c := ans.Collection; c != nil {
		if pages := (len(c.Files) + collection.PageSize - 1) / collection.PageSize; page < pages {
			lo, hi := page*collection.PageSize+1, min(len(c.Files), (page+1)*collection.PageSize)
			info = append(info, fmt.Sprintf("%s for files %d–%d, or \"page N\".", nextPagePrefix, lo, hi))
		}
	}
	if len(info) > 0 {
		blocks = append(blocks, strings.Join(info, "\n"))
	}
	if ans.Closest && len(ans.Sources) > 0 {
		var b strings.Builder
		b.WriteString(closestHeading)
		for _, s := range ans.Sources {
			fmt.Fprintf(&b, "\n- %s, %s\n    %s", passageLocation(s.Path, s.Passage.UnitKind, s.Passage.Page, s.Passage.LineStart),
				s.Result.MatchLabel(), oneLine(s.Snippet))
		}
		blocks = append(blocks, b.String())
	}
	if len(ans.Citations) > 0 {
		var b strings.Builder
		b.WriteString(sourcesHeading)
		for _, c := range ans.Citations {
			fmt.Fprintf(&b, "\n[%d] %s", c.N, passageLocation(c.Path, c.Unit, c.Page, c.Line))
		}
		blocks = append(blocks, b.String())
	}
	if len(blocks) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(blocks, "\n\n")
}

// passageLocation is where a passage is, as `cairn ask` writes it.
func passageLocation(path, unit string, page, line int) string {
	if page > 0 {
		return fmt.Sprintf("%s (%s %d)", path, search.UnitName(unit), page)
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// oneLine is s on one line: a footer's block ends at a blank line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// readReply reads an assistant message of the conversation back as the
// answer it was and what was searched for it ("" when the question
// itself, or unknown): the blocks at its end that start with a footer's
// heading are not the answer.
func readReply(text string) (ans, searched string) {
	blocks := strings.Split(strings.TrimRight(text, "\n"), "\n\n")
	n := len(blocks)
	for n > 1 && startsFooter(blocks[n-1]) {
		n--
	}
	for _, b := range blocks[n:] {
		for _, line := range strings.Split(b, "\n") {
			if rest, ok := strings.CutPrefix(line, followUpPrefix); ok {
				if _, q, ok := strings.Cut(rest, answer.FollowUpSearched); ok {
					searched = q
				}
			}
		}
	}
	return strings.Join(blocks[:n], "\n\n"), searched
}

func startsFooter(block string) bool {
	for _, p := range footerStarts {
		if strings.HasPrefix(block, p) {
			return true
		}
	}
	return false
}

// listPage is the page a reply listing files showed ("Files 1–50 of 62
// (page 1 of 2)."), ok false when it lists none.
func listPage(reply string) (page, pages int, ok bool) {
	m := listPageRE.FindAllStringSubmatch(reply, -1)
	if len(m) == 0 {
		return 0, 0, false
	}
	last := m[len(m)-1]
	page, _ = strconv.Atoi(last[1])
	pages, _ = strconv.Atoi(last[2])
	return page, pages, true
}

var listPageRE = regexp.MustCompile(`Files \d+–\d+ of \d+ \(page (\d+) of (\d+)\)\.`)

// pageAsked reads a message that asks for another page of the list just
// shown: "next page", "more", "page 2"; 0 when it asks something else.
func pageAsked(msg string, shown int) int {
	m := pageAskedRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(msg)))
	switch {
	case m == nil:
		return 0
	case m[1] != "":
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return shown + 1
}

var pageAskedRE = regexp.MustCompile(`^(?:(?:show |give me |go to )?(?:the )?(?:next page|more|page (\d+))(?: please)?)[.!?]*$`)
