package sqlstore

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Unread counts, kept (issue 39, docs/read-model.md). A conversation's unread count for a
// user is its counted messages after the user's read marker (last_seq − read_seq) less the
// user's own among them; its mention count, the counted messages of others after the marker
// that mention the user. Both "after the marker" counts are kept in the user's marker row,
// unread_own and unread_mentions, so that a conversation list reads one row per
// conversation however much the user sent or was mentioned since it last read:
//
//   - a counted message adds one to its sender's unread_own and to the unread_mentions of
//     each user it mentions other than the sender, creating their markers if need be (a
//     user without one has read nothing), where the marker is before the message (always,
//     but for a held message approved under the id it was given when held);
//   - a mark that moves the read marker up to the last message (a receipt, a reset) leaves
//     both 0 (SaveMarker); one that moves it elsewhere (read up to an earlier message, mark
//     unread) recounts both after its new position (recountUnreadQuery), walking what the
//     counts become;
//   - a join or a reset for all reads up to the last message: both counts are 0;
//   - an edit that changes whom a message mentions, a message purged and a user deleted
//     for good take out what they remove and add what they add; a purge also notes the
//     seq it leaves behind (conversations.purged_seq), since every reader before it has
//     one unread message fewer than seqs, which the list then counts (notUnreadColumn);
//   - an import recounts the markers its read receipts moved, after their new positions
//     in the batch, and adds what the batch adds after every other marker (countImported).
//
// On PostgreSQL the writes run at once. Those of a conversation take its row's lock before
// they touch its markers (sends, marks, joins, resets, imports, mention edits, purges), so
// they come one after another, and never wait on each other in a cycle. A user deleted for
// good locks every conversation it changes (its groups', its one-to-one ones) in
// conversation_id order before anything else (PurgeUser): when it changed the others'
// markers first and the conversations after, it deadlocked with the sends into its groups
// (TestPurgeUserWhileSending). A mark locks the marker row (its upsert) before it recounts,
// in a statement of its own, whose snapshot (READ COMMITTED) sees every change committed
// before it had the lock.

// recountUnreadSet sets a marker's kept counts to what follows its read marker, by
// messages_sender (app_id, sender, conversation_id, id) and message_mentions' key.
const recountUnreadSet = `unread_own = (SELECT COUNT(*) FROM messages o WHERE o.app_id = conversation_markers.app_id
		AND o.sender = conversation_markers.uid AND o.conversation_id = conversation_markers.conversation_id
		AND o.id > conversation_markers.read_id AND o.seq > 0),
	unread_mentions = (SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
		WHERE mm.app_id = conversation_markers.app_id AND mm.uid = conversation_markers.uid
		AND mm.conversation_id = conversation_markers.conversation_id AND mm.message_id > conversation_markers.read_id
		AND mg.seq > 0 AND mg.sender <> conversation_markers.uid)`

