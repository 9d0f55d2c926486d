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
// with the message as the change left it. Each engine has its own way of doing it fast
// and exactly (sqlite_reactions.go, postgres_reactions.go); both decide with
// chat.DecideReaction.
func (db *DB) ChangeReaction(ctx context.Context, c chat.ReactionChange) (chat.Message, error) {
	return db.eng.changeReaction(ctx, c)
}

// partyActor is the acting user when uid is a party of m, from the parties' state read with
// it (an empty UID when that user is gone); ok is false for anyone else, who is looked up.
func partyActor(appID, uid string, m chat.Message, p parties) (actor chat.User, ok bool) {
	if m.ReceiverType != chat.ReceiverUser { // a group's members are looked up with their membership
		return chat.User{}, false
	}
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
	if len(q.Scopes) > 0 { // the reactions of the group's members of these scopes
		args = append(args, q.GUID)
		g := itoa(len(args))
		for _, s := range q.Scopes {
			args = append(args, s)
		}
		query += ` AND EXISTS (SELECT 1 FROM group_members gm WHERE gm.app_id = r.app_id AND gm.guid = $` + g +
			` AND gm.uid = r.uid AND gm.scope IN (` + placeholders(len(args)-len(q.Scopes)+1, len(q.Scopes)) + `))`
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
	out, err := collect(db.read(ctx).rows(query, args...), func(s scanner) (chat.Reaction, error) {
		var r chat.Reaction
		u, err := scanUser(prefix{s, []any{&r.ID, &r.MessageID, &r.Reaction, &r.ReactedAt}}, appID)
		r.UID, r.ReactedBy = u.UID, u
		return r, err
	})
	if err != nil {
		return nil, err
	}
	if desc {
		slices.Reverse(out)
	}
	return out, nil
}
