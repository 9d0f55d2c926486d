package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// likeContains escapes s for a LIKE that finds it anywhere, with '\' as the escape
// character.
func likeContains(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// messageWhere is the WHERE clause of q without its cursor; arg binds a value.
func (db *DB) messageWhere(q chat.MessageQuery, arg func(any) string) string {
	w := []string{`m.app_id = $1`}
	if q.ConversationID != "" {
		w = append(w, `m.conversation_id = `+arg(q.ConversationID))
	} else if q.Viewer != "" {
		v := arg(q.Viewer)
		w = append(w, `((m.receiver_type = 'user' AND (m.sender = `+v+` OR m.receiver = `+v+`)) OR (m.receiver_type = 'group'
			AND EXISTS (SELECT 1 FROM group_members gm WHERE gm.app_id = m.app_id AND gm.guid = m.receiver AND gm.uid = `+v+`)))`)
	}
	switch {
	case q.ParentID != 0:
		w = append(w, `m.parent_id = `+arg(q.ParentID))
	case q.HideReplies || q.Unread:
		w = append(w, `m.parent_id = 0`)
	}
	if q.HiddenUpTo > 0 {
		w = append(w, `m.id > `+arg(q.HiddenUpTo))
	}
	if q.SentFrom > 0 {
		w = append(w, `m.sent_at >= `+arg(q.SentFrom))
	}
	if q.SentTo > 0 {
		w = append(w, `m.sent_at <= `+arg(q.SentTo))
	}
	list := func(vals []string) string {
		ph := make([]string, len(vals))
		for i, v := range vals {
			ph[i] = arg(v)
		}
		return strings.Join(ph, ", ")
	}
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			w = append(w, col+` IN (`+list(vals)+`)`)
		}
	}
	in(`m.category`, q.Categories)
	in(`m.type`, q.Types)
	// The viewer's permissions hide the messages and custom messages of other categories,
	// and the messages of other types; actions and calls stay.
	if len(q.AllowedCategories) > 0 {
		w = append(w, `(m.category NOT IN ('message', 'custom') OR m.category IN (`+list(q.AllowedCategories)+`))`)
	}
	if len(q.AllowedTypes) > 0 {
		w = append(w, `(m.category <> 'message' OR m.type IN (`+list(q.AllowedTypes)+`))`)
	}
	if q.Sender != "" {
		w = append(w, `m.sender = `+arg(q.Sender))
	}
	if len(q.Senders) > 0 {
		w = append(w, `m.sender IN (`+inList(arg, q.Senders)+`)`)
	}
	if q.Sent.Set() {
		w = append(w, strings.TrimPrefix(rangeWhere(`m.sent_at`, q.Sent, arg), " AND "))
	}
	// Updated: edited or deleted, the only writes that move updatedAt off sentAt (imports
	// keep them equal); the hosted service's "updatedAt differs from createdAt". The terms
	// are the partial indexes' own (migration 0031), which serve the ranges.
	if q.Updated.Set() {
		w = append(w, `(m.edited_at > 0 OR m.deleted_at > 0)`+rangeWhere(`m.updated_at`, q.Updated, arg))
	}
	if q.Edited.Set() {
		w = append(w, `m.edited_at > 0`+rangeWhere(`m.edited_at`, q.Edited, arg))
	}
	if q.ReceiverType != "" {
		w = append(w, `m.receiver_type = `+arg(q.ReceiverType))
	}
	if q.SearchKey != "" {
		// data.text, or an interactive message's visible text (search_text, '' for the
		// others): what a reader sees, not the interactiveData's keys and ids.
		like := likeContains(strings.ToLower(q.SearchKey))
		w = append(w, `(lower(`+db.dialect.dataText+`) LIKE `+arg(like)+` ESCAPE '\' OR lower(m.search_text) LIKE `+arg(like)+` ESCAPE '\')`)
	}
	if q.HasLinks {
		w = append(w, `(`+db.dialect.dataText+` LIKE '%http://%' OR `+db.dialect.dataText+` LIKE '%https://%')`)
	}
	if q.HideDeleted {
		w = append(w, `m.deleted_at = 0`)
	}
	if q.OnlyDeleted {
		w = append(w, `m.deleted_at > 0`)
	}
	if q.HasReactions {
		w = append(w, `EXISTS (SELECT 1 FROM reaction_counts rc WHERE rc.message_id = m.id)`)
	}
	if q.OnlyGoalCompleted {
		goal := `EXISTS (SELECT 1 FROM message_goals mg WHERE mg.app_id = m.app_id AND mg.message_id = m.id`
		if q.Viewer != "" {
			goal += ` AND mg.uid = ` + arg(q.Viewer)
		}
		w = append(w, `m.category = 'interactive'`, goal+`)`)
	}
	if q.HasAttachments || len(q.AttachmentTypes) > 0 {
		w = append(w, `m.category = 'message'`)
		types := q.AttachmentTypes
		if len(types) == 0 {
			types = []string{"image", "video", "audio", "file"}
		}
		in(`m.type`, types)
	}
	if len(q.Tags) > 0 {
		var ors []string
		for _, t := range q.Tags {
			enc, _ := json.Marshal(t) // the tag as it appears in the stored JSON array
			ors = append(ors, `m.tags LIKE `+arg(likeContains(string(enc)))+` ESCAPE '\'`)
		}
		w = append(w, `(`+strings.Join(ors, " OR ")+`)`)
	}
	if q.Unread {
		w = append(w, `m.id > `+arg(q.UnreadAfter), `m.sender <> `+arg(q.Viewer), `m.category IN ('message', 'custom')`)
	}
	if q.Pinned {
		w = append(w, `m.pinned_at > 0`)
	}
	if q.SavedBy != "" {
		w = append(w, `EXISTS (SELECT 1 FROM saved_messages sv WHERE sv.app_id = m.app_id AND sv.uid = `+arg(q.SavedBy)+` AND sv.message_id = m.id)`)
	}
	if q.HideBlockedFor != "" {
		w = append(w, `NOT EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = m.app_id AND b.uid = `+arg(q.HideBlockedFor)+` AND b.blocked_uid = m.sender)`)
	}
	// The mention filters narrow each other.
	if q.MentionsOf != "" {
		w = append(w, `EXISTS (SELECT 1 FROM message_mentions mm WHERE mm.message_id = m.id AND mm.uid = `+arg(q.MentionsOf)+`)`)
	}
	if len(q.MentionedUIDs) > 0 {
		ph := make([]string, len(q.MentionedUIDs))
		for i, u := range q.MentionedUIDs {
			ph[i] = arg(u)
		}
		w = append(w, `EXISTS (SELECT 1 FROM message_mentions mm WHERE mm.message_id = m.id AND mm.uid IN (`+strings.Join(ph, ", ")+`))`)
	}
	if q.HasMentions {
		w = append(w, `EXISTS (SELECT 1 FROM message_mentions mm WHERE mm.message_id = m.id)`)
	}
	return ` WHERE ` + strings.Join(w, " AND ")
}

