package sqlstore

import (
	"context"
	"database/sql"

	"github.com/natter-chat/natter/chat"
)

var _ chat.Store = (*DB)(nil)

// CreateApp creates an app and its first keys in one transaction.
func (db *DB) CreateApp(ctx context.Context, app chat.App, keys []chat.APIKey) error {
	return db.transact(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO apps (id, region, name, created_at) VALUES ($1, $2, $3, $4)`),
			app.ID, string(app.Region), app.Name, app.CreatedAt); err != nil {
			return err
		}
		for _, k := range keys {
			if err := db.insertKey(ctx, tx, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// App returns an app by id.
func (db *DB) App(ctx context.Context, id string) (chat.App, error) {
	var a chat.App
	var region string
	err := db.readRow(ctx, `SELECT id, region, name, created_at FROM apps WHERE id = $1`, id).
		Scan(&a.ID, &region, &a.Name, &a.CreatedAt)
	a.Region = chat.Region(region)
	return a, mapErr(err)
}

// CountApps counts apps.
func (db *DB) CountApps(ctx context.Context) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM apps`).Scan(&n)
	return n, mapErr(err)
}
