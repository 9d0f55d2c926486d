package sqlstore

import (
	"strings"

	"github.com/natter-chat/natter/chat"
)

// LockUsers holds the listed users until the transaction ends and returns those that exist
// (chat.FriendTx). Rows are locked in uid order, so two transactions locking overlapping
// sets never wait on each other in a cycle. On PostgreSQL the lock is FOR NO KEY UPDATE: it
// serialises changes to the users' friendships and tokens without blocking the key-share
// locks that inserting a row referencing a user takes; SQLite's single writer already
// serialises every write.
func (tx txStore) LockUsers(appID string, uids []string) ([]chat.User, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	lock := tx.db.dialect.lock(" FOR NO KEY UPDATE")
	args := append([]any{appID}, anys(uids)...)
	return collect(tx.rows(`SELECT `+userColumns+` FROM users WHERE app_id = $1 AND uid IN (`+placeholders(2, len(uids))+`)
		ORDER BY uid`+lock, args...), func(s scanner) (chat.User, error) { return scanUser(s, appID) })
}

// FriendsAmong returns which of among are friends of uid (chat.FriendTx).
func (tx txStore) FriendsAmong(appID, uid string, among []string) ([]string, error) {
	if len(among) == 0 {
		return nil, nil
	}
	args := append([]any{appID, uid}, anys(among)...)
	return collect(tx.rows(`SELECT friend_uid FROM friends WHERE app_id = $1 AND uid = $2 AND friend_uid IN (`+placeholders(3, len(among))+`)`, args...),
		func(s scanner) (f string, err error) { return f, s.Scan(&f) })
}

// CountFriends counts uid's friends (chat.FriendTx): one index range, since a deleted
// user's friendships go with it (SoftDeleteUser, and the cascade of a purge).
func (tx txStore) CountFriends(appID, uid string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM friends WHERE app_id = $1 AND uid = $2`, appID, uid).Scan(&n)
	return n, mapErr(err)
}

// InsertFriends writes both directions of each friendship (chat.FriendTx).
func (tx txStore) InsertFriends(appID, uid string, friends []string, at int64) error {
	if len(friends) == 0 {
		return nil
	}
	args := []any{appID, uid, at}
	rows := make([]string, 0, 2*len(friends))
	for _, f := range friends {
		args = append(args, f)
		n := "$" + itoa(len(args))
		rows = append(rows, "($1, $2, "+n+", $3)", "($1, "+n+", $2, $3)")
	}
	_, err := tx.exec(`INSERT INTO friends (app_id, uid, friend_uid, created_at) VALUES `+strings.Join(rows, ", "), args...)
	return err
}

// DeleteFriends deletes both directions of each friendship (chat.FriendTx).
func (tx txStore) DeleteFriends(appID, uid string, friends []string) error {
	if len(friends) == 0 {
		return nil
	}
	in := placeholders(3, len(friends))
	args := append([]any{appID, uid}, anys(friends)...)
	_, err := tx.exec(`DELETE FROM friends WHERE app_id = $1 AND (uid = $2 AND friend_uid IN (`+in+`)
		OR friend_uid = $2 AND uid IN (`+in+`))`, args...)
	return err
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
