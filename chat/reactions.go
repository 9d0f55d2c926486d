package chat

import (
	"context"
	"errors"
	"unicode"
	"unicode/utf8"
)

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

// AddReaction adds onBehalfOf's reaction to a message and returns the message with its
// reaction summary. Adding a reaction the user already made changes nothing.
func (s *Service) AddReaction(ctx context.Context, p Principal, id, onBehalfOf, reaction string) (Message, error) {
	return s.changeReaction(ctx, p, id, onBehalfOf, reaction, true)
}

// RemoveReaction removes onBehalfOf's reaction; removing one not made changes nothing.
func (s *Service) RemoveReaction(ctx context.Context, p Principal, id, onBehalfOf, reaction string) (Message, error) {
	return s.changeReaction(ctx, p, id, onBehalfOf, reaction, false)
}

func (s *Service) changeReaction(ctx context.Context, p Principal, id, onBehalfOf, reaction string, add bool) (Message, error) {
	if onBehalfOf == "" {
		return Message{}, InvalidField("onBehalfOf", "The onBehalfOf header is required.")
	}
	if err := ValidateReaction(reaction); err != nil {
		return Message{}, err
	}
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	uid, ok := NormalizeID(onBehalfOf)
	if !ok {
		return Message{}, errUIDNotFound("")
	}
	check := func(actor User, h MessageHead) error {
		if !actor.Active() {
			return errUIDNotFound(uid)
		}
		if err := canSee(h, uid); err != nil {
			return err
		}
		if h.DeletedAt != 0 {
			return errDeleted(h)
		}
		return nil
	}
	// One store call does it all and answers with the message as the change left it, so the
	// rules are checked against the state the change is made on.
	m, err := s.store.ChangeReaction(ctx, ReactionChange{AppID: p.App.ID, MessageID: mid, UID: uid, Reaction: reaction,
		Add: add, At: s.now(), Max: s.cfg.MaxReactions}, check)
	switch {
	case errors.Is(err, ErrActorNotFound):
		return Message{}, errUIDNotFound(uid)
	case errors.Is(err, ErrNotFound):
		return Message{}, errMessageNotFound(mid)
	case errors.Is(err, ErrLimitReached):
		return Message{}, Errorf(CodeReactionLimitExceeded, "The message already has %d distinct reactions, the most allowed.", s.cfg.MaxReactions)
	case ErrorCode(err) != "":
		return Message{}, err
	case err != nil:
		return Message{}, internal("change reaction", err)
	}
	return m, nil
}

// ReactionPage is a cursor request over a message's reactions.
type ReactionPage struct {
	Reaction   string
	Affix      string // "append" (default) or "prepend"
	CursorID   string
	Limit      int
	OnBehalfOf string
}

// ListReactions lists a message's reaction records, and reports whether more follow in the
// paging direction. With onBehalfOf only a participant may.
func (s *Service) ListReactions(ctx context.Context, p Principal, id string, q ReactionPage) ([]Reaction, bool, error) {
	fe := fieldErrors{}
	if q.Limit < 1 || q.Limit > MaxReactionPage {
		fe.add("limit", "The limit must be between 1 and 100.")
	}
	if q.Affix != "" && q.Affix != "append" && q.Affix != "prepend" {
		fe.add("affix", "The affix must be append or prepend.")
	}
	var cursor int64
	if q.CursorID != "" {
		c, err := ParseMessageID(q.CursorID)
		if err != nil {
			fe.add("id", "The id must be a reaction id.")
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
	m, err := s.Message(ctx, p, id, q.OnBehalfOf)
	if err != nil {
		return nil, false, err
	}
	rq := ReactionQuery{Reaction: q.Reaction, Limit: q.Limit + 1}
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
