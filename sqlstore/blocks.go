package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// InsertBlocks records blocks (chat.BlockTx); an existing one keeps its time.
func (tx txStore) InsertBlocks(appID, uid string, targets []string, at int64) error {
	for _, t := range targets {
		if _, err := tx.exec(`INSERT INTO blocks (app_id, uid, blocked_uid, blocked_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (app_id, uid, blocked_uid) DO NOTHING`, appID, uid, t, at); err != nil {
			return err
		}
	}
	return nil
}

// DeleteBlocks lifts blocks (chat.BlockTx).
func (tx txStore) DeleteBlocks(appID, uid string, targets []string) error {
	for _, t := range targets {
		if _, err := tx.exec(`DELETE FROM blocks WHERE app_id = $1 AND uid = $2 AND blocked_uid = $3`, appID, uid, t); err != nil {
			return err
		}
	}
	return nil
}

// Blocks reports the blocks between two users (chat.BlockStore), in one statement.
func (db *DB) Blocks(ctx context.Context, appID, a, b string) (bool, bool, error) {
	var ab, ba bool
	err := db.read(ctx).fixed(`SELECT
		EXISTS (SELECT 1 FROM blocks WHERE app_id = $1 AND uid = $2 AND blocked_uid = $3),
		EXISTS (SELECT 1 FROM blocks WHERE app_id = $1 AND uid = $3 AND blocked_uid = $2)`, appID, a, b).Scan(&ab, &ba)
	return ab, ba, mapErr(err)
}

// BlockState reads how viewer sees uid's blocks (chat.BlockStore).
func (db *DB) BlockState(ctx context.Context, appID, viewer, uid string) (chat.BlockState, error) {
	var s chat.BlockState
	err := db.read(ctx).fixed(`SELECT
		COALESCE((SELECT blocked_at FROM blocks WHERE app_id = $1 AND uid = $2 AND blocked_uid = $3), 0),
		COALESCE((SELECT blocked_at FROM blocks WHERE app_id = $1 AND uid = $3 AND blocked_uid = $2), 0)`, appID, viewer, uid).
		Scan(&s.BlockedByMeAt, &s.HasBlockedMeAt)
	return s, mapErr(err)
}
