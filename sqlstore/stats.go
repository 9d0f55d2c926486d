package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// usageNodeKeep is how long a node's last batch number is kept after its last save: a
// batch is retried within seconds, so a month is plenty, and the table keeps one row per
// process that ran in it.
const usageNodeKeep = 30 * 86400

// SaveUsage adds a node's batch to the roll-up (chat.StatsStore), once: the node's row in
// usage_nodes moves to the batch's Seq in the same transaction, and a batch whose Seq it
// already reached is skipped. Counts add and activity bits OR, so batches of many nodes add
// up whatever their order; rows come sorted, so two nodes' batches lock them in one order.
// Figures of an app that does not exist (deleted since they were counted) are dropped.
func (db *DB) SaveUsage(ctx context.Context, b chat.UsageBatch) error {
	return db.transact(ctx, func(tx *wtx) error {
		res, err := tx.exec(`INSERT INTO usage_nodes (node, seq, saved_at) VALUES ($1, $2, $3)
			ON CONFLICT (node) DO UPDATE SET seq = excluded.seq, saved_at = excluded.saved_at
			WHERE usage_nodes.seq < excluded.seq`, b.Node, b.Seq, b.At)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // saved before: its commit was not heard
		}
		if b.Seq == 1 { // a process's first save tidies up after those long gone
			if _, err := tx.exec(`DELETE FROM usage_nodes WHERE saved_at < $1`, b.At-usageNodeKeep); err != nil {
				return err
			}
		}
		for _, c := range b.Counts {
			if _, err := tx.exec(`INSERT INTO usage_buckets AS u
				(app_id, bucket, messages_sent, read_receipts, delivery_receipts, concurrent_users)
				SELECT $1, CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT), CAST($5 AS BIGINT), CAST($6 AS BIGINT)
				WHERE EXISTS (SELECT 1 FROM apps WHERE id = $1)
				ON CONFLICT (app_id, bucket) DO UPDATE SET
					messages_sent = u.messages_sent + excluded.messages_sent,
					read_receipts = u.read_receipts + excluded.read_receipts,
					delivery_receipts = u.delivery_receipts + excluded.delivery_receipts,
					concurrent_users = u.concurrent_users + excluded.concurrent_users`,
				c.AppID, c.Bucket, c.Messages, c.ReadReceipts, c.DeliveryReceipts, c.Concurrent); err != nil {
				return err
			}
		}
		// Only the app's users count: a request may name an onBehalfOf that an operation
		// never looked up. (Figures of an app deleted meanwhile are dropped, above, rather
		// than fail the batch.)
		for _, a := range b.Active {
			if _, err := tx.exec(`INSERT INTO usage_active_days AS d (app_id, day, uid, b0, b1, b2, b3, b4)
				SELECT $1, CAST($2 AS BIGINT), $3, CAST($4 AS BIGINT), CAST($5 AS BIGINT), CAST($6 AS BIGINT), CAST($7 AS BIGINT), CAST($8 AS BIGINT)
				WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $3)
				ON CONFLICT (app_id, day, uid) DO UPDATE SET
					b0 = d.b0 | excluded.b0, b1 = d.b1 | excluded.b1, b2 = d.b2 | excluded.b2,
					b3 = d.b3 | excluded.b3, b4 = d.b4 | excluded.b4`,
				a.AppID, a.Day, a.UID, a.Bits[0], a.Bits[1], a.Bits[2], a.Bits[3], a.Bits[4]); err != nil {
				return err
			}
			if !a.NewDay {
				continue
			}
			if _, err := tx.exec(`INSERT INTO usage_active_months (app_id, month, uid)
				SELECT $1, CAST($2 AS BIGINT), $3 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $3)
				ON CONFLICT (app_id, month, uid) DO NOTHING`, a.AppID, a.Month, a.UID); err != nil {
				return err
			}
		}
		return nil
	})
}

// UsageCounts reads an app's buckets in [from, to) (chat.StatsStore).
func (db *DB) UsageCounts(ctx context.Context, appID string, from, to int64) ([]chat.UsageCount, error) {
	return collect(db.read(ctx).rows(`SELECT bucket, messages_sent, read_receipts, delivery_receipts, concurrent_users
		FROM usage_buckets WHERE app_id = $1 AND bucket >= $2 AND bucket < $3 ORDER BY bucket`, appID, from, to),
		func(s scanner) (chat.UsageCount, error) {
			c := chat.UsageCount{AppID: appID}
			err := s.Scan(&c.Bucket, &c.Messages, &c.ReadReceipts, &c.DeliveryReceipts, &c.Concurrent)
			return c, err
		})
}

// PeakConcurrent is the peak of an app's concurrent users in [from, to) (chat.StatsStore).
func (db *DB) PeakConcurrent(ctx context.Context, appID string, from, to int64) (int64, error) {
	var n int64
	err := db.read(ctx).fixed(`SELECT COALESCE(MAX(concurrent_users), 0) FROM usage_buckets
		WHERE app_id = $1 AND bucket >= $2 AND bucket < $3`, appID, from, to).Scan(&n)
	return n, mapErr(err)
}

// ActiveUsers counts an app's distinct users active in a span (chat.StatsStore): those of
// its whole months, of its whole days outside them, and of its partial days those active
// in a bucket the span covers. UNION keeps each uid once.
func (db *DB) ActiveUsers(ctx context.Context, appID string, s chat.ActiveSpan) (int64, error) {
	p0, p1 := s.Partial[0], s.Partial[1]
	var n int64
	err := db.read(ctx).fixed(`SELECT COUNT(*) FROM (
		SELECT uid FROM usage_active_months WHERE app_id = $1 AND month >= $2 AND month < $3
		UNION
		SELECT uid FROM usage_active_days WHERE app_id = $1 AND (day >= $4 AND day < $5 OR day >= $6 AND day < $7)
		UNION
		SELECT uid FROM usage_active_days WHERE app_id = $1 AND day = $8
			AND ((b0 & $9) <> 0 OR (b1 & $10) <> 0 OR (b2 & $11) <> 0 OR (b3 & $12) <> 0 OR (b4 & $13) <> 0)
		UNION
		SELECT uid FROM usage_active_days WHERE app_id = $1 AND day = $14
			AND ((b0 & $15) <> 0 OR (b1 & $16) <> 0 OR (b2 & $17) <> 0 OR (b3 & $18) <> 0 OR (b4 & $19) <> 0)
	) AS active`, appID, s.Months.From, s.Months.To, s.Days[0].From, s.Days[0].To, s.Days[1].From, s.Days[1].To,
		p0.Day, p0.Mask[0], p0.Mask[1], p0.Mask[2], p0.Mask[3], p0.Mask[4],
		p1.Day, p1.Mask[0], p1.Mask[1], p1.Mask[2], p1.Mask[3], p1.Mask[4]).Scan(&n)
	return n, mapErr(err)
}
