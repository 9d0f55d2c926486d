package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/natter-chat/natter/chat"
)

// Notification settings (chat.NotificationStore, chat.NotificationTx): an app's settings
// document, each user's row (its choices as JSON, time zone, contact details) and its mutes.
// The documents are decoded over natter's defaults, so a field added later reads as its
// default in documents saved before.

// recipientsChunk is how many uids one query of NotificationRecipients names: well under
// both databases' limits on parameters.
const recipientsChunk = 500

func decodeNotificationSettings(raw string) (chat.NotificationSettings, error) {
	s := chat.DefaultNotificationSettings()
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return chat.NotificationSettings{}, fmt.Errorf("decode notification settings: %w", err)
	}
	return s, nil
}

func readNotificationSettings(r runner, appID string) (chat.NotificationSettings, error) {
	var raw string
	err := r.row(`SELECT settings FROM notification_settings WHERE app_id = $1`, appID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return chat.DefaultNotificationSettings(), nil
	}
	if err != nil {
		return chat.NotificationSettings{}, mapErr(err)
	}
	return decodeNotificationSettings(raw)
}

// NotificationSettings reads an app's settings (chat.NotificationReader).
func (db *DB) NotificationSettings(ctx context.Context, appID string) (chat.NotificationSettings, error) {
	return readNotificationSettings(db.read(ctx), appID)
}

const notificationUserColumns = `uid, preferences, timezone, email, phno`

func scanNotificationUser(s scanner) (chat.NotificationRecipient, error) {
	var r chat.NotificationRecipient
	var prefs sql.NullString
	if err := s.Scan(&r.UID, &prefs, &r.Timezone, &r.Email, &r.Phone); err != nil {
		return r, err
	}
	if prefs.Valid {
		if err := json.Unmarshal([]byte(prefs.String), &r.Overrides); err != nil {
			return r, fmt.Errorf("decode notification preferences of %s: %w", r.UID, err)
		}
	}
	return r, nil
}

func readUserNotifications(r runner, appID, uid string) (chat.NotificationRecipient, error) {
	n, err := scanNotificationUser(r.row(`SELECT `+notificationUserColumns+` FROM notification_users WHERE app_id = $1 AND uid = $2`, appID, uid))
	if errors.Is(err, sql.ErrNoRows) {
		return chat.NotificationRecipient{UID: uid}, nil
	}
	return n, mapErr(err)
}

// UserNotifications reads one user's stored state (chat.NotificationStore).
func (db *DB) UserNotifications(ctx context.Context, appID, uid string) (chat.NotificationRecipient, error) {
	return readUserNotifications(db.read(ctx), appID, uid)
}

