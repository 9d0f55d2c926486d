package sqlstore

import (
	"context"
	"database/sql"

	"github.com/natter-chat/natter/chat"
)

const keyColumns = `hash, app_id, prefix, suffix, name, scope, created_at, updated_at`

func scanKey(row interface{ Scan(...any) error }) (chat.APIKey, error) {
	var k chat.APIKey
	var scope string
	err := row.Scan(&k.Hash, &k.AppID, &k.Prefix, &k.Suffix, &k.Name, &scope, &k.CreatedAt, &k.UpdatedAt)
	k.Scope = chat.Scope(scope)
	return k, mapErr(err)
}

func (db *DB) insertKey(ctx context.Context, tx *sql.Tx, k chat.APIKey) error {
	_, err := tx.ExecContext(ctx, db.q(`INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
		k.Hash, k.AppID, k.Prefix, k.Suffix, k.Name, string(k.Scope), k.CreatedAt, k.UpdatedAt)
	return err
}

// CreateAPIKey inserts k unless its app has max keys already. The app row is locked so that
// concurrent creates cannot both pass the count.
func (db *DB) CreateAPIKey(ctx context.Context, k chat.APIKey, max int) error {
	return db.transact(ctx, func(tx *sql.Tx) error {
		var id string
		if err := tx.QueryRowContext(ctx, db.q(`SELECT id FROM apps WHERE id = $1`+db.dialect.forUpdate), k.AppID).Scan(&id); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM api_keys WHERE app_id = $1`), k.AppID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return refuse(chat.ErrLimitReached)
		}
		return db.insertKey(ctx, tx, k)
	})
}

// APIKeyByHash finds a key of any app.
func (db *DB) APIKeyByHash(ctx context.Context, hash string) (chat.APIKey, error) {
	return scanKey(db.readRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
}

// APIKey finds a key of one app.
func (db *DB) APIKey(ctx context.Context, appID, hash string) (chat.APIKey, error) {
	return scanKey(db.r.QueryRowContext(ctx, db.q(`SELECT `+keyColumns+` FROM api_keys WHERE app_id = $1 AND hash = $2`), appID, hash))
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
	var total int
	if err := db.r.QueryRowContext(ctx, db.q(`SELECT COUNT(*)`+where), args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	args = append(args, q.Page.PerPage, q.Page.Offset())
	rows, err := db.r.QueryContext(ctx, db.q(`SELECT `+keyColumns+where+` ORDER BY created_at, hash LIMIT $`+itoa(len(args)-1)+` OFFSET $`+itoa(len(args))), args...)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	defer rows.Close()
	var keys []chat.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, 0, err
		}
		keys = append(keys, k)
	}
	return keys, total, mapErr(rows.Err())
}

// UpdateAPIKey changes a key's name or scope.
func (db *DB) UpdateAPIKey(ctx context.Context, appID, hash string, u chat.APIKeyUpdate) (chat.APIKey, error) {
	var k chat.APIKey
	err := db.transact(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, db.q(`SELECT `+keyColumns+` FROM api_keys WHERE app_id = $1 AND hash = $2`+db.dialect.forUpdate), appID, hash))
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
		_, err = tx.ExecContext(ctx, db.q(`UPDATE api_keys SET name = $1, scope = $2, updated_at = $3 WHERE app_id = $4 AND hash = $5`),
			k.Name, string(k.Scope), k.UpdatedAt, appID, hash)
		return err
	})
	return k, err
}

// DeleteAPIKey deletes a key.
func (db *DB) DeleteAPIKey(ctx context.Context, appID, hash string) error {
	res, err := db.w.ExecContext(ctx, db.q(`DELETE FROM api_keys WHERE app_id = $1 AND hash = $2`), appID, hash)
	return affected(res, err)
}

// affected turns "no row changed" into ErrNotFound.
func affected(res sql.Result, err error) error {
	if err != nil {
		return mapErr(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(err)
	}
	if n == 0 {
		return chat.ErrNotFound
	}
	return nil
}
