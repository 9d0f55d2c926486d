package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

var _ chat.Store = (*DB)(nil)

// CreateApp creates an app, its default role and its first keys in one transaction.
func (db *DB) CreateApp(ctx context.Context, app chat.App, keys []chat.APIKey) error {
	return db.transact(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`INSERT INTO apps (id, region, name, created_at) VALUES ($1, $2, $3, $4)`,
			app.ID, string(app.Region), app.Name, app.CreatedAt); err != nil {
			return err
		}
		if err := insertRole(tx, chat.NewDefaultRole(app.ID, max(app.CreatedAt, 1))); err != nil {
			return err
		}
		for _, k := range keys {
			if err := insertKey(tx, k); err != nil {
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
	err := db.read(ctx).fixed(`SELECT id, region, name, created_at FROM apps WHERE id = $1`, id).
		Scan(&a.ID, &region, &a.Name, &a.CreatedAt)
	a.Region = chat.Region(region)
	return a, mapErr(err)
}

// CountApps counts apps.
func (db *DB) CountApps(ctx context.Context) (int, error) {
	var n int
	err := db.read(ctx).row(`SELECT COUNT(*) FROM apps`).Scan(&n)
	return n, mapErr(err)
}

// LockApp holds the app until the transaction ends (chat.APIKeyTx); on SQLite the single
// writer already serialises every write.
func (tx txStore) LockApp(appID string) error {
	var id string
	return mapErr(tx.row(`SELECT id FROM apps WHERE id = $1`+tx.db.dialect.forUpdate, appID).Scan(&id))
}
