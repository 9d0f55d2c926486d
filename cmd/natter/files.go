package main

import (
	"strings"

	"github.com/natter-chat/natter/internal/blobstore"
)

// openFiles opens the store of uploaded files (docs/files.md): dir when set; else, on
// SQLite, <database file>.files beside the database, created on first start; else (PostgreSQL,
// where every node would need the same directory) none, and uploads answer 501.
func openFiles(dir, database string) (blobstore.Store, error) {
	if dir == "" {
		path, ok := strings.CutPrefix(database, "sqlite:")
		if !ok || path == "" || path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
			return nil, nil
		}
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		dir = strings.TrimPrefix(path, "file:") + ".files"
	}
	d, err := blobstore.OpenDisk(dir)
	if err != nil {
		return nil, err
	}
	return d, nil
}
