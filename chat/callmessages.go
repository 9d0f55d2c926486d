package chat

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// A call's messages and webhook events: each change of a session sends a call message
// (category call, data.entities.on the call) and writes its call_* events in its
// transaction.

// callEntity is the call as a call message's data.entities.on.entity carries it.
type callEntity struct {
	SessionID      string `json:"sessionid"`
	ConversationID string `json:"conversationId"`
	Sender         string `json:"sender"`
	ReceiverType   string `json:"receiverType"`
	Receiver       string `json:"receiver"`
	Status         string `json:"status"`
	Type           string `json:"type"`
	InitiatedAt    int64  `json:"initiatedAt"`
	JoinedAt       int64  `json:"joinedAt,omitempty"`
	LeftAt         int64  `json:"leftAt,omitempty"`
}

// callMessage is the call message that records a change of c by actor: category call,
// type the call's, data.action what happened, sent to to (the group, or the other party).
func callMessage(c *Call, actor Entity, action, conversationID, to string, now int64) Message {
	e := callEntity{SessionID: c.SessionID, ConversationID: conversationID, Sender: c.Initiator, ReceiverType: c.ReceiverType,
		Receiver: c.Receiver, Status: c.Status, Type: c.Type, InitiatedAt: c.InitiatedAt, JoinedAt: c.StartedAt, LeftAt: c.EndedAt}
	on, _ := json.Marshal(map[string]any{"entity": e, "entityType": "call"})
	act, _ := json.Marshal(action)
	data := `{"action":` + string(act)
	if len(c.Metadata) > 0 {
		// The call's metadata, where the SDK's callFromJSON reads it (data.metadata); the
		// rendering adds it to data.entities.on.entity.data as the hosted messages have it.
		data += `,"metadata":` + string(c.Metadata)
	}
	data += `,"entities":{"on":` + string(on) + `}}`
	return Message{AppID: c.AppID, Category: CategoryCall, Type: c.Type, Sender: actor.UID, SenderEntity: actor,
		ReceiverType: c.ReceiverType, Receiver: to, ConversationID: conversationID, SentAt: now, UpdatedAt: now,
		Action: action, Data: json.RawMessage(data), TargetUID: c.Initiator}
}

// callMessage builds the call message that records a change of c by actor, its receiver
// resolved as a message to it has it (read before the change's transaction).
func (s *Service) callMessage(ctx context.Context, c *Call, actor Entity, action string, now int64) (Message, error) {
	conv, to := GroupConversationID(c.Receiver), c.Receiver
	if c.ReceiverType == ReceiverUser {
		conv = ConversationID(c.Initiator, c.Receiver)
		if actor.UID == c.Receiver {
			to = c.Initiator
		}
	}
	m := callMessage(c, actor, action, conv, to, now)
	// The initiator's entity goes in data.entities.on.entity.data.entities.sender, where the
	// SDK reads the call's initiator: kept as the message's target user.
	m.TargetUser = &actor
	if actor.UID != c.Initiator {
		u, err := s.store.User(ctx, c.AppID, c.Initiator)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return m, internal("read user", err)
		}
		e := u.Entity()
		e.UID = c.Initiator
		m.TargetUser = &e
	}
	if c.ReceiverType == ReceiverGroup {
		g, err := s.store.Group(ctx, c.AppID, c.Receiver, "")
		if err != nil && !errors.Is(err, ErrNotFound) {
			return m, internal("read group", err)
		}
		if err == nil {
			g.Viewer = nil
			m.ReceiverGroup = &g
		}
		return m, nil
	}
	u, err := s.store.User(ctx, c.AppID, to)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return m, internal("read user", err)
	}
	m.ReceiverEntity = u.Entity()
	m.ReceiverEntity.UID = to
	return m, nil
}

// EventCall is a call webhook event's subject, as the change left it: the hosted
// call_started, call_participant_joined/left and call_ended carry the session and its
// occupants rather than a message.
type EventCall struct {
	SessionID   string          `json:"sessionId"`
	CreatedAt   int64           `json:"createdAt,omitempty"`
	DestroyedAt int64           `json:"destroyedAt,omitempty"`
	Occupants   []EventOccupant `json:"occupants,omitempty"`
}

// EventOccupant is a participant in a call event.
type EventOccupant struct {
	UID      string `json:"uid"`
	Name     string `json:"name"`
	JoinedAt int64  `json:"joinedAt"`
	LeftAt   int64  `json:"leftAt,omitempty"`
	Audio    bool   `json:"audio"`
}

// callTriggers are the triggers whose data is the call message that records the change.
var callTriggers = map[string]string{
	CallInitiated: TriggerCallInitiated, CallBusy: TriggerCallBusy, CallCancelled: TriggerCallCancelled,
	CallRejected: TriggerCallRejected, CallUnanswered: TriggerCallUnanswered,
}

// callEvents writes the webhook events of a change (status is what was asked) in its
// transaction, and reports whether it wrote any.
func (s *Service) callEvents(ctx context.Context, tx Tx, c *Call, m *Message, ch callChange, status string) (bool, error) {
	var evs []OutboxEvent
	add := func(trigger string, ref EventRef) {
		if s.subscribed(ctx, c.AppID, trigger) {
			ref.MessageID = m.ID
			evs = append(evs, OutboxEvent{AppID: c.AppID, Trigger: trigger, ConversationID: m.ConversationID, MessageID: m.ID,
				Ref: ref, At: time.Now().UnixMilli()})
		}
	}
	// A group member's rejection of a call that goes on is its own call_rejected.
	if t, ok := callTriggers[status]; ok {
		add(t, EventRef{})
	}
	occupant := func(uid string) EventOccupant {
		o := EventOccupant{UID: uid, Name: uid, Audio: c.Type == CallAudio}
		if j := c.participant(uid); j >= 0 {
			o.JoinedAt, o.LeftAt = c.Participants[j].JoinedAt, c.Participants[j].LeftAt
		}
		return o
	}
	if ch.started {
		add(TriggerCallStarted, EventRef{Call: &EventCall{SessionID: c.SessionID, CreatedAt: c.StartedAt}})
	}
	for _, uid := range ch.joined {
		add(TriggerCallParticipantJoined, EventRef{Call: &EventCall{SessionID: c.SessionID, Occupants: []EventOccupant{occupant(uid)}}})
	}
	for _, uid := range ch.left {
		add(TriggerCallParticipantLeft, EventRef{Call: &EventCall{SessionID: c.SessionID, Occupants: []EventOccupant{occupant(uid)}}})
	}
	if ch.final == CallEnded {
		all := []EventOccupant{}
		for _, p := range c.Participants {
			if p.IsJoined {
				all = append(all, occupant(p.UID))
			}
		}
		add(TriggerCallEnded, EventRef{Call: &EventCall{SessionID: c.SessionID, CreatedAt: c.StartedAt, DestroyedAt: c.EndedAt, Occupants: all}})
	}
	for _, ev := range evs {
		if err := tx.InsertOutbox(ev); err != nil {
			return false, err
		}
	}
	return len(evs) > 0, nil
}
