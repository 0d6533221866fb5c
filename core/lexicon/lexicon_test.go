package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"
)

func TestSynonymsOfTheMostFrequentSenses(t *testing.T) {
	for _, c := range []struct {
		word string
		want []Synonym
	}{
		{"start", []Synonym{{"begin", Verb, 1}, {"commence", Verb, 1}}},
		{"begin", []Synonym{{"start", Verb, 1}, {"commence", Verb, 1}}},
		{"error", []Synonym{{"mistake", Noun, 1}, {"fault", Noun, 1}}},
		// The second sense, by the order WordNet's tag counts give.
		{"stop", []Synonym{{"discontinue", Verb, 2}, {"cease", Verb, 2}, {"quit", Verb, 2}}},
		{"quickly", []Synonym{{"rapidly", Adverb, 1}, {"speedily", Adverb, 1}, {"promptly", Adverb, 2}}},
		{"suddenly", []Synonym{{"abruptly", Adverb, 2}}},
		{"big", []Synonym{{"large", Adjective, 1}}},
		// "present" and "exhibit" share show's first sense, but are
		// mostly used in others.
		{"show", []Synonym{{"demonstrate", Verb, 1}}},
		// remove's first sense is "take", "take away" and "withdraw":
		// far more general, two words, and never tagged in that sense.
		{"remove", nil},
		// WordNet never saw "folder" or "delete" used: their first
		// senses (a brochure, to cancel) are no evidence.
		{"folder", nil},
		{"delete", nil},
		// A plant is "works" in its first sense, but a document's "works"
		// is mostly the verb "work".
		{"plant", nil},
		// "partly" is a stemmer's "part"; WordNet derives it from no
		// adjective "part" as it derives "rapidly" from "rapid".
		{"partially", nil},
		{"banana", nil},
		{"", nil},
	} {
		if got := Synonyms(c.word); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Synonyms(%q) = %v, want %v", c.word, got, c.want)
		}
	}
}

// TestSynonymsOfAnInflectedWord: a question's words are inflected; its
// synonyms are those of its lemma in the part of speech the ending says.
func TestSynonymsOfAnInflectedWord(t *testing.T) {
	for w, want := range map[string]string{
		"starting": "begin commence",         // verb: -ing
		"errors":   "mistake fault",          // noun: -s
		"Stopped":  "discontinue cease quit", // verb.exc: doubled consonant, any case
		"began":    "start commence",         // verb.exc: irregular
		"biggest":  "large",                  // adjective: -est
		"speeds":   "velocity",
	} {
		var got []string
		for _, s := range Synonyms(w) {
			got = append(got, s.Word)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Synonyms(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestDataCarriesWordNetsNotice: WordNet's licence asks for its notice on
// every copy of the database, so the embedded file, and each binary, holds
// it.
func TestDataCarriesWordNetsNotice(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var head strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "#") {
		head.WriteString(sc.Text() + "\n")
	}
	for _, s := range []string{"WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.",
		"Permission to use, copy, modify and distribute this software and", `THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS"`} {
		if !strings.Contains(head.String(), s) {
			t.Errorf("the data's header lacks %q", s)
		}
	}
}

func BenchmarkSynonyms(b *testing.B) {
	load()
	for b.Loop() {
		Synonyms("starting")
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		parse()
	}
}
