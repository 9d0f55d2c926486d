package sqlstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
)

// Webhooks (chat.WebhookStore): triggers are kept as ",a,b," so that one LIKE finds the
// webhooks of a trigger in the outbox's fan-out (webhookoutbox.go).

const webhookColumns = `app_id, id, url, enabled, use_basic_auth, basic_auth, triggers, created_at, updated_at`

func joinTriggers(ts []string) string { return "," + strings.Join(ts, ",") + "," }

func splitTriggers(s string) []string { return splitNonEmpty(strings.Trim(s, ","), ",") }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func scanWebhook(s scanner) (chat.Webhook, error) {
	var w chat.Webhook
	var enabled, basic int64
	var triggers string
	err := s.Scan(&w.AppID, &w.ID, &w.URL, &enabled, &basic, &w.BasicAuth, &triggers, &w.CreatedAt, &w.UpdatedAt)
	w.Enabled, w.UseBasicAuth, w.Triggers = enabled == 1, basic == 1, splitTriggers(triggers)
	return w, err
}

// CreateWebhook stores a webhook and its first secret; the app's row is locked while its
// webhooks are counted, so the cap holds on PostgreSQL too.
func (db *DB) CreateWebhook(ctx context.Context, w chat.Webhook, sec chat.WebhookSecret, max int) error {
	return db.transact(ctx, func(tx *wtx) error {
		var app string
		if err := tx.row(`SELECT id FROM apps WHERE id = $1`+tx.db.dialect.forUpdate, w.AppID).Scan(&app); err != nil {
			return err
		}
		var n int
		if err := tx.row(`SELECT count(*) FROM webhooks WHERE app_id = $1`, w.AppID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return chat.ErrLimitReached
		}
		if _, err := tx.exec(`INSERT INTO webhooks (`+webhookColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			w.AppID, w.ID, w.URL, b2i(w.Enabled), b2i(w.UseBasicAuth), w.BasicAuth, joinTriggers(w.Triggers), w.CreatedAt, w.UpdatedAt); err != nil {
			return mapErr(err)
		}
		return insertSecret(tx, w.AppID, w.ID, sec)
	})
}

func insertSecret(tx *wtx, appID, id string, sec chat.WebhookSecret) error {
	_, err := tx.exec(`INSERT INTO webhook_secrets (app_id, webhook_id, secret, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		appID, id, sec.Secret, sec.CreatedAt, sec.ExpiresAt)
	return err
}

// Webhook reads one webhook with its secrets.
func (db *DB) Webhook(ctx context.Context, appID, id string) (chat.Webhook, error) {
	w, err := scanWebhook(db.read(ctx).row(`SELECT `+webhookColumns+` FROM webhooks WHERE app_id = $1 AND id = $2`, appID, id))
	if err != nil {
		return chat.Webhook{}, mapErr(err)
	}
	ws := []chat.Webhook{w}
	if err := db.withSecrets(ctx, appID, ws); err != nil {
		return chat.Webhook{}, err
	}
	return ws[0], nil
}

// Webhooks lists an app's webhooks by creation.
func (db *DB) Webhooks(ctx context.Context, appID string) ([]chat.Webhook, error) {
	ws, err := collect(db.read(ctx).rows(`SELECT `+webhookColumns+` FROM webhooks WHERE app_id = $1 ORDER BY created_at, id`, appID), scanWebhook)
	if err != nil {
		return nil, err
	}
	return ws, db.withSecrets(ctx, appID, ws)
}

// withSecrets reads the secrets of ws, oldest first.
func (db *DB) withSecrets(ctx context.Context, appID string, ws []chat.Webhook) error {
	if len(ws) == 0 {
		return nil
	}
	byID := map[string]int{}
	for i, w := range ws {
		byID[w.ID] = i
	}
	return each(db.read(ctx).rows(`SELECT webhook_id, id, secret, created_at, expires_at FROM webhook_secrets WHERE app_id = $1 ORDER BY id`, appID),
		func(s scanner) error {
			var wid string
			var sec chat.WebhookSecret
			if err := s.Scan(&wid, &sec.ID, &sec.Secret, &sec.CreatedAt, &sec.ExpiresAt); err != nil {
				return err
			}
			if i, ok := byID[wid]; ok {
				ws[i].Secrets = append(ws[i].Secrets, sec)
			}
			return nil
		})
}

// UpdateWebhook writes a webhook's settings.
func (db *DB) UpdateWebhook(ctx context.Context, w chat.Webhook) error {
	return db.transact(ctx, func(tx *wtx) error {
		return affected(tx.exec(`UPDATE webhooks SET url = $3, enabled = $4, use_basic_auth = $5, basic_auth = $6, triggers = $7, updated_at = $8
			WHERE app_id = $1 AND id = $2`, w.AppID, w.ID, w.URL, b2i(w.Enabled), b2i(w.UseBasicAuth), w.BasicAuth, joinTriggers(w.Triggers), w.UpdatedAt))
	})
}

// DeleteWebhook removes a webhook; its secrets and deliveries go with it (ON DELETE CASCADE).
func (db *DB) DeleteWebhook(ctx context.Context, appID, id string) error {
	return db.transact(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`DELETE FROM webhook_deliveries WHERE app_id = $1 AND webhook_id = $2`, appID, id); err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM webhook_secrets WHERE app_id = $1 AND webhook_id = $2`, appID, id); err != nil {
			return err
		}
		return affected(tx.exec(`DELETE FROM webhooks WHERE app_id = $1 AND id = $2`, appID, id))
	})
}

