package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// Online counts (chat.OnlineStore) come from the presence holds (realtime.go), the rows
// every node writes for the sockets it holds: a count is the same whichever node answers.
// A hold past its expiry is a node that died before ExpirePresence swept it, and counts
// for no one.

// CountOnline counts the app's users with a live hold: the primary key's (app_id, uid, …)
// prefix, so the cost is the app's online users, not all its users.
func (db *DB) CountOnline(ctx context.Context, appID string, now int64) (int64, error) {
	var n int64
	err := db.read(ctx).row(`SELECT COUNT(DISTINCT uid) FROM user_presence WHERE app_id = $1 AND expires_at > $2`,
		appID, now).Scan(&n)
	return n, mapErr(err)
}

// CountOnlineMembers counts the live holds' users that are members of each group (banned
// users are no members: bans are rows of their own).
func (db *DB) CountOnlineMembers(ctx context.Context, appID string, guids []string, now int64) (map[string]int64, error) {
	out := make(map[string]int64, len(guids))
	if len(guids) == 0 {
		return out, nil
	}
	args := []any{appID, now}
	for _, g := range guids {
		args = append(args, g)
	}
	type count struct {
		guid string
		n    int64
	}
	counts, err := collect(db.read(ctx).rows(`SELECT m.guid, COUNT(DISTINCT m.uid) FROM group_members m
		WHERE m.app_id = $1 AND m.guid IN (`+placeholders(3, len(guids))+`)
		AND EXISTS (SELECT 1 FROM user_presence p WHERE p.app_id = m.app_id AND p.uid = m.uid AND p.expires_at > $2)
		GROUP BY m.guid`, args...), func(s scanner) (count, error) {
		var c count
		err := s.Scan(&c.guid, &c.n)
		return c, err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	for _, c := range counts {
		out[c.guid] = c.n
	}
	return out, nil
}

var _ chat.OnlineStore = (*DB)(nil)
