package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resources/list gives every indexed document, 100 a page with a cursor
// to the next; a document is read by the URI as listed, as a client
// expands the template, percent-encoded, or with the file's name written
// as it is (a space, non-ASCII letters, a #), as docs/service.md shows.
func TestMCPListsAndReadsDocuments(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	names := []string{"meeting #3.md", "Übersicht 2024.md", "ünd? 50%.md"}
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), "# Kiln\n\nThe kiln of "+n+" fires at 1240 degrees.\n")
	}
	for i := range 120 {
		writeFile(t, filepath.Join(dir, "more", fmt.Sprintf("n%03d.md", i)), fmt.Sprintf("# N%d\n\nGlaze %d.\n", i, i))
	}
	if _, err := eng.IndexFolder(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, eng, Options{})
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	var all []*mcp.Resource
	cursor, pages := "", 0
	for {
		list, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, list.Resources...)
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	if pages != 2 || len(all) != 8+3+120 {
		t.Errorf("%d pages, %d documents", pages, len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].URI >= all[i].URI && !strings.HasPrefix(all[i].URI, "file://"+dir) {
			t.Errorf("not in path order: %s, %s", all[i-1].URI, all[i].URI)
		}
	}

	for _, n := range names {
		path := filepath.Join(dir, n)
		escaped := strings.NewReplacer(" ", "%20", "#", "%23", "?", "%3F", "%", "%25", "Ü", "%C3%9C", "ü", "%C3%BC").Replace(path)
		for _, uri := range []string{"file://" + path, "file://" + escaped} {
			doc, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Errorf("%s: %v", uri, err)
				continue
			}
			if c := doc.Contents[0]; !strings.Contains(c.Text, "The kiln of "+n) || c.URI != uri {
				t.Errorf("%s: %q as %s", uri, c.Text, c.URI)
			}
		}
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + filepath.Join(dir, "nö such.md")}); err == nil {
		t.Error("a file that is not indexed was read")
	}
}
