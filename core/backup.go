package core

import (
	"context"
	"fmt"

	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/store"
)

// Backup writes a consistent snapshot of the knowledge base opt names to
// dest (a new file), even while an indexing run writes to it, checks the
// copy and returns what it holds.
func Backup(ctx context.Context, cfg config.Config, opt Options, dest string) (store.Stats, error) {
	log := opt.logger()
	db, err := opt.openStore(cfg, store.Options{Readers: 1, ReadOnly: true})
	if err != nil {
		return store.Stats{}, err
	}
	path := db.Path()
	defer db.Close()
	if err := db.Backup(ctx, dest); err != nil {
		log.Error("backup failed", "path", path, "dest", dest, "code", string(fault.CodeOf(err)), "err", err)
		return store.Stats{}, err
	}
	st, err := store.Verify(ctx, dest)
	if err != nil {
		return st, fmt.Errorf("the backup %s fails its check: %w", dest, err)
	}
	log.Info("backup", "path", path, "dest", dest, "documents", st.Documents, "chunks", st.Chunks)
	return st, nil
}

// Restore replaces the knowledge base opt names with the backup at src, once
// the backup passes every check; see store.Restore. The replaced file is
// kept next to it with the suffix .bak. With opt.Write, a knowledge base
// that does not exist is created from the backup; without it, that is an
// error.
func Restore(ctx context.Context, cfg config.Config, opt Options, src string) (store.Stats, error) {
	path, err := opt.Path(cfg)
	if err != nil {
		return store.Stats{}, err
	}
	if opt.Write {
		if err := opt.makeFolder(path); err != nil {
			return store.Stats{}, err
		}
	}
	log := opt.logger()
	st, err := store.Restore(ctx, src, path, opt.Write)
	if err != nil {
		log.Error("restore failed", "path", path, "src", src, "code", string(fault.CodeOf(err)), "err", err)
		return st, err
	}
	log.Info("restore", "path", path, "src", src, "documents", st.Documents, "chunks", st.Chunks)
	return st, nil
}
