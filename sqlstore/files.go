package sqlstore

import (
	"context"
	"errors"

	"github.com/natter-chat/natter/chat"
)

// Uploaded files' records (chat.FileStore); their bytes are the blob store's.

// CreateFile records a stored file; chat.ErrAlreadyExists when its key is taken (an upload
// form used twice).
func (db *DB) CreateFile(ctx context.Context, f chat.FileRecord) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`INSERT INTO files (app_id, key, uid, name, mime_type, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			f.AppID, f.Key, f.UID, f.Name, f.MimeType, f.Size, f.CreatedAt)
		return err
	})
}

// FileByKey reads one file's record.
func (db *DB) FileByKey(ctx context.Context, appID, key string) (chat.FileRecord, error) {
	f := chat.FileRecord{AppID: appID, Key: key}
	err := db.read(ctx).fixed(`SELECT uid, name, mime_type, size, created_at FROM files WHERE app_id = $1 AND key = $2`, appID, key).
		Scan(&f.UID, &f.Name, &f.MimeType, &f.Size, &f.CreatedAt)
	return f, mapErr(err)
}

// DeleteFiles deletes the records of the listed files that uid uploaded (any uploader's when
// uid is ""), and returns the keys it deleted.
func (db *DB) DeleteFiles(ctx context.Context, appID, uid string, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	var out []string
	err := db.transact(ctx, func(tx *wtx) error {
		out = out[:0]
		for _, k := range keys {
			var got string
			err := tx.row(`DELETE FROM files WHERE app_id = $1 AND ($2 = '' OR uid = $2) AND key = $3 RETURNING key`, appID, uid, k).Scan(&got)
			if err == nil {
				out = append(out, got)
			} else if !errors.Is(mapErr(err), chat.ErrNotFound) {
				return err
			}
		}
		return nil
	})
	return out, mapErr(err)
}

// DeleteUserFiles deletes the records of every file uid uploaded, and returns their keys.
func (db *DB) DeleteUserFiles(ctx context.Context, appID, uid string) ([]string, error) {
	var out []string
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		out, err = collect(tx.rows(`DELETE FROM files WHERE app_id = $1 AND uid = $2 RETURNING key`, appID, uid),
			func(s scanner) (k string, err error) { return k, s.Scan(&k) })
		return err
	})
	return out, mapErr(err)
}
