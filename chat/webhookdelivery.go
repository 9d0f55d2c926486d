package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Delivery states.
const (
	DeliveryPending   = 0
	DeliveryDelivered = 1
	DeliveryDead      = 2 // out of retries
)

// Delivery is one event on its way to one webhook, with what its attempts found. Times are
// unix milliseconds.
type Delivery struct {
	ID             int64
	EventID        int64
	AppID          string
	WebhookID      string
	ConversationID string
	Trigger        string
	MessageID      int64
	Ref            EventRef
	Payload        []byte // the envelope's data once rendered; nil before the first attempt
	Rendered       bool   // an outcome's Payload was rendered by its attempt: the outbox keeps it
	State          int
	Attempts       int
	NextAt         int64
	LastStatus     int
	LastError      string
	LatencyMS      int64
	CreatedAt      int64
	DoneAt         int64
	// Unattempted marks an outcome whose attempt never began (its lane's batch stopped
	// before it): its lease is given back and the attempt its claim counted is uncounted.
	Unattempted bool
}

// Lease is a claim on due deliveries: this node holds them until Until (ms).
type Lease struct {
	Node       string
	Now, Until int64
	Limit      int
	PerWebhook int // deliveries of one webhook held at once across every node, at most
	PerApp     int // deliveries of one app's webhooks held at once across every node, at most
	// PerLane is how many consecutive due deliveries of one lane (webhook and conversation)
	// a claim leases together, for one worker to post in order; 0 or 1: the head alone.
	// PerWebhook and PerApp count lanes in flight, not deliveries.
	PerLane int
}

// DeliveryStore is what the webhook workers (package webhook) need from storage.
type DeliveryStore interface {
	// ClaimDeliveries records the outcomes of finished attempts (done), while l.Node still
	// holds their leases, keeping the data an attempt rendered (Rendered) unless the event
	// has some already; then it leases at most l.Limit due pending deliveries whose earlier
	// deliveries of the same webhook and conversation are all done, counting an attempt on
	// each; all in one write transaction; each delivery is leased by one node at a time.
	// With l.PerLane above 1 it leases with each lane's head the lane's next due ones
	// (unleased, in order, none skipped), at most PerLane in all, and returns them too.
	// An error, at the COMMIT too, returns none: their leases and the attempts they counted
	// may not have been written, and an attempt made on them could be made again under the
	// same number.
	ClaimDeliveries(ctx context.Context, l Lease, done []Delivery) ([]Delivery, error)
	// Deliveries pages a webhook's log, newest first, ids below BeforeID when set.
	Deliveries(ctx context.Context, appID, webhookID string, q DeliveryQuery) ([]Delivery, error)
	// ReplayDeliveries makes the webhook's deliveries of the event (or of the events created
	// in [From, To] ms) pending and due now, whatever their state; it reports how many.
	ReplayDeliveries(ctx context.Context, appID, webhookID string, r Replay, now int64) (int, error)
	// PurgeOutbox drops events (and their deliveries) created before the time that no
	// pending delivery needs.
	PurgeOutbox(ctx context.Context, before int64) error
}

// DeliveryQuery pages a delivery log.
type DeliveryQuery struct {
	State    *int
	BeforeID int64
	Limit    int
}

// Replay names what to deliver again: one event, or a time range of events (ms).
type Replay struct {
	EventID  int64
	From, To int64
}

// WebhookForDelivery reads a webhook, with its secrets, for the workers.
func (s Webhooks) WebhookForDelivery(ctx context.Context, appID, id string) (Webhook, error) {
	return s.store.Webhook(ctx, appID, id)
}

// AppForDelivery reads an app, for the envelope's region.
func (s Webhooks) AppForDelivery(ctx context.Context, appID string) (App, error) {
	return s.store.App(ctx, appID)
}

// Outbox is the storage the workers use.
func (s Webhooks) Outbox() DeliveryStore { return s.store }

// Subject is what an event's data is rendered from: Message for a message's events
// (for an edit or deletion the action message with its target), Reaction for a reaction's,
// Ref alone for a group's or a block's, Ref and the receipt's message (its sender) for a
// receipt, User for a connection status change.
type Subject struct {
	Trigger  string
	At       int64 // when the event was written, unix ms
	Message  *Message
	Reaction *Reaction
	User     *User
	Ref      EventRef
}

