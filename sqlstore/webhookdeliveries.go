package sqlstore

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// The webhook outbox's deliveries (chat.DeliveryStore). A worker claims due deliveries by
// leasing them (lease_until, leased_by); the delivery before one, of the same webhook and
// conversation, must be done first, so each webhook gets a conversation's events in order.

// claimQuery leases due deliveries of enabled webhooks (disabling one pauses its
// deliveries; enabling it again resumes them, in order); $1 now, $2 lease end, $3 node, $4 limit, $5 per-webhook
// cap. PostgreSQL adds FOR UPDATE OF d SKIP LOCKED, so that nodes claiming at once
// each take other rows; SQLite's single writer runs one claim at a time.
//
// The cap holds within one claim too: the held leases are counted once, before this
// statement leases anything, and each webhook's due rows are ranked, so only as many are
// taken as its cap leaves room for. (Filtering on the count alone let one claim of an idle
// node lease every due delivery of a hanging endpoint, up to all the node's workers.) Rows
// of a webhook at its cap are left out before the LIMIT, so that they do not crowd out the
// other webhooks'. The leases held are read once, by the lease index (a few rows: at most
// the nodes' workers), which keeps a claim cheap with a backlog: per due row it probes one
// index (the order check) and scans that short list, whichever plan the database picks.
const claimQuery = `WITH held AS MATERIALIZED (SELECT app_id, webhook_id FROM webhook_deliveries
		WHERE state = 0 AND lease_until >= $1),
	due AS (SELECT d.id, d.app_id, d.webhook_id, d.next_at,
		(SELECT count(*) FROM held h WHERE h.app_id = d.app_id AND h.webhook_id = d.webhook_id) AS held
		FROM webhook_deliveries d
		WHERE d.state = 0 AND d.next_at <= $1 AND d.lease_until < $1
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.app_id = d.app_id AND w.id = d.webhook_id AND w.enabled = 1)
		AND (SELECT count(*) FROM held h WHERE h.app_id = d.app_id AND h.webhook_id = d.webhook_id) < $5
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.app_id = d.app_id AND e.webhook_id = d.webhook_id
			AND e.conversation_id = d.conversation_id AND e.state = 0 AND e.event_id < d.event_id)
		ORDER BY d.next_at, d.id LIMIT $4%s),
	ranked AS (SELECT id, held + row_number() OVER (PARTITION BY app_id, webhook_id ORDER BY next_at, id) AS slot FROM due)
	UPDATE webhook_deliveries SET lease_until = $2, leased_by = $3, attempts = attempts + 1
	WHERE id IN (SELECT id FROM ranked WHERE slot <= $5)
	RETURNING id`

var (
	claimQuerySQLite   = strings.Replace(claimQuery, "%s", "", 1)
	claimQueryPostgres = strings.Replace(claimQuery, "%s", " FOR UPDATE OF d SKIP LOCKED", 1)
)

const deliveryColumns = `d.id, d.event_id, d.app_id, d.webhook_id, d.conversation_id, e.trigger, e.message_id, e.ref, e.payload,
	d.state, d.attempts, d.next_at, d.last_status, d.last_error, d.latency_ms, d.created_at, d.done_at`

func scanDelivery(s scanner) (chat.Delivery, error) {
	var d chat.Delivery
	var ref string
	var payload *string
	err := s.Scan(&d.ID, &d.EventID, &d.AppID, &d.WebhookID, &d.ConversationID, &d.Trigger, &d.MessageID, &ref, &payload,
		&d.State, &d.Attempts, &d.NextAt, &d.LastStatus, &d.LastError, &d.LatencyMS, &d.CreatedAt, &d.DoneAt)
	if err == nil {
		err = json.Unmarshal([]byte(ref), &d.Ref)
	}
	if payload != nil {
		d.Payload = []byte(*payload)
	}
	return d, err
}

func scanID(s scanner) (int64, error) {
	var id int64
	err := s.Scan(&id)
	return id, err
}

