package core

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Removing a folder does not leave the knowledge base bigger on disk: the
// removal went to the write-ahead log, and the size shown grew (28.7 to
// 40.4 MB in a walkthrough) until the next start copied the log back.
func TestRemovingAFolderDoesNotGrowTheSizeOnDisk(t *testing.T) {
	eng := testEngine(t, nil)
	ctx := context.Background()
	guide := filepath.Join(t.TempDir(), "more")
	copyDir(t, "../testdata/corpus", guide)
	if _, err := eng.IndexFolder(ctx, guide, nil); err != nil {
		t.Fatal(err)
	}
	before, err := eng.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RemoveFolder(ctx, guide, nil); err != nil {
		t.Fatal(err)
	}
	after, err := eng.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Bytes > before.Bytes {
		t.Errorf("%d bytes on disk after removing a folder, %d before", after.Bytes, before.Bytes)
	}
	if after.Documents >= before.Documents {
		t.Errorf("%d documents after the removal, %d before", after.Documents, before.Documents)
	}
}

// copyDir copies the files of folder src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