// EventSubject reads what an event is about to render its data. A message gone since
// (deleted for good) is ErrNotFound; its data is then the ids alone.
func (s Webhooks) EventSubject(ctx context.Context, d Delivery) (Subject, error) {
	sub := Subject{Trigger: d.Trigger, At: d.CreatedAt, Ref: d.Ref}
	switch d.Trigger {
	case TriggerReactionAdded, TriggerReactionRemoved:
		r := &Reaction{ID: d.Ref.ReactionID, MessageID: d.Ref.MessageID, Reaction: d.Ref.Reaction, UID: d.Ref.UID, ReactedAt: d.Ref.ReactedAt}
		u, err := s.cachedUser(ctx, d.AppID, d.Ref.UID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return sub, err
		}
		r.ReactedBy = u
		if r.ReactedBy.UID == "" {
			r.ReactedBy.UID = d.Ref.UID
		}
		sub.Reaction = r
		return sub, nil
	case TriggerModerationEngineBlocked:
		m, err := s.blockedSubject(ctx, d.AppID, d.Ref.BlockedID)
		sub.Message = m
		return sub, err
	case TriggerCallInitiated, TriggerCallBusy, TriggerCallCancelled, TriggerCallRejected, TriggerCallUnanswered:
		m, err := s.store.Message(ctx, d.AppID, d.Ref.MessageID, "")
		if err != nil {
			return sub, err
		}
		sub.Message = &m
		return sub, nil
	case TriggerMessageSent, TriggerUserMentioned, TriggerModerationEngineApproved, TriggerModerationManualApproved:
		// A message just sent is rendered from what this node's feed announced: an approval's
		// events read the message the approval left.
		m, ok := Message{}, false
		if d.Trigger == TriggerMessageSent || d.Trigger == TriggerUserMentioned {
			m, ok = s.recent.get(d.AppID, d.Ref.MessageID)
		}
		if !ok {
			var err error
			if m, err = s.store.Message(ctx, d.AppID, d.Ref.MessageID, ""); err != nil {
				return sub, err
			}
		}
		// As sent: neither a later edit, deletion nor reaction.
		m.Data, m.Tags, m.UpdatedAt, m.Reactions = d.Ref.Data, d.Ref.Tags, m.SentAt, nil
		m.EditedAt, m.EditedBy, m.DeletedAt, m.DeletedBy = 0, "", 0, ""
		sub.Message = &m
		return sub, nil
	case TriggerMessageEdited, TriggerMessageDeleted:
		a, err := s.store.Message(ctx, d.AppID, d.Ref.ActionID, "")
		if err != nil {
			return sub, err
		}
		if t, err := s.store.Message(ctx, d.AppID, d.Ref.MessageID, ""); err == nil {
			t.Data, t.Tags, t.Reactions = d.Ref.Data, d.Ref.Tags, nil // as the change left it
			if d.Trigger == TriggerMessageEdited {
				t.DeletedAt, t.DeletedBy = 0, ""
			}
			a.Target = &t
		} else if !errors.Is(err, ErrNotFound) {
			return sub, err
		}
		sub.Message = &a
		return sub, nil
	case TriggerDeliveryReceipt, TriggerReadReceipt, TriggerDeliveredToAll, TriggerReadByAll:
		// The message tells the receipt's messageSender; one deleted for good since leaves
		// the receipt without it.
		m, err := s.store.Message(ctx, d.AppID, d.Ref.MessageID, "")
		if err != nil && !errors.Is(err, ErrNotFound) {
			return sub, err
		}
		if err == nil {
			sub.Message = &m
		}
		return sub, nil
	case TriggerConnectionStatus:
		u, err := s.store.User(ctx, d.AppID, d.Ref.UID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return sub, err
		}
		if u.UID == "" {
			u.UID = d.Ref.UID
		}
		u.Status = d.Ref.Presence // as the change left it
		sub.User = &u
		return sub, nil
	}
	if c := d.Ref.Call; c != nil && len(c.Occupants) > 0 {
		// Occupants by name, as the hosted events have them: the users' names now.
		uids := make([]string, len(c.Occupants))
		for i, o := range c.Occupants {
			uids[i] = o.UID
		}
		users, err := s.store.UsersByID(ctx, d.AppID, uids)
		if err != nil {
			return sub, err
		}
		for i, o := range c.Occupants {
			if u, ok := users[o.UID]; ok {
				c.Occupants[i].Name = u.Name
			}
		}
	}
	if d.Ref.Group != nil || d.Ref.Members != nil || d.Ref.Call != nil {
		return sub, nil // group and block events carry their subjects
	}
	return sub, fmt.Errorf("event %d: trigger %q has no renderer", d.EventID, d.Trigger)
}

