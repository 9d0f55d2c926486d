package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
)

// Notification delivery (chat.NotificationDeliveryStore): the events written in the
// changes' transactions, the pending sends, and the log. Workers lease events and sends
// from their queues (leases.go).

const insertNotifyEventQuery = `INSERT INTO notification_events (app_id, trigger, conversation_id, message_id, ref, created_at)
	VALUES ($1, $2, $3, $4, $5, $6)`

// notifyRef is what a notification event keeps of its ref: a reaction's, nothing of a message.
func notifyRef(ev chat.OutboxEvent) string {
	r := chat.EventRef{UID: ev.Ref.UID, Reaction: ev.Ref.Reaction, ReactionID: ev.Ref.ReactionID, ReactedAt: ev.Ref.ReactedAt}
	b, _ := json.Marshal(r)
	return string(b)
}

// insertNotifyEvent writes a notification event in the change's transaction.
func insertNotifyEvent(tx *wtx, ev chat.OutboxEvent) error {
	_, err := tx.exec(insertNotifyEventQuery, ev.AppID, ev.Trigger, ev.ConversationID, ev.MessageID, notifyRef(ev), ev.At)
	return err
}

// queueNotifyEvent queues a notification event in a PostgreSQL batch.
func queueNotifyEvent(b *pgx.Batch, ev chat.OutboxEvent) {
	b.Queue(insertNotifyEventQuery, ev.AppID, ev.Trigger, ev.ConversationID, ev.MessageID, notifyRef(ev), ev.At)
}

var notifyEvents = newQueue(`notification_events`, `lease_until < $1`, `id`,
	`id, app_id, trigger, conversation_id, message_id, ref, created_at, attempts`)

// ClaimNotificationEvents leases events for a node.
func (db *DB) ClaimNotificationEvents(ctx context.Context, l chat.Lease) ([]chat.NotificationEvent, error) {
	return claim(ctx, db, notifyEvents, l, nil, func(s scanner) (chat.NotificationEvent, error) {
		var e chat.NotificationEvent
		var ref string
		err := s.Scan(&e.ID, &e.AppID, &e.Trigger, &e.ConversationID, &e.MessageID, &ref, &e.CreatedAt, &e.Attempts)
		if err == nil {
			err = json.Unmarshal([]byte(ref), &e.Ref)
		}
		return e, err
	})
}

const logColumns = `app_id, event_id, trigger, message_id, message_category, message_type, sender, receiver, receiver_type,
	recipient, channel, provider, notification_triggered, success, reason, attempt, status, latency_ms, created_at, reaction_id, member`

func logArgs(l chat.NotificationLog) []any {
	return []any{l.AppID, l.EventID, l.Trigger, l.MessageID, l.MessageCategory, l.MessageType, l.Sender, l.Receiver, l.ReceiverType,
		l.Recipient, string(l.Channel), l.Provider, b2i(l.Triggered), b2i(l.Success), l.Reason, l.Attempt, l.Status, l.LatencyMS, l.CreatedAt,
		l.ReactionID, l.Member}
}

func scanLog(s scanner) (chat.NotificationLog, error) {
	var l chat.NotificationLog
	var channel string
	var triggered, success int64
	err := s.Scan(&l.ID, &l.AppID, &l.EventID, &l.Trigger, &l.MessageID, &l.MessageCategory, &l.MessageType, &l.Sender, &l.Receiver,
		&l.ReceiverType, &l.Recipient, &channel, &l.Provider, &triggered, &success, &l.Reason, &l.Attempt, &l.Status, &l.LatencyMS,
		&l.CreatedAt, &l.ReactionID, &l.Member)
	l.Channel, l.Triggered, l.Success = chat.Channel(channel), triggered == 1, success == 1
	return l, err
}

// insertRows writes n rows of cols columns, the arguments of row i from args(i), as many a
// statement as the dialect takes (dialect.rowsPerInsert).
func insertRows(tx *wtx, head, tail string, cols, n int, args func(i int) []any) error {
	per := tx.db.dialect.rowsPerInsert
	for start := 0; start < n; start += per {
		end := min(start+per, n)
		var b strings.Builder
		b.WriteString(head)
		all := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteString(", ")
			}
			b.WriteString("(" + placeholders(len(all)+1, cols) + ")")
			all = append(all, args(i)...)
		}
		b.WriteString(tail)
		if _, err := tx.exec(b.String(), all...); err != nil {
			return err
		}
	}
	return nil
}

