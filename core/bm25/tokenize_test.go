package bm25

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/core/store"
)

// latinSample holds what the guide lacks: accents, ligatures, digits glued
// to letters, combining marks, case pairs beyond ASCII, and words that
// exercise each step of the stemmer.
const latinSample = `Crème brûlée, naïve façade; Ærøskøbing Straße ÉCOLE déjà-vu.
e` + "\u0301" + `tude ` + "\u0301" + `x x86_64 IPv6 v1.2.3 XK-200-B user@example.com
caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated
troubled sized hopping tanned falling hissing fizzed failing filing happy sky
relational conditional rational valenci hesitanci digitizer conformabli radicalli
differentli vileli analogousli vietnamization predication operator feudalism
decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate
formative formalize electriciti electrical hopeful goodness revival allowance
inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous
effective bowdlerize probate rate cease controll roll generalizations oscillators
yes eed ied ies ing sses aed reed bleed ying eying dying lying tying`

// exoticSample is text where Go's Unicode tables and SQLite's disagree:
// characters assigned after SQLite's tables were made (emoji, new
// currency signs), combining marks that are not diacritics to SQLite,
// and scripts with case.
const exoticSample = "OK 🙂 done ✓ → ₿itcoin ₹ price a\u0305b x\u0301y " +
	"Ελληνικά ΣΟΦΊΑ Привет МИР 日本語のテキスト 한국어 текст\u0301 ﬁle Ǆemal İstanbul ΐ"

func TestTokensMatchFTS5(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	texts := []string{latinSample}
	guide, _ := filepath.Glob("../../resources/guide/*.md")
	if len(guide) == 0 {
		t.Fatal("no guide pages found")
	}
	for _, p := range guide {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	if dir := os.Getenv("CAIRN_TOKENS_DIR"); dir != "" { // a larger corpus on demand
		ps, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, p := range ps[:min(len(ps), 3000)] {
			b, _ := os.ReadFile(p)
			texts = append(texts, string(b))
		}
	}
	tk := NewTokenizer()
	exact := newTokenizer(&runeTable{ask: db.FTSRuneClasses})
	for _, line := range strings.Split(exoticSample+"\n"+latinSample, "\n") {
		want, err := db.FTSTokens(ctx, line)
		if err != nil {
			t.Fatal(err)
		}
		if err := exact.Learn(ctx, []byte(line)); err != nil {
			t.Fatal(err)
		}
		if got := exact.Tokens(line); !slices.Equal(got, want) {
			t.Errorf("with SQLite's character tables, %q:\n got %q\nwant %q", line, got, want)
		}
	}
	if got := tk.Tokens("OK 🙂"); len(got) != 1 {
		t.Errorf("Go's tables made %q of an emoji; the test no longer shows why SQLite's are asked", got)
	}
	words, diffs := 0, 0
	for _, text := range texts {
		// Line by line, so a difference shows where it is.
		for _, line := range strings.Split(text, "\n") {
			want, err := db.FTSTokens(ctx, line)
			if err != nil {
				t.Fatal(err)
			}
			got := tk.Tokens(line)
			words += len(want)
			if !slices.Equal(got, want) {
				diffs++
				if diffs <= 10 {
					t.Errorf("%q:\n got %q\nwant %q", line, got, want)
				}
			}
		}
	}
	if words < 2000 {
		t.Fatalf("only %d words compared", words)
	}
	t.Logf("%d words, %d lines differ", words, diffs)
}
