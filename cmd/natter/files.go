package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

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

// openStore opens the store of uploaded files: the S3 bucket when --s3-endpoint is set, else
// openFiles' directory. A bucket that does not exist stops the start (a mistake to fix now);
// a store that does not answer does not (uploads answer 503 until it does, as they would
// were it to fail later), and is logged.
func openStore(ctx context.Context, c config, log *slog.Logger) (blobstore.Store, error) {
	if c.S3.Endpoint == "" {
		s, err := openFiles(c.FilesDir, c.Database)
		if s == nil || err != nil {
			return nil, err // no typed nil in the interface: nil means no files
		}
		return s, nil
	}
	s, err := blobstore.OpenS3(c.S3)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = s.CheckBucket(cctx)
	switch {
	case errors.Is(err, blobstore.ErrUnavailable):
		log.Warn("files: the S3 store does not answer; uploads answer 503 until it does", "endpoint", c.S3.Endpoint, "bucket", c.S3.Bucket, "err", err)
	case err != nil:
		return nil, fmt.Errorf("files: %s: %w", c.S3.Endpoint, err)
	default: // never the keys
		log.Info("files: in an S3 bucket", "endpoint", c.S3.Endpoint, "bucket", c.S3.Bucket, "prefix", c.S3.Prefix, "path_style", c.S3.PathStyle)
	}
	return s, nil
}
