package panels

import (
	"errors"
	"fmt"
	"testing"

	"cairn/core/fault"
)

func TestErrorText(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errors.New("pdf: bad xref table"), "pdf: bad xref table"},
		{errors.New("extractor crashed on a.pdf: index out of range\ngoroutine 7 [running]:"), "extractor crashed on a.pdf: index out of range"},
		{fmt.Errorf("search: %w", fault.New(fault.StoreCorrupt, "the knowledge base kb.db is damaged", "run `cairn doctor`", errors.New("malformed"))),
			"search: the knowledge base kb.db is damaged: malformed\nFix: run `cairn doctor` [STORE-003]"},
	} {
		if got := ErrorText(tt.err); got != tt.want {
			t.Errorf("ErrorText(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