// Delivery states, as the log shows them.
var deliveryStates = map[string]int{"pending": DeliveryPending, "delivered": DeliveryDelivered, "dead": DeliveryDead}

// DeliveryStateName names a delivery state in the log.
func DeliveryStateName(state int) string {
	for name, s := range deliveryStates {
		if s == state {
			return name
		}
	}
	return "unknown"
}

// MaxDeliveryPage bounds a page of the delivery log.
const MaxDeliveryPage = 100

// DeliveryPage asks for a page of a webhook's delivery log: newest first, before the
// delivery id Before (a cursor) when set, of one state when State is set.
type DeliveryPage struct {
	State  string
	Before string
	Limit  int
}

// WebhookDeliveries pages a webhook's delivery log: what was sent, how often, with what
// outcome and how long the last attempt took.
func (s Webhooks) WebhookDeliveries(ctx context.Context, p Principal, id string, q DeliveryPage) ([]Delivery, error) {
	fe := fieldErrors{}
	var dq DeliveryQuery
	if q.State != "" {
		st, ok := deliveryStates[q.State]
		if !ok {
			fe.add("state", "The state must be pending, delivered or dead.")
		}
		dq.State = &st
	}
	if q.Before != "" {
		b, err := strconv.ParseInt(q.Before, 10, 64)
		if err != nil || b <= 0 {
			fe.add("before", "The before cursor must be a delivery id.")
		}
		dq.BeforeID = b
	}
	dq.Limit = q.Limit
	if q.Limit == 0 {
		dq.Limit = 25
	} else if q.Limit < 1 || q.Limit > MaxDeliveryPage {
		fe.add("limit", "The limit must be between 1 and 100.")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	w, err := s.Webhook(ctx, p, id)
	if err != nil {
		return nil, err
	}
	ds, err := s.store.Deliveries(ctx, p.App.ID, w.ID, dq)
	if err != nil {
		return nil, internal("list deliveries", err)
	}
	return ds, nil
}

// MaxReplayRange bounds a replayed time range.
const MaxReplayRange = 7 * 24 * time.Hour

// ReplayWebhook delivers again, to one webhook, one event (by its id, "evt_…" or the
// number) or the events of a time range (ms, at most 7 days), whatever became of them
// before; it returns how many deliveries it scheduled.
func (s Webhooks) ReplayWebhook(ctx context.Context, p Principal, id, eventID string, from, to int64) (int, error) {
	fe := fieldErrors{}
	var r Replay
	switch {
	case eventID != "" && (from != 0 || to != 0):
		fe.add("eventId", "Send an eventId or a time range (from, to), not both.")
	case eventID != "":
		n, err := strconv.ParseInt(strings.TrimPrefix(eventID, "evt_"), 10, 64)
		if err != nil || n <= 0 {
			fe.add("eventId", "The eventId must be an event id such as evt_42.")
		}
		r.EventID = n
	case from <= 0 || to <= 0:
		fe.add("from", "Send an eventId, or from and to (UNIX milliseconds).")
	case to < from:
		fe.add("to", "The to time must not be before the from time.")
	case time.Duration(to-from)*time.Millisecond > MaxReplayRange:
		fe.add("to", "A replayed range may span at most 7 days.")
	default:
		r.From, r.To = from, to
	}
	if err := fe.err(); err != nil {
		return 0, err
	}
	w, err := s.Webhook(ctx, p, id)
	if err != nil {
		return 0, err
	}
	var n int
	replay := settingsChange(p.App.ID, SettingWebhooks)
	replay.Work = WorkWebhook // the deliveries it queues again
	err = s.write(ctx, func(ctx context.Context) (err error) {
		n, err = s.store.ReplayDeliveries(ctx, p.App.ID, w.ID, r, time.Now().UnixMilli())
		return err
	}, replay)
	if err != nil {
		return 0, internal("replay deliveries", err)
	}
	return n, nil
}