// RotateWebhookSecret ends the active secrets at oldUntil and adds sec.
func (db *DB) RotateWebhookSecret(ctx context.Context, appID, id string, sec chat.WebhookSecret, oldUntil int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		var one string
		if err := tx.row(`SELECT id FROM webhooks WHERE app_id = $1 AND id = $2`+tx.db.dialect.forUpdate, appID, id).Scan(&one); err != nil {
			return err
		}
		// Secrets already ended stay as they were; the ones that sign now end at oldUntil.
		if _, err := tx.exec(`UPDATE webhook_secrets SET expires_at = $3 WHERE app_id = $1 AND webhook_id = $2 AND (expires_at = 0 OR expires_at > $3)`,
			appID, id, oldUntil); err != nil {
			return err
		}
		// Expired secrets are of no more use.
		if _, err := tx.exec(`DELETE FROM webhook_secrets WHERE app_id = $1 AND webhook_id = $2 AND expires_at > 0 AND expires_at < $3`,
			appID, id, sec.CreatedAt); err != nil {
			return err
		}
		return insertSecret(tx, appID, id, sec)
	})
}

// SubscribedTriggers is the union of the enabled webhooks' triggers.
func (db *DB) SubscribedTriggers(ctx context.Context, appID string) ([]string, error) {
	rows, err := collect(db.read(ctx).rows(`SELECT triggers FROM webhooks WHERE app_id = $1 AND enabled = 1`, appID), func(s scanner) (string, error) {
		var t string
		err := s.Scan(&t)
		return t, err
	})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, t := range splitTriggers(r) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// WebhookKey returns the deployment's webhook key, creating it on first use; nodes that
// start together race to create it and every node reads the one that won.
func (db *DB) WebhookKey(ctx context.Context) ([]byte, error) {
	var secret []byte
	err := db.read(ctx).row(`SELECT secret FROM server_secrets WHERE name = 'webhook'`).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = db.transact(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`INSERT INTO server_secrets (name, secret) VALUES ('webhook', $1) ON CONFLICT (name) DO NOTHING`, fresh); err != nil {
			return err
		}
		return tx.row(`SELECT secret FROM server_secrets WHERE name = 'webhook'`).Scan(&secret)
	})
	return secret, mapErr(err)
}

// InsertOutbox writes an event and fans it out to the subscribed enabled webhooks, in the
// caller's transaction (chat.WebhookTx).
func (tx txStore) InsertOutbox(ev chat.OutboxEvent) error { return insertOutbox(tx.wtx, ev) }

const (
	insertEventQuery             = `INSERT INTO webhook_events (app_id, trigger, conversation_id, message_id, ref, created_at) VALUES ($1, $2, $3, $4, $5, $6)`
	insertEventIfSubscribedQuery = `INSERT INTO webhook_events (app_id, trigger, conversation_id, message_id, ref, created_at)
		SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM webhooks WHERE app_id = $1 AND enabled = 1 AND triggers LIKE $7 ESCAPE '\')`
	fanOutQuery = `INSERT INTO webhook_deliveries (event_id, app_id, webhook_id, conversation_id, next_at, created_at)
		SELECT $1, app_id, id, $3, $4, $4 FROM webhooks WHERE app_id = $2 AND enabled = 1 AND triggers LIKE $5 ESCAPE '\'`
)

