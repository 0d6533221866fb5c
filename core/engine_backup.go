package core

import (
	"context"
	"fmt"
	"log/slog"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/store"
)

// Backup writes a consistent snapshot of the knowledge base opt names to
// dest (a new file), even while an indexing run writes to it, checks the
// copy and returns what it holds, and the temporary copies that
// interrupted backups to dest had left and that it removed first.
func Backup(ctx context.Context, cfg config.Config, opt Options, dest string) (domain.Stats, []store.Leftover, error) {
	log := opt.logger()
	removed := removeLeftovers(log, dest)
	db, err := opt.openStore(cfg, store.Options{Readers: 1, ReadOnly: true})
	if err != nil {
		return domain.Stats{}, removed, err
	}
	path := db.Path()
	defer db.Close()
	if err := db.Backup(ctx, dest); err != nil {
		log.Error("backup failed", "path", path, "dest", dest, "code", string(fault.CodeOf(err)), "err", err)
		return domain.Stats{}, removed, err
	}
	st, err := store.Verify(ctx, dest)
	if err != nil {
		return st, removed, fmt.Errorf("the backup %s fails its check: %w", dest, err)
	}
	log.Info("backup", "path", path, "dest", dest, "documents", st.Documents, "chunks", st.Chunks)
	return st, removed, nil
}

// Restore replaces the knowledge base opt names with the backup at src, once
// the backup passes every check; see store.Restore. The replaced file is
// kept next to it with the suffix .bak. With opt.Write, a knowledge base
// that does not exist is created from the backup; without it, that is an
// error; with replaceDamaged, a file that is not recognisable as a
// knowledge base (a damaged one) is replaced too. It also returns the
// temporary copies that interrupted restores had left beside the knowledge
// base and that it removed first.
func Restore(ctx context.Context, cfg config.Config, opt Options, src string, replaceDamaged bool) (domain.Stats, []store.Leftover, error) {
	path, err := opt.Path(cfg)
	if err != nil {
		return domain.Stats{}, nil, err
	}
	if opt.Write {
		if err := opt.makeFolder(path); err != nil {
			return domain.Stats{}, nil, err
		}
	}
	log := opt.logger()
	removed := removeLeftovers(log, path)
	st, err := store.Restore(ctx, src, path, store.RestoreOptions{Create: opt.Write, ReplaceDamaged: replaceDamaged})
	if err != nil {
		log.Error("restore failed", "path", path, "src", src, "code", string(fault.CodeOf(err)), "err", err)
		return st, removed, err
	}
	log.Info("restore", "path", path, "src", src, "documents", st.Documents, "chunks", st.Chunks)
	return st, removed, nil
}

// removeLeftovers removes what killed backups or restores of path left
// beside it. Failing to look is no reason to stop the backup or restore:
// it is logged, and the next one tries again.
func removeLeftovers(log *slog.Logger, path string) []store.Leftover {
	removed, err := store.RemoveLeftovers(path)
	if err != nil {
		log.Warn("leftover temporary copies not removed", "path", path, "err", err)
	}
	for _, l := range removed {
		log.Info("removed a leftover temporary copy", "path", l.Path, "bytes", l.Bytes)
	}
	return removed
}
