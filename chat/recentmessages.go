package chat

import (
	"context"
	"sync"
)

// recentMessages keeps the messages this node's feed announced last, as they were sent,
// so that the workers render a new message's events and decide its notifications without
// reading it back: they run within milliseconds of its commit, and on a loaded PostgreSQL
// reading the message cost more than the rest of the work together (on a young table,
// whose statistics said it was empty, a plan that walked the app's messages: 0.5-1.6 ms
// a read, two reads per notification). The committing node holds the send's own copy;
// other nodes the one the change log read back (FollowChanges), once for all their
// listeners.
//
// A message is kept as sent, until an edit or a deletion of it is announced (a
// notification is not sent for a deleted message, nor says an edited one's old text); what
// else changes a message later (reactions, receipts, pins) is no part of an event's data
// about its sending.
type recentMessages struct {
	mu    sync.Mutex
	m     map[recentKey]*Message
	order []recentKey // oldest first, to bound m
	next  int         // where order's oldest is: a ring once full
}

type recentKey struct {
	app string
	id  int64
}

// maxRecentMessages bounds the messages kept: a few seconds of a busy node's sends, the
// time their events take to go out when the workers keep up. A backlog older than that
// renders from the store as before.
const maxRecentMessages = 8192

func newRecentMessages() *recentMessages {
	return &recentMessages{m: make(map[recentKey]*Message, maxRecentMessages)}
}

// apply keeps the new messages of changes (a listener of the feed); a resync empties it.
func (r *recentMessages) apply(changes []Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range changes {
		c := &changes[i]
		switch {
		case c.Kind == ChangeResync:
			clear(r.m)
			r.order, r.next = r.order[:0], 0
		case c.Kind != ChangeMessage || c.Message == nil:
		case c.Message.TargetID != 0: // an edit or deletion: the store has the message now
			r.drop(recentKey{c.App, c.Message.TargetID})
		case c.Message.Moderation != "": // held, or approved since: the store says which
		case c.Work&(WorkWebhook|WorkNotify) != 0: // someone will render it
			r.put(sentCopy(c.Message))
		}
	}
}

// sentCopy is m as an event about it says it: without the sender's view of its group (the
// store reads it for no viewer).
func sentCopy(m *Message) *Message {
	cp := *m
	if cp.ReceiverGroup != nil {
		g := *cp.ReceiverGroup
		g.Viewer = nil
		cp.ReceiverGroup = &g
	}
	return &cp
}

func (r *recentMessages) put(m *Message) {
	k := recentKey{m.AppID, m.ID}
	if _, ok := r.m[k]; ok {
		return // the first announcement is the message as sent
	}
	// A slot whose message was dropped is taken again in turn, so order may name a key
	// twice; deleting the older one's entry then drops the newer early, which only costs a
	// read.
	if len(r.order) < maxRecentMessages {
		r.order = append(r.order, k)
	} else {
		delete(r.m, r.order[r.next])
		r.order[r.next] = k
		r.next = (r.next + 1) % maxRecentMessages
	}
	r.m[k] = m
}

// drop forgets k; its slot in order is reused in turn.
func (r *recentMessages) drop(k recentKey) { delete(r.m, k) }

// get is a copy of message id of app as sent, when this node announced it recently.
func (r *recentMessages) get(app string, id int64) (Message, bool) {
	r.mu.Lock()
	m, ok := r.m[recentKey{app, id}]
	r.mu.Unlock()
	if !ok {
		return Message{}, false
	}
	return *m, true
}

// recentMessage is message id of app as sent when this node announced it recently, else
// as the store has it (viewed by nobody).
func (s *Service) recentMessage(ctx context.Context, app string, id int64) (Message, error) {
	if m, ok := s.recent.get(app, id); ok {
		return m, nil
	}
	return s.store.Message(ctx, app, id, "")
}
