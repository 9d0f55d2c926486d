package sqlstore

import (
	"context"
	"database/sql"

	"github.com/natter-chat/natter/chat"
)

// InsertBlocks records blocks (chat.BlockTx); an existing one keeps its time.
func (tx txStore) InsertBlocks(appID, uid string, targets []string, at int64) ([]string, error) {
	return tx.eachChanged(targets, func(t string) (sql.Result, error) {
		return tx.exec(`INSERT INTO blocks (app_id, uid, blocked_uid, blocked_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (app_id, uid, blocked_uid) DO NOTHING`, appID, uid, t, at)
	})
}

// DeleteBlocks lifts blocks (chat.BlockTx).
func (tx txStore) DeleteBlocks(appID, uid string, targets []string) ([]string, error) {
	return tx.eachChanged(targets, func(t string) (sql.Result, error) {
		return tx.exec(`DELETE FROM blocks WHERE app_id = $1 AND uid = $2 AND blocked_uid = $3`, appID, uid, t)
	})
}

// eachChanged runs a one-row statement per target and returns the targets it changed.
func (tx txStore) eachChanged(targets []string, stmt func(string) (sql.Result, error)) ([]string, error) {
	var changed []string
	for _, t := range targets {
		res, err := stmt(t)
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n > 0 {
			changed = append(changed, t)
		}
	}
	return changed, nil
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

// BlockStates reads the blocks between viewer and each of uids (chat.BlockStore).
func (db *DB) BlockStates(ctx context.Context, appID, viewer string, uids []string) (map[string]chat.BlockState, error) {
	out := map[string]chat.BlockState{}
	args := []any{appID, viewer}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	in := inList(arg, uids)
	err := each(db.read(ctx).rows(`SELECT uid, blocked_uid, blocked_at FROM blocks WHERE app_id = $1 AND uid = $2 AND blocked_uid IN (`+in+`)
		UNION ALL SELECT uid, blocked_uid, blocked_at FROM blocks WHERE app_id = $1 AND blocked_uid = $2 AND uid IN (`+in+`)`, args...),
		func(s scanner) error {
			var uid, blocked string
			var at int64
			if err := s.Scan(&uid, &blocked, &at); err != nil {
				return err
			}
			if uid == viewer {
				b := out[blocked]
				b.BlockedByMeAt = at
				out[blocked] = b
			} else {
				b := out[uid]
				b.HasBlockedMeAt = at
				out[uid] = b
			}
			return nil
		})
	return out, err
}
