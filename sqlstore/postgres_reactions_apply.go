package sqlstore

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/commit"
)

// How a PostgreSQL reaction batch (postgres_reactions.go) applies its changes to what it read, and
// turns the result into its writes.

// The batch's view of one message while its changes are applied in order.
type pgMessage struct {
	msg     chat.Message
	p       parties
	initial []reactionCount // as read, to find the net writes
	counts  []reactionCount // as the changes so far left them, in first-appearance order
}

type pairKey struct {
	mid int64
	uid string
}

// pgRow is one (message, user, reaction) row: whether it was there before the batch and
// whether it is there now; newID is set when the batch (re)created it.
type pgRow struct {
	initial, final bool
	newID, at      int64
}

type userKey struct{ app, uid string }

// apply decides one job's change against the batch's view with chat.DecideReaction, makes
// it there, and sets the job's answer. It returns commit.Refuse(err) for a refusal, or an
// error that fails the batch.
func apply(j *pgJob, m *pgMessage, actors map[userKey]chat.User, member bool, mine map[string]*pgRow, newIDs *[]int64) error {
	c := j.c
	s := chat.ReactionState{Actor: actors[userKey{c.AppID, c.UID}], Member: member}
	row := mine[c.Reaction]
	i := -1
	if m != nil && m.msg.AppID == c.AppID {
		if actor, party := partyActor(c.AppID, c.UID, m.msg, m.p); party {
			s.Actor = actor
		}
		s.Message, s.Distinct, s.Mine = m.msg.Head(), len(m.counts), row != nil && row.final
		if i = indexOf(m.counts, c.Reaction); i >= 0 {
			s.Count = m.counts[i].count
		}
	}
	effect, err := decide(j, s)
	if err != nil {
		return commit.Refuse(err)
	}
	switch effect {
	case chat.ReactionAddFirst, chat.ReactionAddMore:
		if len(*newIDs) == 0 {
			return errors.New("reaction batch: ran out of reserved ids")
		}
		id := (*newIDs)[0]
		*newIDs = (*newIDs)[1:]
		if row == nil {
			row = &pgRow{}
			mine[c.Reaction] = row
		}
		row.final, row.newID, row.at = true, id, c.At
		if effect == chat.ReactionAddMore {
			m.counts[i].count++
		} else {
			m.counts = append(m.counts, reactionCount{reaction: c.Reaction, count: 1, firstID: id, firstAt: c.At})
		}
	case chat.ReactionRemoveLast, chat.ReactionRemoveOne:
		if i < 0 {
			return errors.New("reaction batch: a row without a count")
		}
		row.final, row.newID = false, 0
		if effect == chat.ReactionRemoveOne {
			m.counts[i].count--
		} else {
			m.counts = slices.Delete(m.counts, i, i+1)
		}
	}
	j.msg = m.msg
	j.msg.ReactionEffect = effect
	if effect == chat.ReactionAddFirst || effect == chat.ReactionAddMore {
		j.msg.ReactionID = row.newID
	}
	markMentioned(&j.msg, c.UID)
	j.msg.Reactions = summarize(m.counts, func(r string) bool { row := mine[r]; return row != nil && row.final })
	return nil
}

// decide runs the rule; a panic in it reaches the job's caller, not the batch's worker.
func decide(j *pgJob, s chat.ReactionState) (effect chat.ReactionEffect, err error) {
	defer func() {
		if p := recover(); p != nil {
			j.panic = p
			err = fmt.Errorf("panic in reaction rule: %v", p)
		}
	}()
	return chat.DecideReaction(j.c, s)
}

// queueWrites queues the statements that take the database from what was read to what the
// changes left, each over arrays; deletes come first so that a row or count recreated in
// the batch does not meet its old self.
func queueWrites(w *pgx.Batch, jobs []*pgJob, msgs map[int64]*pgMessage, pairs map[pairKey]map[string]*pgRow) {
	var del struct {
		mids           []int64
		uids, reaction []string
	}
	var ins struct {
		ids, mids, ats       []int64
		apps, uids, reaction []string
	}
	done := map[pairKey]bool{}
	for _, j := range jobs { // in job order, so the statements are deterministic
		k := pairKey{j.c.MessageID, j.c.UID}
		if done[k] || msgs[k.mid] == nil {
			continue
		}
		done[k] = true
		reactions := make([]string, 0, len(pairs[k]))
		for r := range pairs[k] {
			reactions = append(reactions, r)
		}
		slices.Sort(reactions)
		for _, r := range reactions {
			row := pairs[k][r]
			if row.initial && (!row.final || row.newID != 0) {
				del.mids, del.uids, del.reaction = append(del.mids, k.mid), append(del.uids, k.uid), append(del.reaction, r)
			}
			if row.final && row.newID != 0 {
				ins.ids, ins.mids, ins.ats = append(ins.ids, row.newID), append(ins.mids, k.mid), append(ins.ats, row.at)
				ins.apps, ins.uids, ins.reaction = append(ins.apps, msgs[k.mid].msg.AppID), append(ins.uids, k.uid), append(ins.reaction, r)
			}
		}
	}
	var cdel struct{ mids, fids []int64 }
	var cins struct {
		mids, fids, counts, ats []int64
		reactions               []string
	}
	var cupd struct{ mids, fids, deltas []int64 }
	mids := make([]int64, 0, len(msgs))
	for id := range msgs {
		mids = append(mids, id)
	}
	slices.Sort(mids)
	for _, mid := range mids {
		m := msgs[mid]
		final := map[int64]reactionCount{}
		for _, c := range m.counts {
			final[c.firstID] = c
		}
		for _, c := range m.initial {
			f, ok := final[c.firstID]
			switch {
			case !ok:
				cdel.mids, cdel.fids = append(cdel.mids, mid), append(cdel.fids, c.firstID)
			case f.count != c.count:
				cupd.mids, cupd.fids, cupd.deltas = append(cupd.mids, mid), append(cupd.fids, c.firstID), append(cupd.deltas, f.count-c.count)
			}
			delete(final, c.firstID)
		}
		added := make([]reactionCount, 0, len(final))
		for _, c := range final {
			added = append(added, c)
		}
		slices.SortFunc(added, func(a, b reactionCount) int { return cmp.Compare(a.firstID, b.firstID) })
		for _, c := range added {
			cins.mids, cins.fids, cins.counts = append(cins.mids, mid), append(cins.fids, c.firstID), append(cins.counts, c.count)
			cins.ats, cins.reactions = append(cins.ats, c.firstAt), append(cins.reactions, c.reaction)
		}
	}
	if len(del.mids) > 0 {
		w.Queue(pgDeleteRowsQuery, del.mids, del.uids, del.reaction)
	}
	if len(cdel.mids) > 0 {
		w.Queue(pgDeleteCountsQuery, cdel.mids, cdel.fids)
	}
	if len(ins.ids) > 0 {
		w.Queue(pgInsertRowsQuery, ins.ids, ins.apps, ins.mids, ins.uids, ins.reaction, ins.ats)
	}
	if len(cins.mids) > 0 {
		w.Queue(pgInsertCountsQuery, cins.mids, cins.fids, cins.reactions, cins.counts, cins.ats)
	}
	if len(cupd.mids) > 0 {
		w.Queue(pgUpdateCountsQuery, cupd.mids, cupd.fids, cupd.deltas)
	}
}
