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
		// Not attached: only a message's transaction attaches it (attachFiles).
		_, err := tx.exec(`INSERT INTO files (app_id, key, uid, name, mime_type, size, created_at, attached) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)`,
			f.AppID, f.Key, f.UID, f.Name, f.MimeType, f.Size, f.CreatedAt)
		return err
	})
}

// FileByKey reads one file's record; a file the orphan sweep claimed is gone already.
func (db *DB) FileByKey(ctx context.Context, appID, key string) (chat.FileRecord, error) {
	f := chat.FileRecord{AppID: appID, Key: key}
	err := db.read(ctx).fixed(`SELECT uid, name, mime_type, size, created_at FROM files WHERE app_id = $1 AND key = $2 AND swept_at = 0`, appID, key).
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

// AttachFiles marks files carried by a message (chat.FileTx): attachFiles.
func (tx txStore) AttachFiles(appID string, keys []string) error {
	return attachFiles(tx.wtx, appID, keys)
}

// attachFiles marks the files among keys attached, in the transaction of the message that
// carries them, and returns chat.ErrFileGone when one is not there or the orphan sweep
// claimed it. The UPDATE and the sweep's claim decide on the file's row: on PostgreSQL an
// UPDATE of a row the claim holds waits for it and then sees swept_at, and the claim passes
// over a row this UPDATE holds (SKIP LOCKED) and, once it has committed, finds it attached; on
// SQLite the one writer runs them one after the other. The caller rolls back on the error
// (on SQLite the group commit's other jobs run again: a rare refusal).
func attachFiles(tx *wtx, appID string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	swept, err := collect(tx.rows(`UPDATE files SET attached = 1 WHERE app_id = $1 AND key`+tx.db.dialect.inIDs(`$2`)+` RETURNING swept_at`,
		appID, tx.db.dialect.uidsArg(keys)),
		func(s scanner) (at int64, err error) { return at, s.Scan(&at) })
	if err != nil {
		return err
	}
	if len(swept) < len(keys) {
		return chat.ErrFileGone
	}
	for _, at := range swept {
		if at != 0 {
			return chat.ErrFileGone
		}
	}
	return nil
}

// orphanClaim is ClaimOrphanFiles's statement: $1 now, $2 created before, $3 claimed before,
// $4 how many at most. Where writes run at once the inner SELECT passes over rows another
// transaction holds (a send attaching the file, another node's claim), as leased queues do
// (leases.go).
func orphanClaim(skip string) string {
	return `UPDATE files SET swept_at = $1
	WHERE (app_id, key) IN (SELECT app_id, key FROM files WHERE attached = 0 AND created_at < $2 AND swept_at < $3
		ORDER BY created_at LIMIT $4` + skip + `)
	RETURNING app_id, key`
}

var orphanClaimQuery = queue{serial: orphanClaim(``), concurrent: orphanClaim(` FOR UPDATE SKIP LOCKED`)}

// ClaimOrphanFiles claims unattached files for the sweep (chat.FileStore), across apps: a
// maintenance pass over the files_unattached index, not an app's request.
func (db *DB) ClaimOrphanFiles(ctx context.Context, createdBefore, leaseBefore, now int64, limit int) ([]chat.FileRef, error) {
	query := orphanClaimQuery.serial
	if db.dialect.concurrentWrites {
		query = orphanClaimQuery.concurrent
	}
	var out []chat.FileRef
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		out, err = collect(tx.rows(query, now, createdBefore, leaseBefore, limit),
			func(s scanner) (f chat.FileRef, err error) { return f, s.Scan(&f.AppID, &f.Key) })
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

// ForgetSweptFiles deletes the records of swept files (chat.FileStore): only while still
// claimed, so that nothing else is ever deleted by mistake.
func (db *DB) ForgetSweptFiles(ctx context.Context, files []chat.FileRef) error {
	if len(files) == 0 {
		return nil
	}
	return mapErr(db.transact(ctx, func(tx *wtx) error {
		for _, f := range files {
			if _, err := tx.exec(`DELETE FROM files WHERE app_id = $1 AND key = $2 AND swept_at <> 0`, f.AppID, f.Key); err != nil {
				return err
			}
		}
		return nil
	}))
}
