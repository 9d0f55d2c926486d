package chat

import (
	"context"
	"errors"
)

// Pins and saves (docs/api-decisions.md, "Pins and saves"). A pin is conversation-wide and a
// message has at most one: who pinned it (a party of the conversation, or app_system for the
// app) and when. A save is one user's, private to it. Pinning or saving what is already so,
// and unpinning or unsaving what is not, change nothing and answer as done.

// Limits of pins and saves.
const (
	MaxPinnedMessages            = 100 // per conversation, the app's pins and the users' together
	MaxSavedMessages             = 100 // per user
	MaxPinnedConversations       = 5   // per user
	MaxSystemPinnedConversations = 5   // per app
)

// PinTx is what pins and saves need inside their transaction (with MessageTx's
// MessageForChange, ConversationTx's LockConversation and FriendTx's LockUsers).
type PinTx interface {
	// CountPinned counts the pinned messages of a conversation.
	CountPinned(appID, conversationID string) (int, error)
	// SetPin pins a message (at > 0) by by, or unpins it (at 0).
	SetPin(appID string, id int64, at int64, by string) error
	// SavedAt is when uid saved a message; 0 when it has not.
	SavedAt(appID, uid string, id int64) (int64, error)
	// CountSaved counts uid's saved messages.
	CountSaved(appID, uid string) (int, error)
	// InsertSaved saves a message for uid; DeleteSaved unsaves it.
	InsertSaved(appID, uid string, id, at int64) error
	DeleteSaved(appID, uid string, id int64) error
	// CountPinnedConversations counts the conversations uid has pinned.
	CountPinnedConversations(appID, uid string) (int, error)
	// LockSystemPins holds the app's pinned-conversation list until the transaction ends
	// and reads it, in display order.
	LockSystemPins(appID string) ([]SystemPin, error)
	// ReplaceSystemPins makes pins the app's pinned-conversation list.
	ReplaceSystemPins(appID string, pins []SystemPin) error
}

// PinMessage pins a message in its conversation, as the acting user or, without one, as
// the app (app_system), and answers with the message.
func (s *Service) PinMessage(ctx context.Context, p Principal, id string) (Message, error) {
	return s.changePin(ctx, p, id, true)
}

// UnpinMessage removes a message's pin, whoever made it.
func (s *Service) UnpinMessage(ctx context.Context, p Principal, id string) (Message, error) {
	return s.changePin(ctx, p, id, false)
}

func (s *Service) changePin(ctx context.Context, p Principal, id string, pin bool) (Message, error) {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
		return Message{}, err
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		m, err := s.partyMessage(tx, p, mid, actor.UID)
		if err != nil {
			return err
		}
		if pin == (m.PinnedAt != 0) { // already as asked
			return nil
		}
		cs.Add(&Change{Kind: ChangeConversation, App: p.App.ID, Conversation: m.ConversationID, MessageID: mid})
		switch {
		case !pin:
			return tx.SetPin(p.App.ID, mid, 0, "")
		case m.DeletedAt != 0:
			return errDeleted(m.Head())
		}
		// The cap is counted under the conversation row's lock, which every pin in it takes.
		if _, err := tx.LockConversation(p.App.ID, m.ConversationID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		n, err := tx.CountPinned(p.App.ID, m.ConversationID)
		if err != nil {
			return err
		}
		if n >= MaxPinnedMessages {
			return Errorf(CodePinnedMessagesLimit, "The conversation %s already has %d pinned messages, the most allowed.", m.ConversationID, MaxPinnedMessages)
		}
		return tx.SetPin(p.App.ID, mid, now, actor.UID)
	})
	if err != nil {
		return Message{}, pinErr("pin message", err)
	}
	return s.Message(ctx, p, id)
}

// SaveMessage saves a message for the acting user and answers with it, savedAt set.
func (s *Service) SaveMessage(ctx context.Context, p Principal, id string) (Message, error) {
	return s.changeSave(ctx, p, id, true)
}

// UnsaveMessage unsaves a message for the acting user. A user may unsave a message it saved
// even after it lost access to it (left its group), so that it does not count forever.
func (s *Service) UnsaveMessage(ctx context.Context, p Principal, id string) (Message, error) {
	return s.changeSave(ctx, p, id, false)
}

