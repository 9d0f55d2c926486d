package sqlstore

import (
	"context"
	"database/sql"
	"slices"

	"github.com/natter-chat/natter/chat"
)

// The reaction write path; constant so the SQLite writer can prepare them once (stmt.go).
const (
	insertReactionQuery = `INSERT INTO reactions (app_id, message_id, uid, reaction, reacted_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_id, uid, reaction) DO NOTHING RETURNING id`
	incrementCountQuery = `UPDATE reaction_counts SET count = count + 1 WHERE message_id = $1 AND reaction = $2`
	countKindsQuery     = `SELECT COUNT(*) FROM reaction_counts WHERE message_id = $1`
	insertCountQuery    = `INSERT INTO reaction_counts (message_id, reaction, count, first_at, first_id)
			VALUES ($1, $2, 1, $3, $4)`
	deleteReactionQuery = `DELETE FROM reactions WHERE app_id = $1 AND message_id = $2 AND uid = $3 AND reaction = $4`
	decrementCountQuery = `UPDATE reaction_counts SET count = count - 1 WHERE message_id = $1 AND reaction = $2`
	dropCountQuery      = `DELETE FROM reaction_counts WHERE message_id = $1 AND reaction = $2 AND count <= 0`
)

// AddReaction adds one (message, user, reaction) row unless it exists, and keeps the
// message's per-reaction count and the distinct-reaction cap in the same transaction. The
// message row is locked first on PostgreSQL, so concurrent adds on one message serialise
// and the cap cannot be overrun; SQLite's single writer serialises them anyway.
func (db *DB) AddReaction(ctx context.Context, appID string, msgID int64, uid, reaction string, at int64, max int, check func(chat.MessageHead) error) (bool, error) {
	added := false
	err := db.transact(ctx, func(tx *sql.Tx) error {
		h, err := db.head(ctx, tx, appID, msgID)
		if err != nil {
			return err
		}
		if err := check(h); err != nil {
			return err
		}
		var rid int64
		err = db.txRow(ctx, tx, insertReactionQuery,
			appID, msgID, uid, reaction, at).Scan(&rid)
		if err == sql.ErrNoRows {
			return nil // already there: idempotent
		}
		if err != nil {
			return err
		}
		added = true
		res, err := db.txExec(ctx, tx, incrementCountQuery, msgID, reaction)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		if max > 0 {
			var distinct int
			if err := db.txRow(ctx, tx, countKindsQuery, msgID).Scan(&distinct); err != nil {
				return err
			}
			if distinct >= max {
				return chat.ErrLimitReached
			}
		}
		_, err = db.txExec(ctx, tx, insertCountQuery, msgID, reaction, at, rid)
		return err
	})
	return added && err == nil, err
}

// RemoveReaction removes one (message, user, reaction) row if it exists and keeps the count.
func (db *DB) RemoveReaction(ctx context.Context, appID string, msgID int64, uid, reaction string, check func(chat.MessageHead) error) (bool, error) {
	removed := false
	err := db.transact(ctx, func(tx *sql.Tx) error {
		h, err := db.head(ctx, tx, appID, msgID)
		if err != nil {
			return err
		}
		if err := check(h); err != nil {
			return err
		}
		res, err := db.txExec(ctx, tx, deleteReactionQuery,
			appID, msgID, uid, reaction)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // not there: a no-op
		}
		removed = true
		if _, err := db.txExec(ctx, tx, decrementCountQuery, msgID, reaction); err != nil {
			return err
		}
		_, err = db.txExec(ctx, tx, dropCountQuery, msgID, reaction)
		return err
	})
	return removed && err == nil, err
}

// ListReactions pages a message's reaction records by id, each with its user.
func (db *DB) ListReactions(ctx context.Context, appID string, msgID int64, q chat.ReactionQuery) ([]chat.Reaction, error) {
	query := `SELECT r.id, r.message_id, r.reaction, r.reacted_at, ` + prefixed("u.", userColumns) + `
		FROM reactions r JOIN users u ON u.app_id = r.app_id AND u.uid = r.uid
		WHERE r.app_id = $1 AND r.message_id = $2`
	args := []any{appID, msgID}
	if q.Reaction != "" {
		args = append(args, q.Reaction)
		query += ` AND r.reaction = $3`
	}
	desc := q.BeforeID > 0
	if desc {
		args = append(args, q.BeforeID)
		query += ` AND r.id < $` + itoa(len(args)) + ` ORDER BY r.id DESC`
	} else {
		args = append(args, q.AfterID)
		query += ` AND r.id > $` + itoa(len(args)) + ` ORDER BY r.id`
	}
	args = append(args, q.Limit)
	query += ` LIMIT $` + itoa(len(args))
	rows, err := db.r.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []chat.Reaction
	for rows.Next() {
		var r chat.Reaction
		var sc scanner = rows
		u, err := scanUser(prefix{sc, []any{&r.ID, &r.MessageID, &r.Reaction, &r.ReactedAt}}, appID)
		if err != nil {
			return nil, err
		}
		r.UID, r.ReactedBy = u.UID, u
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	if desc {
		slices.Reverse(out)
	}
	return out, nil
}

type scanner interface{ Scan(...any) error }

// prefix scans some leading columns into its own destinations before the rest.
type prefix struct {
	s    scanner
	dest []any
}

func (p prefix) Scan(dest ...any) error { return p.s.Scan(append(p.dest, dest...)...) }
