package sqlstore

import (
	"context"
	"database/sql"

	"github.com/natter-chat/natter/chat"
)

const tokenColumns = `t.hash, t.app_id, t.uid, t.prefix, t.suffix, t.platform, t.user_agent, t.app_info, t.created_at`

func scanToken(row scanner) (chat.AuthToken, error) {
	var t chat.AuthToken
	var info sql.NullString
	err := row.Scan(&t.Hash, &t.AppID, &t.UID, &t.Prefix, &t.Suffix, &t.Platform, &t.UserAgent, &info, &t.CreatedAt)
	if info.Valid {
		t.AppInfo = []byte(info.String)
	}
	return t, mapErr(err)
}

func insertToken(tx *wtx, t chat.AuthToken) error {
	_, err := tx.exec(`INSERT INTO auth_tokens (hash, app_id, uid, prefix, suffix, platform, user_agent, app_info, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		t.Hash, t.AppID, t.UID, t.Prefix, t.Suffix, t.Platform, t.UserAgent, nullJSON(t.AppInfo), t.CreatedAt)
	return err
}

// tokenByHashQuery finds a token by hash alone, only while its user is active: a token of
// a deactivated or deleted user authenticates no one.
const tokenByHashQuery = `SELECT ` + tokenColumns + ` FROM auth_tokens t
	JOIN users u ON u.app_id = t.app_id AND u.uid = t.uid
	WHERE t.hash = $1 AND u.deactivated_at = 0 AND u.deleted_at = 0`

const tokenQuery = `SELECT ` + tokenColumns + ` FROM auth_tokens t WHERE t.app_id = $1 AND t.uid = $2 AND t.hash = $3`

// AuthTokenByHash finds a token of any app whose user is active.
func (db *DB) AuthTokenByHash(ctx context.Context, hash string) (chat.AuthToken, error) {
	return scanToken(db.read(ctx).fixed(tokenByHashQuery, hash))
}

// AuthToken finds one of a user's tokens.
func (db *DB) AuthToken(ctx context.Context, appID, uid, hash string) (chat.AuthToken, error) {
	return scanToken(db.read(ctx).fixed(tokenQuery, appID, uid, hash))
}

// ListAuthTokens lists a user's tokens, oldest first.
func (db *DB) ListAuthTokens(ctx context.Context, appID, uid string, p chat.Page) ([]chat.AuthToken, int, error) {
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*) FROM auth_tokens WHERE app_id = $1 AND uid = $2`, appID, uid).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	ts, err := collect(run.rows(`SELECT `+tokenColumns+` FROM auth_tokens t WHERE t.app_id = $1 AND t.uid = $2
		ORDER BY t.id LIMIT $3 OFFSET $4`, appID, uid, p.PerPage, p.Offset()), scanToken)
	return ts, total, err
}

// UpdateAuthToken changes a token's platform, user agent or app info.
func (db *DB) UpdateAuthToken(ctx context.Context, appID, uid, hash string, c chat.AuthTokenChange) (chat.AuthToken, error) {
	var t chat.AuthToken
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		t, err = scanToken(tx.row(tokenQuery+db.dialect.forUpdate, appID, uid, hash))
		if err != nil {
			return err
		}
		if c.Platform != nil {
			t.Platform = *c.Platform
		}
		if c.UserAgent != nil {
			t.UserAgent = *c.UserAgent
		}
		if c.AppInfo != nil {
			t.AppInfo = c.AppInfo
		}
		_, err = tx.exec(`UPDATE auth_tokens SET platform = $1, user_agent = $2, app_info = $3 WHERE app_id = $4 AND uid = $5 AND hash = $6`,
			t.Platform, t.UserAgent, nullJSON(t.AppInfo), appID, uid, hash)
		return err
	})
	return t, err
}

// DeleteAuthToken deletes one of a user's tokens.
func (db *DB) DeleteAuthToken(ctx context.Context, appID, uid, hash string) error {
	return db.transact(ctx, func(tx *wtx) error {
		res, err := tx.exec(`DELETE FROM auth_tokens WHERE app_id = $1 AND uid = $2 AND hash = $3`, appID, uid, hash)
		return affected(res, err)
	})
}

// FlushAuthTokens deletes all of a user's tokens.
func (db *DB) FlushAuthTokens(ctx context.Context, appID, uid string) (int, error) {
	var n int64
	err := db.transact(ctx, func(tx *wtx) error {
		res, err := tx.exec(`DELETE FROM auth_tokens WHERE app_id = $1 AND uid = $2`, appID, uid)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// CreateUserWithAuthToken inserts a user, its tags and its first token.
func (db *DB) CreateUserWithAuthToken(ctx context.Context, u chat.User, t chat.AuthToken) error {
	return db.transact(ctx, func(tx *wtx) error {
		if err := insertUser(tx, u); err != nil {
			return err
		}
		return insertToken(tx, t)
	})
}

// InsertAuthToken inserts a token (chat.AuthTokenTx).
func (tx txStore) InsertAuthToken(t chat.AuthToken) error { return insertToken(tx.wtx, t) }

// TrimAuthTokens deletes a user's tokens but the newest keep (chat.AuthTokenTx).
func (tx txStore) TrimAuthTokens(appID, uid string, keep int) ([]string, error) {
	return collect(tx.rows(`DELETE FROM auth_tokens WHERE app_id = $1 AND uid = $2 AND id NOT IN
		(SELECT id FROM auth_tokens WHERE app_id = $1 AND uid = $2 ORDER BY id DESC LIMIT $3) RETURNING hash`, appID, uid, keep),
		func(s scanner) (h string, err error) { return h, s.Scan(&h) })
}
