package sqlstore

import (
	"slices"

	"github.com/natter-chat/natter/chat"
)

// hotMessages is the SQLite writer's memory of the messages it has changed reactions on: the
// message with its parties' state, and its per-reaction counts in first-appearance order.
// A reaction change then writes its rows without first reading them back, and answers
// with a summary it already holds, on the one goroutine every SQLite write waits for.
//
// It is sound because that goroutine is the only writer of the file: every write natter
// makes runs in a batcher job, and the cache is touched only from there. A job that may
// change what it holds — anything but a reaction change or a new message — empties it
// first (sqliteEngine.transact), and so does a batch that rolls back. Other processes may add apps
// and keys to a running natter's file (natter apps create); edits to messages, users or
// reactions by another process while natter runs are not seen here.
type hotMessages struct {
	m   map[int64]*hotMessage
	max int
}

type hotMessage struct {
	msg    chat.Message // without Reactions; shared, so never modified in place
	p      parties
	counts []reactionCount
	// rows is every (uid, reaction) row of the message, for reactedByMe, when it has at most
	// maxHotRows of them; nil otherwise, and the viewer's rows are read from the database.
	rows []hotRow
}

type hotRow struct{ uid, reaction string }

// maxHotMessages and maxHotRows bound the cache: a message is a few hundred bytes plus its
// data (bounded by the send limits) and its rows, so this is tens of megabytes at most.
const (
	maxHotMessages = 20000
	maxHotRows     = 32
)

func newHotMessages(max int) *hotMessages {
	return &hotMessages{m: make(map[int64]*hotMessage), max: max}
}

func (h *hotMessages) get(appID string, id int64) *hotMessage {
	e := h.m[id]
	if e == nil || e.msg.AppID != appID {
		return nil
	}
	return e
}

func (h *hotMessages) put(e *hotMessage) {
	if len(h.m) >= h.max {
		for id := range h.m { // map order is random: evicts an arbitrary entry
			delete(h.m, id)
			break
		}
	}
	h.m[e.msg.ID] = e
}

func (h *hotMessages) reset() { clear(h.m) }

// addRow and dropRow keep rows in step with a written change.
func (e *hotMessage) addRow(uid, reaction string) {
	if e.rows == nil {
		return
	}
	if len(e.rows) >= maxHotRows {
		e.rows = nil
		return
	}
	e.rows = append(e.rows, hotRow{uid, reaction})
}

func (e *hotMessage) dropRow(uid, reaction string) {
	for i, r := range e.rows {
		if r == (hotRow{uid, reaction}) {
			e.rows = append(e.rows[:i:i], e.rows[i+1:]...)
			return
		}
	}
}

// mine is viewer's reactions on the message, when rows holds them.
func (e *hotMessage) mine(viewer string) (mine []string, ok bool) {
	if e.rows == nil {
		return nil, false
	}
	for _, r := range e.rows {
		if r.uid == viewer {
			mine = append(mine, r.reaction)
		}
	}
	return mine, true
}

// summary is the message's data.reactions for a viewer whose reactions are mine.
func (e *hotMessage) summary(mine []string) []chat.ReactionSummary {
	return summarize(e.counts, func(r string) bool { return slices.Contains(mine, r) })
}
