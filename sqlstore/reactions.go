package sqlstore

import (
	"context"
	"slices"

	"github.com/natter-chat/natter/chat"
)

// insertCountQuery adds a count row for a reaction new to its message (SQLite's writer).
const insertCountQuery = `INSERT INTO reaction_counts (message_id, reaction, count, first_at, first_id)
			VALUES ($1, $2, 1, $3, $4)`

// ChangeReaction adds or removes one (message, user, reaction) row and keeps the message's
// per-reaction count and the distinct-reaction cap in the same transaction, and answers
// with the message as the change left it. Each database has its own way of doing it fast
// and exactly: SQLite's single writer with the messages it holds in memory
// (reactions_sqlite.go), PostgreSQL's shared transactions over locked messages
// (reactions_pg.go).
func (db *DB) ChangeReaction(ctx context.Context, c chat.ReactionChange, check func(chat.User, chat.MessageHead) error) (chat.Message, error) {
	if db.hot != nil {
		return db.changeReactionSQLite(ctx, c, check)
	}
	return db.pgBatch.do(ctx, c, check)
}

// partyActor is the acting user when uid is a party of m, from the parties' state read with
// it (an empty UID when that user is gone); ok is false for anyone else, who is looked up.
func partyActor(appID, uid string, m chat.Message, p parties) (actor chat.User, ok bool) {
	var st partyState
	switch uid {
	case m.Sender:
		st = p.sender
	case m.Receiver:
		st = p.receiver
	default:
		return chat.User{}, false
	}
	if st < 0 {
		return chat.User{}, true
	}
	return chat.User{AppID: appID, UID: uid, DeactivatedAt: int64(st)}, true
}

// reactionCount is one reaction_counts row as the write paths keep it: a distinct reaction
// on a message, how many made it, and the row that made it appear (with message_id its key;
// ids grow with time, so also its first-appearance order).
type reactionCount struct {
	reaction         string
	count            int64
	firstID, firstAt int64
}

// indexOf finds reaction among counts, or -1.
func indexOf(counts []reactionCount, reaction string) int {
	for i := range counts {
		if counts[i].reaction == reaction {
			return i
		}
	}
	return -1
}

// summarize is a message's data.reactions: counts in first-appearance order, with
// reactedByMe where mine says the viewer made that reaction.
func summarize(counts []reactionCount, mine func(reaction string) bool) []chat.ReactionSummary {
	if len(counts) == 0 {
		return nil
	}
	out := make([]chat.ReactionSummary, len(counts))
	for i, c := range counts {
		out[i] = chat.ReactionSummary{Reaction: c.reaction, Count: c.count, ReactedByMe: mine(c.reaction)}
	}
	return out
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

// suffix scans some trailing columns into its own destinations after the rest.
type suffix struct {
	s    scanner
	dest []any
}

func (p suffix) Scan(dest ...any) error { return p.s.Scan(append(dest, p.dest...)...) }
