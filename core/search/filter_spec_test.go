package search

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A filter as typed: folders are read from Base (the window gives the home
// folder) and end with a separator, whether they exist here or not, so a
// sibling that starts with the same name is not in them; a field that
// cannot be read is named as its flag.
func TestFilterSpecReadsWhatAPersonTypes(t *testing.T) {
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "Contracts"), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := FilterSpec{Folders: "Contracts, /srv/notes", Types: "pdf, md", Since: "2024-03", Until: "2024", Contains: "invoice", Base: base}.Filter(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	if len(f.PathPrefixes) != 2 || f.PathPrefixes[0] != filepath.Join(base, "Contracts")+sep || f.PathPrefixes[1] != "/srv/notes/" {
		t.Errorf("folders %q", f.PathPrefixes)
	}
	if len(f.Types) != 2 || f.Types[1] != "md" || len(f.Contains) != 1 ||
		!f.Since.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) || !f.Until.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("filter %+v", f)
	}
	for _, tc := range []struct {
		spec  FilterSpec
		field string
	}{
		{FilterSpec{Since: "March"}, "since"},
		{FilterSpec{Until: "soon"}, "until"},
		{FilterSpec{Since: "2025", Until: "2024"}, "since"},
		{FilterSpec{Folders: "Contracts", AbsoluteOnly: true}, "folder"},
	} {
		_, err := tc.spec.Filter(time.UTC)
		var fe *FilterError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: error %v, want one naming %s", tc.spec, err, tc.field)
		}
	}
	if f, err := (FilterSpec{}).Filter(time.UTC); err != nil || !f.Empty() {
		t.Errorf("an empty spec filters %+v (%v)", f, err)
	}
}

// A folder is a folder: its path ends at a separator, also when it was
// written with one or is not on this computer; an existing file is that file.
func TestFilterSpecFolderIsAFolder(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "report.pdf")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	for in, want := range map[string]string{
		"/x/corpus":       "/x/corpus" + sep,
		"/x/corpus/":      "/x/corpus" + sep,
		"/x/corpus/../a/": "/x/a" + sep,
		"/":               sep,
		file:              file,
	} {
		f, err := FilterSpec{Folders: in, AbsoluteOnly: true}.Filter(time.UTC)
		if err != nil || len(f.PathPrefixes) != 1 || f.PathPrefixes[0] != want {
			t.Errorf("%q: %q %v, want %q", in, f.PathPrefixes, err, want)
		}
	}
}
