package cli

import (
	"errors"
	"flag"
	"time"

	"cairn/core/domain"
	"cairn/core/search"
)

// filterFlags are the document filters `cairn search` and `cairn ask`
// share; they narrow retrieval itself (see domain.Filter), not its results.
type filterFlags struct{ spec search.FilterSpec }

func (ff *filterFlags) add(fs *flag.FlagSet) {
	for _, f := range search.FilterFields { // the service's parameters are made from the same list
		help := f.Help
		if f.Switch != nil {
			fs.BoolVar(f.Switch(&ff.spec), f.Flag, false, help)
			continue
		}
		if f.List {
			help += ", comma-separated"
		}
		fs.StringVar(f.Of(&ff.spec), f.Flag, "", help)
	}
}

// filter builds the store filter, or a usage error naming the bad flag.
func (ff *filterFlags) filter() (domain.Filter, error) {
	f, err := ff.spec.Filter(time.Local)
	var fe *search.FilterError
	if errors.As(err, &fe) {
		return f, usageError{"--" + fe.Error()}
	}
	return f, err
}
