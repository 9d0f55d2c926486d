package chat

import (
	"context"
	"fmt"
	"strconv"
)

// Muted conversations (GET/PUT/DELETE /notifications/v1/preferences/mute, and the client
// SDK's /notifications/push/v1/preferences/mute): a user silences a one-to-one or group
// conversation until a time. A mute is kept as the user made it and counts while the app
// lets users mute that kind of conversation (MuteSettings.Muted…Override); an ended one does
// not count, is not listed, and is dropped when the user's mutes next change.

// Kinds of muted conversation.
const (
	MuteOneOnOne = "oneOnOne" // muted with another user: its uid
	MuteGroup    = "group"    // a group: its guid
)

// Limits of mutes (natter's own).
const (
	MaxMutesPerCall = 100
	// MaxMuteUntil is the latest end of a mute, 9999-12-31T23:59:59.999Z in UNIX
	// milliseconds: later ones are refused rather than overflowing a client's date type.
	MaxMuteUntil int64 = 253402300799999
)

// ConversationRef names a conversation as a user sees it: the other user, or the group.
type ConversationRef struct {
	Type string // MuteOneOnOne or MuteGroup
	ID   string // the uid or the guid, lower-cased
}

// MutedConversation is one mute: the conversation, and when it ends (UNIX milliseconds).
type MutedConversation struct {
	ConversationRef
	Until int64
}

// MayMute reports whether the app lets its users mute conversations of kind
// conversationType.
func (s NotificationSettings) MayMute(conversationType string) bool {
	switch conversationType {
	case MuteOneOnOne:
		return s.Preferences.Mute.MutedOneOnOnesOverride
	case MuteGroup:
		return s.Preferences.Mute.MutedGroupsOverride
	}
	return false
}

// CheckMutes validates the conversations uid asks to mute (withUntil) or unmute at nowMS,
// and returns them with their ids lower-cased and repeats merged, the last one winning:
// 1 to MaxMutesPerCall, each of a known type with a well-formed id that is not uid itself,
// and, to mute, an end after nowMS and at most MaxMuteUntil.
func CheckMutes(uid string, in []MutedConversation, withUntil bool, nowMS int64) ([]MutedConversation, error) {
	fe := fieldErrors{}
	switch {
	case len(in) == 0:
		fe.add("conversations", "The conversations field is required: name 1 to "+strconv.Itoa(MaxMutesPerCall)+" conversations.")
	case len(in) > MaxMutesPerCall:
		fe.add("conversations", "The conversations field may not have more than "+strconv.Itoa(MaxMutesPerCall)+" items.")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	var out []MutedConversation
	at := map[ConversationRef]int{}
	for i, c := range in {
		field := fmt.Sprintf("conversations[%d]", i)
		if c.Type != MuteOneOnOne && c.Type != MuteGroup {
			fe.add(field+".type", "The type must be oneOnOne or group.")
		}
		c.ID = fe.id(field+".id", c.ID, true)
		if c.Type == MuteOneOnOne && c.ID != "" && c.ID == uid {
			fe.add(field+".id", "A user cannot mute its conversation with itself.")
		}
		if withUntil {
			switch {
			case c.Until <= nowMS:
				fe.add(field+".until", "The until field must be a time in the future, in UNIX milliseconds.")
			case c.Until > MaxMuteUntil:
				fe.add(field+".until", "The until field may not be later than "+strconv.FormatInt(MaxMuteUntil, 10)+" (the year 9999).")
			}
		} else {
			c.Until = 0
		}
		if j, ok := at[c.ConversationRef]; ok {
			out[j] = c
			continue
		}
		at[c.ConversationRef] = len(out)
		out = append(out, c)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// MutedConversations lists the conversations a user has muted, those whose mute has not
// ended.
func (s Notifications) MutedConversations(ctx context.Context, p Principal, uid string) ([]MutedConversation, error) {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return nil, err
	}
	ms, err := s.store.MutedConversations(ctx, p.App.ID, u.UID, s.nowMS())
	if err != nil {
		return nil, internal("list muted conversations", err)
	}
	return ms, nil
}

// MuteConversations mutes conversations for a user (CheckMutes), each until its time; the
// other user or the group must exist (ERR_UID_NOT_FOUND, ERR_GUID_NOT_FOUND). All of them or
// none are muted.
func (s Notifications) MuteConversations(ctx context.Context, p Principal, uid string, in []MutedConversation) error {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return err
	}
	now := s.nowMS()
	mutes, err := CheckMutes(u.UID, in, true, now)
	if err != nil {
		return err
	}
	for _, m := range mutes {
		var err error
		if m.Type == MuteGroup {
			_, err = s.groupAs(ctx, p.App.ID, m.ID, "")
		} else {
			_, err = s.User(ctx, p, m.ID)
		}
		if err != nil {
			return err
		}
	}
	return s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, _ NotificationRecipient) error {
		return tx.MuteConversations(p.App.ID, u.UID, mutes, now)
	})
}

// UnmuteConversations lifts a user's mutes of conversations; one not muted, or of a user or
// group gone since, is no error.
func (s Notifications) UnmuteConversations(ctx context.Context, p Principal, uid string, in []MutedConversation) error {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return err
	}
	now := s.nowMS()
	mutes, err := CheckMutes(u.UID, in, false, now)
	if err != nil {
		return err
	}
	refs := make([]ConversationRef, len(mutes))
	for i, m := range mutes {
		refs[i] = m.ConversationRef
	}
	return s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, _ NotificationRecipient) error {
		return tx.UnmuteConversations(p.App.ID, u.UID, refs, now)
	})
}
