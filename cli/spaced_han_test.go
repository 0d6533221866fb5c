package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpacedHanIsFoundBySearchAndAsk: a Chinese man page as groff renders
// it, one character at a time with spaces between ("设 定 与 控 制"), is
// indexed, and words that occur only in that spaced form are found by
// `cairn search` (Engine.Search) as strong matches and answered by `cairn
// ask`, at the default settings. They were in the full-text index, but
// the passages' words were read without the spaced runs, so every such
// word had relevance 0.00 and was dropped (issue 43, item 5).
func TestSpacedHanIsFoundBySearchAndAsk(t *testing.T) {
	home := t.TempDir()
	page, err := os.ReadFile("../testdata/spaced-han/losetup.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "losetup.8.txt"), page, 0o644)
	if _, errs, code := cli(t, home, "index", dir); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	for _, w := range []string{"设定", "控制", "档案", "编码", "资料", "装置", "秀出", "模组", "分离", "状况"} {
		out, errs, code := cli(t, home, "search", "--", w)
		if code != 0 || !strings.Contains(out, "strong match") || !strings.Contains(out, "losetup.8.txt") {
			t.Errorf("search %s: exit %d\n%s%s", w, code, out, errs)
		}
	}
	for _, c := range []struct{ q, line string }{
		{"设定", "设 定 与 控 制 环回设备"},
		{"模组", "须 先 使 用 下 列 命 令 将 模 组 载 入"},
	} {
		out, errs, code := cli(t, home, "ask", "--", c.q)
		if code != 0 || !strings.Contains(out, c.line) || strings.Contains(out, "do not seem to cover") {
			t.Errorf("ask %s: exit %d\n%s%s", c.q, code, out, errs)
		}
	}
}