func (s *Service) changeSave(ctx context.Context, p Principal, id string, save bool) (Message, error) {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return Message{}, err
	}
	now := s.now()
	var saved int64
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		c := &Change{Kind: ChangeConversation, App: p.App.ID, MessageID: mid, UIDs: []string{u.UID}}
		// The user's row serialises its saves, so the cap is exact.
		if _, err := tx.LockUsers(p.App.ID, []string{u.UID}); err != nil {
			return err
		}
		at, err := tx.SavedAt(p.App.ID, u.UID, mid)
		if err != nil {
			return err
		}
		saved = at
		if !save && at != 0 {
			saved = 0
			cs.Add(c)
			return tx.DeleteSaved(p.App.ID, u.UID, mid)
		}
		m, err := s.partyMessage(tx, p, mid, u.UID)
		if err != nil || !save || at != 0 {
			return err
		}
		if m.DeletedAt != 0 {
			return errDeleted(m.Head())
		}
		n, err := tx.CountSaved(p.App.ID, u.UID)
		if err != nil {
			return err
		}
		if n >= MaxSavedMessages {
			return Errorf(CodeSavedMessagesLimit, "The user %s already has %d saved messages, the most allowed.", u.UID, MaxSavedMessages)
		}
		saved = now
		c.Conversation = m.ConversationID
		cs.Add(c)
		return tx.InsertSaved(p.App.ID, u.UID, mid, now)
	})
	if err != nil {
		return Message{}, pinErr("save message", err)
	}
	m, err := s.store.Message(ctx, p.App.ID, mid, u.UID)
	if errors.Is(err, ErrNotFound) {
		return Message{}, errMessageNotFound(mid)
	}
	if err != nil {
		return Message{}, internal("get message", err)
	}
	m.SavedAt = saved
	return m, nil
}

// partyMessage reads and holds a message that can be acted on, refusing a user who cannot
// see it (uid is app_system for the app, which sees every message).
func (s *Service) partyMessage(tx Tx, p Principal, mid int64, uid string) (Message, error) {
	m, err := tx.MessageForChange(p.App.ID, mid)
	if errors.Is(err, ErrNotFound) {
		return Message{}, errMessageNotFound(mid)
	}
	if err != nil || uid == SystemUID {
		return m, err
	}
	member := false
	if m.ReceiverType == ReceiverGroup {
		st, err := tx.MemberStates(p.App.ID, m.Receiver, []string{uid})
		if err != nil {
			return m, err
		}
		member = st[uid].Membership.Scope != ""
	}
	return m, canSee(m.Head(), uid, member)
}

// pinErr passes a rule's refusal through and wraps anything else as internal.
func pinErr(what string, err error) error {
	if ErrorCode(err) != "" {
		return err
	}
	return internal(what, err)
}

// SystemPin is one entry of the app's pinned-conversation list: a user's one-to-one
// conversations with Target (Kind user) or a group's conversation (Kind group), pinned for
// every user.
type SystemPin struct {
	Kind     string
	Target   string
	PinnedAt int64
}

// The pinnedBy filter of conversation lists, as CometChat's SDKs send it.
const (
	PinnedBySystem = "system"
	PinnedByMe     = "me"
)

// PinStore reads the app's pinned-conversation list.
type PinStore interface {
	SystemPins(ctx context.Context, appID string) ([]SystemPin, error)
}

// PinConversation pins the acting user's conversation with a user or in a group (kind, key)
// for that user, and answers with the conversation. A conversation has to exist (have a
// message), as for its tags; pinning a pinned one changes nothing.
func (s *Service) PinConversation(ctx context.Context, p Principal, kind, key string) (Conversation, error) {
	return s.changeConversationPin(ctx, p, kind, key, true)
}

// UnpinConversation removes the acting user's pin. A conversation the app pinned for
// everyone and the user did not cannot be unpinned (ERR_SYSTEM_PINNED_CONVERSATION);
// one not pinned at all changes nothing.
func (s *Service) UnpinConversation(ctx context.Context, p Principal, kind, key string) (Conversation, error) {
	return s.changeConversationPin(ctx, p, kind, key, false)
}