// pageColumns are a message's own columns, without its entities: a page reads its users
// once each (completePage) rather than joining them on every row. They were once
// messageColumns with the entity columns as NULLs, 42 columns of which 18 were constants:
// on SQLite each column of each row is a driver call through database/sql (a type, a value,
// a conversion), and a page of 50 paid for 900 constants (issue 39's finding 2).
var pageColumns = strings.TrimSuffix(strings.TrimSpace(messageColumns[:strings.Index(messageColumns, "s.name")]), ",")

// completePage reads what a page of messages needs beside its rows, a query for each kind
// rather than one per row: the senders' and user receivers' entities, the reaction
// summaries with viewer's reactions, and what completeMessages reads.
//
// With quoted, the messages the page quotes too (pageQuoted); and for a viewer, its
// interactions with the page's interactive messages (pageInteractions): each one more query
// for a page that has any, none for one that has none.
func (db *DB) completePage(run runner, appID, viewer string, ms []chat.Message, quoted bool) error {
	if len(ms) == 0 {
		return nil
	}
	var uids []string
	var ids []int64
	for _, m := range ms {
		for _, u := range []string{m.Sender, m.Receiver} {
			if (u == m.Sender || m.ReceiverType == chat.ReceiverUser) && !slices.Contains(uids, u) {
				uids = append(uids, u)
			}
		}
		if m.Category != chat.CategoryAction {
			ids = append(ids, m.ID)
		}
	}
	// Each list is bound as one argument (dialect.inIDs), so that the statements' text stays
	// the same from page to page and prepared. The three reads need only the page: one round
	// trip on PostgreSQL (pipeline).
	users := map[string]chat.Entity{}
	counts := map[int64][]chat.ReactionSummary{}
	saved, followed := map[int64]int64{}, map[int64]bool{}
	reads := []pipedRead{{query: db.dialect.pageQueries[0], args: []any{appID, db.dialect.uidsArg(uids)}, row: func(s scanner) error {
		u, err := scanUser(s, appID)
		users[u.UID] = u.Entity()
		return err
	}}}
	if len(ids) > 0 {
		idsArg := db.dialect.idsArg(ids)
		reads = append(reads, pipedRead{query: db.dialect.pageQueries[1], args: []any{idsArg, viewer}, row: func(s scanner) error {
			var id int64
			var r chat.ReactionSummary
			err := s.Scan(&id, &r.Reaction, &r.Count, &r.ReactedByMe)
			counts[id] = append(counts[id], r)
			return err
		}})
		if viewer != "" {
			reads = append(reads,
				// The viewer's saves and follows, along their tables' keys.
				pipedRead{query: db.dialect.pageQueries[2], args: []any{appID, viewer, idsArg}, row: func(s scanner) error {
					var id, at, follows int64
					err := s.Scan(&id, &at, &follows)
					if follows == 1 {
						followed[id] = true
					} else {
						saved[id] = at
					}
					return err
				}})
		}
	}
	if err := db.pipeline(run, reads); err != nil {
		return err
	}
	who := func(uid string) chat.Entity {
		if e, ok := users[uid]; ok {
			return e
		}
		return entity(uid, entityColumns{})
	}
	if err := loadMentions(run, appID, viewer, ms); err != nil {
		return err
	}
	for i := range ms {
		ms[i].SavedAt, ms[i].ThreadSubscribed = saved[ms[i].ID], followed[ms[i].ID]
		m := &ms[i]
		m.SenderEntity = who(m.Sender)
		if m.ReceiverType == chat.ReceiverUser {
			m.ReceiverEntity = who(m.Receiver)
		}
		m.Reactions = counts[m.ID]
	}
	if err := db.completeMessages(run, appID, ms); err != nil {
		return err
	}
	for i := range ms {
		ms[i].MarkTargetConversation(viewer)
	}
	if quoted {
		if err := db.pageQuoted(run, appID, ms); err != nil {
			return err
		}
	}
	return db.pageInteractions(run, appID, viewer, ms)
}