func insertLogs(tx *wtx, ls []chat.NotificationLog) error {
	return insertRows(tx, `INSERT INTO notification_logs (`+logColumns+`) VALUES `, ``, 21, len(ls), func(i int) []any { return logArgs(ls[i]) })
}

const sendColumns = `app_id, event_id, trigger, conversation_id, message_id, uid, channel, provider, provider_id, destination,
	token_kind, recheck, attempts, next_at, created_at, ref`

// FinishNotificationEvent writes an event's expansion and deletes it, while node holds it.
func (db *DB) FinishNotificationEvent(ctx context.Context, node string, eventID int64, logs []chat.NotificationLog, sends []chat.NotificationSend) error {
	return db.FinishNotificationEvents(ctx, node, []chat.ExpandedEvent{{EventID: eventID, Logs: logs, Sends: sends}})
}

// FinishNotificationEvents writes events' expansions and deletes them, while node holds
// them, in one transaction: the events deleted in one statement, then every log record and
// every send in as few multi-row INSERTs as the dialect takes. (One event after the other,
// three round trips each, a round of 256 events took a second on a PostgreSQL loaded by
// the sends it reports, and pushes went out at under 200 a second.)
func (db *DB) FinishNotificationEvents(ctx context.Context, node string, xs []chat.ExpandedEvent) error {
	if len(xs) == 0 {
		return nil
	}
	return mapErr(db.transact(ctx, func(tx *wtx) error {
		ids := make([]int64, len(xs))
		for i, x := range xs {
			ids[i] = x.EventID
		}
		ours := map[int64]bool{} // still leased by node: another node took over the others, and its expansion counts
		if tx.db.dialect.roundTrips {
			err := each(tx.rows(`DELETE FROM notification_events WHERE id = ANY($1::bigint[]) AND leased_by = $2 RETURNING id`,
				ids, node), func(s scanner) error {
				id, err := scanID(s)
				ours[id] = true
				return err
			})
			if err != nil {
				return err
			}
		} else {
			for _, id := range ids { // in process: a prepared statement a row
				res, err := tx.exec(`DELETE FROM notification_events WHERE id = $1 AND leased_by = $2`, id, node)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil {
					return err
				} else if n > 0 {
					ours[id] = true
				}
			}
		}
		var logs []chat.NotificationLog
		var sends []chat.NotificationSend
		for _, x := range xs {
			if ours[x.EventID] {
				logs, sends = append(logs, x.Logs...), append(sends, x.Sends...)
			}
		}
		return insertExpansion(tx, logs, sends)
	}))
}

// insertExpansion writes expansions' log records and sends.
func insertExpansion(tx *wtx, logs []chat.NotificationLog, sends []chat.NotificationSend) error {
	if err := insertLogs(tx, logs); err != nil {
		return err
	}
	// A repeated destination in one statement would make PostgreSQL's ON CONFLICT
	// affect a row twice: the first of each wins here already.
	seen := map[[4]string]bool{}
	sends = slices.DeleteFunc(slices.Clone(sends), func(s chat.NotificationSend) bool {
		k := [4]string{strconv.FormatInt(s.EventID, 10), s.UID, string(s.Channel), s.Destination}
		dup := seen[k]
		seen[k] = true
		return dup
	})
	return insertRows(tx, `INSERT INTO notification_sends (`+sendColumns+`) VALUES `,
		` ON CONFLICT (event_id, uid, channel, destination) DO NOTHING`, 16, len(sends), func(i int) []any {
			s := sends[i]
			return []any{s.AppID, s.EventID, s.Trigger, s.ConversationID, s.MessageID, s.UID, string(s.Channel), s.Provider, s.ProviderID,
				s.Destination, string(s.TokenKind), b2i(s.Recheck), 0, s.NextAt, s.CreatedAt, refJSON(s.Ref)}
		})
}

