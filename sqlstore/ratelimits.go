package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// SharesQuota reports whether other nodes count against the same rate limits: on PostgreSQL
// they may; a SQLite file has one natter serve (sqlite_lock.go), which counts in memory.
func (db *DB) SharesQuota() bool { return db.dialect.concurrentWrites }

// LeaseQuota adds up to want to the count of (app, class, window), never past limit, in one
// statement: the row is the serialisation point between nodes. granted is what this call
// added (0 once the count reached the limit), used the count after. A node's first lease in
// a window also drops the app's rows of windows an hour or more old.
func (db *DB) LeaseQuota(ctx context.Context, appID string, class chat.RateClass, window int64, want, limit int) (granted, used int, err error) {
	want = min(want, limit)
	err = db.transact(ctx, func(tx *wtx) error {
		if err := tx.row(`INSERT INTO rate_counters AS c (app_id, class, window_start, used, granted)
			VALUES ($1, $2, $3, $4, $4)
			ON CONFLICT (app_id, class, window_start) DO UPDATE SET
				used = c.used + CASE WHEN c.used >= $5 THEN 0 WHEN c.used + $4 > $5 THEN $5 - c.used ELSE $4 END,
				granted = CASE WHEN c.used >= $5 THEN 0 WHEN c.used + $4 > $5 THEN $5 - c.used ELSE $4 END
			RETURNING used, granted`, appID, int(class), window, want, limit).Scan(&used, &granted); err != nil {
			return err
		}
		if used == granted { // this node opened the window
			_, err := tx.exec(`DELETE FROM rate_counters WHERE app_id = $1 AND class = $2 AND window_start < $3`,
				appID, int(class), window-3600)
			return err
		}
		return nil
	})
	return granted, used, mapErr(err)
}