// ClaimDeliveries leases due deliveries for a node.
func (db *DB) ClaimDeliveries(ctx context.Context, l chat.Lease) ([]chat.Delivery, error) {
	query := claimQuerySQLite
	if db.dialect.name == "postgres" {
		query = claimQueryPostgres
	}
	var ids []int64
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		ids, err = collect(tx.rows(query, l.Now, l.Until, l.Node, l.Limit, l.PerWebhook), scanID)
		return err
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return collect(db.read(ctx).rows(`SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.id IN (`+placeholders(1, len(ids))+`) ORDER BY d.id`, args...), scanDelivery)
}

// SetEventPayload keeps an event's rendered data, first writer wins.
func (db *DB) SetEventPayload(ctx context.Context, eventID int64, payload []byte) ([]byte, error) {
	var kept string
	err := db.transact(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`UPDATE webhook_events SET payload = $2 WHERE id = $1 AND payload IS NULL`, eventID, string(payload)); err != nil {
			return err
		}
		return tx.row(`SELECT payload FROM webhook_events WHERE id = $1`, eventID).Scan(&kept)
	})
	return []byte(kept), mapErr(err)
}

// FinishAttempt records an attempt's outcome while node holds the lease.
func (db *DB) FinishAttempt(ctx context.Context, node string, d chat.Delivery) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`UPDATE webhook_deliveries SET state = $3, next_at = $4, lease_until = 0, leased_by = '', last_status = $5,
			last_error = $6, latency_ms = $7, done_at = $8 WHERE id = $1 AND leased_by = $2 AND state = 0`,
			d.ID, node, d.State, d.NextAt, d.LastStatus, d.LastError, d.LatencyMS, d.DoneAt)
		return err
	})
}

// Deliveries pages a webhook's delivery log, newest first.
func (db *DB) Deliveries(ctx context.Context, appID, webhookID string, q chat.DeliveryQuery) ([]chat.Delivery, error) {
	query := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.app_id = $1 AND d.webhook_id = $2`
	args := []any{appID, webhookID}
	if q.BeforeID > 0 {
		args = append(args, q.BeforeID)
		query += ` AND d.id < $` + itoa(len(args))
	}
	if q.State != nil {
		args = append(args, *q.State)
		query += ` AND d.state = $` + itoa(len(args))
	}
	args = append(args, q.Limit)
	return collect(db.read(ctx).rows(query+` ORDER BY d.id DESC LIMIT $`+itoa(len(args)), args...), scanDelivery)
}

// ReplayDeliveries makes deliveries pending again.
func (db *DB) ReplayDeliveries(ctx context.Context, appID, webhookID string, r chat.Replay, now int64) (int, error) {
	var n int64
	err := db.transact(ctx, func(tx *wtx) error {
		cond, args := `event_id = $4`, []any{appID, webhookID, now, r.EventID}
		if r.EventID == 0 {
			cond, args = `event_id IN (SELECT id FROM webhook_events WHERE app_id = $1 AND created_at >= $4 AND created_at <= $5)`, []any{appID, webhookID, now, r.From, r.To}
		}
		res, err := tx.exec(`UPDATE webhook_deliveries SET state = 0, next_at = $3, lease_until = 0, leased_by = '', done_at = 0, created_at = $3
			WHERE app_id = $1 AND webhook_id = $2 AND `+cond, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), mapErr(err)
}

// PurgeOutbox drops old events whose deliveries are all done.
func (db *DB) PurgeOutbox(ctx context.Context, before int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		const old = `SELECT id FROM webhook_events e WHERE e.created_at < $1
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 0) LIMIT 1000`
		if _, err := tx.exec(`DELETE FROM webhook_deliveries WHERE event_id IN (`+old+`)`, before); err != nil {
			return err
		}
		_, err := tx.exec(`DELETE FROM webhook_events WHERE id IN (`+old+`)`, before)
		return err
	})
}

// PendingDeliveries counts the deliveries not yet done, of every app: the outbox's depth.
func (db *DB) PendingDeliveries(ctx context.Context) (int64, error) {
	var n int64
	err := db.read(ctx).row(`SELECT COUNT(*) FROM webhook_deliveries WHERE state = 0`).Scan(&n)
	return n, mapErr(err)
}