const (
	recountUnreadQuery = `UPDATE conversation_markers SET ` + recountUnreadSet + `
		WHERE app_id = $1 AND uid = $2 AND conversation_id = $3`
	// countSentQuery counts a new counted message ($4) on its sender's marker, and
	// countMentionedQuery on a mentioned user's.
	countSentQuery = `INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at, unread_own) VALUES ($1, $2, $3, 0, 1)
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET unread_own = conversation_markers.unread_own + 1
		WHERE conversation_markers.read_id < $4`
	countMentionedQuery = `INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at, unread_mentions) VALUES ($1, $2, $3, 0, 1)
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET unread_mentions = conversation_markers.unread_mentions + 1
		WHERE conversation_markers.read_id < $4`
	// uncountMentionsQuery takes message $2's mentions out of the counts of those it
	// mentions and had not read it, before its mentions go.
	uncountMentionsQuery = `UPDATE conversation_markers SET unread_mentions = unread_mentions - 1
		WHERE app_id = $1 AND read_id < $2 AND (uid, conversation_id) IN (SELECT mm.uid, mm.conversation_id
			FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
			WHERE mm.app_id = $1 AND mm.message_id = $2 AND mg.seq > 0 AND mg.sender <> mm.uid)`
	// countMentionsQuery counts message $2's mentions, after they were written, on the
	// markers of those it mentions.
	countMentionsQuery = `INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at, unread_mentions)
		SELECT mm.app_id, mm.uid, mm.conversation_id, 0, 1 FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
		WHERE mm.app_id = $1 AND mm.message_id = $2 AND mg.seq > 0 AND mg.sender <> mm.uid
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET unread_mentions = conversation_markers.unread_mentions + 1
		WHERE conversation_markers.read_id < $2`
	// uncountSentQuery takes message $2 out of its sender's count, before it goes.
	uncountSentQuery = `UPDATE conversation_markers SET unread_own = unread_own - 1
		WHERE app_id = $1 AND read_id < $2 AND (uid, conversation_id) IN (SELECT sender, conversation_id FROM messages
			WHERE app_id = $1 AND id = $2 AND seq > 0)`
	// purgedSeqQuery notes, before message $2 goes for good, its seq as its conversation's
	// purged_seq when it counted: readers behind it have one unread message fewer than
	// seqs (notUnreadColumn).
	purgedSeqQuery = `UPDATE conversations SET purged_seq = (SELECT seq FROM messages WHERE app_id = $1 AND id = $2)
		WHERE app_id = $1 AND conversation_id = (SELECT conversation_id FROM messages WHERE app_id = $1 AND id = $2 AND seq > 0)
		AND purged_seq < (SELECT seq FROM messages WHERE app_id = $1 AND id = $2)`
	// purgedSenderSeqQuery is purgedSeqQuery for all of user $2's messages in groups.
	purgedSenderSeqQuery = `UPDATE conversations SET purged_seq = (SELECT MAX(m.seq) FROM messages m WHERE m.app_id = conversations.app_id
			AND m.sender = $2 AND m.conversation_id = conversations.conversation_id)
		WHERE app_id = $1 AND kind = 'group' AND conversation_id IN (SELECT conversation_id FROM messages WHERE app_id = $1 AND sender = $2 AND seq > 0)
		AND purged_seq < (SELECT MAX(m.seq) FROM messages m WHERE m.app_id = conversations.app_id
			AND m.sender = $2 AND m.conversation_id = conversations.conversation_id)`
	// uncountSenderQuery takes the mentions in user $2's messages out of the others'
	// counts, before the user and its messages go.
	uncountSenderQuery = `UPDATE conversation_markers SET unread_mentions = unread_mentions - (SELECT COUNT(*)
			FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
			WHERE mm.app_id = conversation_markers.app_id AND mm.uid = conversation_markers.uid
			AND mm.conversation_id = conversation_markers.conversation_id AND mm.message_id > conversation_markers.read_id
			AND mg.seq > 0 AND mg.sender = $2)
		WHERE app_id = $1 AND uid <> $2 AND (uid, conversation_id) IN (SELECT mm.uid, mm.conversation_id
			FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id WHERE mg.app_id = $1 AND mg.sender = $2)`
)

