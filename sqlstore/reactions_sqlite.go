package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// SQLite's reaction path keeps what it reads in the writer's cache (hot.go): the message,
// its parties and its counts. A change on a cached message costs the row's insert or delete,
// one count write, and the viewer's own reactions for reactedByMe.
const (
	countsQuery       = `SELECT reaction, count, first_id, first_at FROM reaction_counts WHERE message_id = $1 ORDER BY first_id`
	bumpCountQuery    = `UPDATE reaction_counts SET count = count + $3 WHERE message_id = $1 AND first_id = $2`
	dropCountRowQuery = `DELETE FROM reaction_counts WHERE message_id = $1 AND first_id = $2`
	mineQuery         = `SELECT group_concat(reaction, char(30)) FROM reactions WHERE message_id = $1 AND uid = $2`
	rowsQuery         = `SELECT uid, reaction FROM reactions WHERE message_id = $1 LIMIT $2`
	// The insert without RETURNING, which SQLite implements through a temporary table: the
	// row's id is the result's LastInsertId, and no row affected means it was there.
	addRowQuery = `INSERT INTO reactions (app_id, message_id, uid, reaction, reacted_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_id, uid, reaction) DO NOTHING`
	deleteReactionQuery = `DELETE FROM reactions WHERE app_id = $1 AND message_id = $2 AND uid = $3 AND reaction = $4`
)

func (db *DB) changeReactionSQLite(ctx context.Context, c chat.ReactionChange, check func(chat.User, chat.MessageHead) error) (chat.Message, error) {
	var m chat.Message
	err := db.batch.do(ctx, func(tx *sql.Tx) error {
		e := db.hot.get(c.AppID, c.MessageID)
		if e == nil {
			var err error
			if e, err = db.loadHot(ctx, tx, c); err != nil {
				return err
			}
		}
		actor, party := partyActor(c.AppID, c.UID, e.msg, e.p)
		if !party {
			var err error
			actor, err = scanUser(db.txRow(ctx, tx, userQuery, c.AppID, c.UID), c.AppID)
			if errors.Is(err, chat.ErrNotFound) {
				return refuse(chat.ErrActorNotFound)
			}
			if err != nil {
				return err
			}
		}
		if actor.UID == "" {
			return refuse(chat.ErrActorNotFound)
		}
		if err := check(actor, e.msg.Head()); err != nil {
			return refuse(err)
		}
		var err error
		if c.Add {
			err = db.addReactionHot(ctx, tx, e, c)
		} else {
			err = db.removeReactionHot(ctx, tx, e, c)
		}
		if err != nil {
			return err
		}
		mine, ok := e.mine(c.UID)
		if !ok {
			var all sql.NullString
			if err := db.txRow(ctx, tx, mineQuery, c.MessageID, c.UID).Scan(&all); err != nil {
				return err
			}
			mine = splitNonEmpty(all.String, "\x1e")
		}
		m = e.msg
		m.Reactions = e.summary(mine)
		return nil
	})
	return m, mapErr(err)
}

// loadHot reads a message, its parties and its counts on the writer and caches them.
func (db *DB) loadHot(ctx context.Context, tx *sql.Tx, c chat.ReactionChange) (*hotMessage, error) {
	m, p, err := db.scanMessage(db.txRow(ctx, tx, actableMessageQuery, c.AppID, c.MessageID), c.AppID)
	if errors.Is(err, chat.ErrNotFound) {
		// Which comes first, an unknown actor or an unknown message: the actor.
		u, uerr := scanUser(db.txRow(ctx, tx, userQuery, c.AppID, c.UID), c.AppID)
		if errors.Is(uerr, chat.ErrNotFound) || uerr == nil && !u.Active() {
			return nil, refuse(chat.ErrActorNotFound)
		}
		return nil, refuse(err)
	}
	if err != nil {
		return nil, err
	}
	e := &hotMessage{msg: m, p: p}
	err = db.scanRows(ctx, tx, countsQuery, []any{c.MessageID}, func(rows *sql.Rows) error {
		var hc reactionCount
		err := rows.Scan(&hc.reaction, &hc.count, &hc.firstID, &hc.firstAt)
		e.counts = append(e.counts, hc)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.rows = []hotRow{}
	err = db.scanRows(ctx, tx, rowsQuery, []any{c.MessageID, maxHotRows + 1}, func(rows *sql.Rows) error {
		var r hotRow
		err := rows.Scan(&r.uid, &r.reaction)
		e.rows = append(e.rows, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(e.rows) > maxHotRows {
		e.rows = nil
	}
	db.hot.put(e)
	return e, nil
}

func (db *DB) scanRows(ctx context.Context, tx *sql.Tx, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := db.txRows(ctx, tx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// addReactionHot writes the row and its count; the cache changes only once both are written.
func (db *DB) addReactionHot(ctx context.Context, tx *sql.Tx, e *hotMessage, c chat.ReactionChange) error {
	i := indexOf(e.counts, c.Reaction)
	if i < 0 && c.Max > 0 && len(e.counts) >= c.Max {
		// A new distinct reaction over the cap, unless this user already made it — which
		// cannot be: a reaction someone made has a count.
		return refuse(chat.ErrLimitReached)
	}
	res, err := db.txExec(ctx, tx, addRowQuery, c.AppID, c.MessageID, c.UID, c.Reaction, c.At)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // n == 0: already there, idempotent
	}
	rid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if i >= 0 {
		if _, err := db.txExec(ctx, tx, bumpCountQuery, c.MessageID, e.counts[i].firstID, 1); err != nil {
			return err
		}
		e.counts[i].count++
	} else {
		if _, err := db.txExec(ctx, tx, insertCountQuery, c.MessageID, c.Reaction, c.At, rid); err != nil {
			return err
		}
		e.counts = append(e.counts, reactionCount{reaction: c.Reaction, count: 1, firstID: rid, firstAt: c.At})
	}
	e.addRow(c.UID, c.Reaction)
	return nil
}

func (db *DB) removeReactionHot(ctx context.Context, tx *sql.Tx, e *hotMessage, c chat.ReactionChange) error {
	res, err := db.txExec(ctx, tx, deleteReactionQuery, c.AppID, c.MessageID, c.UID, c.Reaction)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // not there: a no-op
	}
	i := indexOf(e.counts, c.Reaction)
	if i < 0 {
		// A row without a count: the cache is not what the database holds. The job fails,
		// and its rolled-back batch empties the cache for the next change to read afresh.
		return errors.New("reaction cache out of step with reaction_counts")
	}
	if e.counts[i].count > 1 {
		if _, err := db.txExec(ctx, tx, bumpCountQuery, c.MessageID, e.counts[i].firstID, -1); err != nil {
			return err
		}
		e.counts[i].count--
	} else {
		if _, err := db.txExec(ctx, tx, dropCountRowQuery, c.MessageID, e.counts[i].firstID); err != nil {
			return err
		}
		e.counts = append(e.counts[:i:i], e.counts[i+1:]...)
	}
	e.dropRow(c.UID, c.Reaction)
	return nil
}

func splitNonEmpty(s, sep string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, sep)
}
