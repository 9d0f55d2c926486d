package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// conversationColumns are a conversation's row, the viewer's ($2) marker, the seqs after
// its read marker that are not unread to it (notUnreadColumn), and how many of the others'
// messages there mention the viewer, which the marker keeps (unread.go; a viewer without
// a marker has none).
const conversationColumns = `c.conversation_id, c.kind, c.uid_a, c.uid_b, c.guid, c.last_message_id, c.last_seq,
	c.created_at, c.updated_at,
	COALESCE(k.read_id, 0), COALESCE(k.read_seq, 0), COALESCE(k.delivered_id, 0), COALESCE(k.reset_id, 0), k.tags,
	COALESCE(k.updated_at, 0), COALESCE(k.pinned_at, 0), ` + systemPinnedColumn + `,
	` + notUnreadColumn + `, COALESCE(k.unread_mentions, 0)`

// notUnreadColumn is how many of the seqs after the viewer's ($2) read marker are not
// unread to it: its own messages there, which its marker keeps; and when a counted message
// after the marker was purged (c.purged_seq), the seqs less the others' messages still
// there, counted: a walk of the messages after the marker, but only for a reader behind
// a message deleted for good.
const notUnreadColumn = `CASE WHEN c.purged_seq > COALESCE(k.read_seq, 0) THEN c.last_seq - COALESCE(k.read_seq, 0)
		- (SELECT COUNT(*) FROM messages o WHERE o.app_id = c.app_id AND o.conversation_id = c.conversation_id
			AND o.id > COALESCE(k.read_id, 0) AND o.seq > 0 AND o.sender <> $2)
		ELSE COALESCE(k.unread_own, 0) END`

// systemPinnedColumn is when the app pinned the conversation for everyone, or 0: a group's
// by its guid, a one-to-one conversation by its party other than the viewer ($2; either
// party for the app).
const systemPinnedColumn = `COALESCE((SELECT sp.pinned_at FROM system_pinned_conversations sp WHERE sp.app_id = c.app_id AND sp.kind = c.kind
		AND ((c.kind = 'group' AND sp.target = c.guid) OR (c.kind = 'user' AND sp.target IN (c.uid_a, c.uid_b) AND sp.target <> $2))
		ORDER BY sp.position LIMIT 1), 0)`

func scanConversation(s scanner) (chat.ConversationRow, error) {
	var r chat.ConversationRow
	var tags sql.NullString
	err := s.Scan(&r.ID, &r.Kind, &r.UIDA, &r.UIDB, &r.GUID, &r.LastMessageID, &r.LastSeq, &r.CreatedAt, &r.UpdatedAt,
		&r.Marker.ReadID, &r.Marker.ReadSeq, &r.Marker.DeliveredID, &r.Marker.ResetID, &tags, &r.Marker.UpdatedAt,
		&r.Marker.PinnedAt, &r.SystemPinnedAt, &r.Own, &r.Mentions)
	if err != nil {
		return r, mapErr(err)
	}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &r.Marker.Tags); err != nil {
			return r, err
		}
	}
	return r, nil
}

