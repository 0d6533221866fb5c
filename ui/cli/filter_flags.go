package cli

import (
	"errors"
	"flag"
	"time"

	"cairn/core/search"
	"cairn/core/store"
)

// filterFlags are the document filters `cairn search` and `cairn ask`
// share; they narrow retrieval itself (see store.Filter), not its results.
type filterFlags struct{ spec search.FilterSpec }

func (ff *filterFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&ff.spec.Folders, "folder", "", "only files in these comma-separated folders and their subfolders (or these files)")
	fs.StringVar(&ff.spec.Types, "type", "", "only these comma-separated types (pdf,md,markdown,docx,...)")
	fs.StringVar(&ff.spec.Since, "since", "", "only files modified on or after `DATE` (2024, 2024-03 or 2024-03-15)")
	fs.StringVar(&ff.spec.Until, "until", "", "only files modified up to the end of `DATE` (2024, 2024-03 or 2024-03-15)")
	fs.StringVar(&ff.spec.Contains, "path-contains", "", "only files whose title or path holds each of these comma-separated `TEXTS`")
}

// filter builds the store filter, or a usage error naming the bad flag.
func (ff *filterFlags) filter() (store.Filter, error) {
	f, err := ff.spec.Filter(time.Local)
	var fe *search.FilterError
	if errors.As(err, &fe) {
		return f, usageError{"--" + fe.Error()}
	}
	return f, err
}
