package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
)

// Issue 39's shapes. The default seed (random pairs of 2,000 users) leaves each conversation
// a message or two, so a "page of 50" holds a handful of rows and no user has many
// conversations: it cannot show what a long history or a busy user costs. These scenarios
// run on two shapes seeded beside it, with users of their own so that the counts are exact:
//
//   - the long conversation: -long-messages (20,000) one-to-one messages between the hub and
//     one partner, alternating senders, so the hub has half of them as its own messages
//     after its read marker (it never marks the conversation read);
//   - the hub: that conversation plus -hub-conversations (1,000) others with one message
//     each (half sent by the hub), so the hub is in 1,001 conversations. The long one is
//     seeded last, so it sits on the hub's first page with its 10,000 own unread.
type shapeData struct {
	hub, partner string
	others       []string
	long         []msgRef // the long conversation's messages, in send order
}

// shapeScenarios are the scenarios that need the shapes seeded.
var shapeScenarios = []string{"long-get", "long-history", "long-send", "long-reaction", "hub-conversations"}

func (o options) runsShapes() bool {
	for _, s := range shapeScenarios {
		if o.runs(s) {
			return true
		}
	}
	return false
}

// seedShapes seeds the hub, its partner in the long conversation and its other partners,
// through the API as the default seed does (8 requests at a time): an import would be
// quicker but would not take the send path that keeps the read model and the counts.
func seedShapes(ctx context.Context, a *api, tag string, longMsgs, hubConvs, conns int) (shapeData, error) {
	d := shapeData{hub: tag + "-hub", partner: tag + "-long", others: make([]string, hubConvs)}
	for i := range d.others {
		d.others[i] = fmt.Sprintf("%s-h%05d", tag, i)
	}
	users := append([]string{d.hub, d.partner}, d.others...)
	err := parallel(ctx, len(users), conns, func(ctx context.Context, i int) error {
		return a.do(ctx, http.MethodPost, "/v3/users", "", map[string]string{"uid": users[i], "name": "Shape User " + strconv.Itoa(i)}, nil)
	})
	if err != nil {
		return d, fmt.Errorf("seed the shapes' users: %w", err)
	}
	send := func(ctx context.Context, m *msgRef, text string) error {
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		body := map[string]any{"receiver": m.receiver, "receiverType": "user", "category": "message", "type": "text",
			"data": map[string]string{"text": text}}
		if err := a.do(ctx, http.MethodPost, "/v3/messages", m.sender, body, &out); err != nil {
			return err
		}
		if out.Data.ID == "" {
			return fmt.Errorf("send message: no id in the answer")
		}
		m.id = out.Data.ID
		return nil
	}
	// The 1,000 short conversations first, so that the long one is the hub's most recent.
	short := make([]msgRef, hubConvs)
	for i := range short {
		short[i] = msgRef{sender: d.hub, receiver: d.others[i]}
		if i%2 == 1 {
			short[i] = msgRef{sender: d.others[i], receiver: d.hub}
		}
	}
	err = parallel(ctx, len(short), conns, func(ctx context.Context, i int) error {
		return send(ctx, &short[i], "hub message "+strconv.Itoa(i))
	})
	if err != nil {
		return d, fmt.Errorf("seed the hub's conversations: %w", err)
	}
	d.long = make([]msgRef, longMsgs)
	for i := range d.long {
		d.long[i] = msgRef{sender: d.hub, receiver: d.partner}
		if i%2 == 1 {
			d.long[i] = msgRef{sender: d.partner, receiver: d.hub}
		}
	}
	err = parallel(ctx, len(d.long), conns, func(ctx context.Context, i int) error {
		return send(ctx, &d.long[i], "long conversation message "+strconv.Itoa(i))
	})
	if err != nil {
		return d, fmt.Errorf("seed the long conversation: %w", err)
	}
	return d, nil
}

// longGetScenario reads random messages of the long conversation, as the app (no
// onBehalfOf), as get-message does.
func longGetScenario(base string, d *shapeData) *scenario {
	return &scenario{name: "long-get", base: base, method: http.MethodGet, next: func(w *worker) {
		m := &d.long[w.rng.IntN(len(d.long))]
		w.path = append(append(w.path, "/v3/messages/"...), m.id...)
	}}
}

// longHistoryScenario reads the newest page of 50 of the long conversation, as the hub or
// its partner: the GET /users/{uid}/messages?limit=50 on a 20,000-message
// conversation. (A page deeper in it costs the same: TestHistoryPageCost.)
func longHistoryScenario(base string, d *shapeData) *scenario {
	return &scenario{name: "long-history", base: base, method: http.MethodGet, next: func(w *worker) {
		me, other := d.hub, d.partner
		if w.rng.IntN(2) == 1 {
			me, other = other, me
		}
		w.behalf[0] = me
		w.path = append(append(w.path, "/v3/users/"...), other...)
		w.path = append(w.path, "/messages?affix=prepend&limit=50"...)
	}}
}

// longSendScenario sends into the long conversation, from either side. Every connection
// writes to one conversation, so on PostgreSQL the sends queue on its row as group-send's
// do; the send target is send-message's random pairs.
func longSendScenario(base string, d *shapeData) *scenario {
	var n atomic.Uint64
	return &scenario{name: "long-send", base: base, method: http.MethodPost, next: func(w *worker) {
		from, to := d.hub, d.partner
		if w.rng.IntN(2) == 1 {
			from, to = to, from
		}
		w.behalf[0] = from
		w.path = append(w.path, "/v3/messages"...)
		w.body = append(w.body, `{"receiver":"`...)
		w.body = append(w.body, to...)
		w.body = append(w.body, `","receiverType":"user","category":"message","type":"text","data":{"text":"long bench message `...)
		w.body = strconv.AppendUint(w.body, n.Add(1), 10)
		w.body = append(w.body, `"}}`...)
	}}
}

// longReactionScenario is add-reaction's walk over the long conversation's (message,
// participant, reaction) triples: 20,000 × 2 × 20, every request a new row.
func longReactionScenario(base string, d *shapeData) *scenario {
	sd := &seedData{msgs: d.long}
	sc := reactionScenario("long-reaction", base, sd, reactions)
	sc.verify = nil // reading 20,000 messages back would take longer than the run
	return sc
}

// hubConversationsScenario reads the first page of 50 of the hub's 1,001 conversations: the
// issue's GET /conversations?limit=50 for a user in 1,001 conversations, whose first page
// holds the long conversation with 10,000 of its own messages after its read marker.
func hubConversationsScenario(base string, d *shapeData) *scenario {
	return &scenario{name: "hub-conversations", base: base, method: http.MethodGet, next: func(w *worker) {
		w.behalf[0] = d.hub
		w.path = append(w.path, "/v3/conversations?perPage=50"...)
	}}
}
