package extract

import (
	"context"
	"fmt"
	"strings"

	"github.com/richardlehane/mscfb"

	"cairn/core/fault"
)

// OLE compound files (the container of legacy Office files, of encrypted
// OOXML files and of Outlook .msg messages) are recognised here by the
// streams they hold, so a skip can say precisely what the file is.

func registerOLE(r *Registry) {
	legacy := ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		return nil, oleSkip(f, strings.TrimPrefix(ext(f.Name), "."))
	})
	r.Register(legacy, ".doc", ".dot", ".xls", ".xlt", ".ppt", ".pot", ".pps")
	r.Register(ExtractorFunc(r.extractMSG), ".msg")
	r.RegisterKind(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		if oleKind(f) == "msg" {
			return r.extractMSG(ctx, f, lim)
		}
		return nil, oleSkip(f, "ole")
	}), "ole")
}

// oleKind names what an OLE compound file holds: "encrypted" (a
// password-protected OOXML package), "doc", "xls", "ppt", "msg", "ole" for
// anything else, or "" when f is not a readable compound file.
func oleKind(f File) string {
	doc, err := mscfb.New(f.R)
	if err != nil {
		return ""
	}
	for _, e := range doc.File {
		if len(e.Path) > 0 {
			continue
		}
		switch {
		case e.Name == "EncryptedPackage" || e.Name == "EncryptionInfo":
			return "encrypted"
		case e.Name == "WordDocument":
			return "doc"
		case e.Name == "Workbook" || e.Name == "Book":
			return "xls"
		case e.Name == "PowerPoint Document":
			return "ppt"
		case strings.HasPrefix(e.Name, "__substg1.0_"):
			return "msg"
		}
	}
	return "ole"
}

// oleSkip explains why an OLE file that reached an extractor is skipped.
func oleSkip(f File, format string) error {
	switch k := oleKind(f); k {
	case "encrypted":
		return fault.Wrap(fault.ExtractEncrypted, "save a copy without the password in the indexed folder",
			fmt.Errorf("%w: %s: password-protected Office document (an encrypted package); remove the password to index it", ErrEncrypted, format))
	case "doc", "xls", "ppt":
		modern := map[string]string{"doc": ".docx", "xls": ".xlsx", "ppt": ".pptx"}[k]
		return fault.Wrap(fault.ExtractLegacy, "open it in an office suite and save it as "+modern,
			fmt.Errorf("%w: %s: legacy Office 97-2003 binary format (.%s) has no maintained pure-Go reader; save it as %s to index it",
				ErrUnsupported, format, k, modern))
	case "msg":
		return fmt.Errorf("%w: %s: an Outlook message with the wrong extension; rename it to .msg", ErrUnsupported, format)
	case "":
		return fmt.Errorf("%s: not a readable file of this type (truncated or wrong extension)", format)
	}
	return fmt.Errorf("%w: %s: an OLE compound file of unknown content", ErrUnsupported, format)
}
