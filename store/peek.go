package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"os"
)

// PendingApprovalIDs lists up to limit pending review ids, newest first, from the database
// at path opened read-only: it creates, migrates and writes nothing (shell completion asks).
// With no write-ahead log beside it (no process has the store open) the file is read as
// immutable, so SQLite makes no -wal or -shm file either; with one, read-only through it.
func PendingApprovalIDs(ctx context.Context, path string, limit int) ([]string, error) {
	q := url.Values{}
	q.Add("mode", "ro")
	if _, err := os.Stat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		q.Add("immutable", "1")
	}
	q.Add("_pragma", "busy_timeout(200)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, wrap(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id FROM approvals WHERE state = ? ORDER BY created_at DESC LIMIT ?`, string(ApprovalPending), limit)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, wrap(err)
		}
		ids = append(ids, id)
	}
	return ids, wrap(rows.Err())
}