// NotificationRecipients reads the state of each of uids for one conversation
// (chat.NotificationReader): per chunk of uids, their rows, then their mutes of conv.
func (db *DB) NotificationRecipients(ctx context.Context, appID string, conv chat.ConversationRef, uids []string) (map[string]chat.NotificationRecipient, error) {
	out := make(map[string]chat.NotificationRecipient, len(uids))
	for _, uid := range uids {
		out[uid] = chat.NotificationRecipient{UID: uid}
	}
	r := db.read(ctx)
	for start := 0; start < len(uids); start += recipientsChunk {
		chunk := uids[start:min(start+recipientsChunk, len(uids))]
		args := append([]any{appID}, anys(chunk)...)
		err := each(r.rows(`SELECT `+notificationUserColumns+` FROM notification_users WHERE app_id = $1 AND uid IN (`+placeholders(2, len(chunk))+`)`,
			args...), func(s scanner) error {
			n, err := scanNotificationUser(s)
			out[n.UID] = n
			return err
		})
		if err != nil {
			return nil, err
		}
		args = append([]any{appID, conv.Type, conv.ID}, anys(chunk)...)
		err = each(r.rows(`SELECT uid, until_ms FROM notification_mutes WHERE app_id = $1 AND conversation_type = $2 AND conversation_id = $3
			AND uid IN (`+placeholders(4, len(chunk))+`)`, args...), func(s scanner) error {
			var uid string
			var until int64
			if err := s.Scan(&uid, &until); err != nil {
				return err
			}
			n := out[uid]
			n.MutedUntil = until
			out[uid] = n
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MutedConversations lists uid's mutes that end after atMS (chat.NotificationStore).
func (db *DB) MutedConversations(ctx context.Context, appID, uid string, atMS int64) ([]chat.MutedConversation, error) {
	return collect(db.read(ctx).rows(`SELECT conversation_type, conversation_id, until_ms FROM notification_mutes
		WHERE app_id = $1 AND uid = $2 AND until_ms > $3 ORDER BY conversation_type, conversation_id`, appID, uid, atMS),
		func(s scanner) (m chat.MutedConversation, err error) { return m, s.Scan(&m.Type, &m.ID, &m.Until) })
}

// NotificationSettingsForUpdate holds the app's row and reads its settings (chat.NotificationTx).
func (tx txStore) NotificationSettingsForUpdate(appID string) (chat.NotificationSettings, error) {
	var id string
	if err := tx.row(`SELECT id FROM apps WHERE id = $1`+tx.db.dialect.forUpdate, appID).Scan(&id); err != nil {
		return chat.NotificationSettings{}, mapErr(err)
	}
	return readNotificationSettings(tx, appID)
}

// SaveNotificationSettings writes an app's settings (chat.NotificationTx).
func (tx txStore) SaveNotificationSettings(appID string, s chat.NotificationSettings, at int64) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = tx.exec(`INSERT INTO notification_settings (app_id, settings, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (app_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`, appID, string(b), at)
	return mapErr(err)
}

// DeleteNotificationSettings removes an app's settings (chat.NotificationTx).
func (tx txStore) DeleteNotificationSettings(appID string) error {
	_, err := tx.exec(`DELETE FROM notification_settings WHERE app_id = $1`, appID)
	return mapErr(err)
}

// UserNotificationsTx reads one user's stored state (chat.NotificationTx).
func (tx txStore) UserNotificationsTx(appID, uid string) (chat.NotificationRecipient, error) {
	return readUserNotifications(tx, appID, uid)
}

// saveNotificationUser writes one column of a user's row, making the row if need be, and
// drops the row when nothing is left in it.
func (tx txStore) saveNotificationUser(appID, uid, column string, v any, at int64) error {
	if _, err := tx.exec(`INSERT INTO notification_users (app_id, uid, `+column+`, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (app_id, uid) DO UPDATE SET `+column+` = excluded.`+column+`, updated_at = excluded.updated_at`, appID, uid, v, at); err != nil {
		return mapErr(err)
	}
	_, err := tx.exec(`DELETE FROM notification_users WHERE app_id = $1 AND uid = $2
		AND preferences IS NULL AND timezone = '' AND email = '' AND phno = ''`, appID, uid)
	return mapErr(err)
}

// SaveNotificationOverrides writes a user's choices (chat.NotificationTx).
func (tx txStore) SaveNotificationOverrides(appID, uid string, o chat.NotificationOverrides, at int64) error {
	var v sql.NullString
	if !o.IsZero() {
		b, err := json.Marshal(o)
		if err != nil {
			return err
		}
		v = sql.NullString{String: string(b), Valid: true}
	}
	return tx.saveNotificationUser(appID, uid, "preferences", v, at)
}

// SaveNotificationTimezone writes a user's time zone (chat.NotificationTx).
func (tx txStore) SaveNotificationTimezone(appID, uid, timezone string, at int64) error {
	return tx.saveNotificationUser(appID, uid, "timezone", timezone, at)
}

// SaveContactDetails writes a user's email and phone (chat.NotificationTx).
func (tx txStore) SaveContactDetails(appID, uid string, c chat.ContactDetails, at int64) error {
	if err := tx.saveNotificationUser(appID, uid, "email", c.Email, at); err != nil {
		return err
	}
	return tx.saveNotificationUser(appID, uid, "phno", c.Phone, at)
}

// dropEndedMutes removes uid's mutes that ended at or before nowMS.
func (tx txStore) dropEndedMutes(appID, uid string, nowMS int64) error {
	_, err := tx.exec(`DELETE FROM notification_mutes WHERE app_id = $1 AND uid = $2 AND until_ms <= $3`, appID, uid, nowMS)
	return mapErr(err)
}

// MuteConversations stores uid's mutes (chat.NotificationTx).
func (tx txStore) MuteConversations(appID, uid string, mutes []chat.MutedConversation, nowMS int64) error {
	if err := tx.dropEndedMutes(appID, uid, nowMS); err != nil {
		return err
	}
	for _, m := range mutes {
		if _, err := tx.exec(`INSERT INTO notification_mutes (app_id, uid, conversation_type, conversation_id, until_ms) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (app_id, uid, conversation_type, conversation_id) DO UPDATE SET until_ms = excluded.until_ms`,
			appID, uid, m.Type, m.ID, m.Until); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// UnmuteConversations removes uid's mutes of convs (chat.NotificationTx).
func (tx txStore) UnmuteConversations(appID, uid string, convs []chat.ConversationRef, nowMS int64) error {
	if err := tx.dropEndedMutes(appID, uid, nowMS); err != nil {
		return err
	}
	for _, c := range convs {
		if _, err := tx.exec(`DELETE FROM notification_mutes WHERE app_id = $1 AND uid = $2 AND conversation_type = $3 AND conversation_id = $4`,
			appID, uid, c.Type, c.ID); err != nil {
			return mapErr(err)
		}
	}
	return nil
}
