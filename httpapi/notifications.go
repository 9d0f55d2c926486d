package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// Notification settings (docs/notifications.md): the app's, under /notifications/v1/settings,
// answered as the chat.NotificationSettings document; and each user's preferences, mutes,
// time zone and contact details. A user's calls name it by the uid query parameter (contact
// details: onBehalfOf), or are made with its auth token, as the client SDK makes them under
// /notifications/push/v1/preferences.

func (s *Server) getNotificationSettings(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ns, err := s.svc.Notifications().NotificationSettings(r.Context(), p)
	if err != nil {
		return err
	}
	writeData(w, r, ns, nil)
	return nil
}

// updateNotificationSettings decodes the body onto the current settings, so that what it
// leaves out, at any depth, stays as it is.
func (s *Server) updateNotificationSettings(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var body json.RawMessage
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	_, err := s.svc.Notifications().UpdateNotificationSettings(r.Context(), p, func(ns *chat.NotificationSettings) error {
		if len(body) == 0 {
			return nil
		}
		if err := json.Unmarshal(body, ns); err != nil {
			return wire.JSONError(err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The notification settings have been updated."}, nil)
	return nil
}

func (s *Server) resetNotificationSettings(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.Notifications().ResetNotificationSettings(r.Context(), p); err != nil {
		return err
	}
	writeData(w, r, success{true, "The notification settings have been reset to their defaults."}, nil)
	return nil
}

// userPrefsJSON is a user's effective preferences, in the shape of the PATCH body (which the
// client SDK reads back), and again under preferences in the shape of the app's settings,
// each ...Override saying whether the app lets the user change it.
type userPrefsJSON struct {
	GroupPreferences    groupPrefsJSON    `json:"groupPreferences"`
	OneOnOnePreferences oneOnOnePrefsJSON `json:"oneOnOnePreferences"`
	MutePreferences     mutePrefsJSON     `json:"mutePreferences"`
	UsePrivacyTemplate  bool              `json:"usePrivacyTemplate"`
	Preferences         userPrefsNested   `json:"preferences"`
	// Sound and Templates are the app's, as the hosted answer carries them: a user has no
	// sound or template of its own (its privacy choice is UsePrivacyTemplate above).
	Sound     chat.NotificationSound     `json:"sound"`
	Templates chat.NotificationTemplates `json:"templates"`
}

type groupPrefsJSON struct {
	GroupMessages           int `json:"groupMessages"`
	GroupReplies            int `json:"groupReplies"`
	GroupQuotedReplies      int `json:"groupQuotedReplies"`
	GroupReactions          int `json:"groupReactions"`
	GroupMemberLeft         int `json:"groupMemberLeft"`
	GroupMemberAdded        int `json:"groupMemberAdded"`
	GroupMemberJoined       int `json:"groupMemberJoined"`
	GroupMemberKicked       int `json:"groupMemberKicked"`
	GroupMemberBanned       int `json:"groupMemberBanned"`
	GroupMemberUnbanned     int `json:"groupMemberUnbanned"`
	GroupMemberScopeChanged int `json:"groupMemberScopeChanged"`
}

type oneOnOnePrefsJSON struct {
	OneOnOneMessages      int `json:"oneOnOneMessages"`
	OneOnOneReplies       int `json:"oneOnOneReplies"`
	OneOnOneQuotedReplies int `json:"oneOnOneQuotedReplies"`
	OneOnOneReactions     int `json:"oneOnOneReactions"`
}

type mutePrefsJSON struct {
	DND      int               `json:"dnd"`
	Schedule chat.WeekSchedule `json:"schedule"`
}

type userPrefsNested struct {
	Group    chat.GroupNotificationSettings    `json:"group"`
	OneOnOne chat.OneOnOneNotificationSettings `json:"oneOnOne"`
	Mute     chat.MuteSettings                 `json:"mute"`
}

func userPrefsOut(up chat.UserNotificationPrefs) userPrefsJSON {
	e, app := up.Prefs, up.App.Preferences
	g, o := e.Group, e.OneOnOne
	out := userPrefsJSON{
		GroupPreferences: groupPrefsJSON{g.Messages, g.Replies, g.QuotedReplies, g.Reactions, g.MemberLeft, g.MemberAdded,
			g.MemberJoined, g.MemberKicked, g.MemberBanned, g.MemberUnbanned, g.MemberScopeChanged},
		OneOnOnePreferences: oneOnOnePrefsJSON{o.Messages, o.Replies, o.QuotedReplies, o.Reactions},
		MutePreferences:     mutePrefsJSON{DND: e.DND, Schedule: e.Schedule},
		UsePrivacyTemplate:  e.UsePrivacyTemplate,
		Preferences:         userPrefsNested{Group: app.Group, OneOnOne: app.OneOnOne, Mute: app.Mute},
		Sound:               up.App.Sound,
		Templates:           up.App.Templates,
	}
	n := &out.Preferences
	n.Group.MessagesSetting, n.Group.RepliesSetting, n.Group.QuotedRepliesSetting, n.Group.ReactionsSetting = g.Messages, g.Replies, g.QuotedReplies, g.Reactions
	n.Group.MemberLeftSetting, n.Group.MemberAddedSetting, n.Group.MemberJoinedSetting = g.MemberLeft, g.MemberAdded, g.MemberJoined
	n.Group.MemberKickedSetting, n.Group.MemberBannedSetting, n.Group.MemberUnbannedSetting = g.MemberKicked, g.MemberBanned, g.MemberUnbanned
	n.Group.MemberScopeChangedSetting = g.MemberScopeChanged
	n.OneOnOne.MessagesSetting, n.OneOnOne.RepliesSetting, n.OneOnOne.QuotedRepliesSetting, n.OneOnOne.ReactionsSetting = o.Messages, o.Replies, o.QuotedReplies, o.Reactions
	n.Mute.DNDPreferenceSetting, n.Mute.SchedulePreferenceSetting = e.DND, e.Schedule
	return out
}

// userPrefsRequest is the PATCH body of a user's preferences; nil leaves a preference as it is.
type userPrefsRequest struct {
	GroupPreferences struct {
		GroupMessages           *int `json:"groupMessages"`
		GroupReplies            *int `json:"groupReplies"`
		GroupQuotedReplies      *int `json:"groupQuotedReplies"`
		GroupReactions          *int `json:"groupReactions"`
		GroupMemberLeft         *int `json:"groupMemberLeft"`
		GroupMemberAdded        *int `json:"groupMemberAdded"`
		GroupMemberJoined       *int `json:"groupMemberJoined"`
		GroupMemberKicked       *int `json:"groupMemberKicked"`
		GroupMemberBanned       *int `json:"groupMemberBanned"`
		GroupMemberUnbanned     *int `json:"groupMemberUnbanned"`
		GroupMemberScopeChanged *int `json:"groupMemberScopeChanged"`
	} `json:"groupPreferences"`
	OneOnOnePreferences struct {
		OneOnOneMessages      *int `json:"oneOnOneMessages"`
		OneOnOneReplies       *int `json:"oneOnOneReplies"`
		OneOnOneQuotedReplies *int `json:"oneOnOneQuotedReplies"`
		OneOnOneReactions     *int `json:"oneOnOneReactions"`
	} `json:"oneOnOnePreferences"`
	MutePreferences struct {
		DND      *int                  `json:"dnd"`
		Schedule map[string]dayRequest `json:"schedule"`
	} `json:"mutePreferences"`
	UsePrivacyTemplate *bool `json:"usePrivacyTemplate"`
}

type dayRequest struct {
	From *int  `json:"from"`
	To   *int  `json:"to"`
	DND  *bool `json:"dnd"`
}

var weekdayByName = map[string]time.Weekday{"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday}

func (req userPrefsRequest) change() (chat.NotificationPrefsChange, error) {
	g, o := req.GroupPreferences, req.OneOnOnePreferences
	ch := chat.NotificationPrefsChange{
		Group: chat.GroupOverrides{Messages: g.GroupMessages, Replies: g.GroupReplies, QuotedReplies: g.GroupQuotedReplies,
			Reactions: g.GroupReactions, MemberLeft: g.GroupMemberLeft, MemberAdded: g.GroupMemberAdded, MemberJoined: g.GroupMemberJoined,
			MemberKicked: g.GroupMemberKicked, MemberBanned: g.GroupMemberBanned, MemberUnbanned: g.GroupMemberUnbanned,
			MemberScopeChanged: g.GroupMemberScopeChanged},
		OneOnOne: chat.OneOnOneOverrides{Messages: o.OneOnOneMessages, Replies: o.OneOnOneReplies, QuotedReplies: o.OneOnOneQuotedReplies,
			Reactions: o.OneOnOneReactions},
		DND:                req.MutePreferences.DND,
		UsePrivacyTemplate: req.UsePrivacyTemplate,
	}
	for name, d := range req.MutePreferences.Schedule {
		day, ok := weekdayByName[name]
		if !ok {
			return ch, chat.InvalidField("mutePreferences.schedule", "The schedule's keys must be days of the week: monday to sunday.")
		}
		if ch.Schedule == nil {
			ch.Schedule = map[time.Weekday]chat.DayChange{}
		}
		ch.Schedule[day] = chat.DayChange{From: d.From, To: d.To, DND: d.DND}
	}
	return ch, nil
}

func (s *Server) getNotificationPrefs(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	up, err := s.svc.Notifications().NotificationPrefs(r.Context(), p, r.URL.Query().Get("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, userPrefsOut(up), nil)
	return nil
}

func (s *Server) updateNotificationPrefs(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req userPrefsRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	ch, err := req.change()
	if err != nil {
		return err
	}
	up, err := s.svc.Notifications().UpdateNotificationPrefs(r.Context(), p, r.URL.Query().Get("uid"), ch)
	if err != nil {
		return err
	}
	writeData(w, r, userPrefsOut(up), nil)
	return nil
}

func (s *Server) resetNotificationPrefs(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	up, err := s.svc.Notifications().ResetNotificationPrefs(r.Context(), p, r.URL.Query().Get("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, userPrefsOut(up), nil)
	return nil
}

// mutedJSON is one muted conversation; Until is UNIX milliseconds.
type mutedJSON struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Until int64  `json:"until,omitempty"`
}

func (s *Server) listMutedConversations(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ms, err := s.svc.Notifications().MutedConversations(r.Context(), p, r.URL.Query().Get("uid"))
	if err != nil {
		return err
	}
	out := make([]mutedJSON, len(ms))
	for i, m := range ms {
		out[i] = mutedJSON{ID: m.ID, Type: m.Type, Until: m.Until}
	}
	writeData(w, r, map[string][]mutedJSON{"mutedConversations": out}, nil)
	return nil
}

func decodeMutes(r *http.Request) ([]chat.MutedConversation, error) {
	var req struct {
		Conversations []mutedJSON `json:"conversations"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return nil, err
	}
	out := make([]chat.MutedConversation, len(req.Conversations))
	for i, c := range req.Conversations {
		out[i] = chat.MutedConversation{ConversationRef: chat.ConversationRef{Type: c.Type, ID: c.ID}, Until: c.Until}
	}
	return out, nil
}

func (s *Server) muteConversations(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	in, err := decodeMutes(r)
	if err != nil {
		return err
	}
	if err := s.svc.Notifications().MuteConversations(r.Context(), p, r.URL.Query().Get("uid"), in); err != nil {
		return err
	}
	writeData(w, r, success{true, "The conversations have been muted."}, nil)
	return nil
}

func (s *Server) unmuteConversations(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	in, err := decodeMutes(r)
	if err != nil {
		return err
	}
	if err := s.svc.Notifications().UnmuteConversations(r.Context(), p, r.URL.Query().Get("uid"), in); err != nil {
		return err
	}
	writeData(w, r, success{true, "The conversations have been unmuted."}, nil)
	return nil
}

// timezoneJSON answers the time zone with success, which the client SDK looks for.
type timezoneJSON struct {
	Success  bool   `json:"success"`
	Timezone string `json:"timezone"`
}

func (s *Server) getNotificationTimezone(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	tz, err := s.svc.Notifications().NotificationTimezone(r.Context(), p, r.URL.Query().Get("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, timezoneJSON{true, tz}, nil)
	return nil
}

func (s *Server) setNotificationTimezone(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Timezone string `json:"timezone"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	tz, err := s.svc.Notifications().SetNotificationTimezone(r.Context(), p, r.URL.Query().Get("uid"), req.Timezone)
	if err != nil {
		return err
	}
	writeData(w, r, timezoneJSON{true, tz}, nil)
	return nil
}

// contactJSON is a user's contact details; what it has none of is left out.
type contactJSON struct {
	Email string `json:"email,omitempty"`
	Phno  string `json:"phno,omitempty"`
}

func (s *Server) getContactDetails(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	c, err := s.svc.Notifications().ContactDetails(r.Context(), p)
	if err != nil {
		return err
	}
	writeData(w, r, contactJSON{c.Email, c.Phone}, nil)
	return nil
}

func (s *Server) updateContactDetails(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Email *string `json:"email"`
		Phno  *string `json:"phno"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	c, err := s.svc.Notifications().UpdateContactDetails(r.Context(), p, chat.ContactChange{Email: req.Email, Phone: req.Phno})
	if err != nil {
		return err
	}
	writeData(w, r, contactJSON{c.Email, c.Phone}, nil)
	return nil
}

func (s *Server) deleteContactDetails(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.Notifications().DeleteContactDetails(r.Context(), p); err != nil {
		return err
	}
	writeData(w, r, success{true, "The contact details have been deleted."}, nil)
	return nil
}
