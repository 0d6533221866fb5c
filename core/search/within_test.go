package search

import (
	"errors"
	"slices"
	"testing"

	"cairn/core/domain"
)

func TestWithinNarrowsAFilterToAConversationsFolders(t *testing.T) {
	col := []string{"/home/me/docs", "/home/me/guide/"}
	for _, tc := range []struct {
		name    string
		filter  []string
		folders []string
		want    []string
		err     error
	}{
		{"every folder", nil, nil, nil, nil},
		{"the folders alone", nil, col, []string{"/home/me/docs/", "/home/me/guide/"}, nil},
		{"a filter inside one", []string{"/home/me/docs/manuals/"}, col, []string{"/home/me/docs/manuals/"}, nil},
		{"a file inside one", []string{"/home/me/docs/a.pdf"}, col, []string{"/home/me/docs/a.pdf"}, nil},
		{"a filter holding both", []string{"/home/me/"}, col, []string{"/home/me/docs/", "/home/me/guide/"}, nil},
		{"a name that only starts the same", []string{"/home/me/docs2/"}, col, nil, ErrOutsideFolders},
		{"outside", []string{"/srv/"}, col, nil, ErrOutsideFolders},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Within(domain.Filter{PathPrefixes: tc.filter, Types: []string{"pdf"}}, tc.folders)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err == nil && (!slices.Equal(f.PathPrefixes, tc.want) || !slices.Equal(f.Types, []string{"pdf"})) {
				t.Errorf("prefixes %q types %q, want %q and pdf", f.PathPrefixes, f.Types, tc.want)
			}
		})
	}
}