var notifySends = newQueue(`notification_sends`, `next_at <= $1 AND lease_until < $1`, `next_at, id`, `id, `+sendColumns)

// ClaimNotificationSends records the attempts done and leases due sends for a node, in one
// transaction.
func (db *DB) ClaimNotificationSends(ctx context.Context, l chat.Lease, done []chat.NotificationAttempt) ([]chat.NotificationSend, error) {
	first := func(tx *wtx) error { return finishSends(tx, l.Node, done) }
	return claim(ctx, db, notifySends, l, first, func(s scanner) (chat.NotificationSend, error) {
		var n chat.NotificationSend
		var channel, kind, ref string
		var recheck int64
		err := s.Scan(&n.ID, &n.AppID, &n.EventID, &n.Trigger, &n.ConversationID, &n.MessageID, &n.UID, &channel, &n.Provider,
			&n.ProviderID, &n.Destination, &kind, &recheck, &n.Attempts, &n.NextAt, &n.CreatedAt, &ref)
		n.Channel, n.TokenKind, n.Recheck = chat.Channel(channel), chat.PushTokenKind(kind), recheck == 1
		if err == nil {
			err = json.Unmarshal([]byte(ref), &n.Ref)
		}
		return n, err
	})
}

// FinishNotificationSend records an attempt, while node holds the send.
func (db *DB) FinishNotificationSend(ctx context.Context, node string, s chat.NotificationSend, l chat.NotificationLog, done bool) error {
	return mapErr(db.transact(ctx, func(tx *wtx) error {
		return finishSends(tx, node, []chat.NotificationAttempt{{Send: s, Log: l, Done: done}})
	}))
}

// finishSends records attempts while node holds their sends: each send deleted (done) or
// pending again, and the log records of those it still held (a send whose lease ended is
// another node's now, and so is its record). Where statements are round trips
// (dialect.roundTrips), the batch is settled in three (arrays unnested); elsewhere, by
// prepared ones per row.
func finishSends(tx *wtx, node string, done []chat.NotificationAttempt) error {
	if len(done) == 0 {
		return nil
	}
	var logs []chat.NotificationLog
	if tx.db.dialect.roundTrips {
		var del, retry, next []int64
		for _, a := range done {
			if a.Done {
				del = append(del, a.Send.ID)
			} else {
				retry, next = append(retry, a.Send.ID), append(next, a.Send.NextAt)
			}
		}
		held := map[int64]bool{}
		scanHeld := func(s scanner) error {
			var id int64
			err := s.Scan(&id)
			held[id] = true
			return err
		}
		if len(del) > 0 {
			if err := each(tx.rows(`DELETE FROM notification_sends WHERE leased_by = $1 AND id = ANY($2::bigint[]) RETURNING id`, node, del), scanHeld); err != nil {
				return err
			}
		}
		if len(retry) > 0 {
			if err := each(tx.rows(`UPDATE notification_sends AS s SET next_at = v.next_at, lease_until = 0, leased_by = ''
				FROM unnest($2::bigint[], $3::bigint[]) AS v(id, next_at) WHERE s.id = v.id AND s.leased_by = $1 RETURNING s.id`,
				node, retry, next), scanHeld); err != nil {
				return err
			}
		}
		for _, a := range done {
			if held[a.Send.ID] {
				logs = append(logs, a.Log)
			}
		}
		return insertLogs(tx, logs)
	}
	for _, a := range done {
		var res sql.Result
		var err error
		if a.Done {
			res, err = tx.exec(`DELETE FROM notification_sends WHERE id = $1 AND leased_by = $2`, a.Send.ID, node)
		} else {
			res, err = tx.exec(`UPDATE notification_sends SET next_at = $3, lease_until = 0, leased_by = '' WHERE id = $1 AND leased_by = $2`,
				a.Send.ID, node, a.Send.NextAt)
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			logs = append(logs, a.Log)
		}
	}
	return insertLogs(tx, logs)
}