// ListMessages lists messages in id order (chat.HistoryStore).
func (db *DB) ListMessages(ctx context.Context, appID string, q chat.MessageQuery) ([]chat.Message, error) {
	args := []any{appID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	where := db.messageWhere(q, arg)
	order := ` ORDER BY m.id`
	switch {
	case q.Prepend:
		if q.BeforeID > 0 {
			where += ` AND m.id < ` + arg(q.BeforeID)
		}
		order = ` ORDER BY m.id DESC`
	case q.AfterID > 0:
		where += ` AND m.id > ` + arg(q.AfterID)
	}
	run := db.read(ctx)
	// fixedRows: the text is one of the few its filters make (messageWhere), and SQLite's
	// parse of it was an eighth of a history page's CPU.
	ms, err := collect(run.fixedRows(`SELECT `+pageColumns+` FROM messages m`+where+order+` LIMIT `+arg(q.Limit), args...),
		func(s scanner) (chat.Message, error) { return scanPageMessage(s, appID) })
	if err != nil {
		return nil, err
	}
	if err := db.completePage(run, appID, q.Viewer, ms, !q.HideQuoted); err != nil {
		return nil, err
	}
	if q.Prepend {
		slices.Reverse(ms)
	}
	if q.Viewer != "" {
		if err := db.unreadReplies(run, appID, q.Viewer, ms); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// CountMessages counts what q selects (chat.HistoryStore). A conversation's unread count
// with no other filter is the one the conversation list shows, read from the kept counts
// (keptUnread).
func (db *DB) CountMessages(ctx context.Context, appID string, q chat.MessageQuery) (int64, error) {
	if n, ok, err := db.keptUnread(ctx, appID, q); ok || err != nil {
		return n, err
	}
	args := []any{appID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	var n int64
	err := db.read(ctx).row(`SELECT COUNT(*) FROM messages m`+db.messageWhere(q, arg), args...).Scan(&n)
	return n, mapErr(err)
}

// completeMessages reads, for a page of messages, what completeMessage reads for one: the
// group receivers, the users groupMember actions are about, and the messages edits and
// deletions are about, each in one query.
func (db *DB) completeMessages(run runner, appID string, ms []chat.Message) error {
	var guids, uids []string
	var targets []int64
	for _, m := range ms {
		if m.ReceiverType == chat.ReceiverGroup && !slices.Contains(guids, m.Receiver) {
			guids = append(guids, m.Receiver)
		}
		if m.TargetUID != "" && !slices.Contains(uids, m.TargetUID) {
			uids = append(uids, m.TargetUID)
		}
		if m.TargetID != 0 {
			targets = append(targets, m.TargetID)
		}
	}
	groups := map[string]*chat.Group{}
	if len(guids) > 0 {
		args := []any{appID}
		for _, g := range guids {
			args = append(args, g)
		}
		err := each(run.rows(`SELECT `+groupColumns+` FROM groups g WHERE g.app_id = $1 AND g.guid IN (`+placeholders(2, len(guids))+`)`, args...),
			func(s scanner) error {
				g, err := scanGroup(s, appID, false)
				groups[g.GUID] = &g
				return err
			})
		if err != nil {
			return err
		}
		tags, err := groupTags(run, appID, guids)
		if err != nil {
			return err
		}
		for guid, g := range groups {
			g.Tags = tags[guid]
		}
	}
	users := map[string]chat.Entity{}
	if len(uids) > 0 {
		args := []any{appID}
		for _, u := range uids {
			args = append(args, u)
		}
		err := each(run.rows(`SELECT `+userColumns+` FROM users WHERE app_id = $1 AND uid IN (`+placeholders(2, len(uids))+`)`, args...),
			func(s scanner) error {
				u, err := scanUser(s, appID)
				users[u.UID] = u.Entity()
				return err
			})
		if err != nil {
			return err
		}
	}
	acted := map[int64]*chat.Message{}
	if len(targets) > 0 {
		args := []any{appID}
		for _, id := range targets {
			args = append(args, id)
		}
		err := each(run.rows(`SELECT `+messageColumns+db.dialect.messagesFromByID+` WHERE m.app_id = $1 AND m.id IN (`+placeholders(2, len(targets))+`)`, args...),
			func(s scanner) error {
				t, _, err := scanMessage(s, appID)
				acted[t.ID] = &t
				return err
			})
		if err != nil {
			return err
		}
	}
	for i := range ms {
		m := &ms[i]
		if m.ReceiverType == chat.ReceiverGroup {
			m.ReceiverGroup = groups[m.Receiver]
		}
		if m.TargetUID != "" {
			e, ok := users[m.TargetUID]
			if !ok {
				e = chat.Entity{UID: m.TargetUID}
			}
			m.TargetUser = &e
		}
		if t := acted[m.TargetID]; t != nil {
			tc := *t
			if tc.ReceiverType == chat.ReceiverGroup {
				tc.ReceiverGroup = groups[tc.Receiver]
			}
			m.Target = &tc
		}
	}
	return nil
}

// unreadReplies sets, on thread parents, how many of their replies from others the viewer
// has not read: the replies after its read marker of the conversation.
func (db *DB) unreadReplies(run runner, appID, viewer string, ms []chat.Message) error {
	reads := map[string]int64{}
	for i := range ms {
		m := &ms[i]
		if m.ReplyCount == 0 {
			continue
		}
		read, ok := reads[m.ConversationID]
		if !ok {
			mk, err := db.marker(run, appID, viewer, m.ConversationID)
			if err != nil {
				return err
			}
			read, reads[m.ConversationID] = mk.ReadID, mk.ReadID
		}
		n, err := unreadReplies(run, appID, viewer, m, read)
		if err != nil {
			return err
		}
		m.UnreadReplies = n
	}
	return nil
}

// unreadReplies counts the replies from others in parent's thread after read, uid's read
// marker of the conversation, without walking them: the thread's count, less the place of
// the last reply at or before the marker (one step of messages_thread), less uid's own
// replies after it (its own messages in the conversation after the marker, usually none
// or a few).
func unreadReplies(run runner, appID, uid string, parent *chat.Message, read int64) (int64, error) {
	var seen, own int64
	if err := run.row(`SELECT COALESCE((SELECT thread_seq FROM messages WHERE parent_id > 0 AND parent_id = $1 AND id <= $2
		ORDER BY id DESC LIMIT 1), 0)`, parent.ID, read).Scan(&seen); err != nil {
		return 0, mapErr(err)
	}
	// The bound on id is written as a row comparison in messages_sender's order (app_id,
	// sender, conversation_id, id): a range that index serves and the primary key cannot.
	// Written as id > $4, PostgreSQL's generic plan (a prepared statement's, from its sixth
	// run) walked messages_pkey from the marker, every message of the app after it
	// (TestThreadListCost: 10,005 rows at 10,000 replies, not the 0 of its custom plan).
	if err := run.row(`SELECT COUNT(*) FROM messages WHERE app_id = $1 AND sender = $2 AND conversation_id = $3
		AND (sender, conversation_id, id) > ($2, $3, $4) AND parent_id = $5`,
		appID, uid, parent.ConversationID, read, parent.ID).Scan(&own); err != nil {
		return 0, mapErr(err)
	}
	return max(parent.ReplyCount-seen-own, 0), nil
}

const markerQuery = `SELECT read_id, read_seq, delivered_id, reset_id, tags, updated_at, pinned_at FROM conversation_markers
	WHERE app_id = $1 AND uid = $2 AND conversation_id = $3`

// Marker is a user's marker of a conversation (chat.HistoryStore).
func (db *DB) Marker(ctx context.Context, appID, uid, conversationID string) (chat.Marker, error) {
	return db.marker(db.read(ctx), appID, uid, conversationID)
}

func (db *DB) marker(run runner, appID, uid, conversationID string) (chat.Marker, error) {
	var mk chat.Marker
	var tags sql.NullString
	err := run.fixed(markerQuery, appID, uid, conversationID).Scan(&mk.ReadID, &mk.ReadSeq, &mk.DeliveredID, &mk.ResetID, &tags, &mk.UpdatedAt, &mk.PinnedAt)
	if err != nil && !errors.Is(mapErr(err), chat.ErrNotFound) {
		return mk, mapErr(err)
	}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &mk.Tags); err != nil {
			return mk, err
		}
	}
	return mk, nil
}
