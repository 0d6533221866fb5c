// Package resources holds what ships inside the binary: the icon and the
// default knowledge base, Cairn's own user guide.
package resources

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed guide/*.md
var guide embed.FS

// Guide returns the user guide's files (Markdown).
func Guide() fs.FS {
	sub, _ := fs.Sub(guide, "guide")
	return sub
}

// InstallGuide writes the user guide into dir, replacing files whose content
// differs (after an upgrade) and leaving the rest untouched so their
// modification times, and so the index, stay valid.
func InstallGuide(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("install user guide: %w", err)
	}
	return fs.WalkDir(Guide(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, err := fs.ReadFile(Guide(), p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if have, err := os.ReadFile(dst); err == nil && bytes.Equal(have, want) {
			return nil
		}
		if err := os.WriteFile(dst, want, 0o600); err != nil {
			return fmt.Errorf("install user guide: %w", err)
		}
		return nil
	})
}
