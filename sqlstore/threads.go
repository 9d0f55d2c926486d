package sqlstore

import (
	"context"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// Threads' follows (chat/threads.go), in thread_subscriptions (migration 0040): one row per
// (thread, user) with its state, and the thread's last activity for the list's order.

// ThreadState is uid's state in a thread (chat.ThreadTx).
func (tx txStore) ThreadState(appID string, parentID int64, uid string) (int, error) {
	var sub int
	err := tx.row(`SELECT COALESCE((SELECT subscribed FROM thread_subscriptions WHERE app_id = $1 AND parent_id = $2 AND uid = $3), -1)`,
		appID, parentID, uid).Scan(&sub)
	return threadState(sub), mapErr(err)
}

// threadState reads the stored flag: 1 subscribed, 0 unsubscribed, -1 no row.
func threadState(sub int) int {
	switch sub {
	case 1:
		return chat.ThreadSubscribed
	case 0:
		return chat.ThreadUnsubscribed
	}
	return chat.ThreadNone
}

// SetThreadState stores uid's state in a thread (chat.ThreadTx).
func (tx txStore) SetThreadState(t chat.ThreadRef, uid string, state int, at int64) error {
	sub := 0
	if state == chat.ThreadSubscribed {
		sub = 1
	}
	_, err := tx.exec(`INSERT INTO thread_subscriptions (app_id, parent_id, uid, conversation_id, guid, subscribed, updated_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT (app_id, parent_id, uid) DO UPDATE SET subscribed = excluded.subscribed, updated_at = excluded.updated_at`,
		t.AppID, t.ParentID, uid, t.ConversationID, t.GUID, sub, at)
	return mapErr(err)
}

const (
	// joinThreadQuery makes a user follow a reply's thread whatever it chose before;
	// joinThreadIfNewQuery only when it has no row; touchThreadQuery moves every row of the
	// thread to the reply's time, the list's order.
	joinThreadQuery = `INSERT INTO thread_subscriptions (app_id, parent_id, uid, conversation_id, guid, subscribed, updated_at, created_at)
		VALUES ($1, $2, $3, $4, $5, 1, $6, $6) ON CONFLICT (app_id, parent_id, uid) DO UPDATE SET subscribed = 1`
	joinThreadIfNewQuery = `INSERT INTO thread_subscriptions (app_id, parent_id, uid, conversation_id, guid, subscribed, updated_at, created_at)
		VALUES ($1, $2, $3, $4, $5, 1, $6, $6) ON CONFLICT (app_id, parent_id, uid) DO NOTHING`
	touchThreadQuery = `UPDATE thread_subscriptions SET updated_at = $3 WHERE app_id = $1 AND parent_id = $2`
	// bumpRepliesQuery counts a reply on its parent and makes it the last; threadSeqQuery
	// numbers the reply in its thread. The conversation's row lock (lockConversation)
	// serialises a thread's replies, so the numbers follow the ids.
	bumpRepliesQuery = `UPDATE messages SET reply_count = reply_count + 1, last_reply_id = $3 WHERE app_id = $1 AND id = $2`
	threadSeqQuery   = `UPDATE messages SET thread_seq = (SELECT p.reply_count FROM messages p WHERE p.app_id = $1 AND p.id = $2)
		WHERE app_id = $1 AND id = $3`
)

// insertReply keeps a reply's thread in the reply's transaction: the parent's count and
// last reply, the reply's place in the thread, and who follows the thread (as chat decided
// in m.ThreadJoin and m.ThreadJoinIfNew).
func insertReply(tx *wtx, m *chat.Message) error {
	if _, err := tx.exec(bumpRepliesQuery, m.AppID, m.ParentID, m.ID); err != nil {
		return err
	}
	if _, err := tx.exec(threadSeqQuery, m.AppID, m.ParentID, m.ID); err != nil {
		return err
	}
	guid := ""
	if m.ReceiverType == chat.ReceiverGroup {
		guid = m.Receiver
	}
	for _, uid := range m.ThreadJoin {
		if _, err := tx.exec(joinThreadQuery, m.AppID, m.ParentID, uid, m.ConversationID, guid, m.SentAt); err != nil {
			return err
		}
	}
	for _, uid := range m.ThreadJoinIfNew {
		if _, err := tx.exec(joinThreadIfNewQuery, m.AppID, m.ParentID, uid, m.ConversationID, guid, m.SentAt); err != nil {
			return err
		}
	}
	_, err := tx.exec(touchThreadQuery, m.AppID, m.ParentID, m.SentAt)
	return err
}

// FollowedThreads lists the threads uid follows (chat.ThreadStore) through
// thread_subscriptions_user, skipping those of groups uid is no longer a member of.
func (db *DB) FollowedThreads(ctx context.Context, appID, uid string, q chat.ThreadQuery) ([]chat.ThreadRow, error) {
	cmp, order := `<`, `DESC`
	if q.Append {
		cmp, order = `>`, `ASC`
	}
	cursor := ``
	args := []any{appID, uid, q.Limit}
	if q.ConversationID != "" {
		args = append(args, q.ConversationID)
		cursor = ` AND ts.conversation_id = $4`
	}
	n := strconv.Itoa(len(args) + 1)
	switch {
	case q.UpdatedAt != 0 && q.ID != 0:
		next := strconv.Itoa(len(args) + 2)
		cursor += ` AND (ts.updated_at ` + cmp + ` $` + n + ` OR ts.updated_at = $` + n + ` AND ts.parent_id ` + cmp + ` $` + next + `)`
		args = append(args, q.UpdatedAt, q.ID)
	case q.UpdatedAt != 0:
		cursor += ` AND ts.updated_at ` + cmp + `= $` + n
		args = append(args, q.UpdatedAt)
	}
	var out []chat.ThreadRow
	err := each(db.read(ctx).rows(`SELECT ts.parent_id, ts.updated_at, p.last_reply_id FROM thread_subscriptions ts
		JOIN messages p ON p.id = ts.parent_id
		WHERE ts.app_id = $1 AND ts.uid = $2 AND ts.subscribed = 1`+cursor+`
		AND (ts.guid = '' OR EXISTS (SELECT 1 FROM group_members gm WHERE gm.app_id = ts.app_id AND gm.guid = ts.guid AND gm.uid = ts.uid))
		ORDER BY ts.updated_at `+order+`, ts.parent_id `+order+` LIMIT $3`, args...), func(s scanner) error {
		var r chat.ThreadRow
		if err := s.Scan(&r.ParentID, &r.UpdatedAt, &r.LastReplyID); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, mapErr(err)
}

// ThreadUnread counts each thread's unread replies and mentions of uid (chat.ThreadStore)
// as the read model counts a conversation's (docs/read-model.md): the replies after uid's
// read marker by unreadReplies, without walking them; the mentions are uid's mentions in
// the conversation after the marker, those in this thread counted.
func (db *DB) ThreadUnread(ctx context.Context, appID, uid string, parents []chat.Message) (map[int64]int64, error) {
	run := db.read(ctx)
	reads := map[string]int64{}
	mentions := map[int64]int64{}
	for i := range parents {
		m := &parents[i]
		m.UnreadReplies = 0
		if m.ReplyCount == 0 {
			continue
		}
		read, ok := reads[m.ConversationID]
		if !ok {
			mk, err := db.marker(run, appID, uid, m.ConversationID)
			if err != nil {
				return nil, err
			}
			read, reads[m.ConversationID] = mk.ReadID, mk.ReadID
		}
		n, err := unreadReplies(run, appID, uid, m, read)
		if err != nil {
			return nil, err
		}
		var mentioned int64
		if err := run.row(`SELECT COUNT(*) FROM message_mentions mm JOIN messages r ON r.id = mm.message_id
			WHERE mm.app_id = $1 AND mm.uid = $2 AND mm.conversation_id = $3 AND mm.message_id > $4 AND r.parent_id = $5 AND r.sender <> $2`,
			appID, uid, m.ConversationID, read, m.ID).Scan(&mentioned); err != nil {
			return nil, mapErr(err)
		}
		m.UnreadReplies = n
		mentions[m.ID] = mentioned
	}
	return mentions, nil
}

// ThreadStates are uids' states in a thread (chat.ThreadStore).
func (db *DB) ThreadStates(ctx context.Context, appID string, parentID int64, uids []string) (map[string]int, error) {
	out := map[string]int{}
	if len(uids) == 0 {
		return out, nil
	}
	err := each(db.read(ctx).rows(`SELECT uid, subscribed FROM thread_subscriptions WHERE app_id = $1 AND parent_id = $2 AND uid`+db.dialect.inIDs(`$3`),
		appID, parentID, db.dialect.uidsArg(uids)), func(s scanner) error {
		var uid string
		var sub int
		if err := s.Scan(&uid, &sub); err != nil {
			return err
		}
		out[uid] = threadState(sub)
		return nil
	})
	return out, mapErr(err)
}