// countMessage counts a new message, when it counts, on its sender's marker and on those of
// whom it mentions: one statement more for a send, and one per mention.
func countMessage(tx *wtx, m *chat.Message) error {
	if !m.Counts() {
		return nil
	}
	if _, err := tx.exec(countSentQuery, m.AppID, m.Sender, m.ConversationID, m.ID); err != nil {
		return err
	}
	for _, e := range m.Mentions {
		if e.UID == m.Sender {
			continue
		}
		if _, err := tx.exec(countMentionedQuery, m.AppID, e.UID, m.ConversationID, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// lockConversationOf takes, on PostgreSQL, the lock of message id's conversation row before
// a write changes the kept counts of its markers (an edit's mentions, a purge), as sends
// and marks take it before theirs: markers are always locked after their conversation, so
// those writes never wait on each other in a cycle.
func (tx txStore) lockConversationOf(appID string, id int64) error {
	if !tx.db.dialect.concurrentWrites {
		return nil
	}
	_, err := tx.exec(`SELECT 1 FROM conversations WHERE app_id = $1
		AND conversation_id = (SELECT conversation_id FROM messages WHERE app_id = $1 AND id = $2)`+tx.db.dialect.forUpdate, appID, id)
	return mapErr(err)
}

// RecountUnread recounts uid's kept counts of a conversation after its read marker moved
// before the last message (chat.ConversationTx). SaveMarker, before it, took the marker
// row's lock.
func (tx txStore) RecountUnread(appID, uid, conversationID string) error {
	_, err := tx.exec(recountUnreadQuery, appID, uid, conversationID)
	return mapErr(err)
}

// countImported keeps the kept counts through a batch of imported messages. A marker the
// batch's read receipts moved (read) is recounted after its new position, which is in the
// batch: a walk of the batch's messages after it. Every other (sender, conversation) and
// (mentioned user, conversation) of the batch's counted messages gets its marker if it has
// none, then counts the batch's messages after its read marker, those with ids from the
// batch's first (under the conversations' locks, a conversation's messages from there are
// the batch's). One walk of the batch, not of the history before it.
func (tx txStore) countImported(msgs []*chat.Message, read map[[2]string]bool) error {
	if len(msgs) == 0 {
		return nil
	}
	appID, first := msgs[0].AppID, msgs[0].ID
	type pair struct{ uid, conv string }
	var moved []pair
	for k := range read {
		moved = append(moved, pair{k[0], k[1]})
	}
	slices.SortFunc(moved, func(a, b pair) int { return strings.Compare(a.uid+"\x00"+a.conv, b.uid+"\x00"+b.conv) })
	for from := 0; from < len(moved); from += importChunkArgs / 2 {
		chunk := moved[from:min(from+importChunkArgs/2, len(moved))]
		args := []any{appID}
		values := make([]string, len(chunk))
		for i, p := range chunk {
			values[i] = `(` + tx.params(len(args)+1, 2) + `)`
			args = append(args, p.uid, p.conv)
		}
		if _, err := tx.execRaw(`UPDATE conversation_markers SET `+recountUnreadSet+` WHERE app_id = `+tx.params(1, 1)+
			` AND (uid, conversation_id) IN (VALUES `+strings.Join(values, ", ")+`)`, args...); err != nil {
			return mapErr(err)
		}
	}
	seen := map[pair]bool{}
	var pairs []pair
	add := func(p pair) {
		if !seen[p] && !read[[2]string{p.uid, p.conv}] {
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	for _, m := range msgs {
		first = min(first, m.ID)
		if !m.Counts() {
			continue
		}
		add(pair{m.Sender, m.ConversationID})
		for _, e := range m.Mentions {
			if e.UID != m.Sender {
				add(pair{e.UID, m.ConversationID})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	err := tx.execMulti(len(pairs), 4, `INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at)`,
		` ON CONFLICT (app_id, uid, conversation_id) DO NOTHING`, func(i int) []any {
			return []any{appID, pairs[i].uid, pairs[i].conv, 0}
		})
	if err != nil {
		return err
	}
	const per = importChunkArgs / 2
	for from := 0; from < len(pairs); from += per {
		chunk := pairs[from:min(from+per, len(pairs))]
		args := []any{first, first, appID}
		values := make([]string, len(chunk))
		for i, p := range chunk {
			values[i] = `(` + tx.params(len(args)+1, 2) + `)`
			args = append(args, p.uid, p.conv)
		}
		// The placeholders in the order they appear: SQLite's bare ?s number themselves.
		q := `UPDATE conversation_markers SET
			unread_own = unread_own + (SELECT COUNT(*) FROM messages o WHERE o.app_id = conversation_markers.app_id
				AND o.sender = conversation_markers.uid AND o.conversation_id = conversation_markers.conversation_id
				AND o.id >= ` + tx.params(1, 1) + ` AND o.id > conversation_markers.read_id AND o.seq > 0),
			unread_mentions = unread_mentions + (SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
				WHERE mm.app_id = conversation_markers.app_id AND mm.uid = conversation_markers.uid
				AND mm.conversation_id = conversation_markers.conversation_id AND mm.message_id >= ` + tx.params(2, 1) + `
				AND mm.message_id > conversation_markers.read_id AND mg.seq > 0 AND mg.sender <> conversation_markers.uid)
			WHERE app_id = ` + tx.params(3, 1) + ` AND (uid, conversation_id) IN (VALUES ` + strings.Join(values, ", ") + `)`
		if _, err := tx.execRaw(q, args...); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// keptUnreadQuery is a conversation's unread count for viewer $2 as the conversation list
// reads it (chat.Service.conversations), with the read marker it counts from.
const keptUnreadQuery = `SELECT COALESCE(k.read_id, 0), c.last_seq - COALESCE(k.read_seq, 0) - ` + notUnreadColumn + `
	FROM conversations c LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id
	WHERE c.app_id = $1 AND c.conversation_id = $3`

// keptUnread answers CountMessages from the kept counts when q is a conversation's unread
// count and nothing else (the unread count endpoints: others' counted messages after the
// viewer's read marker): one row rather than a walk of what follows the marker, the
// viewer's own messages there included. ok is false for any other q, and for one counting
// from another position than the read marker (undelivered), which CountMessages counts.
func (db *DB) keptUnread(ctx context.Context, appID string, q chat.MessageQuery) (n int64, ok bool, err error) {
	if !q.Unread || q.ConversationID == "" || q.Viewer == "" {
		return 0, false, nil
	}
	rest := q
	rest.ConversationID, rest.Viewer, rest.HiddenUpTo, rest.Unread, rest.UnreadAfter = "", "", 0, false, 0
	rest.Limit, rest.Prepend, rest.HideReplies = 0, false, false // a count has no page; unread counts no replies
	v := reflect.ValueOf(rest)
	for i := range v.NumField() { // any other filter, one added later included, counts
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Len() > 0 || f.Kind() != reflect.Slice && !f.IsZero() {
			return 0, false, nil
		}
	}
	var readID int64
	err = db.read(ctx).fixed(keptUnreadQuery, appID, q.Viewer, q.ConversationID).Scan(&readID, &n)
	switch err = mapErr(err); {
	case errors.Is(err, chat.ErrNotFound):
		return 0, true, nil // no conversation, no message
	case err != nil:
		return 0, false, err
	case readID != q.UnreadAfter || q.HiddenUpTo > readID:
		return 0, false, nil
	}
	return max(n, 0), true, nil
}
