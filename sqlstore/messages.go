package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/natter-chat/natter/chat"
)

// CreateMessage inserts m and sets m.ID.
func (db *DB) CreateMessage(ctx context.Context, m *chat.Message) error {
	return db.transact(ctx, func(tx *sql.Tx) error { return db.insertMessage(ctx, tx, m) })
}

func (db *DB) insertMessage(ctx context.Context, tx *sql.Tx, m *chat.Message) error {
	var tags any
	if len(m.Tags) > 0 {
		b, _ := json.Marshal(m.Tags)
		tags = string(b)
	}
	return db.txRow(ctx, tx, insertMessageQuery,
		m.AppID, m.ConversationID, m.Sender, m.ReceiverType, m.Receiver, m.Category, m.Type, string(m.Data), tags,
		m.MUID, m.TargetID, m.SentAt, m.UpdatedAt).Scan(&m.ID)
}

const insertMessageQuery = `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`

// headQuery reads what the rules need of a message inside a write transaction.
const headQuery = `SELECT id, sender, receiver, receiver_type, deleted_at FROM messages
	WHERE app_id = $1 AND id = $2 AND category <> 'action'`

// The message with both parties' short user shapes, in one query.
const messageQuery = `SELECT m.id, m.conversation_id, m.sender, m.receiver_type, m.receiver, m.category, m.type,
	m.data, m.tags, m.muid, m.target_id, m.sent_at, m.updated_at, m.deleted_at, m.deleted_by,
	s.name, s.avatar, s.role, s.status, r.name, r.avatar, r.role, r.status
	FROM messages m
	LEFT JOIN users s ON s.app_id = m.app_id AND s.uid = m.sender
	LEFT JOIN users r ON r.app_id = m.app_id AND r.uid = m.receiver AND m.receiver_type = 'user'
	WHERE m.app_id = $1 AND m.id = $2`

// The reaction summary in first-appearance order, marking viewer's own reactions.
const summaryQuery = `SELECT c.reaction, c.count, EXISTS (SELECT 1 FROM reactions x
	WHERE x.message_id = c.message_id AND x.uid = $2 AND x.reaction = c.reaction)
	FROM reaction_counts c WHERE c.message_id = $1 ORDER BY c.first_at, c.first_id`

// Message returns a message with its entities and reaction summary; an action message
// also carries the message it acted on.
func (db *DB) Message(ctx context.Context, appID string, id int64, viewer string) (chat.Message, error) {
	m, err := db.message(ctx, appID, id, viewer)
	if err != nil || m.TargetID == 0 {
		return m, err
	}
	t, err := db.message(ctx, appID, m.TargetID, "")
	if err == nil {
		m.Target = &t
	} else if !errors.Is(err, chat.ErrNotFound) { // a permanently deleted target leaves the action alone
		return m, err
	}
	return m, nil
}

func (db *DB) message(ctx context.Context, appID string, id int64, viewer string) (chat.Message, error) {
	m := chat.Message{AppID: appID}
	var data string
	var tags sql.NullString
	var s, r [4]sql.NullString
	err := db.readRow(ctx, messageQuery, appID, id).Scan(&m.ID, &m.ConversationID, &m.Sender,
		&m.ReceiverType, &m.Receiver, &m.Category, &m.Type, &data, &tags, &m.MUID, &m.TargetID, &m.SentAt,
		&m.UpdatedAt, &m.DeletedAt, &m.DeletedBy, &s[0], &s[1], &s[2], &s[3], &r[0], &r[1], &r[2], &r[3])
	if err != nil {
		return m, mapErr(err)
	}
	m.Data = json.RawMessage(data)
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &m.Tags); err != nil {
			return m, err
		}
	}
	m.SenderEntity = entity(m.Sender, s)
	m.ReceiverEntity = entity(m.Receiver, r)
	if m.Category == chat.CategoryAction {
		var a struct{ Action string }
		json.Unmarshal(m.Data, &a)
		m.Action = a.Action
		return m, nil
	}
	rows, err := db.readRows(ctx, summaryQuery, id, viewer)
	if err != nil {
		return m, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var rs chat.ReactionSummary
		if err := rows.Scan(&rs.Reaction, &rs.Count, &rs.ReactedByMe); err != nil {
			return m, mapErr(err)
		}
		m.Reactions = append(m.Reactions, rs)
	}
	return m, mapErr(rows.Err())
}

func entity(uid string, c [4]sql.NullString) chat.Entity {
	if uid == chat.SystemUID && !c[0].Valid {
		return chat.Entity{UID: uid, Name: "System", Role: chat.DefaultRole, Status: "offline"}
	}
	return chat.Entity{UID: uid, Name: c[0].String, Avatar: c[1].String, Role: c[2].String, Status: c[3].String}
}

// head reads and, on PostgreSQL, locks the message row for a write transaction. Action
// messages are not acted on.
func (db *DB) head(ctx context.Context, tx *sql.Tx, appID string, id int64) (chat.MessageHead, error) {
	var h chat.MessageHead
	err := db.txRow(ctx, tx, headQuery+db.dialect.forUpdate, appID, id).
		Scan(&h.ID, &h.Sender, &h.Receiver, &h.ReceiverType, &h.DeletedAt)
	return h, err
}

// DeleteMessage marks a message deleted, or removes it with its reactions, and stores the
// action message, after check approves.
func (db *DB) DeleteMessage(ctx context.Context, appID string, id int64, del chat.MessageDeletion, check func(chat.MessageHead) error) error {
	return db.transact(ctx, func(tx *sql.Tx) error {
		h, err := db.head(ctx, tx, appID, id)
		if err != nil {
			return err
		}
		if err := check(h); err != nil {
			return err
		}
		if del.Permanent {
			_, err = tx.ExecContext(ctx, db.q(`DELETE FROM messages WHERE app_id = $1 AND id = $2`), appID, id)
		} else {
			_, err = tx.ExecContext(ctx, db.q(`UPDATE messages SET deleted_at = $1, deleted_by = $2, updated_at = $1
				WHERE app_id = $3 AND id = $4`), del.At, del.By, appID, id)
		}
		if err != nil {
			return err
		}
		return db.insertMessage(ctx, tx, del.Action)
	})
}
