package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cairn/core/collection"
	"cairn/core/search"
	"cairn/core/store"
)

// filterFlags are the document filters `cairn search` and `cairn ask`
// share; they narrow retrieval itself (see store.Filter), not its results.
type filterFlags struct {
	folders, types, contains, since, until string
}

func (ff *filterFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&ff.folders, "folder", "", "only files under these comma-separated folders (or path prefixes)")
	fs.StringVar(&ff.types, "type", "", "only these comma-separated types (pdf,md,markdown,docx,...)")
	fs.StringVar(&ff.since, "since", "", "only files modified on or after `DATE` (2024, 2024-03 or 2024-03-15)")
	fs.StringVar(&ff.until, "until", "", "only files modified up to the end of `DATE` (2024, 2024-03 or 2024-03-15)")
	fs.StringVar(&ff.contains, "path-contains", "", "only files whose title or path holds each of these comma-separated `TEXTS`")
}

// filter builds the store filter, or a usage error naming the bad flag.
func (ff *filterFlags) filter() (store.Filter, error) {
	var f store.Filter
	for _, p := range search.SplitList(ff.folders) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return f, usageError{fmt.Sprintf("--folder %s: %v", p, err)}
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			abs += string(filepath.Separator) // inside Contracts, not Contracts2 too
		}
		f.PathPrefixes = append(f.PathPrefixes, abs)
	}
	f.Types = search.SplitList(ff.types)
	f.Contains = search.SplitList(ff.contains)
	if ff.since != "" {
		p, err := collection.ParseDate(ff.since, time.Local)
		if err != nil {
			return f, usageError{"--since: " + err.Error()}
		}
		f.Since = p.Start
	}
	if ff.until != "" {
		p, err := collection.ParseDate(ff.until, time.Local)
		if err != nil {
			return f, usageError{"--until: " + err.Error()}
		}
		f.Until = p.End
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, usageError{fmt.Sprintf("--since %s is after --until %s: no file can match", ff.since, ff.until)}
	}
	return f, nil
}