// insertOutbox writes an event where its kind is kept.
func insertOutbox(tx *wtx, ev chat.OutboxEvent) error {
	switch ev.Kind {
	case chat.EventNotification:
		return insertNotifyEvent(tx, ev)
	case chat.EventAgentJob:
		return insertAgentJob(tx, ev)
	}
	return writeOutbox(tx, ev, false)
}

// insertOutboxIfSubscribed is insertOutbox for a change the service layer does not see
// (presence, which the socket hub moves): the event is written only when some enabled
// webhook of the app subscribes to its trigger, so an app without webhooks pays one
// indexed look-up.
func insertOutboxIfSubscribed(tx *wtx, ev chat.OutboxEvent) error { return writeOutbox(tx, ev, true) }

// writeOutbox writes a webhook event and its deliveries; onlySubscribed skips the event
// when no webhook subscribes to it (the fan-out would find none anyway). Where statements
// are round trips (dialect.roundTrips), in one (pgOutboxQuery); in process, the event and
// then, by its id, the fan-out.
func writeOutbox(tx *wtx, ev chat.OutboxEvent, onlySubscribed bool) error {
	ref, err := json.Marshal(ev.Ref)
	if err != nil {
		return err
	}
	if tx.db.dialect.roundTrips {
		q := pgOutboxQuery
		if onlySubscribed {
			q = pgOutboxIfSubscribed
		}
		_, err := tx.exec(q, outboxArgs(ev, ref)...)
		return err
	}
	q, args := insertEventQuery, outboxArgs(ev, ref)[:6]
	if onlySubscribed {
		q, args = insertEventIfSubscribedQuery, outboxArgs(ev, ref)
	}
	res, err := tx.exec(q, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.exec(fanOutQuery, id, ev.AppID, ev.ConversationID, ev.At, triggerPattern(ev.Trigger))
	return err
}

// pgOutboxIfSubscribed is pgOutboxQuery writing the event only when a webhook subscribes.
var pgOutboxIfSubscribed = func() string {
	mustNextParam(pgOutboxQuery, 8) // $7, the trigger pattern, is the last: the splice reuses it
	return splice(pgOutboxQuery, "VALUES ($1, $2, $3, $4, $5, $6)",
		"SELECT $1::text, $2::text, $3::text, $4::bigint, $5::text, $6::bigint WHERE EXISTS (SELECT 1 FROM webhooks WHERE app_id = $1 AND enabled = 1 AND triggers LIKE $7 ESCAPE '\\')")
}()

// triggerPattern finds a trigger in the ",a,b," list; its underscores are escaped (ESCAPE '\').
func triggerPattern(t string) string { return "%," + strings.ReplaceAll(t, "_", `\_`) + ",%" }

// pgOutboxQuery is insertOutbox in one PostgreSQL statement (and so one round trip).
const pgOutboxQuery = `WITH e AS (INSERT INTO webhook_events (app_id, trigger, conversation_id, message_id, ref, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
	INSERT INTO webhook_deliveries (event_id, app_id, webhook_id, conversation_id, next_at, created_at)
	SELECT e.id, w.app_id, w.id, $3, $6, $6 FROM e, webhooks w WHERE w.app_id = $1 AND w.enabled = 1 AND w.triggers LIKE $7 ESCAPE '\'`

func outboxArgs(ev chat.OutboxEvent, ref []byte) []any {
	return []any{ev.AppID, ev.Trigger, ev.ConversationID, ev.MessageID, string(ref), ev.At, triggerPattern(ev.Trigger)}
}

// queueOutbox queues an event's statement in a PostgreSQL reaction batch.
func queueOutbox(b *pgx.Batch, ev chat.OutboxEvent) error {
	switch ev.Kind {
	case chat.EventNotification:
		queueNotifyEvent(b, ev)
		return nil
	case chat.EventAgentJob: // sends write their jobs in a transaction (insertOutbox), never here
		return errors.New("queue outbox: an agent job in a reaction batch")
	}
	ref, err := json.Marshal(ev.Ref)
	if err != nil {
		return err
	}
	b.Queue(pgOutboxQuery, outboxArgs(ev, ref)...)
	return nil
}
