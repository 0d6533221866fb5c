package cjk

import "testing"

func TestBigrams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain English text", "plain English text"},
		{"远程主机", " 远程 程主 主机 "},
		{"进程", " 进程 "},
		{"ssh用于登录", "ssh 用于 于登 登录 "},
		{"行 1", " 行  1"},
		{"プロセスを終了する", " プロ ロセ セス スを を終 終了 了す する "},
		{"ユーザー名", " ユー ーザ ザー ー名 "},
		{"한국어 텍스트", "한국어 텍스트"},
		{"café 日本", "café  日本 "},
		// groff's Chinese man pages: one character at a time, spaced.
		{"守 护 进 程", " 守护 护进 进程 "},
		{"启动 守 护 进 程。", " 启动   守护 护进 进程 。"},
		{"守\u3000护", " 守护 "},
		// Words of several characters keep their spaces.
		{"中文 搜索", " 中文   搜索 "},
		{"中 搜索", " 中   搜索 "},
		{"守   护", " 守     护 "},
	} {
		if got := Bigrams(c.in); got != c.want {
			t.Errorf("Bigrams(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
