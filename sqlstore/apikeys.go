package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

const keyColumns = `hash, app_id, prefix, suffix, name, scope, created_at, updated_at`

func scanKey(row scanner) (chat.APIKey, error) {
	var k chat.APIKey
	var scope string
	err := row.Scan(&k.Hash, &k.AppID, &k.Prefix, &k.Suffix, &k.Name, &scope, &k.CreatedAt, &k.UpdatedAt)
	k.Scope = chat.Scope(scope)
	return k, mapErr(err)
}

func insertKey(tx *wtx, k chat.APIKey) error {
	_, err := tx.exec(`INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.Hash, k.AppID, k.Prefix, k.Suffix, k.Name, string(k.Scope), k.CreatedAt, k.UpdatedAt)
	return err
}

// InsertAPIKey inserts a key (chat.APIKeyTx).
func (tx txStore) InsertAPIKey(k chat.APIKey) error { return insertKey(tx.wtx, k) }

// CountAPIKeys counts an app's keys (chat.APIKeyTx).
func (tx txStore) CountAPIKeys(appID string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM api_keys WHERE app_id = $1`, appID).Scan(&n)
	return n, mapErr(err)
}

// APIKeyByHash finds a key of any app.
func (db *DB) APIKeyByHash(ctx context.Context, hash string) (chat.APIKey, error) {
	return scanKey(db.read(ctx).fixed(`SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
}

// APIKey finds a key of one app.
func (db *DB) APIKey(ctx context.Context, appID, hash string) (chat.APIKey, error) {
	return scanKey(db.read(ctx).fixed(`SELECT `+keyColumns+` FROM api_keys WHERE app_id = $1 AND hash = $2`, appID, hash))
}

// ListAPIKeys lists an app's keys, oldest first.
func (db *DB) ListAPIKeys(ctx context.Context, appID string, q chat.APIKeyQuery) ([]chat.APIKey, int, error) {
	where := ` FROM api_keys WHERE app_id = $1`
	args := []any{appID}
	if q.Scope != "" {
		args = append(args, string(q.Scope))
		where += ` AND scope = $2`
	}
	if q.SearchKey != "" {
		args = append(args, chat.SearchKeyPattern(q.SearchKey))
		where += ` AND lower(name) LIKE $` + itoa(len(args)) + ` ESCAPE '\'`
	}
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	args = append(args, q.Page.PerPage, q.Page.Offset())
	keys, err := collect(run.rows(`SELECT `+keyColumns+where+` ORDER BY created_at, hash LIMIT $`+itoa(len(args)-1)+` OFFSET $`+itoa(len(args)), args...), scanKey)
	return keys, total, err
}

// UpdateAPIKey changes a key's name or scope.
func (db *DB) UpdateAPIKey(ctx context.Context, appID, hash string, u chat.APIKeyChange) (chat.APIKey, error) {
	var k chat.APIKey
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		k, err = scanKey(tx.row(`SELECT `+keyColumns+` FROM api_keys WHERE app_id = $1 AND hash = $2`+db.dialect.forUpdate, appID, hash))
		if err != nil {
			return err
		}
		if u.Name != nil {
			k.Name = *u.Name
		}
		if u.Scope != nil {
			k.Scope = *u.Scope
		}
		k.UpdatedAt = u.UpdatedAt
		_, err = tx.exec(`UPDATE api_keys SET name = $1, scope = $2, updated_at = $3 WHERE app_id = $4 AND hash = $5`,
			k.Name, string(k.Scope), k.UpdatedAt, appID, hash)
		return err
	})
	return k, err
}

// DeleteAPIKey deletes a key.
func (db *DB) DeleteAPIKey(ctx context.Context, appID, hash string) error {
	return db.transact(ctx, func(tx *wtx) error {
		res, err := tx.exec(`DELETE FROM api_keys WHERE app_id = $1 AND hash = $2`, appID, hash)
		return affected(res, err)
	})
}