// NotificationLogs pages an app's log.
func (db *DB) NotificationLogs(ctx context.Context, appID string, q chat.NotificationLogQuery) ([]chat.NotificationLog, error) {
	var b strings.Builder
	b.WriteString(`SELECT id, ` + logColumns + ` FROM notification_logs WHERE app_id = $1`)
	args := []any{appID}
	add := func(cond string, v any) {
		args = append(args, v)
		b.WriteString(` AND ` + strings.Replace(cond, "?", "$"+itoa(len(args)), 1))
	}
	str := func(col, v string) {
		if v != "" {
			add(col+` = ?`, v)
		}
	}
	if q.MessageID != 0 {
		add(`message_id = ?`, q.MessageID)
	}
	if q.From != 0 {
		add(`created_at >= ?`, q.From)
	}
	if q.To != 0 {
		add(`created_at <= ?`, q.To)
	}
	str(`message_category`, q.MessageCategory)
	str(`message_type`, q.MessageType)
	str(`trigger`, q.Trigger)
	str(`sender`, q.Sender)
	str(`receiver`, q.Receiver)
	str(`receiver_type`, q.ReceiverType)
	str(`recipient`, q.Recipient)
	str(`member`, q.Member)
	if q.ReactionID != 0 {
		add(`reaction_id = ?`, q.ReactionID)
	}
	if q.ReactionSender != "" || q.ReactionReceiver != "" {
		str(`trigger`, chat.TriggerReactionAdded)
		str(`sender`, q.ReactionSender)
		str(`recipient`, q.ReactionReceiver)
	}
	str(`channel`, string(q.Channel))
	str(`provider`, q.Provider)
	str(`reason`, q.Reason)
	if q.Triggered != nil {
		add(`notification_triggered = ?`, b2i(*q.Triggered))
	}
	if q.Success != nil {
		add(`success = ?`, b2i(*q.Success))
	}
	order := ` ORDER BY id DESC`
	switch {
	case q.After:
		add(`id > ?`, q.LogID)
		order = ` ORDER BY id`
	case q.LogID != 0:
		add(`id < ?`, q.LogID)
	}
	args = append(args, q.Limit)
	b.WriteString(order + ` LIMIT $` + itoa(len(args)))
	return collect(db.read(ctx).rows(b.String(), args...), scanLog)
}

// PurgeNotificationLogs drops old log records, a batch at a time.
func (db *DB) PurgeNotificationLogs(ctx context.Context, before int64) error {
	return mapErr(db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`DELETE FROM notification_logs WHERE id IN (SELECT id FROM notification_logs WHERE created_at < $1 LIMIT 5000)`, before)
		return err
	}))
}

// AllProviders lists every provider of an app.
func (db *DB) AllProviders(ctx context.Context, appID string) ([]chat.Provider, error) {
	return collect(db.read(ctx).rows(`SELECT `+providerColumns+` FROM notification_providers WHERE app_id = $1 ORDER BY kind, created_at, id`, appID),
		scanProvider)
}

// OnlineUIDs lists those of uids with an open socket.
func (db *DB) OnlineUIDs(ctx context.Context, appID string, uids []string) ([]string, error) {
	var out []string
	for len(uids) > 0 {
		n := min(len(uids), 500)
		args := []any{appID}
		for _, u := range uids[:n] {
			args = append(args, u)
		}
		on, err := collect(db.read(ctx).rows(`SELECT uid FROM users WHERE app_id = $1 AND status = 'available' AND uid IN (`+
			placeholders(2, n)+`)`, args...), func(s scanner) (string, error) {
			var u string
			err := s.Scan(&u)
			return u, err
		})
		if err != nil {
			return nil, err
		}
		out, uids = append(out, on...), uids[n:]
	}
	return out, nil
}

// ReadMarker is the id of the last message uid read in a conversation; 0 when none.
func (db *DB) ReadMarker(ctx context.Context, appID, uid, conversationID string) (int64, error) {
	var id int64
	err := db.read(ctx).row(`SELECT read_id FROM conversation_markers WHERE app_id = $1 AND uid = $2 AND conversation_id = $3`,
		appID, uid, conversationID).Scan(&id)
	if err = mapErr(err); errors.Is(err, chat.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

func refJSON(r chat.EventRef) string {
	b, _ := json.Marshal(r)
	return string(b)
}
