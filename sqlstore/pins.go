package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// CountPinned counts a conversation's pinned messages (chat.PinTx), along messages_pinned.
func (tx txStore) CountPinned(appID, conversationID string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM messages WHERE app_id = $1 AND conversation_id = $2 AND pinned_at > 0`, appID, conversationID).Scan(&n)
	return n, mapErr(err)
}

// SetPin pins or unpins a message (chat.PinTx). A pin does not change the message's
// updatedAt, as a reaction does not.
func (tx txStore) SetPin(appID string, id int64, at int64, by string) error {
	res, err := tx.exec(`UPDATE messages SET pinned_at = $1, pinned_by = $2 WHERE app_id = $3 AND id = $4`, at, by, appID, id)
	return affected(res, err)
}

// SavedAt reads when uid saved a message (chat.PinTx).
func (tx txStore) SavedAt(appID, uid string, id int64) (int64, error) {
	var at int64
	err := tx.row(`SELECT COALESCE((SELECT saved_at FROM saved_messages WHERE app_id = $1 AND uid = $2 AND message_id = $3), 0)`, appID, uid, id).Scan(&at)
	return at, mapErr(err)
}

// CountSaved counts uid's saved messages (chat.PinTx).
func (tx txStore) CountSaved(appID, uid string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM saved_messages WHERE app_id = $1 AND uid = $2`, appID, uid).Scan(&n)
	return n, mapErr(err)
}

// InsertSaved saves a message for uid (chat.PinTx).
func (tx txStore) InsertSaved(appID, uid string, id, at int64) error {
	_, err := tx.exec(`INSERT INTO saved_messages (app_id, uid, message_id, saved_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (app_id, uid, message_id) DO NOTHING`, appID, uid, id, at)
	return mapErr(err)
}

// DeleteSaved unsaves a message for uid (chat.PinTx).
func (tx txStore) DeleteSaved(appID, uid string, id int64) error {
	_, err := tx.exec(`DELETE FROM saved_messages WHERE app_id = $1 AND uid = $2 AND message_id = $3`, appID, uid, id)
	return mapErr(err)
}

// CountPinnedConversations counts the conversations uid pinned (chat.PinTx), along
// conversation_markers_pinned.
func (tx txStore) CountPinnedConversations(appID, uid string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM conversation_markers WHERE app_id = $1 AND uid = $2 AND pinned_at > 0`, appID, uid).Scan(&n)
	return n, mapErr(err)
}

// LockSystemPins holds the app's row, which serialises changes to its pinned-conversation
// list, and reads the list in display order (chat.PinTx).
func (tx txStore) LockSystemPins(appID string) ([]chat.SystemPin, error) {
	var id string
	if err := tx.row(`SELECT id FROM apps WHERE id = $1`+tx.db.dialect.forUpdate, appID).Scan(&id); err != nil {
		return nil, mapErr(err)
	}
	return collect(tx.rows(`SELECT kind, target, pinned_at FROM system_pinned_conversations WHERE app_id = $1 ORDER BY position`, appID),
		scanSystemPin)
}

// ReplaceSystemPins makes pins the app's list (chat.PinTx).
func (tx txStore) ReplaceSystemPins(appID string, pins []chat.SystemPin) error {
	if _, err := tx.exec(`DELETE FROM system_pinned_conversations WHERE app_id = $1`, appID); err != nil {
		return mapErr(err)
	}
	for i, p := range pins {
		if _, err := tx.exec(`INSERT INTO system_pinned_conversations (app_id, kind, target, position, pinned_at) VALUES ($1, $2, $3, $4, $5)`,
			appID, p.Kind, p.Target, i, p.PinnedAt); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

func scanSystemPin(s scanner) (chat.SystemPin, error) {
	var p chat.SystemPin
	err := s.Scan(&p.Kind, &p.Target, &p.PinnedAt)
	return p, mapErr(err)
}

// SystemPins reads the app's pinned-conversation list in display order (chat.PinStore).
func (db *DB) SystemPins(ctx context.Context, appID string) ([]chat.SystemPin, error) {
	pins, err := collect(db.read(ctx).rows(`SELECT kind, target, pinned_at FROM system_pinned_conversations WHERE app_id = $1 ORDER BY position`, appID),
		scanSystemPin)
	if pins == nil {
		pins = []chat.SystemPin{}
	}
	return pins, err
}
