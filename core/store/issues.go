package store

import (
	"context"

	"github.com/ncruces/go-sqlite3"
)

// ClearFolderIssues forgets the issues recorded under one folder: a run
// into a team cluster, which reads every file not indexed again, records
// them afresh.
func (db *DB) ClearFolderIssues(ctx context.Context, folderID int64) error {
	return db.write(ctx, func(c *sqlite3.Conn) error { return exec(c, `DELETE FROM file_issues WHERE folder_id = ?`, folderID) })
}
