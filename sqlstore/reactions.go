package sqlstore

import (
	"context"
	"database/sql"
	"errors"
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
	undoReactionQuery   = `DELETE FROM reactions WHERE id = $1`
	deleteReactionQuery = `DELETE FROM reactions WHERE app_id = $1 AND message_id = $2 AND uid = $3 AND reaction = $4`
	decrementCountQuery = `UPDATE reaction_counts SET count = count - 1 WHERE message_id = $1 AND reaction = $2`
	dropCountQuery      = `DELETE FROM reaction_counts WHERE message_id = $1 AND reaction = $2 AND count <= 0`
)

// ChangeReaction adds or removes one (message, user, reaction) row and keeps the message's
// per-reaction count and the distinct-reaction cap in the same transaction, then reads the
// message back for the actor. The message row is locked first on PostgreSQL, so concurrent
// changes on one message serialise and the cap cannot be overrun; SQLite's single writer
// serialises them anyway.
func (db *DB) ChangeReaction(ctx context.Context, c chat.ReactionChange, check func(chat.User, chat.MessageHead) error) (chat.Message, error) {
	if db.hot != nil {
		return db.changeReactionSQLite(ctx, c, check)
	}
	var m chat.Message
	err := db.transact(ctx, func(tx *sql.Tx) error {
		var p parties
		var err error
		m, p, err = db.scanMessage(db.txRow(ctx, tx, actableMessageQuery+db.dialect.lockMessage, c.AppID, c.MessageID), c.AppID)
		if errors.Is(err, chat.ErrNotFound) {
			// Which comes first, an unknown actor or an unknown message: the actor.
			u, uerr := scanUser(db.txRow(ctx, tx, userQuery, c.AppID, c.UID), c.AppID)
			if errors.Is(uerr, chat.ErrNotFound) || uerr == nil && !u.Active() {
				return refuse(chat.ErrActorNotFound)
			}
		}
		if errors.Is(err, chat.ErrNotFound) {
			return refuse(err)
		}
		if err != nil {
			return err
		}
		// A participant's state came with the message; anyone else is looked up.
		var actor chat.User
		switch c.UID {
		case m.Sender:
			actor = partyUser(c.AppID, c.UID, p.sender)
		case m.Receiver:
			actor = partyUser(c.AppID, c.UID, p.receiver)
		default:
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
		if err := check(actor, m.Head()); err != nil {
			return refuse(err)
		}
		if c.Add {
			err = db.addReaction(ctx, tx, c)
		} else {
			err = db.removeReaction(ctx, tx, c)
		}
		if err != nil {
			return err
		}
		// A reaction changes neither the message row nor its parties: only the summary is
		// read again, here on the writer, whose page cache stays warm; a reader connection
		// loses its cache to every commit, and re-reading cost several times more.
		m.Reactions, err = db.summary(ctx, txRunner{db, tx}, c.MessageID, c.UID)
		return err
	})
	return m, err
}

// partyUser is what the rules need of a participant whose state came with the message.
func partyUser(appID, uid string, st partyState) chat.User {
	if st < 0 {
		return chat.User{}
	}
	return chat.User{AppID: appID, UID: uid, DeactivatedAt: int64(st)}
}

func (db *DB) addReaction(ctx context.Context, tx *sql.Tx, c chat.ReactionChange) error {
	var rid int64
	err := db.txRow(ctx, tx, insertReactionQuery, c.AppID, c.MessageID, c.UID, c.Reaction, c.At).Scan(&rid)
	if err == sql.ErrNoRows {
		return nil // already there: idempotent
	}
	if err != nil {
		return err
	}
	res, err := db.txExec(ctx, tx, incrementCountQuery, c.MessageID, c.Reaction)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	if c.Max > 0 {
		var distinct int
		if err := db.txRow(ctx, tx, countKindsQuery, c.MessageID).Scan(&distinct); err != nil {
			return err
		}
		if distinct >= c.Max {
			// Undo the row added above, so the refusal leaves nothing written.
			if _, err := db.txExec(ctx, tx, undoReactionQuery, rid); err != nil {
				return err
			}
			return refuse(chat.ErrLimitReached)
		}
	}
	_, err = db.txExec(ctx, tx, insertCountQuery, c.MessageID, c.Reaction, c.At, rid)
	return err
}

func (db *DB) removeReaction(ctx context.Context, tx *sql.Tx, c chat.ReactionChange) error {
	res, err := db.txExec(ctx, tx, deleteReactionQuery, c.AppID, c.MessageID, c.UID, c.Reaction)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // not there: a no-op
	}
	if _, err := db.txExec(ctx, tx, decrementCountQuery, c.MessageID, c.Reaction); err != nil {
		return err
	}
	_, err = db.txExec(ctx, tx, dropCountQuery, c.MessageID, c.Reaction)
	return err
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
