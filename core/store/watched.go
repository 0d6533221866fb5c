package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ncruces/go-sqlite3"
)

// metaWatched is the meta key of the folders the window watches, a JSON
// list of paths. They live in the knowledge base, not in the window's
// preferences, so that every surface (`cairn status`, the API, a second
// window) sees what is watched, and the list travels with a backup.
const metaWatched = "watched_folders"

// WatchedFolders returns the registered folders marked as watched, sorted.
// A path that is no longer a folder of the knowledge base is left out.
func (db *DB) WatchedFolders(ctx context.Context) ([]string, error) {
	var out []string
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		fs, err := listFolders(c)
		if err != nil {
			return err
		}
		watched, err := getWatched(c)
		if err != nil {
			return err
		}
		for _, f := range fs {
			if watched[f.Path] {
				out = append(out, f.Path)
			}
		}
		return nil
	})
	return out, err
}

// SetWatchedFolders replaces the list of watched folders with paths (the
// whole list: the window, its one writer, owns it).
func (db *DB) SetWatchedFolders(ctx context.Context, paths []string) error {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if paths == nil {
		paths = []string{}
	}
	b, err := json.Marshal(paths)
	if err != nil {
		return err
	}
	return db.write(ctx, func(c *sqlite3.Conn) error { return setMeta(c, metaWatched, string(b)) })
}

// getWatched is the stored list as a set.
func getWatched(c *sqlite3.Conn) (map[string]bool, error) {
	v, ok, err := getMeta(c, metaWatched)
	if err != nil || !ok {
		return nil, err
	}
	var paths []string
	if err := json.Unmarshal([]byte(v), &paths); err != nil {
		return nil, fmt.Errorf("the list of watched folders is damaged: %w", err)
	}
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return set, nil
}
