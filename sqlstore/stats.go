package sqlstore

import (
	"context"
	"database/sql"
	"errors"

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
	// It writes nothing the engines cache, so SQLite's message cache stays warm.
	err := db.eng.transactUncached(ctx, func(tx *wtx) error {
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
			// Figures of an app deleted since they were counted are dropped rather than
			// fail the batch.
			const bucket = `INSERT INTO usage_buckets AS u
				(app_id, bucket, messages_sent, read_receipts, delivery_receipts, concurrent_users, rate_limited)
				SELECT $1, CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT), CAST($5 AS BIGINT), CAST($6 AS BIGINT), CAST($7 AS BIGINT)
				WHERE EXISTS (SELECT 1 FROM apps WHERE id = $1)
				ON CONFLICT (app_id, bucket) DO UPDATE SET
					messages_sent = u.messages_sent + excluded.messages_sent,
					read_receipts = u.read_receipts + excluded.read_receipts,
					delivery_receipts = u.delivery_receipts + excluded.delivery_receipts,
					concurrent_users = u.concurrent_users + excluded.concurrent_users,
					rate_limited = u.rate_limited + excluded.rate_limited`
			args := []any{c.AppID, c.Bucket, c.Messages, c.ReadReceipts, c.DeliveryReceipts, c.Concurrent, c.RateLimited}
			if c.Concurrent == 0 {
				if _, err := tx.exec(bucket, args...); err != nil {
					return err
				}
				continue
			}
			// The bucket's total once this node's peak is in: every node adding to a
			// bucket raises its day's peak to what it sees, so the last one leaves the
			// day's peak at the bucket's final sum if that is the day's largest.
			var total int64
			switch err := tx.row(bucket+` RETURNING concurrent_users`, args...).Scan(&total); {
			case errors.Is(err, sql.ErrNoRows):
				continue
			case err != nil:
				return err
			}
			if _, err := tx.exec(`INSERT INTO usage_days AS d (app_id, day, concurrent_users) VALUES ($1, $2, $3)
				ON CONFLICT (app_id, day) DO UPDATE SET concurrent_users =
					CASE WHEN excluded.concurrent_users > d.concurrent_users THEN excluded.concurrent_users ELSE d.concurrent_users END`,
				c.AppID, c.Bucket-c.Bucket%86400, total); err != nil {
				return err
			}
		}
		// Only the app's users count: a request may name an onBehalfOf that an operation
		// never looked up.
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
			if _, err := tx.exec(`INSERT INTO usage_active_months AS m (app_id, month, uid, days)
				SELECT $1, CAST($2 AS BIGINT), $3, CAST($4 AS BIGINT) WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $3)
				ON CONFLICT (app_id, month, uid) DO UPDATE SET days = m.days | excluded.days`, a.AppID, a.Month, a.UID, a.MonthDay); err != nil {
				return err
			}
		}
		return nil
	})
	return mapErr(err)
}

// UsageCounts reads an app's buckets in [from, to) (chat.StatsStore).
func (db *DB) UsageCounts(ctx context.Context, appID string, from, to int64) ([]chat.UsageCount, error) {
	return collect(db.read(ctx).rows(`SELECT bucket, messages_sent, read_receipts, delivery_receipts, concurrent_users, rate_limited
		FROM usage_buckets WHERE app_id = $1 AND bucket >= $2 AND bucket < $3 ORDER BY bucket`, appID, from, to),
		func(s scanner) (chat.UsageCount, error) {
			c := chat.UsageCount{AppID: appID}
			err := s.Scan(&c.Bucket, &c.Messages, &c.ReadReceipts, &c.DeliveryReceipts, &c.Concurrent, &c.RateLimited)
			return c, err
		})
}

// PeakConcurrent is the peak of an app's concurrent users in a span (chat.StatsStore): the
// day peaks of its whole days, and the buckets at its ends.
func (db *DB) PeakConcurrent(ctx context.Context, appID string, s chat.PeakSpan) (int64, error) {
	var n int64
	err := db.read(ctx).fixed(`SELECT MAX(c) FROM (
		SELECT COALESCE(MAX(concurrent_users), 0) AS c FROM usage_days WHERE app_id = $1 AND day >= $2 AND day < $3
		UNION ALL
		SELECT COALESCE(MAX(concurrent_users), 0) FROM usage_buckets WHERE app_id = $1 AND bucket >= $4 AND bucket < $5
		UNION ALL
		SELECT COALESCE(MAX(concurrent_users), 0) FROM usage_buckets WHERE app_id = $1 AND bucket >= $6 AND bucket < $7
	) AS peaks`, appID, s.Days.From, s.Days.To, s.Buckets[0].From, s.Buckets[0].To, s.Buckets[1].From, s.Buckets[1].To).Scan(&n)
	return n, mapErr(err)
}

// ActiveUsers counts an app's distinct users active in a span (chat.StatsStore): those of
// its whole months, those of its edge months active on one of the days the span covers,
// and those of its partial days active in one of the buckets it covers. UNION keeps each
// uid once.
func (db *DB) ActiveUsers(ctx context.Context, appID string, s chat.ActiveSpan) (int64, error) {
	m0, m1 := s.EdgeMonths[0], s.EdgeMonths[1]
	p0, p1 := s.PartialDays[0], s.PartialDays[1]
	var n int64
	err := db.read(ctx).fixed(`SELECT COUNT(*) FROM (
		SELECT uid FROM usage_active_months WHERE app_id = $1 AND month >= $2 AND month < $3
		UNION
		SELECT uid FROM usage_active_months WHERE app_id = $1 AND month = $4 AND (days & $5) <> 0
		UNION
		SELECT uid FROM usage_active_months WHERE app_id = $1 AND month = $6 AND (days & $7) <> 0
		UNION
		SELECT uid FROM usage_active_days WHERE app_id = $1 AND day = $8
			AND ((b0 & $9) <> 0 OR (b1 & $10) <> 0 OR (b2 & $11) <> 0 OR (b3 & $12) <> 0 OR (b4 & $13) <> 0)
		UNION
		SELECT uid FROM usage_active_days WHERE app_id = $1 AND day = $14
			AND ((b0 & $15) <> 0 OR (b1 & $16) <> 0 OR (b2 & $17) <> 0 OR (b3 & $18) <> 0 OR (b4 & $19) <> 0)
	) AS active`, appID, s.Months.From, s.Months.To, m0.Month, m0.Days, m1.Month, m1.Days,
		p0.Day, p0.Mask[0], p0.Mask[1], p0.Mask[2], p0.Mask[3], p0.Mask[4],
		p1.Day, p1.Mask[0], p1.Mask[1], p1.Mask[2], p1.Mask[3], p1.Mask[4]).Scan(&n)
	return n, mapErr(err)
}
