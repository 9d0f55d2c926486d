package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/commit"
)

// SQLite's reaction path keeps what it reads in the writer's cache (sqlite_hot.go): the message,
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
	// memberQuery is whether a user is a member of a group message's group; read afresh for
	// every change, as membership changes do not go through the cache.
	memberQuery = `SELECT EXISTS (SELECT 1 FROM group_members WHERE app_id = $1 AND guid = $2 AND uid = $3)`
)

// changeReaction runs as a job of the writer's group commit: it loads what it does not
// hold, decides with chat.DecideReaction, writes the difference and answers from the cache.
func (e *sqliteEngine) changeReaction(ctx context.Context, c chat.ReactionChange) (chat.Message, error) {
	var m chat.Message
	err := e.batch.Do(ctx, func(sqlTx *sql.Tx) error {
		tx := e.tx(ctx, sqlTx)
		h := e.hot.get(c.AppID, c.MessageID)
		if h == nil {
			var err error
			if h, err = e.loadHot(tx, c); err != nil {
				return err
			}
		}
		var s chat.ReactionState
		var mine []string
		if h != nil {
			actor, party := partyActor(c.AppID, c.UID, h.msg, h.p)
			if !party {
				var err error
				if actor, err = loadActor(tx, c); err != nil {
					return err
				}
			}
			member := false
			if h.msg.ReceiverType == chat.ReceiverGroup {
				if err := tx.fixed(memberQuery, c.AppID, h.msg.Receiver, c.UID).Scan(&member); err != nil {
					return err
				}
			}
			var ok bool
			if mine, ok = h.mine(c.UID); !ok {
				var all sql.NullString
				if err := tx.fixed(mineQuery, c.MessageID, c.UID).Scan(&all); err != nil {
					return err
				}
				mine = splitNonEmpty(all.String, "\x1e")
			}
			s = chat.ReactionState{Actor: actor, Message: h.msg.Head(), Member: member, Distinct: len(h.counts), Mine: slices.Contains(mine, c.Reaction)}
			if i := indexOf(h.counts, c.Reaction); i >= 0 {
				s.Count = h.counts[i].count
			}
		} else {
			actor, err := loadActor(tx, c)
			if err != nil {
				return err
			}
			s.Actor = actor
		}
		effect, err := chat.DecideReaction(c, s)
		if err != nil {
			return commit.Refuse(err)
		}
		rid, err := e.write(tx, h, c, effect)
		if err != nil {
			return err
		}
		switch effect {
		case chat.ReactionAddFirst, chat.ReactionAddMore:
			mine = append(mine, c.Reaction)
		case chat.ReactionRemoveLast, chat.ReactionRemoveOne:
			mine = slices.DeleteFunc(mine, func(r string) bool { return r == c.Reaction })
		}
		m = h.msg
		m.Reactions = h.summary(mine)
		m.ReactionEffect, m.ReactionID = effect, rid
		markMentioned(&m, c.UID)
		for _, ev := range c.EventsFor(m) {
			if err := insertOutbox(tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	return m, mapErr(err)
}

// loadActor reads the acting user; an empty User when there is none.
func loadActor(tx *wtx, c chat.ReactionChange) (chat.User, error) {
	u, err := scanUser(tx.fixed(userQuery, c.AppID, c.UID), c.AppID)
	if errors.Is(err, chat.ErrNotFound) {
		return chat.User{}, nil
	}
	return u, err
}

// loadHot reads a message, its parties and its counts on the writer and caches them; nil
// when the app has no such message that can be acted on.
func (e *sqliteEngine) loadHot(tx *wtx, c chat.ReactionChange) (*hotMessage, error) {
	m, p, err := scanMessage(tx.fixed(actableMessageQuery, c.AppID, c.MessageID), c.AppID)
	if errors.Is(err, chat.ErrNotFound) {
		return nil, nil
	}
	if err == nil {
		err = completeMessage(tx, &m)
	}
	if err != nil {
		return nil, err
	}
	h := &hotMessage{msg: m, p: p}
	h.counts, err = collect(tx.rows(countsQuery, c.MessageID), func(s scanner) (reactionCount, error) {
		var rc reactionCount
		err := s.Scan(&rc.reaction, &rc.count, &rc.firstID, &rc.firstAt)
		return rc, err
	})
	if err != nil {
		return nil, err
	}
	h.rows, err = collect(tx.rows(rowsQuery, c.MessageID, maxHotRows+1), func(s scanner) (hotRow, error) {
		var r hotRow
		err := s.Scan(&r.uid, &r.reaction)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case len(h.rows) > maxHotRows:
		h.rows = nil
	case h.rows == nil:
		h.rows = []hotRow{}
	}
	e.hot.put(h)
	return h, nil
}

// errOutOfStep fails a job whose cache did not match the database; its rolled-back batch
// empties the cache, and the job's next run reads afresh.
var errOutOfStep = errors.New("reaction cache out of step with the database")

// write makes the decided change: the row, then its count; the cache changes only once both
// are written. It returns the id of the row it added.
func (e *sqliteEngine) write(tx *wtx, h *hotMessage, c chat.ReactionChange, effect chat.ReactionEffect) (rid int64, err error) {
	i := indexOf(h.counts, c.Reaction)
	switch effect {
	case chat.ReactionAddFirst, chat.ReactionAddMore:
		res, err := tx.exec(addRowQuery, c.AppID, c.MessageID, c.UID, c.Reaction, c.At)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return 0, errors.Join(err, errOutOfStep)
		}
		rid, err = res.LastInsertId()
		if err != nil {
			return 0, err
		}
		if effect == chat.ReactionAddMore {
			if _, err := tx.exec(bumpCountQuery, c.MessageID, h.counts[i].firstID, 1); err != nil {
				return 0, err
			}
			h.counts[i].count++
		} else {
			if _, err := tx.exec(insertCountQuery, c.MessageID, c.Reaction, c.At, rid); err != nil {
				return 0, err
			}
			h.counts = append(h.counts, reactionCount{reaction: c.Reaction, count: 1, firstID: rid, firstAt: c.At})
		}
		h.addRow(c.UID, c.Reaction)
	case chat.ReactionRemoveLast, chat.ReactionRemoveOne:
		if i < 0 {
			return 0, errOutOfStep
		}
		res, err := tx.exec(deleteReactionQuery, c.AppID, c.MessageID, c.UID, c.Reaction)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return 0, errors.Join(err, errOutOfStep)
		}
		if effect == chat.ReactionRemoveOne {
			if _, err := tx.exec(bumpCountQuery, c.MessageID, h.counts[i].firstID, -1); err != nil {
				return 0, err
			}
			h.counts[i].count--
		} else {
			if _, err := tx.exec(dropCountRowQuery, c.MessageID, h.counts[i].firstID); err != nil {
				return 0, err
			}
			h.counts = append(h.counts[:i:i], h.counts[i+1:]...)
		}
		h.dropRow(c.UID, c.Reaction)
	}
	return rid, nil
}

func splitNonEmpty(s, sep string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, sep)
}
