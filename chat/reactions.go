package chat

import (
	"context"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of reactions.
const (
	MaxReactionLen  = 64 // characters
	MaxReactionPage = 100
)

// ReactionSummary is one entry of a message's data.reactions.
type ReactionSummary struct {
	Reaction    string
	Count       int64
	ReactedByMe bool
}

// Reaction is one user's reaction on one message.
type Reaction struct {
	ID        int64
	MessageID int64
	Reaction  string
	UID       string
	ReactedAt int64
	ReactedBy User
}

// ReactionStore keeps reactions. Counts and the distinct-reaction cap are kept in the same
// transaction as the rows, so they never drift.
type ReactionStore interface {
	// ChangeReaction reads the actor, the message and its reactions in one write
	// transaction, decides with DecideReaction, writes what it decided, and answers with
	// the message as the change left it, its summary for the actor. A refusal is
	// DecideReaction's error.
	ChangeReaction(ctx context.Context, c ReactionChange) (Message, error)
	// ListReactions pages reaction records by id; reaction filters when not empty.
	ListReactions(ctx context.Context, appID string, msgID int64, q ReactionQuery) ([]Reaction, error)
}

// ReactionQuery is a cursor window over a message's reactions.
type ReactionQuery struct {
	Reaction string
	// Scopes, when set, keeps the reactions of the members of GUID with these scopes.
	GUID     string
	Scopes   []string
	AfterID  int64 // append: ids greater than this
	BeforeID int64 // prepend: ids smaller than this (wins when set)
	Limit    int
}

// ValidateReaction applies the reaction string rules to the percent-decoded path segment:
// non-empty, valid UTF-8, at most 64 characters, no control characters. Emoji sequences
// (skin tones, ZWJ, variation selectors) are format and mark characters, not controls.
func ValidateReaction(r string) error {
	switch {
	case r == "":
		return InvalidField("reaction", "The reaction may not be empty.")
	case !utf8.ValidString(r):
		return InvalidField("reaction", "The reaction must be valid UTF-8 once percent-decoded.")
	case utf8.RuneCountInString(r) > MaxReactionLen:
		return InvalidField("reaction", "The reaction may not be longer than 64 characters.")
	}
	for _, c := range r {
		if unicode.IsControl(c) {
			return InvalidField("reaction", "The reaction may not contain control characters.")
		}
	}
	return nil
}

// ReactionChange is one add or removal of a user's reaction.
type ReactionChange struct {
	AppID     string
	MessageID int64
	UID       string
	Reaction  string
	Add       bool
	At        int64
	Max       int // distinct reactions per message when adding; 0 means no cap
	// Event, when set, is the outbox event to write with a change that is not a no-op; the
	// engine completes it with the conversation and the reaction's id (EventFor).
	Event *OutboxEvent
	// Notify, when set, is the notification event of an add (notifdelivery.go), completed
	// and written like Event.
	Notify *OutboxEvent
}

// EventFor is c's outbox event for the change that answered m.
func (c ReactionChange) EventFor(m Message) OutboxEvent { return c.complete(*c.Event, m) }

// EventsFor are c's outbox events, webhook and notification, for the change that answered
// m; none for a no-op.
func (c ReactionChange) EventsFor(m Message) []OutboxEvent {
	if m.ReactionEffect == ReactionUnchanged {
		return nil
	}
	var out []OutboxEvent
	if c.Event != nil {
		out = append(out, c.complete(*c.Event, m))
	}
	if c.Notify != nil && c.Add {
		out = append(out, c.complete(*c.Notify, m))
	}
	return out
}

func (c ReactionChange) complete(ev OutboxEvent, m Message) OutboxEvent {
	ev.ConversationID, ev.MessageID = m.ConversationID, c.MessageID
	ev.Ref.MessageID, ev.Ref.ReactionID = c.MessageID, m.ReactionID
	return ev
}

// ReactionState is what a reaction change is decided on, as the storage engine read it
// inside the transaction that makes the change.
type ReactionState struct {
	// Actor is the acting user as stored, whatever its state; an empty UID when there is none.
	Actor User
	// Message is the message; an empty ID when the app has no such message that can be
	// acted on (action messages cannot).
	Message MessageHead
	// Member is whether the actor is a member of a group message's group (a banned user is
	// not); it is not read for a one-to-one message.
	Member bool
	// Distinct is how many distinct reactions the message has; Count how many users made
	// the change's reaction on it, and Mine whether the actor is one of them.
	Distinct int
	Count    int64
	Mine     bool
}

// ReactionEffect is what a decided change writes.
type ReactionEffect int

const (
	// ReactionUnchanged: already as asked (adding what the user made, removing what it did
	// not): nothing is written.
	ReactionUnchanged ReactionEffect = iota
	// ReactionAddFirst: the user's row, and the reaction's count row, new on the message.
	ReactionAddFirst
	// ReactionAddMore: the user's row, and the reaction's count up by one.
	ReactionAddMore
	// ReactionRemoveLast: the user's row deleted, and with it the reaction's count row.
	ReactionRemoveLast
	// ReactionRemoveOne: the user's row deleted, and the reaction's count down by one.
	ReactionRemoveOne
)

// DecideReaction is the reaction rule, the one both storage engines apply to what they read:
// an unknown or inactive actor before an unknown message, then access, then a deleted
// message, then idempotence, and the distinct-reaction cap last. A refusal is the error to
// answer with.
func DecideReaction(c ReactionChange, s ReactionState) (ReactionEffect, error) {
	h := s.Message
	switch {
	case s.Actor.UID == "" || !s.Actor.Active():
		return 0, errUIDNotFound(c.UID)
	case h.ID == 0:
		return 0, errMessageNotFound(c.MessageID)
	}
	if err := canSee(h, c.UID, s.Member); err != nil {
		return 0, err
	}
	switch {
	case h.DeletedAt != 0:
		return 0, errDeleted(h)
	case c.Add == s.Mine:
		return ReactionUnchanged, nil
	case !c.Add && s.Count <= 1:
		return ReactionRemoveLast, nil
	case !c.Add:
		return ReactionRemoveOne, nil
	case s.Count > 0:
		return ReactionAddMore, nil
	case c.Max > 0 && s.Distinct >= c.Max:
		return 0, Errorf(CodeReactionLimitExceeded, "The message already has %d distinct reactions, the most allowed.", c.Max)
	}
	return ReactionAddFirst, nil
}

// AddReaction adds the acting user's reaction to a message and returns the message with its
// reaction summary. Adding a reaction the user already made changes nothing.
func (s *Service) AddReaction(ctx context.Context, p Principal, id, reaction string) (Message, error) {
	return s.changeReaction(ctx, p, id, reaction, true)
}

// RemoveReaction removes the acting user's reaction; removing one not made changes nothing.
func (s *Service) RemoveReaction(ctx context.Context, p Principal, id, reaction string) (Message, error) {
	return s.changeReaction(ctx, p, id, reaction, false)
}

func (s *Service) changeReaction(ctx context.Context, p Principal, id, reaction string, add bool) (Message, error) {
	uid, err := p.actor()
	if err != nil {
		return Message{}, err
	}
	if err := ValidateReaction(reaction); err != nil {
		return Message{}, err
	}
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	if err := s.reactionPermitted(ctx, p, uid, mid); err != nil {
		return Message{}, err
	}
	c := ReactionChange{AppID: p.App.ID, MessageID: mid, UID: uid, Reaction: reaction, Add: add, At: s.now(), Max: s.cfg.MaxReactions}
	trigger := TriggerReactionRemoved
	if add {
		trigger = TriggerReactionAdded
	}
	if s.subscribed(ctx, p.App.ID, trigger) {
		c.Event = &OutboxEvent{AppID: p.App.ID, Trigger: trigger, At: time.Now().UnixMilli(), Ref: EventRef{Reaction: reaction, UID: uid, ReactedAt: c.At}}
	}
	if add && s.notifying(ctx, p.App.ID) {
		c.Notify = &OutboxEvent{Kind: EventNotification, AppID: p.App.ID, Trigger: trigger, At: time.Now().UnixMilli(),
			Ref: EventRef{Reaction: reaction, UID: uid, ReactedAt: c.At}}
	}
	var work Work
	if c.Event != nil {
		work |= WorkWebhook
	}
	if c.Notify != nil {
		work |= WorkNotify
	}
	// One store call reads, decides (DecideReaction) and writes in one transaction, and
	// answers with the message as the change left it: its effect and reaction record
	// complete the change before it is announced. The message the change points at is
	// allocated with it.
	rw := &reactionWrite{}
	rw.single(ctx, Change{Kind: ChangeReaction, App: p.App.ID, MessageID: mid, Subject: reaction, Actor: uid, At: c.At, Work: work})
	rw.m, err = s.store.ChangeReaction(&rw.writeCtx, c)
	switch {
	case ErrorCode(err) != "":
		return Message{}, err
	case err != nil:
		return Message{}, internal("change reaction", err)
	}
	if rw.m.ReactionEffect != ReactionUnchanged { // nothing written: nothing to announce
		rw.c.Message, rw.c.Effect, rw.c.ReactionID = &rw.m, rw.m.ReactionEffect, rw.m.ReactionID
		s.announce(ctx, rw.cs.list)
	}
	return rw.m, nil
}

// reactionWrite is a reaction change's write context with the reacted message, which the
// announced change points at: one allocation for the hot path.
type reactionWrite struct {
	writeCtx
	m Message
}

// reactionPermitted applies the addReaction permission of the scope the acting user has in
// a group message's group. Only an app that has set scope permissions pays for finding the
// message's group and the user's scope in it; for the others the check is a cached lookup.
func (s *Service) reactionPermitted(ctx context.Context, p Principal, uid string, mid int64) error {
	pol, err := s.policy(ctx, p.App.ID)
	if err != nil || !pol.scoped {
		return err
	}
	guid, err := s.store.MessageGroup(ctx, p.App.ID, mid)
	if err != nil {
		return internal("read message group", err)
	}
	if guid == "" { // one-to-one, or no such message: the reaction rule answers
		return nil
	}
	scope, err := s.scopeFor(ctx, p.App.ID, guid, uid)
	if err != nil {
		return err
	}
	_, err = s.permit(ctx, p, Action{Op: OpAddReaction, GUID: guid, Scope: scope})
	return err
}

// ReactionPage is a cursor request over a message's reactions.
type ReactionPage struct {
	Reaction string
	Affix    string // "append" (default) or "prepend"
	CursorID string
	Limit    int
}

// ListReactions lists a message's reaction records, and reports whether more follow in the
// paging direction. A request acting as a user is answered only if that user may see the
// message.
func (s *Service) ListReactions(ctx context.Context, p Principal, id string, q ReactionPage) ([]Reaction, bool, error) {
	fe := fieldErrors{}
	if q.Limit < 1 || q.Limit > MaxReactionPage {
		fe.add("limit", "The limit must be between 1 and 100.")
	}
	if q.Affix != "" && q.Affix != "append" && q.Affix != "prepend" {
		fe.add("affix", "The affix must be append or prepend.")
	}
	var cursor int64
	// "0" is the cursor of an empty first page: from the start (append) or the end (prepend).
	if q.CursorID != "" && q.CursorID != "0" {
		c, err := ParseMessageID(q.CursorID)
		if err != nil {
			fe.add("id", "The id must be a reaction id, or 0.")
		}
		cursor = c
	}
	if err := fe.err(); err != nil {
		return nil, false, err
	}
	if q.Reaction != "" {
		if err := ValidateReaction(q.Reaction); err != nil {
			return nil, false, err
		}
	}
	m, viewer, err := s.message(ctx, p, id)
	if err != nil {
		return nil, false, err
	}
	rq := ReactionQuery{Reaction: q.Reaction, Limit: q.Limit + 1}
	if viewer.UID != "" && m.ReceiverType == ReceiverGroup {
		scope, err := s.scopeFor(ctx, p.App.ID, m.Receiver, viewer.UID)
		if err != nil {
			return nil, false, err
		}
		g, err := s.permit(ctx, p, Action{Op: OpListReactions, Role: viewer.Role, GUID: m.Receiver, Scope: scope})
		if err != nil {
			return nil, false, err
		}
		rq.GUID, rq.Scopes = m.Receiver, g.Scopes
	}
	if q.Affix == "prepend" {
		rq.BeforeID = cursor
		if cursor == 0 {
			rq.BeforeID = 1<<63 - 1
		}
	} else {
		rq.AfterID = cursor
	}
	rs, err := s.store.ListReactions(ctx, p.App.ID, m.ID, rq)
	if err != nil {
		return nil, false, internal("list reactions", err)
	}
	more := len(rs) > q.Limit
	if more && q.Affix == "prepend" {
		rs = rs[1:] // the extra row is the oldest
	} else if more {
		rs = rs[:q.Limit]
	}
	return rs, more, nil
}
