package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// ClaimIdempotencyKey inserts a claim, or takes over one made before since (expired), in one
// statement: the primary key decides between nodes racing for the same key.
func (db *DB) ClaimIdempotencyKey(ctx context.Context, appID, key, fingerprint string, now, since int64) (bool, chat.IdempotencyRecord, error) {
	var rec chat.IdempotencyRecord
	var claimed bool
	err := db.transact(ctx, func(tx *wtx) error {
		claimed = false
		err := tx.row(`INSERT INTO idempotency_keys (app_id, key, fingerprint, created_at, status, body)
			VALUES ($1, $2, $3, $4, 0, NULL)
			ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = $3, created_at = $4, status = 0, body = NULL
				WHERE idempotency_keys.created_at < $5
			RETURNING created_at`, appID, key, fingerprint, now, since).Scan(&rec.CreatedAt)
		if err == nil {
			claimed, rec.Fingerprint = true, fingerprint
			return nil
		}
		if mapErr(err) != chat.ErrNotFound {
			return err
		}
		return readIdempotencyKey(tx, appID, key, &rec)
	})
	return claimed, rec, mapErr(err)
}

// IdempotencyKey reads a claim.
func (db *DB) IdempotencyKey(ctx context.Context, appID, key string) (chat.IdempotencyRecord, error) {
	var rec chat.IdempotencyRecord
	err := readIdempotencyKey(db.read(ctx), appID, key, &rec)
	return rec, mapErr(err)
}

func readIdempotencyKey(r runner, appID, key string, rec *chat.IdempotencyRecord) error {
	return r.row(`SELECT fingerprint, created_at, status, body FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
		appID, key).Scan(&rec.Fingerprint, &rec.CreatedAt, &rec.Status, &rec.Body)
}

// FinishIdempotencyKey stores the answer of the claim made at created (not of a later one that
// took the key over).
func (db *DB) FinishIdempotencyKey(ctx context.Context, appID, key string, created int64, status int, body []byte) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`UPDATE idempotency_keys SET status = $4, body = $5 WHERE app_id = $1 AND key = $2 AND created_at = $3 AND status = 0`,
			appID, key, created, status, body)
		return err
	})
}

// ReleaseIdempotencyKey drops the unanswered claim made at created.
func (db *DB) ReleaseIdempotencyKey(ctx context.Context, appID, key string, created int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND created_at = $3 AND status = 0`,
			appID, key, created)
		return err
	})
}

// PurgeIdempotencyKeys drops the app's claims made before before.
func (db *DB) PurgeIdempotencyKeys(ctx context.Context, appID string, before int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`DELETE FROM idempotency_keys WHERE app_id = $1 AND created_at < $2`, appID, before)
		return err
	})
}
