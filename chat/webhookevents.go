package chat

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// OutboxEvent is work a change leaves for the workers, written in the transaction of the
// change (the outbox): it exists exactly when the change committed. Its Kind says whose
// work it is, and so where the store keeps it. Ref says what changed (ids, and the
// reaction's fields, which a removal leaves nowhere else); a webhook envelope's data is
// rendered from it when the event is first delivered, then kept and sent unchanged.
type OutboxEvent struct {
	Kind           EventKind
	AppID          string
	Trigger        string // a webhook or notification event's; an agent job has none
	ConversationID string
	MessageID      int64 // the message the event is about; a send sets it from the new row
	Ref            EventRef
	At             int64  // unix milliseconds of the wall clock, as the workers' leases and retries
	Agent          string // an agent job's agent (its uid)
}

// EventKind is what an outbox event is: whose work, kept where.
type EventKind uint8

const (
	// EventWebhook is a webhook event, fanned out to the app's webhooks subscribed to its
	// trigger (the webhook workers). It is the zero kind.
	EventWebhook EventKind = iota
	// EventNotification is a notification event (notifdelivery.go), which the notification
	// workers expand into sends.
	EventNotification
	// EventAgentJob is a job for the agent Agent (agents.go), for the agent workers.
	EventAgentJob
)

// Work is the workers that take events of kind k.
func (k EventKind) Work() Work {
	switch k {
	case EventNotification:
		return WorkNotify
	case EventAgentJob:
		return WorkAgent
	}
	return WorkWebhook
}

// EventRef is what an event is about, kept as JSON on its row.
type EventRef struct {
	MessageID int64  `json:"messageId,omitempty"`
	ActionID  int64  `json:"actionId,omitempty"` // the action message of an edit or deletion
	Reaction  string `json:"reaction,omitempty"`
	// ReactionID is the reaction's row; a removal, whose row is gone, has none.
	ReactionID int64  `json:"reactionId,omitempty"`
	UID        string `json:"uid,omitempty"`
	ReactedAt  int64  `json:"reactedAt,omitempty"`
	// Data and Tags are the message's as the change left them: what happens to the
	// message after the event and before its first delivery does not show in the event.
	Data json.RawMessage `json:"data,omitempty"`
	Tags []string        `json:"tags,omitempty"`
	// Group and user events keep their subjects as the change left them: a group deleted
	// since, or a member renamed, shows as it was. Group has no password hash.
	Group   *Group        `json:"group,omitempty"`
	Members []EventMember `json:"members,omitempty"` // the members, or the users blocked
	By      *Entity       `json:"by,omitempty"`      // who acted: a user, or the app's system user
	Receipt *EventReceipt `json:"receipt,omitempty"`
	// Presence is a connection status change: "available" or "offline".
	Presence string `json:"presence,omitempty"`
	// BlockedID is the blocked-list entry of a message a moderation rule held.
	BlockedID int64 `json:"blockedId,omitempty"`
	// Call is a call event's session and occupants (calls.go).
	Call *EventCall `json:"call,omitempty"`
}

// EventMember is a user an event is about, with its scope in the group when it has one;
// OldScope is set on a scope change.
type EventMember struct {
	Entity
	Scope    string `json:",omitempty"`
	OldScope string `json:",omitempty"`
}

// EventReceipt is a receipt event: Reader moved its read or delivered marker up to the
// event's message (Action "read", "delivered", "readByAll" or "deliveredToAll").
type EventReceipt struct {
	Action       string
	Reader       Entity
	ReceiverType string
	Receiver     string // the reader for a one-to-one conversation, else the group
	At           int64  // unix seconds
}

// WebhookTx writes outbox events inside a change's transaction.
type WebhookTx interface {
	// InsertOutbox writes ev and one pending delivery for each enabled webhook of the app
	// subscribed to its trigger.
	InsertOutbox(ev OutboxEvent) error
}

// subscribed reports whether some enabled webhook of the app subscribes to trigger, from a
// per-app cache as stale as the key cache at most (Config.KeyCacheTTL): an app without
// webhooks pays a map lookup. A change on this node refreshes it at once; one made on
// another node is seen within the TTL. When the subscriptions cannot be read the event is
// written anyway: the outbox's own fan-out decides who gets it.
func (s *Service) subscribed(ctx context.Context, appID, trigger string) bool {
	return slices.Contains(s.subscriptions(ctx, appID), trigger)
}

// subscriptions is the set of triggers some enabled webhook of the app subscribes to, as
// subscribed reads it; every trigger when it cannot be read.
func (s *Service) subscriptions(ctx context.Context, appID string) []string {
	c := s.keys.webhooks
	if ts, ok := c.get(appID); ok {
		return ts
	}
	gen := c.generation()
	ts, err := s.store.SubscribedTriggers(ctx, appID)
	if err != nil {
		return Triggers
	}
	if ts == nil {
		ts = []string{}
	}
	c.put(appID, ts, gen)
	return ts
}

// eventGroup is g as an event keeps it: without its password hash or a viewer.
func eventGroup(g Group) *Group {
	g.PasswordHash, g.Viewer = "", nil
	return &g
}

// webhookChanged drops the app's cached subscriptions on this node.
func (s *Service) webhookChanged(appID string) { s.keys.webhooks.evict(appID) }

// outboxEvent is the event of a trigger about message m, or nil when no webhook of the app
// subscribes to it.
func (s *Service) outboxEvent(ctx context.Context, trigger string, m *Message, ref EventRef) *OutboxEvent {
	if !s.subscribed(ctx, m.AppID, trigger) {
		return nil
	}
	return &OutboxEvent{AppID: m.AppID, Trigger: trigger, ConversationID: m.ConversationID, MessageID: m.ID, Ref: ref, At: time.Now().UnixMilli()}
}

// actionEvent is the event of an edit or deletion, recorded by its action message.
func (s *Service) actionEvent(trigger string, action, target *Message) OutboxEvent {
	return OutboxEvent{AppID: action.AppID, Trigger: trigger, ConversationID: action.ConversationID, MessageID: action.TargetID,
		Ref: EventRef{MessageID: action.TargetID, ActionID: action.ID, Data: target.Data, Tags: target.Tags}, At: time.Now().UnixMilli()}
}

// EventID is an event's id as sent in the X-Natter-Event-Id header.
func EventID(id int64) string { return "evt_" + strconv.FormatInt(id, 10) }
