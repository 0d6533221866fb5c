package search

import "strings"

// synonyms maps a word people use in questions to the words documentation
// uses for the same thing ("folder" for "directory", "ask" for "prompt").
// Without an embedding model, keyword search is all Cairn has, and a
// question phrased in everyday words otherwise misses the line that
// answers it, or is refused because its main word occurs nowhere.
//
// A synonym counts as the word itself wherever a question's terms are
// matched: a passage's coverage and relevance, its highlights, and the
// block an extractive answer quotes. It does not widen what the keyword
// search fetches: OR-ing the synonyms into the query lowered the quality
// suite's file MRR@10 from 0.624 to 0.607 and answered no more questions. The list is small on purpose, kept to pairs that mean
// the same in software, system and office documents; a word's own
// spelling variants are the stemmer's business, not this list's.
var synonyms = map[string][]string{
	"folder":     {"directory"},
	"folders":    {"directories"},
	"subfolder":  {"subdirectory"},
	"subfolders": {"subdirectories"},
	"delete":     {"remove", "removal", "erase", "unlink"},
	"erase":      {"delete", "remove"},
	"remove":     {"delete"},
	"ask":        {"prompt", "confirm"},
	"confirm":    {"prompt"},
	"replace":    {"overwrite", "clobber"},
	"overwrite":  {"replace", "clobber"},
	"add":        {"append", "insert"},
	"append":     {"add"},
	"show":       {"display", "print"},
	"display":    {"show", "print"},
	"stop":       {"kill", "terminate", "abort"},
	"terminate":  {"kill", "stop"},
	"launch":     {"start", "run"},
	"execute":    {"run"},
	"modify":     {"change", "edit"},
	"change":     {"modify"},
	"locate":     {"find", "search"},
	"resume":     {"continue"},
	"download":   {"fetch", "retrieve"},
	"undo":       {"revert", "reset"},
	"rename":     {"move"},
	"random":     {"shuffle", "permutation"},
	"shuffle":    {"random", "permutation"},
	"numbered":   {"numeric"},
	"letters":    {"alphabetic"},
	"timestamp":  {"time"},
	"timestamps": {"times"},
	"symlink":    {"symbolic link"},
	"symlinks":   {"symbolic links"},
	"uppercase":  {"upper case"},
	"lowercase":  {"lower case"},
	"whitespace": {"white space"},
	"password":   {"passphrase"},
	"quiet":      {"silent"},
	"machine":    {"host", "computer"},
	"computer":   {"host", "machine"},
	"picture":    {"image"},
	"photo":      {"image"},
	"email":      {"mail"},
	"newest":     {"latest"},
	"latest":     {"newest"},
	"duplicate":  {"repeated"},
	"duplicates": {"repeated"},
	"whole":      {"entire"},
	"entire":     {"whole"},
	"empty":      {"blank"},
	"blank":      {"empty"},
	"merge":      {"join", "combine"},
	"combine":    {"merge", "join"},
	"hide":       {"hidden"},
}

// synonymsByStem is synonyms keyed by the stem of each word, so that
// "deletes" and "deleting" find the synonyms of "delete".
var synonymsByStem = func() map[string][]string {
	m := map[string][]string{}
	for w, alts := range synonyms {
		m[stem(w)] = append(m[stem(w)], alts...)
	}
	return m
}()

// alternatives is the synonyms of a one-word term, as token lists.
func alternatives(tokens []string) [][]string {
	if len(tokens) != 1 {
		return nil
	}
	alts, ok := synonyms[tokens[0]]
	if !ok {
		alts = synonymsByStem[stem(tokens[0])]
	}
	var out [][]string
	for _, s := range alts {
		out = append(out, strings.Fields(s))
	}
	return out
}
