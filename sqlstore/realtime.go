package sqlstore

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/natter-chat/natter/chat"
)

// MemberUIDs lists a group's members (chat.RealtimeStore).
func (db *DB) MemberUIDs(ctx context.Context, appID, guid string, among []string) ([]string, error) {
	scan := func(s scanner) (string, error) {
		var uid string
		err := s.Scan(&uid)
		return uid, err
	}
	if among == nil {
		return collect(db.read(ctx).rows(`SELECT uid FROM group_members WHERE app_id = $1 AND guid = $2`, appID, guid), scan)
	}
	var out []string
	for len(among) > 0 {
		n := min(len(among), 500)
		args := []any{appID, guid}
		for _, uid := range among[:n] {
			args = append(args, uid)
		}
		uids, err := collect(db.read(ctx).rows(`SELECT uid FROM group_members WHERE app_id = $1 AND guid = $2 AND uid IN (`+
			placeholders(3, n)+`)`, args...), scan)
		if err != nil {
			return nil, err
		}
		out, among = append(out, uids...), among[n:]
	}
	return out, nil
}

// SigningSecret returns the deployment's socket secret, creating it on first use
// (chat.RealtimeStore). Nodes that start together race to create it; the first insert wins
// and every node reads that one.
func (db *DB) SigningSecret(ctx context.Context) ([]byte, error) {
	var secret []byte
	err := db.read(ctx).row(`SELECT secret FROM server_secrets WHERE name = 'socket'`).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	err = db.transact(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`INSERT INTO server_secrets (name, secret) VALUES ('socket', $1) ON CONFLICT (name) DO NOTHING`, fresh); err != nil {
			return err
		}
		return tx.row(`SELECT secret FROM server_secrets WHERE name = 'socket'`).Scan(&secret)
	})
	return secret, mapErr(err)
}

// SetOnline records node's hold on each user until expiresAt and marks the users available,
// returning those that were not (chat.RealtimeStore). A user deleted meanwhile is skipped.
func (db *DB) SetOnline(ctx context.Context, appID, node string, uids []string, now, expiresAt int64) ([]string, error) {
	var changed []string
	err := db.transact(ctx, func(tx *wtx) error {
		changed = changed[:0]
		for _, uid := range uids {
			if _, err := tx.exec(`INSERT INTO user_presence (app_id, uid, node, expires_at)
				SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $2)
				ON CONFLICT (app_id, uid, node) DO UPDATE SET expires_at = excluded.expires_at`, appID, uid, node, expiresAt); err != nil {
				return err
			}
			res, err := tx.exec(`UPDATE users SET status = 'available', last_active_at = $3
				WHERE app_id = $1 AND uid = $2 AND status <> 'available'`, appID, uid, now)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				changed = append(changed, uid)
				if err := presenceEvent(tx, appID, uid, "available"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return changed, mapErr(err)
}

// SetOffline drops node's hold on each user; one that no live hold keeps available becomes
// offline, last active now, and is returned (chat.RealtimeStore).
func (db *DB) SetOffline(ctx context.Context, appID, node string, uids []string, now int64) ([]string, error) {
	var changed []string
	err := db.transact(ctx, func(tx *wtx) error {
		changed = changed[:0]
		for _, uid := range uids {
			if _, err := tx.exec(`DELETE FROM user_presence WHERE app_id = $1 AND uid = $2 AND node = $3`, appID, uid, node); err != nil {
				return err
			}
			off, err := offlineIfUnheld(tx, appID, uid, now)
			if err != nil {
				return err
			}
			if off {
				changed = append(changed, uid)
				if err := presenceEvent(tx, appID, uid, "offline"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return changed, mapErr(err)
}

// offlineIfUnheld marks a user offline unless a live hold keeps it available.
func offlineIfUnheld(tx *wtx, appID, uid string, now int64) (bool, error) {
	res, err := tx.exec(`UPDATE users SET status = 'offline', last_active_at = $3
		WHERE app_id = $1 AND uid = $2 AND status = 'available'
		AND NOT EXISTS (SELECT 1 FROM user_presence p WHERE p.app_id = $1 AND p.uid = $2 AND p.expires_at > $3)`, appID, uid, now)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ExpirePresence drops the holds that expired (their node died) and returns, by app, the
// users that became offline (chat.RealtimeStore).
func (db *DB) ExpirePresence(ctx context.Context, now int64) (map[string][]string, error) {
	type hold struct{ app, uid string }
	var changed map[string][]string
	err := db.transact(ctx, func(tx *wtx) error {
		changed = map[string][]string{}
		holds, err := collect(tx.rows(`SELECT app_id, uid FROM user_presence WHERE expires_at <= $1`, now),
			func(s scanner) (hold, error) {
				var h hold
				err := s.Scan(&h.app, &h.uid)
				return h, err
			})
		if err != nil || len(holds) == 0 {
			return err
		}
		if _, err := tx.exec(`DELETE FROM user_presence WHERE expires_at <= $1`, now); err != nil {
			return err
		}
		for _, h := range holds {
			off, err := offlineIfUnheld(tx, h.app, h.uid, now)
			if err != nil {
				return err
			}
			if off {
				changed[h.app] = append(changed[h.app], h.uid)
				if err := presenceEvent(tx, h.app, h.uid, "offline"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return changed, mapErr(err)
}

// presenceEvent writes the user_connection_status_changed event of a presence change, in
// its transaction, when a webhook of the app subscribes to it. A user's presence and block
// events are ordered by "user:<uid>", as a conversation's are by its id.
func presenceEvent(tx *wtx, appID, uid, status string) error {
	return insertOutboxIfSubscribed(tx, chat.OutboxEvent{AppID: appID, Trigger: chat.TriggerConnectionStatus,
		ConversationID: "user:" + uid, Ref: chat.EventRef{UID: uid, Presence: status}, At: time.Now().UnixMilli()})
}

var _ chat.RealtimeStore = (*DB)(nil)
