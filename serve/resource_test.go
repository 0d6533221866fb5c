package serve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// A document whose name holds # or ? (or a space, or %) is read through
// the resource template as a client expands it (RFC 6570), over HTTP.
func TestMCPReadsDocumentsWithReservedCharacters(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	names := []string{"notes #3.md", "why?.md", "100% sure.md"}
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), "# Kiln\n\nThe kiln of "+n+" fires at 1240 degrees.\n")
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
	tmpls, err := s.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 {
		t.Fatalf("templates: %v %v", tmpls, err)
	}
	tmpl := uritemplate.MustNew(tmpls.ResourceTemplates[0].URITemplate)
	for _, n := range names {
		path := filepath.Join(dir, n)
		uri, err := tmpl.Expand(uritemplate.Values{"path": uritemplate.String(path)})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("%s (%s): %v", n, uri, err)
			continue
		}
		if text := doc.Contents[0].Text; !strings.Contains(text, "The kiln of "+n) || !strings.Contains(text, path) {
			t.Errorf("%s: %q", uri, text)
		}
	}
	// The same file as a file URL (RFC 8089) is read too.
	doc, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file://" + filepath.ToSlash(dir) + "/notes%20%233.md"})
	if err != nil || !strings.Contains(doc.Contents[0].Text, "The kiln of notes #3.md") {
		t.Errorf("file URL: %v", err)
	}
}