func (s *Service) changeConversationPin(ctx context.Context, p Principal, kind, key string, pin bool) (Conversation, error) {
	id, viewer, err := s.conversationOf(ctx, p, kind, key)
	if err != nil {
		return Conversation{}, err
	}
	c, err := s.conversation(ctx, p.App.ID, viewer.UID, id)
	if err != nil {
		return Conversation{}, err
	}
	if !pin && c.PinnedBy == SystemUID {
		mk, err := s.store.Marker(ctx, p.App.ID, viewer.UID, id)
		if err != nil {
			return Conversation{}, internal("read marker", err)
		}
		if mk.PinnedAt == 0 {
			return Conversation{}, Errorf(CodeSystemPinnedConversation, "The conversation %s is pinned by the app for every user: only the app can unpin it.", id)
		}
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		// The user's row serialises its pins, so the cap is exact.
		if _, err := tx.LockUsers(p.App.ID, []string{viewer.UID}); err != nil {
			return err
		}
		r, err := tx.LockConversation(p.App.ID, id)
		if errors.Is(err, ErrNotFound) {
			return errConversationNotFound(id)
		}
		if err != nil {
			return err
		}
		mk, err := tx.MarkerForChange(p.App.ID, viewer.UID, id)
		if err != nil {
			return err
		}
		switch {
		case r.LastMessageID <= mk.ResetID:
			return errConversationNotFound(id)
		case pin == (mk.PinnedAt != 0):
			return nil
		case pin:
			n, err := tx.CountPinnedConversations(p.App.ID, viewer.UID)
			if err != nil {
				return err
			}
			if n >= MaxPinnedConversations {
				return Errorf(CodePinnedConversationsLimit, "The user %s already has %d pinned conversations, the most allowed.", viewer.UID, MaxPinnedConversations)
			}
			mk.PinnedAt = now
		default:
			mk.PinnedAt = 0
		}
		mk.UpdatedAt = now
		cs.Add(conversationChange(p.App.ID, id, 0, viewer.UID))
		return tx.SaveMarker(p.App.ID, viewer.UID, id, mk)
	})
	if err != nil {
		return Conversation{}, pinErr("pin conversation", err)
	}
	return s.conversation(ctx, p.App.ID, viewer.UID, id)
}

// SystemPinTarget names one conversation of the app's list: a user's (UID) or a group's
// (GUID), exactly one of them.
type SystemPinTarget struct {
	UID  string
	GUID string
}

// SystemPins lists the app's pinned conversations in display order.
func (s *Service) SystemPins(ctx context.Context, p Principal) ([]SystemPin, error) {
	pins, err := s.store.SystemPins(ctx, p.App.ID)
	if err != nil {
		return nil, internal("read pinned conversations", err)
	}
	return pins, nil
}

// ReplaceSystemPins makes targets, in order, the app's pinned conversations (at most 5,
// each once, each an existing user or group). An entry already pinned keeps its pinnedAt.
func (s *Service) ReplaceSystemPins(ctx context.Context, p Principal, targets []SystemPinTarget) ([]SystemPin, error) {
	if len(targets) > MaxSystemPinnedConversations {
		return nil, Errorf(CodeSystemPinnedLimit, "At most %d conversations may be pinned for every user.", MaxSystemPinnedConversations)
	}
	fe := fieldErrors{}
	var pins []SystemPin
	seen := map[SystemPin]bool{}
	for _, t := range targets {
		var pin SystemPin
		switch {
		case (t.UID == "") == (t.GUID == ""):
			fe.add("pinnedConversations", "Each pinned conversation names exactly one of uid and guid.")
			continue
		case t.UID != "":
			pin.Kind, pin.Target = ConversationUser, fe.id("pinnedConversations", t.UID, true)
		default:
			pin.Kind, pin.Target = ConversationGroup, fe.id("pinnedConversations", t.GUID, true)
		}
		if seen[pin] {
			fe.add("pinnedConversations", "A conversation is named twice.")
		}
		seen[pin] = true
		pins = append(pins, pin)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	for _, pin := range pins {
		var err error
		if pin.Kind == ConversationUser {
			_, err = s.User(ctx, p.ActingAs(""), pin.Target)
		} else {
			_, err = s.Group(ctx, p.ActingAs(""), pin.Target)
		}
		if err != nil {
			return nil, err
		}
	}
	now := s.now()
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingPins))
		old, err := tx.LockSystemPins(p.App.ID)
		if err != nil {
			return err
		}
		at := map[SystemPin]int64{}
		for _, o := range old {
			at[SystemPin{Kind: o.Kind, Target: o.Target}] = o.PinnedAt
		}
		for i := range pins {
			pins[i].PinnedAt = now
			if t, ok := at[SystemPin{Kind: pins[i].Kind, Target: pins[i].Target}]; ok {
				pins[i].PinnedAt = t
			}
		}
		return tx.ReplaceSystemPins(p.App.ID, pins)
	})
	if err != nil {
		return nil, pinErr("replace pinned conversations", err)
	}
	if pins == nil {
		pins = []SystemPin{}
	}
	return pins, nil
}