// ListConversations lists conversations by last activity (chat.ConversationStore). A
// viewer's are its one-to-one conversations (two index lookups) and its groups'
// (group_members), each with its marker; a conversation the viewer reset shows again with
// its next message.
func (db *DB) ListConversations(ctx context.Context, appID string, q chat.ConversationQuery) ([]chat.ConversationRow, int, error) {
	if q.Viewer != "" && q.Kind == "" && q.SearchKey == "" && len(q.Tags) == 0 && len(q.UserTags) == 0 && len(q.GroupTags) == 0 && !q.Unread &&
		len(q.PinnedBy) == 0 && !q.HideAgentic && !q.OnlyAgentic {
		return db.recentConversations(ctx, appID, q)
	}
	args := []any{appID, q.Viewer}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	from := ` FROM conversations c LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id`
	w := []string{`c.app_id = $1`}
	if q.Viewer != "" {
		from = ` FROM (SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND uid_a = $2
			UNION SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND uid_b = $2
			UNION SELECT 'group_' || guid FROM group_members WHERE app_id = $1 AND uid = $2) mine
			JOIN conversations c ON c.app_id = $1 AND c.conversation_id = mine.conversation_id` +
			` LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id`
		w = append(w, `c.last_message_id > COALESCE(k.reset_id, 0)`)
	} else {
		w = append(w, `$2 = ''`)
	}
	if q.Kind != "" {
		w = append(w, `c.kind = `+arg(q.Kind))
	}
	other := `(CASE WHEN c.uid_a = $2 THEN c.uid_b ELSE c.uid_a END)`
	if q.Viewer == "" {
		other = `c.uid_b`
	}
	if q.SearchKey != "" {
		p := arg(chat.SearchKeyPattern(q.SearchKey))
		w = append(w, `(EXISTS (SELECT 1 FROM users u WHERE c.kind = 'user' AND u.app_id = c.app_id AND u.uid = `+other+` AND lower(u.name) LIKE `+p+` ESCAPE '\')
			OR EXISTS (SELECT 1 FROM groups g WHERE c.kind = 'group' AND g.app_id = c.app_id AND g.guid = c.guid AND lower(g.name) LIKE `+p+` ESCAPE '\'))`)
	}
	if len(q.Tags) > 0 {
		var ors []string
		for _, t := range q.Tags {
			enc, _ := json.Marshal(t)
			ors = append(ors, `k.tags LIKE `+arg(likeContains(string(enc)))+` ESCAPE '\'`)
		}
		w = append(w, `(`+strings.Join(ors, " OR ")+`)`)
	}
	tagIn := func(vals []string) string {
		ph := make([]string, len(vals))
		for i, v := range vals {
			ph[i] = arg(v)
		}
		return strings.Join(ph, ", ")
	}
	// userTags picks one-to-one conversations by the other user's tags, groupTags group ones
	// by the group's: given both, a conversation matching either is listed.
	var byTags []string
	if len(q.UserTags) > 0 {
		byTags = append(byTags, `(c.kind = 'user' AND EXISTS (SELECT 1 FROM user_tags t WHERE t.app_id = c.app_id AND t.uid = `+other+` AND t.tag IN (`+tagIn(q.UserTags)+`)))`)
	}
	if len(q.GroupTags) > 0 {
		byTags = append(byTags, `(c.kind = 'group' AND EXISTS (SELECT 1 FROM group_tags t WHERE t.app_id = c.app_id AND t.guid = c.guid AND t.tag IN (`+tagIn(q.GroupTags)+`)))`)
	}
	if len(byTags) > 0 {
		w = append(w, `(`+strings.Join(byTags, " OR ")+`)`)
	}
	if q.Unread {
		// Some counted message from someone else after the marker: the kept counts, as the
		// list shows them (chat.Service.conversations).
		w = append(w, `c.last_seq - COALESCE(k.read_seq, 0) - `+notUnreadColumn+` > 0`)
	}
	var pinned []string
	for _, by := range q.PinnedBy {
		switch by {
		case chat.PinnedByMe:
			pinned = append(pinned, `COALESCE(k.pinned_at, 0) > 0`)
		case chat.PinnedBySystem:
			pinned = append(pinned, systemPinnedColumn+` > 0`)
		}
	}
	if len(pinned) > 0 {
		w = append(w, `(`+strings.Join(pinned, " OR ")+`)`)
	}
	if q.Viewer != "" && !q.IncludeBlocked {
		w = append(w, notBlocked)
	}
	if q.HideAgentic {
		w = append(w, `NOT `+agentic)
	}
	if q.OnlyAgentic {
		w = append(w, agentic)
	}
	where := ` WHERE ` + strings.Join(w, " AND ")
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*)`+from+where, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	lim, off := arg(q.Page.PerPage), arg(q.Page.Offset())
	rows, err := collect(run.rows(`SELECT `+conversationColumns+from+where+` ORDER BY c.last_message_id DESC LIMIT `+lim+` OFFSET `+off, args...), scanConversation)
	return rows, total, err
}

// recentConversations is a user's unfiltered list, the common one, without sorting all of
// the user's conversations: the page comes from the top of its one-to-one conversations by
// activity (two index ranges) and of its groups', each taken as deep as the page reaches plus
// the user's resets, which may hide that many, and no deeper than the side has rows
// (user_conversation_counts' as_a and as_b, migration 0064): a walk past a side's last live
// entry would read every dead entry PostgreSQL's index keeps there until vacuum. The total is the user's count of one-to-one
// conversations, kept by triggers (migration 0025), plus its groups' conversations, less
// the conversations it reset and that have not moved since. So a page reads the same rows
// however many one-to-one conversations the user has; what still grows is a probe per group
// the user is in and per conversation it reset.
//
// The conversations with the users the viewer blocked are left out unless it asks for them
// (includeBlockedUsers): like its resets, a probe per block it made, counted out of the
// total and added to the depth.
func (db *DB) recentConversations(ctx context.Context, appID string, q chat.ConversationQuery) ([]chat.ConversationRow, int, error) {
	run := db.read(ctx)
	include := 0
	if q.IncludeBlocked {
		include = 1
	}
	var total, hidden, blocked, asA, asB int
	err := run.fixed(recentCountQuery, appID, q.Viewer, include).Scan(&total, &hidden, &blocked, &asA, &asB)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	depth := q.Page.Offset() + q.Page.PerPage + hidden + blocked
	rows, err := collect(run.fixedRows(db.dialect.recentPageQuery, appID, q.Viewer, depth, q.Page.PerPage, q.Page.Offset(), include,
		min(depth, asA), min(depth, asB)), scanConversation)
	return rows, total - hidden - blocked, err
}

// notBlocked keeps a viewer's ($2) conversation unless it is one-to-one with a user the
// viewer blocked: one probe of the block's key per conversation.
const notBlocked = `(c.kind <> 'user' OR NOT EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = c.app_id AND b.uid = $2
	AND b.blocked_uid = (CASE WHEN c.uid_a = $2 THEN c.uid_b ELSE c.uid_a END)))`

// agentic holds for a one-to-one conversation with an AI agent's user other than the
// viewer ($2, empty for the app's list, where either party counts).
const agentic = `(c.kind = 'user' AND EXISTS (SELECT 1 FROM agents a WHERE a.app_id = c.app_id AND a.uid IN (c.uid_a, c.uid_b) AND a.uid <> $2))`

const (
	recentCountQuery = `SELECT
		COALESCE((SELECT conversations FROM user_conversation_counts WHERE app_id = $1 AND uid = $2), 0)
		+ (SELECT COUNT(*) FROM group_members gm JOIN conversations c ON c.app_id = gm.app_id AND c.conversation_id = 'group_' || gm.guid
			WHERE gm.app_id = $1 AND gm.uid = $2),
		(SELECT COUNT(*) FROM conversation_markers k JOIN conversations c ON c.app_id = k.app_id AND c.conversation_id = k.conversation_id
			WHERE k.app_id = $1 AND k.uid = $2 AND k.reset_id > 0 AND c.last_message_id <= k.reset_id
			AND (c.kind = 'user' OR EXISTS (SELECT 1 FROM group_members gm WHERE gm.app_id = c.app_id AND gm.guid = c.guid AND gm.uid = $2))),
		CASE WHEN $3 = 1 THEN 0 ELSE (SELECT COUNT(*) FROM blocks b JOIN conversations c ON c.app_id = b.app_id
			AND c.conversation_id IN (b.uid || '_user_' || b.blocked_uid, b.blocked_uid || '_user_' || b.uid)
			AND c.kind = 'user' AND ((c.uid_a = b.uid AND c.uid_b = b.blocked_uid) OR (c.uid_a = b.blocked_uid AND c.uid_b = b.uid))
			LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id
			WHERE b.app_id = $1 AND b.uid = $2 AND c.last_message_id > COALESCE(k.reset_id, 0)) END,
		COALESCE((SELECT as_a FROM user_conversation_counts WHERE app_id = $1 AND uid = $2), 0),
		COALESCE((SELECT as_b FROM user_conversation_counts WHERE app_id = $1 AND uid = $2), 0)`
	// recentCandidates are the page's candidates, the top of each of the viewer's three
	// sources by activity: its one-to-one conversations as uid_a and as uid_b (each asked for
	// no more rows than it has, $7 and $8) and its groups'. CANDIDATE is what each takes
	// from a conversation's row (recentPageQueries).
	recentCandidates = `SELECT * FROM (SELECT CANDIDATE FROM conversations c WHERE c.app_id = $1 AND c.kind = 'user' AND c.uid_a = $2
			ORDER BY c.last_message_id DESC LIMIT $7) a
		UNION SELECT * FROM (SELECT CANDIDATE FROM conversations c WHERE c.app_id = $1 AND c.kind = 'user' AND c.uid_b = $2
			ORDER BY c.last_message_id DESC LIMIT $8) b
		UNION SELECT * FROM (SELECT CANDIDATE FROM group_members gm
			JOIN conversations c ON c.app_id = gm.app_id AND c.conversation_id = 'group_' || gm.guid
			WHERE gm.app_id = $1 AND gm.uid = $2 ORDER BY c.last_message_id DESC LIMIT $3) g`
	recentPageRest = ` MARKER
		WHERE JOINED c.last_message_id > COALESCE(k.reset_id, 0)
		AND ($6 = 1 OR ` + notBlocked + `)
		ORDER BY c.last_message_id DESC LIMIT $4 OFFSET $5`
	recentMarker = `conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id`
	// recentRowColumns are the conversation columns the page's statement reads.
	recentRowColumns = `c.app_id, c.conversation_id, c.kind, c.uid_a, c.uid_b, c.guid, c.last_message_id, c.last_seq, c.created_at, c.updated_at, c.purged_seq`
)

// recentPageQueries are the conversation page's statement on SQLite and on PostgreSQL.
//
// SQLite's candidates are rowids, which the activity indexes carry, joined back to their
// rows (CROSS JOIN keeps SQLite to the order written, the page's few candidates first; it
// would otherwise walk every conversation of the app by activity to spare the final sort):
// the page reads no key index, a quarter of the statement's time in process on issue 39's
// hub of 1,001 conversations.
//
// PostgreSQL's index scans fetch each candidate's row anyway, so its candidates are their
// rows, and the page reads no key index either. Its marker is a LATERAL lookup, one probe
// of the key per candidate (LIMIT 1 keeps the planner from flattening it): as a join the
// planner hashed every marker of the viewer instead, a read that grows with its
// conversations.
func recentPageQueries() (sqliteQuery, postgresQuery string) {
	candidates := func(with string) string {
		if n := strings.Count(recentCandidates, "CANDIDATE"); n != 3 {
			panic(fmt.Sprintf("sqlstore: recentCandidates has %d CANDIDATE, want 3", n))
		}
		return strings.ReplaceAll(recentCandidates, "CANDIDATE", with)
	}
	sqliteQuery = `SELECT ` + conversationColumns + ` FROM (` + candidates(`c.rowid AS id`) + `) mine CROSS JOIN conversations c` +
		splice(splice(recentPageRest, "MARKER", "LEFT JOIN "+recentMarker), "JOINED", "c.rowid = mine.id AND c.app_id = $1 AND")
	postgresQuery = `SELECT ` + conversationColumns + ` FROM (` + candidates(recentRowColumns) + `) c` +
		splice(splice(recentPageRest, "MARKER", "LEFT JOIN LATERAL (SELECT k.* FROM "+strings.Replace(recentMarker, " ON ", " WHERE ", 1)+" LIMIT 1) k ON true"), "JOINED ", "")
	return sqliteQuery, postgresQuery
}

const conversationRowQuery = `SELECT ` + conversationColumns + ` FROM conversations c
	LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id
	WHERE c.app_id = $1 AND c.conversation_id = $3`

// ConversationRow reads one conversation with viewer's marker (chat.ConversationStore).
func (db *DB) ConversationRow(ctx context.Context, appID, viewer, id string) (chat.ConversationRow, error) {
	return scanConversation(db.read(ctx).fixed(conversationRowQuery, appID, viewer, id))
}

// MessagesByID reads messages by id for viewer (chat.ConversationStore).
func (db *DB) MessagesByID(ctx context.Context, appID, viewer string, ids []int64) (map[int64]chat.Message, error) {
	out := map[int64]chat.Message{}
	if len(ids) == 0 {
		return out, nil
	}
	run := db.read(ctx)
	ms, err := collect(run.fixedRows(db.dialect.messagesByIDQuery, appID, db.dialect.idsArg(ids)),
		func(s scanner) (chat.Message, error) { return scanPageMessage(s, appID) })
	if err != nil {
		return nil, err
	}
	if err := db.completePage(run, appID, viewer, ms, true); err != nil {
		return nil, err
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// UsersByID reads active users (chat.ConversationStore).
func (db *DB) UsersByID(ctx context.Context, appID string, uids []string) (map[string]chat.User, error) {
	out := map[string]chat.User{}
	if len(uids) == 0 {
		return out, nil
	}
	args := []any{appID}
	for _, u := range uids {
		args = append(args, u)
	}
	err := each(db.read(ctx).rows(`SELECT `+userColumns+` FROM users WHERE app_id = $1 AND deleted_at = 0 AND deactivated_at = 0
		AND uid IN (`+placeholders(2, len(uids))+`)`, args...), func(s scanner) error {
		u, err := scanUser(s, appID)
		out[u.UID] = u
		return err
	})
	return out, err
}

// GroupsByID reads groups with viewer's memberships (chat.ConversationStore).
func (db *DB) GroupsByID(ctx context.Context, appID, viewer string, guids []string) (map[string]chat.Group, error) {
	out := map[string]chat.Group{}
	if len(guids) == 0 {
		return out, nil
	}
	args := []any{appID, viewer}
	for _, g := range guids {
		args = append(args, g)
	}
	run := db.read(ctx)
	err := each(run.rows(`SELECT `+groupColumns+`, `+viewerColumns("$2")+` FROM groups g`+viewerJoin("$2")+
		` WHERE g.app_id = $1 AND g.guid IN (`+placeholders(3, len(guids))+`)`, args...), func(s scanner) error {
		g, err := scanGroup(s, appID, true)
		if viewer == "" {
			g.Viewer = nil
		}
		out[g.GUID] = g
		return err
	})
	if err != nil {
		return nil, err
	}
	tags, err := groupTags(run, appID, guids)
	for guid, g := range out {
		g.Tags = tags[guid]
		out[guid] = g
	}
	return out, err
}

// LockConversation reads a conversation's row for the transaction (chat.ConversationTx).
func (tx txStore) LockConversation(appID, id string) (chat.ConversationRow, error) {
	var r chat.ConversationRow
	err := tx.row(`SELECT c.conversation_id, c.kind, c.uid_a, c.uid_b, c.guid, c.last_message_id, c.last_seq, c.created_at, c.updated_at
		FROM conversations c WHERE c.app_id = $1 AND c.conversation_id = $2`+tx.db.dialect.forUpdate, appID, id).
		Scan(&r.ID, &r.Kind, &r.UIDA, &r.UIDB, &r.GUID, &r.LastMessageID, &r.LastSeq, &r.CreatedAt, &r.UpdatedAt)
	return r, mapErr(err)
}

// MessageSeq reads a message's conversation and the seq of the last counted message at or
// before it (chat.ConversationTx): one step back along the conversation's index.
func (tx txStore) MessageSeq(appID string, id int64) (string, int64, error) {
	var conv string
	if err := tx.row(`SELECT conversation_id FROM messages WHERE app_id = $1 AND id = $2 AND parent_id = 0`, appID, id).Scan(&conv); err != nil {
		return "", 0, mapErr(err)
	}
	var seq int64
	err := tx.row(`SELECT seq FROM messages WHERE app_id = $1 AND conversation_id = $2 AND id <= $3 AND seq > 0 ORDER BY id DESC LIMIT 1`,
		appID, conv, id).Scan(&seq)
	if errors.Is(mapErr(err), chat.ErrNotFound) {
		return conv, 0, nil
	}
	return conv, seq, mapErr(err)
}

// MarkerForChange reads a marker inside the transaction (chat.ConversationTx).
func (tx txStore) MarkerForChange(appID, uid, conversationID string) (chat.Marker, error) {
	var mk chat.Marker
	var tags sql.NullString
	err := tx.row(markerQuery, appID, uid, conversationID).Scan(&mk.ReadID, &mk.ReadSeq, &mk.DeliveredID, &mk.ResetID, &tags, &mk.UpdatedAt, &mk.PinnedAt)
	if errors.Is(mapErr(err), chat.ErrNotFound) {
		return chat.Marker{}, nil
	}
	if err != nil {
		return mk, mapErr(err)
	}
	if tags.Valid {
		err = json.Unmarshal([]byte(tags.String), &mk.Tags)
	}
	return mk, err
}

// SaveMarker writes a marker (chat.ConversationTx). Of the counts it keeps (unread.go) it
// writes only those of a marker read up to the conversation's last message, which nothing
// follows: 0 (the caller holds the conversation's lock, so its last message stands); a
// marker read up to an earlier one is recounted (RecountUnread).
func (tx txStore) SaveMarker(appID, uid, conversationID string, m chat.Marker) error {
	var tags any
	if m.Tags != nil {
		b, _ := json.Marshal(m.Tags)
		tags = string(b)
	}
	_, err := tx.exec(`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, reset_id, tags, updated_at, pinned_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET read_id = excluded.read_id, read_seq = excluded.read_seq,
		delivered_id = excluded.delivered_id, reset_id = excluded.reset_id, tags = excluded.tags, updated_at = excluded.updated_at,
		pinned_at = excluded.pinned_at,
		unread_own = CASE WHEN excluded.read_id >= (SELECT last_message_id FROM conversations c
			WHERE c.app_id = excluded.app_id AND c.conversation_id = excluded.conversation_id) THEN 0 ELSE conversation_markers.unread_own END,
		unread_mentions = CASE WHEN excluded.read_id >= (SELECT last_message_id FROM conversations c
			WHERE c.app_id = excluded.app_id AND c.conversation_id = excluded.conversation_id) THEN 0 ELSE conversation_markers.unread_mentions END`,
		appID, uid, conversationID, m.ReadID, m.ReadSeq, m.DeliveredID, m.ResetID, tags, m.UpdatedAt, m.PinnedAt)
	return mapErr(err)
}

// MarkJoined reads a group conversation up to now for a joining user (chat.ConversationTx):
// nothing follows its read marker, so its kept counts are 0. On PostgreSQL the conversation's
// lock comes first, as a send's does, so that no send comes between the last message read
// here and the marker.
func (tx txStore) MarkJoined(appID, uid, conversationID string, at int64) error {
	if tx.db.dialect.concurrentWrites {
		if _, err := tx.exec(`SELECT 1 FROM conversations WHERE app_id = $1 AND conversation_id = $2`+tx.db.dialect.forUpdate,
			appID, conversationID); err != nil {
			return mapErr(err)
		}
	}
	_, err := tx.exec(`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, updated_at)
		SELECT app_id, $2, conversation_id, last_message_id, last_seq, last_message_id, $4 FROM conversations
		WHERE app_id = $1 AND conversation_id = $3
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET read_id = excluded.read_id, read_seq = excluded.read_seq,
		delivered_id = excluded.delivered_id, updated_at = excluded.updated_at, unread_own = 0, unread_mentions = 0`, appID, uid, conversationID, at)
	return mapErr(err)
}

// StampReceipts stamps delivery or reading on one-to-one messages (chat.ConversationTx):
// only the range the marker newly covers, so each message is stamped once.
func (tx txStore) StampReceipts(appID, conversationID, reader string, after, upTo int64, read bool, at int64) error {
	col := "delivered_at"
	if read {
		col = "read_at"
	}
	q := `UPDATE messages SET ` + col + ` = $1` // reading a message delivers it too
	if read {
		q += `, delivered_at = CASE WHEN delivered_at = 0 THEN $1 ELSE delivered_at END`
	}
	_, err := tx.exec(q+` WHERE app_id = $2 AND conversation_id = $3 AND id > $4 AND id <= $5 AND sender <> $6
		AND receiver_type = 'user' AND `+col+` = 0`, at, appID, conversationID, after, upTo, reader)
	return mapErr(err)
}

// ResetConversationForAll hides a conversation's history from every party (chat.ConversationTx):
// a reset marker for each of a one-to-one conversation's users, or each of a group's members,
// as if each had reset it. Each has read up to the last message, under the conversation's
// lock (chat.Service.DeleteConversationForAll): its kept counts are 0.
func (tx txStore) ResetConversationForAll(appID, id string, upTo int64, at int64) error {
	parties := `SELECT uid_a FROM conversations WHERE app_id = $1 AND conversation_id = $2 AND kind = 'user'
		UNION SELECT uid_b FROM conversations WHERE app_id = $1 AND conversation_id = $2 AND kind = 'user'
		UNION SELECT gm.uid FROM group_members gm JOIN conversations c ON c.app_id = gm.app_id AND c.guid = gm.guid
			WHERE c.app_id = $1 AND c.conversation_id = $2 AND c.kind = 'group'`
	_, err := tx.exec(`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, reset_id, updated_at)
		SELECT $1, p.uid_a, $2, c.last_message_id, c.last_seq, c.last_message_id, $3, $4
		FROM (`+parties+`) p JOIN conversations c ON c.app_id = $1 AND c.conversation_id = $2
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET reset_id = excluded.reset_id, read_id = excluded.read_id,
		read_seq = excluded.read_seq, delivered_id = excluded.delivered_id, updated_at = excluded.updated_at,
		unread_own = 0, unread_mentions = 0`, appID, id, upTo, at)
	return mapErr(err)
}
