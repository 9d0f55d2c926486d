package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// CreateMessage inserts m and sets m.ID.
func (db *DB) CreateMessage(ctx context.Context, m *chat.Message, events ...chat.OutboxEvent) error {
	return db.eng.createMessage(ctx, m, events)
}

// insertMessageWithEvents is insertMessage, then the outbox events of the new message.
func insertMessageWithEvents(tx *wtx, m *chat.Message, events []chat.OutboxEvent) error {
	if err := insertMessage(tx, m); err != nil {
		return err
	}
	for _, ev := range events {
		ev.MessageID, ev.Ref.MessageID = m.ID, m.ID
		if err := insertOutbox(tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// insertMessage stores a message and keeps its conversation's row (docs/read-model.md): a
// top-level message moves the conversation's last message and, when it counts, takes the
// next seq, under the conversation row's lock, and counts on the kept unread counts of its
// sender and of whom it mentions (unread.go); a thread reply counts on its parent. The files
// it carries are marked attached first (files.go).
func insertMessage(tx *wtx, m *chat.Message) error {
	if err := attachFiles(tx, m.AppID, m.Files); err != nil {
		return err
	}
	if err := insertMessageRow(tx, m); err != nil {
		return err
	}
	if err := insertMentions(tx, m); err != nil {
		return err
	}
	return countMessage(tx, m)
}

func insertMessageRow(tx *wtx, m *chat.Message) error {
	if err := tx.db.eng.lockConversation(tx, m); err != nil {
		return err
	}
	if m.ID != 0 {
		return insertMessageWithID(tx, m)
	}
	if m.ParentID != 0 {
		if err := tx.fixed(insertMessageQuery, insertMessageArgs(m, 0)...).Scan(&m.ID); err != nil {
			return err
		}
		return insertReply(tx, m)
	}
	if !movesConversation(m) {
		return tx.fixed(insertMessageQuery, insertMessageArgs(m, 0)...).Scan(&m.ID)
	}
	// The message takes its seq from the conversation's row, then the row counts it: on
	// SQLite's single writer nothing comes between; on PostgreSQL the sends take the
	// row's lock first (postgres_engine.go), and what comes here (group membership changes)
	// holds its group's lock and never counts.
	args := insertMessageArgs(m, 0)
	args[14] = 0
	if m.Counts() {
		args[14] = 1
	}
	if tx.db.dialect.lastInsertID {
		res, err := tx.exec(insertSeqQuery, args...)
		if err != nil {
			return err
		}
		if m.ID, err = res.LastInsertId(); err != nil {
			return err
		}
	} else if err := tx.fixed(insertSeqQuery+` RETURNING id`, args...).Scan(&m.ID); err != nil {
		return err
	}
	_, err := tx.exec(countConversationQuery, append(upsertConversationArgs(m), m.ID)...)
	return err
}

// insertMessageWithID stores a message under the id it already has: one a moderation rule
// held, whose id was taken from the messages' sequence then (InsertBlocked). It is rare, so
// it runs the plain statements with the id added rather than prepared ones of its own.
func insertMessageWithID(tx *wtx, m *chat.Message) error {
	args := insertMessageArgs(m, 0)
	if m.ParentID != 0 || !movesConversation(m) {
		if _, err := tx.exec(insertMessageWithIDQuery, append(args, m.ID)...); err != nil {
			return err
		}
		if m.ParentID != 0 {
			return insertReply(tx, m)
		}
		return nil
	}
	if m.Counts() {
		args[14] = 1
	}
	if _, err := tx.exec(insertSeqWithIDQuery, append(args, m.ID)...); err != nil {
		return err
	}
	_, err := tx.exec(countConversationQuery, append(upsertConversationArgs(m), m.ID)...)
	return err
}

// insertMessageWithIDQuery and insertSeqWithIDQuery are insertMessageQuery (without its
// RETURNING) and insertSeqQuery naming the id, $19, after insertMessageArgs' eighteen.
var (
	insertMessageWithIDQuery = withMessageID(splice(insertMessageQuery, ` RETURNING id`, ``))
	insertSeqWithIDQuery     = withMessageID(insertSeqQuery)
)

func withMessageID(q string) string {
	mustNextParam(q, 19)
	q = splice(q, `INSERT INTO messages (app_id,`, `INSERT INTO messages (id, app_id,`)
	return splice(q, `VALUES ($1,`, `VALUES ($19, $1,`)
}

func insertMessageArgs(m *chat.Message, seq int64) []any {
	var tags any
	if len(m.Tags) > 0 {
		b, _ := json.Marshal(m.Tags)
		tags = string(b)
	}
	return []any{m.AppID, m.ConversationID, m.Sender, m.ReceiverType, m.Receiver, m.Category, m.Type, string(m.Data), tags,
		m.MUID, m.TargetID, m.SentAt, m.UpdatedAt, m.TargetUID, seq, m.ParentID, m.QuotedID, searchText(m)}
}

// searchText is what searchKey reads besides data.text (migration 0062): an interactive
// message's visible text, ” for the others.
func searchText(m *chat.Message) string {
	if m.Category == chat.CategoryInteractive {
		return chat.InteractiveText(m.Data)
	}
	return ""
}

// movesConversation reports whether m becomes its conversation's last message: a message
// that counts, or a group membership change (CometChat's conversations show those last). An
// edit or a deletion records itself in the history but leaves the conversation as it was.
func movesConversation(m *chat.Message) bool {
	return m.Counts() || m.Category == chat.CategoryAction && m.Type == "groupMember"
}

// upsertConversationArgs are the conversation row's values for m: its kind and parties,
// and 1 when m counts.
func upsertConversationArgs(m *chat.Message) []any {
	a, b, guid := "", "", ""
	if m.ReceiverType == chat.ReceiverGroup {
		guid = m.Receiver
	} else {
		a, b = m.Sender, m.Receiver
		if m.Category == chat.CategoryAction && m.Target != nil { // an action's sender may be the app
			a, b = m.Target.Sender, m.Target.Receiver
		}
		if b < a {
			a, b = b, a
		}
	}
	counted := 0
	if m.Counts() {
		counted = 1
	}
	return []any{m.AppID, m.ConversationID, m.ReceiverType, a, b, guid, counted, m.SentAt}
}

const (
	insertMessageQuery = `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at, target_uid, seq, parent_id, quoted_id, search_text)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id`
	// upsertConversationQuery creates a conversation with its first message, or counts one
	// more; it takes the row's lock, so a conversation's seqs follow its message ids.
	upsertConversationQuery = `INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_seq, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
		ON CONFLICT (app_id, conversation_id) DO UPDATE SET last_seq = conversations.last_seq + excluded.last_seq,
		updated_at = excluded.updated_at RETURNING last_seq`
	// insertSeqQuery inserts a message that moves its conversation, with the conversation's
	// next seq when $15 is 1, and countConversationQuery then counts it in the row, creating
	// the row with the conversation's first message. The last message only moves forward.
	insertSeqQuery = `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at, target_uid, seq, parent_id, quoted_id, search_text)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
		CASE WHEN $15 = 1 THEN COALESCE((SELECT last_seq FROM conversations WHERE app_id = $1 AND conversation_id = $2), 0) + 1 ELSE 0 END, $16, $17, $18)`
	countConversationQuery = `INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_seq, created_at, updated_at, last_message_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
		ON CONFLICT (app_id, conversation_id) DO UPDATE SET last_seq = conversations.last_seq + excluded.last_seq,
		updated_at = excluded.updated_at, last_message_id = CASE WHEN excluded.last_message_id > conversations.last_message_id
		THEN excluded.last_message_id ELSE conversations.last_message_id END`
)

// The message with both parties' short user shapes and whether each is still active, in one
// query.
const messageSelect = `SELECT ` + messageColumns + messageFrom

const (
	messageColumns = `m.id, m.conversation_id, m.sender, m.receiver_type, m.receiver, m.category, m.type,
	m.data, m.tags, m.muid, m.target_id, m.target_uid, m.parent_id, m.reply_count, m.edited_at, m.edited_by, m.delivered_at, m.read_at, m.sent_at, m.updated_at, m.deleted_at, m.deleted_by, m.pinned_at, m.pinned_by, m.quoted_id,
	s.name, s.avatar, s.role, s.status, s.created_at, s.last_active_at, s.link, s.updated_at,
	r.name, r.avatar, r.role, r.status, r.created_at, r.last_active_at, r.link, r.updated_at,
	COALESCE(s.deactivated_at + s.deleted_at, -1), COALESCE(r.deactivated_at + r.deleted_at, -1)`
	messageFrom = `
	FROM messages m
	LEFT JOIN users s ON s.app_id = m.app_id AND s.uid = m.sender
	LEFT JOIN users r ON r.app_id = m.app_id AND r.uid = m.receiver AND m.receiver_type = 'user'`
)

const messageQuery = messageSelect + ` WHERE m.app_id = $1 AND m.id = $2`

// actableMessageQuery is messageQuery for a write transaction: action messages are not acted
// on.
const actableMessageQuery = messageQuery + ` AND m.category <> 'action'`

// The reaction summary, in two columns: each distinct reaction and its count in
// first-appearance order (first_id is the id of the row that made it appear; ids grow with
// time), and the viewer's own reactions, for reactedByMe. Reading ~20 rows one by one
// through database/sql costs several times these two values. The separators are ASCII unit
// (31) and record (30) separators, which a reaction cannot contain: chat.ValidateReaction
// refuses control characters. SQLite's group_concat keeps the order of its ordered
// subquery, which the primary key serves without a sort. $1 is the message id, $2 the
// viewer.
const (
	summaryCountsSQLite = `(SELECT group_concat(reaction || char(31) || count, char(30)) FROM
		(SELECT reaction, count FROM reaction_counts WHERE message_id = $1 ORDER BY first_id))`
	summaryColumnsSQLite = summaryCountsSQLite + `,
	(SELECT group_concat(reaction, char(30)) FROM reactions WHERE message_id = $1 AND uid = $2)`
	summaryCountsPostgres  = `(SELECT string_agg(reaction || chr(31) || count, chr(30) ORDER BY first_id) FROM reaction_counts WHERE message_id = $1)`
	summaryColumnsPostgres = summaryCountsPostgres + `,
	(SELECT string_agg(reaction, chr(30)) FROM reactions WHERE message_id = $1 AND uid = $2)`

	summaryQuerySQLite   = `SELECT ` + summaryColumnsSQLite
	summaryQueryPostgres = `SELECT ` + summaryColumnsPostgres
)

// savedColumn is when the viewer ($3) saved the message.
const savedColumn = `(SELECT sv.saved_at FROM saved_messages sv WHERE sv.app_id = m.app_id AND sv.uid = $3 AND sv.message_id = m.id)`

// followedColumn is whether the viewer ($3) follows the message's thread (1, else null).
const followedColumn = `(SELECT ts.subscribed FROM thread_subscriptions ts WHERE ts.app_id = m.app_id AND ts.parent_id = m.id AND ts.uid = $3 AND ts.subscribed = 1)`

// messageViewQuery reads a message and its summary in one statement, for reads outside a
// write transaction: on PostgreSQL a second statement is a second round trip, which costs
// the server more than either query. $1 is the app, $2 the message id, $3 the viewer.
func messageViewQuery(summaryColumns string) string {
	cols := strings.NewReplacer("$1", "m.id", "$2", "$3").Replace(summaryColumns)
	return `SELECT ` + messageColumns + `, ` + cols + `, ` + savedColumn + `, ` + followedColumn + messageFrom + ` WHERE m.app_id = $1 AND m.id = $2`
}

// appMessageViewQuery is messageViewQuery when the app reads (no viewer, and no $3): nobody's
// own reactions, save or follow, so three index probes fewer than asking for user "" (a
// fifth of the store's read on SQLite: BenchmarkMessageRead).
func appMessageViewQuery(summaryCounts string) string {
	return `SELECT ` + messageColumns + `, ` + strings.ReplaceAll(summaryCounts, "$1", "m.id") + `, NULL, NULL, NULL` + messageFrom + ` WHERE m.app_id = $1 AND m.id = $2`
}

// Message returns a message with its entities and reaction summary; an action message
// also carries the message it acted on.
func (db *DB) Message(ctx context.Context, appID string, id int64, viewer string) (chat.Message, error) {
	run := db.read(ctx)
	m, err := db.message(run, appID, id, viewer)
	markMentioned(&m, viewer)
	m.MarkTargetConversation(viewer)
	if err != nil {
		return m, err
	}
	if m.TargetID != 0 {
		t, err := db.message(run, appID, m.TargetID, "")
		if err == nil {
			m.Target = &t
		} else if !errors.Is(err, chat.ErrNotFound) { // a permanently deleted target leaves the action alone
			return m, err
		}
	}
	// Its quoted message, or its target's, and the viewer's interactions: a statement each
	// only for a message that has them.
	ms := []chat.Message{m}
	if err := db.pageQuoted(run, appID, ms); err != nil {
		return m, err
	}
	if err := db.pageInteractions(run, appID, viewer, ms); err != nil {
		return m, err
	}
	return ms[0], nil
}

func (db *DB) message(run runner, appID string, id int64, viewer string) (chat.Message, error) {
	var all, mine sql.NullString
	var saved, followed sql.NullInt64
	query, args := db.dialect.appMessageViewQuery, []any{appID, id}
	if viewer != "" {
		query, args = db.dialect.messageViewQuery, append(args, viewer)
	}
	m, _, err := scanMessage(suffix{run.fixed(query, args...), []any{&all, &mine, &saved, &followed}}, appID)
	m.SavedAt, m.ThreadSubscribed = saved.Int64, followed.Int64 == 1
	if err == nil {
		err = completeMessage(run, &m)
	}
	if err != nil || m.Category == chat.CategoryAction {
		return m, err
	}
	m.Reactions, err = parseSummary(id, all.String, mine.String)
	return m, err
}

// completeMessage reads what a message's row and its joins do not hold, and only group
// messages need: the group receiver's entity, and a groupMember action's user.
func completeMessage(run runner, m *chat.Message) error {
	if m.Category != chat.CategoryAction {
		ms := []chat.Message{*m}
		if err := loadMentions(run, m.AppID, "", ms); err != nil {
			return err
		}
		m.Mentions = ms[0].Mentions
	}
	if m.ReceiverType == chat.ReceiverGroup {
		g, err := scanGroup(run.fixed(`SELECT `+groupColumns+` FROM groups g WHERE g.app_id = $1 AND g.guid = $2`, m.AppID, m.Receiver), m.AppID, false)
		switch {
		case err == nil:
			tags, err := groupTags(run, m.AppID, []string{g.GUID})
			if err != nil {
				return err
			}
			g.Tags = tags[g.GUID]
			m.ReceiverGroup = &g
		case !errors.Is(err, chat.ErrNotFound):
			return err
		}
	}
	if m.TargetUID != "" {
		u, err := scanUser(run.fixed(userQuery, m.AppID, m.TargetUID), m.AppID)
		e := chat.Entity{UID: m.TargetUID}
		switch {
		case err == nil:
			e = u.Entity()
		case !errors.Is(err, chat.ErrNotFound):
			return err
		}
		m.TargetUser = &e
	}
	return nil
}

// parties says, for the sender and the receiver, whether the user row exists and is active.
type parties struct{ sender, receiver partyState }

type partyState int64 // -1: no such user; 0: active; > 0: deactivated or deleted

func scanMessage(row scanner, appID string) (chat.Message, parties, error) {
	m := chat.Message{AppID: appID}
	var data string
	var tags sql.NullString
	var s, r entityColumns
	var p parties
	err := row.Scan(&m.ID, &m.ConversationID, &m.Sender, &m.ReceiverType, &m.Receiver, &m.Category, &m.Type,
		&data, &tags, &m.MUID, &m.TargetID, &m.TargetUID, &m.ParentID, &m.ReplyCount, &m.EditedAt, &m.EditedBy, &m.DeliveredAt, &m.ReadAt, &m.SentAt, &m.UpdatedAt, &m.DeletedAt, &m.DeletedBy, &m.PinnedAt, &m.PinnedBy, &m.QuotedID,
		&s.name, &s.avatar, &s.role, &s.status, &s.createdAt, &s.lastActiveAt, &s.link, &s.updatedAt,
		&r.name, &r.avatar, &r.role, &r.status, &r.createdAt, &r.lastActiveAt, &r.link, &r.updatedAt, &p.sender, &p.receiver)
	if err != nil {
		return m, p, mapErr(err)
	}
	return m, p, finishMessage(&m, data, tags, s, r)
}

// scanPageMessage reads a row of pageColumns: a message's own columns, whose entities
// completePage fills.
func scanPageMessage(row scanner, appID string) (chat.Message, error) {
	m := chat.Message{AppID: appID}
	var data string
	var tags sql.NullString
	err := row.Scan(&m.ID, &m.ConversationID, &m.Sender, &m.ReceiverType, &m.Receiver, &m.Category, &m.Type,
		&data, &tags, &m.MUID, &m.TargetID, &m.TargetUID, &m.ParentID, &m.ReplyCount, &m.EditedAt, &m.EditedBy, &m.DeliveredAt, &m.ReadAt, &m.SentAt, &m.UpdatedAt, &m.DeletedAt, &m.DeletedBy, &m.PinnedAt, &m.PinnedBy, &m.QuotedID)
	if err != nil {
		return m, mapErr(err)
	}
	return m, finishMessage(&m, data, tags, entityColumns{}, entityColumns{})
}

// finishMessage sets what a message's row gives beside its plain columns: its data, tags,
// entities (empty columns give the bare uid, which completePage fills) and action.
func finishMessage(m *chat.Message, data string, tags sql.NullString, s, r entityColumns) error {
	m.Data = json.RawMessage(data)
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &m.Tags); err != nil {
			return err
		}
	}
	m.SenderEntity = entity(m.Sender, s)
	m.ReceiverEntity = entity(m.Receiver, r)
	if m.Category == chat.CategoryAction {
		var a struct{ Action string }
		json.Unmarshal(m.Data, &a)
		m.Action = a.Action
	}
	return nil
}

func (db *DB) summary(run runner, id int64, viewer string) ([]chat.ReactionSummary, error) {
	var all, mine sql.NullString
	if err := run.fixed(db.dialect.summaryQuery, id, viewer).Scan(&all, &mine); err != nil {
		return nil, mapErr(err)
	}
	return parseSummary(id, all.String, mine.String)
}

// parseSummary reads the two summary columns of message id.
func parseSummary(id int64, all, mine string) ([]chat.ReactionSummary, error) {
	if all == "" {
		return nil, nil
	}
	kinds := strings.Split(all, "\x1e")
	out := make([]chat.ReactionSummary, 0, len(kinds))
	for _, k := range kinds {
		reaction, count, ok := strings.Cut(k, "\x1f")
		n, err := strconv.ParseInt(count, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("reaction summary of message %d: malformed entry %q", id, k)
		}
		out = append(out, chat.ReactionSummary{Reaction: reaction, Count: n})
	}
	if mine != "" {
		for _, r := range strings.Split(mine, "\x1e") {
			for i := range out {
				if out[i].Reaction == r {
					out[i].ReactedByMe = true
				}
			}
		}
	}
	return out, nil
}

// entityColumns are a party's columns of the message query; all NULL when its user row is
// gone.
type entityColumns struct {
	name, avatar, role, status, link   sql.NullString
	createdAt, lastActiveAt, updatedAt sql.NullInt64
}

func entity(uid string, c entityColumns) chat.Entity {
	if uid == chat.SystemUID && !c.name.Valid {
		return chat.Entity{UID: uid, Name: "System", Role: chat.DefaultRole, Status: "offline"}
	}
	return chat.Entity{UID: uid, Name: c.name.String, Avatar: c.avatar.String, Role: c.role.String, Status: c.status.String,
		CreatedAt: c.createdAt.Int64, LastActiveAt: c.lastActiveAt.Int64, Link: c.link.String, UpdatedAt: c.updatedAt.Int64}
}

// MessageForChange locks the message and reads it with its reaction summary and, when it
// quotes one, its quoted message as reads show it (chat.MessageTx): an edit's or deletion's
// answer and socket frame carry the on message's quotedMessage as later reads do (one more
// query, for a quoted reply only). On PostgreSQL its conversation's row is locked first: an
// edit's mentions and a purge change the conversation's markers under that lock
// (lockConversationOf), and sends, marks (which stamp messages read) and a user deleted for
// good take the conversation before any message, so taking the message first waited on them
// in a cycle (TestPurgeUserWhileSending).
func (tx txStore) MessageForChange(appID string, id int64) (chat.Message, error) {
	if err := tx.lockConversationOf(appID, id); err != nil {
		return chat.Message{}, err
	}
	if err := tx.db.eng.lockMessages(tx.wtx, []int64{id}); err != nil {
		return chat.Message{}, err
	}
	m, _, err := scanMessage(tx.fixed(actableMessageQuery, appID, id), appID)
	if err == nil {
		err = completeMessage(tx.wtx, &m)
	}
	if err == nil && m.QuotedID != 0 {
		page := []chat.Message{m}
		if err = tx.db.pageQuoted(tx.wtx, appID, page); err == nil {
			m.Quoted = page[0].Quoted
		}
	}
	if err != nil {
		return m, err
	}
	m.Reactions, err = tx.db.summary(tx.wtx, id, "")
	return m, err
}

// MarkMessageDeleted soft-deletes a message (chat.MessageTx).
func (tx txStore) MarkMessageDeleted(appID string, id int64, by string, at int64) error {
	res, err := tx.exec(`UPDATE messages SET deleted_at = $1, deleted_by = $2, updated_at = $1
		WHERE app_id = $3 AND id = $4`, at, by, appID, id)
	return affected(res, err)
}

// PurgeMessage removes a message with its reactions and counts (chat.MessageTx); on
// PostgreSQL no foreign key cascades them, so they go first.
func (tx txStore) PurgeMessage(appID string, id int64) error {
	if err := tx.lockConversationOf(appID, id); err != nil {
		return err
	}
	for _, q := range []string{
		uncountSentQuery, uncountMentionsQuery, purgedSeqQuery,
		`DELETE FROM message_mentions WHERE app_id = $1 AND message_id = $2`,
		`DELETE FROM saved_messages WHERE app_id = $1 AND message_id = $2`,
		`DELETE FROM message_interactions WHERE app_id = $1 AND message_id = $2`,
		`DELETE FROM message_goals WHERE app_id = $1 AND message_id = $2`,
		`DELETE FROM thread_subscriptions WHERE app_id = $1 AND parent_id = $2`,
		`DELETE FROM reactions WHERE app_id = $1 AND message_id = $2`,
		`DELETE FROM reaction_counts WHERE message_id IN (SELECT id FROM messages WHERE app_id = $1 AND id = $2)`,
	} {
		if _, err := tx.exec(q, appID, id); err != nil {
			return err
		}
	}
	res, err := tx.exec(`DELETE FROM messages WHERE app_id = $1 AND id = $2`, appID, id)
	return affected(res, err)
}

// EditMessage writes an edit (chat.MessageTx).
func (tx txStore) EditMessage(m *chat.Message) error {
	var tags any
	if len(m.Tags) > 0 {
		b, _ := json.Marshal(m.Tags)
		tags = string(b)
	}
	res, err := tx.exec(`UPDATE messages SET data = $1, tags = $2, edited_at = $3, edited_by = $4, updated_at = $5
		WHERE app_id = $6 AND id = $7`, string(m.Data), tags, m.EditedAt, m.EditedBy, m.UpdatedAt, m.AppID, m.ID)
	return affected(res, err)
}

// InsertMessage stores a message inside a transaction (chat.MessageTx).
func (tx txStore) InsertMessage(m *chat.Message) error { return insertMessage(tx.wtx, m) }
