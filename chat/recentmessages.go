package chat

import "sync"

// recentMessages keeps the messages this node's feed announced last, as they were sent,
// so that the workers render a new message's events without reading it back: a
// message_sent event goes out within milliseconds of its commit, and on a loaded
// PostgreSQL reading the message cost more than the rest of the attempt together. The
// committing node holds the send's own copy; other nodes the one the change log read back
// (FollowChanges), once for all their listeners.
//
// Only what a message was when sent is served from here (the data of message_sent and
// user_mentioned events, which say the message as sent): a later edit, deletion or
// reaction is in the store, not here.
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
const maxRecentMessages = 4096

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
		case c.Kind == ChangeMessage && c.Message != nil && c.Work&WorkWebhook != 0:
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
	if len(r.order) < maxRecentMessages {
		r.order = append(r.order, k)
	} else {
		delete(r.m, r.order[r.next])
		r.order[r.next] = k
		r.next = (r.next + 1) % maxRecentMessages
	}
	r.m[k] = m
}

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
