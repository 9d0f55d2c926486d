package chat

import (
	"context"
	"time"
)

// A user's notification preferences (GET/PATCH/DELETE /notifications/v1/preferences, and the
// client SDK's /notifications/push/v1/preferences): the user's own choices are kept apart
// from the app's settings, as NotificationOverrides, and merged over them when read. A choice
// counts only while the app lets users override that preference, so the app's rules always
// win; a change to a preference the app does not let users override is ignored, as the
// hosted service does (docs/notifications.md).

// NotificationOverrides are what one user chose over its app's preferences; nil is not
// chosen, and the app's value applies. Stored as JSON (these tags).
type NotificationOverrides struct {
	Group    GroupOverrides    `json:"group"`
	OneOnOne OneOnOneOverrides `json:"oneOnOne"`
	DND      *int              `json:"dnd,omitempty"`
	// Schedule is the user's whole week: a user who changes one day keeps the app's others.
	Schedule           *WeekSchedule `json:"schedule,omitempty"`
	UsePrivacyTemplate *bool         `json:"usePrivacyTemplate,omitempty"`
}

// GroupOverrides are a user's choices for group conversations.
type GroupOverrides struct {
	Messages           *int `json:"messages,omitempty"`
	Replies            *int `json:"replies,omitempty"`
	QuotedReplies      *int `json:"quotedReplies,omitempty"`
	Reactions          *int `json:"reactions,omitempty"`
	MemberLeft         *int `json:"memberLeft,omitempty"`
	MemberAdded        *int `json:"memberAdded,omitempty"`
	MemberJoined       *int `json:"memberJoined,omitempty"`
	MemberKicked       *int `json:"memberKicked,omitempty"`
	MemberBanned       *int `json:"memberBanned,omitempty"`
	MemberUnbanned     *int `json:"memberUnbanned,omitempty"`
	MemberScopeChanged *int `json:"memberScopeChanged,omitempty"`
}

// OneOnOneOverrides are a user's choices for one-to-one conversations.
type OneOnOneOverrides struct {
	Messages      *int `json:"messages,omitempty"`
	Replies       *int `json:"replies,omitempty"`
	QuotedReplies *int `json:"quotedReplies,omitempty"`
	Reactions     *int `json:"reactions,omitempty"`
}

// IsZero reports whether the user chose nothing.
func (o NotificationOverrides) IsZero() bool {
	return o == NotificationOverrides{}
}

// NotificationPrefs are one user's effective preferences: its choice where the app lets
// users override, else the app's value (EffectiveNotificationPrefs).
type NotificationPrefs struct {
	Group    GroupPrefs
	OneOnOne OneOnOnePrefs
	DND      int // DNDOff or DNDOn
	Schedule WeekSchedule
	// UsePrivacyTemplate says the privacy templates apply to this user's notifications.
	UsePrivacyTemplate bool
	// BypassPreferencesForMentions is the app's: a mention notifies whatever the
	// preferences say.
	BypassPreferencesForMentions bool
}

// GroupPrefs are effective group preferences; MessageEdited and MessageDeleted are the
// app's, which users cannot override.
type GroupPrefs struct {
	Messages, Replies, QuotedReplies, Reactions                       int
	MemberLeft, MemberAdded, MemberJoined, MemberKicked, MemberBanned int
	MemberUnbanned, MemberScopeChanged                                int
	MessageEdited, MessageDeleted                                     int
}

// OneOnOnePrefs are effective one-to-one preferences.
type OneOnOnePrefs struct {
	Messages, Replies, QuotedReplies, Reactions int
	MessageEdited, MessageDeleted               int
}

// userPref is one preference a user may choose: where its name is on the wire, its values,
// the app's setting and override, the user's choice and the effective value.
type userPref struct {
	field string // detail path of the PATCH body
	max   int
	app   func(*NotificationSettings) (int, bool)
	user  func(*NotificationOverrides) **int
	eff   func(*NotificationPrefs) *int
}

// userPrefs are every preference a user may choose but DND, the schedule and the templates.
var userPrefs = []userPref{
	{"groupPreferences.groupMessages", 3,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MessagesSetting, g.MessagesOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.Messages }, func(e *NotificationPrefs) *int { return &e.Group.Messages }},
	{"groupPreferences.groupReplies", 4,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.RepliesSetting, g.RepliesOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.Replies }, func(e *NotificationPrefs) *int { return &e.Group.Replies }},
	{"groupPreferences.groupQuotedReplies", 3,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.QuotedRepliesSetting, g.QuotedRepliesOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.QuotedReplies },
		func(e *NotificationPrefs) *int { return &e.Group.QuotedReplies }},
	{"groupPreferences.groupReactions", 3,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.ReactionsSetting, g.ReactionsOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.Reactions }, func(e *NotificationPrefs) *int { return &e.Group.Reactions }},
	{"groupPreferences.groupMemberLeft", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberLeftSetting, g.MemberLeftOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberLeft }, func(e *NotificationPrefs) *int { return &e.Group.MemberLeft }},
	{"groupPreferences.groupMemberAdded", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberAddedSetting, g.MemberAddedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberAdded }, func(e *NotificationPrefs) *int { return &e.Group.MemberAdded }},
	{"groupPreferences.groupMemberJoined", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberJoinedSetting, g.MemberJoinedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberJoined }, func(e *NotificationPrefs) *int { return &e.Group.MemberJoined }},
	{"groupPreferences.groupMemberKicked", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberKickedSetting, g.MemberKickedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberKicked }, func(e *NotificationPrefs) *int { return &e.Group.MemberKicked }},
	{"groupPreferences.groupMemberBanned", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberBannedSetting, g.MemberBannedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberBanned }, func(e *NotificationPrefs) *int { return &e.Group.MemberBanned }},
	{"groupPreferences.groupMemberUnbanned", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberUnbannedSetting, g.MemberUnbannedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberUnbanned },
		func(e *NotificationPrefs) *int { return &e.Group.MemberUnbanned }},
	{"groupPreferences.groupMemberScopeChanged", 2,
		func(s *NotificationSettings) (int, bool) {
			g := s.Preferences.Group
			return g.MemberScopeChangedSetting, g.MemberScopeChangedOverride
		},
		func(o *NotificationOverrides) **int { return &o.Group.MemberScopeChanged },
		func(e *NotificationPrefs) *int { return &e.Group.MemberScopeChanged }},
	{"oneOnOnePreferences.oneOnOneMessages", 3,
		func(s *NotificationSettings) (int, bool) {
			o := s.Preferences.OneOnOne
			return o.MessagesSetting, o.MessagesOverride
		},
		func(o *NotificationOverrides) **int { return &o.OneOnOne.Messages }, func(e *NotificationPrefs) *int { return &e.OneOnOne.Messages }},
	{"oneOnOnePreferences.oneOnOneReplies", 4,
		func(s *NotificationSettings) (int, bool) {
			o := s.Preferences.OneOnOne
			return o.RepliesSetting, o.RepliesOverride
		},
		func(o *NotificationOverrides) **int { return &o.OneOnOne.Replies }, func(e *NotificationPrefs) *int { return &e.OneOnOne.Replies }},
	{"oneOnOnePreferences.oneOnOneQuotedReplies", 3,
		func(s *NotificationSettings) (int, bool) {
			o := s.Preferences.OneOnOne
			return o.QuotedRepliesSetting, o.QuotedRepliesOverride
		},
		func(o *NotificationOverrides) **int { return &o.OneOnOne.QuotedReplies },
		func(e *NotificationPrefs) *int { return &e.OneOnOne.QuotedReplies }},
	{"oneOnOnePreferences.oneOnOneReactions", 3,
		func(s *NotificationSettings) (int, bool) {
			o := s.Preferences.OneOnOne
			return o.ReactionsSetting, o.ReactionsOverride
		},
		func(o *NotificationOverrides) **int { return &o.OneOnOne.Reactions }, func(e *NotificationPrefs) *int { return &e.OneOnOne.Reactions }},
}

// EffectiveNotificationPrefs merges a user's choices over its app's settings: each
// preference is the user's choice when it made one and the app lets users override it,
// else the app's value.
func EffectiveNotificationPrefs(app NotificationSettings, o NotificationOverrides) NotificationPrefs {
	p := app.Preferences
	e := NotificationPrefs{
		Group:                        GroupPrefs{MessageEdited: p.Group.MessageEditedSetting, MessageDeleted: p.Group.MessageDeletedSetting},
		OneOnOne:                     OneOnOnePrefs{MessageEdited: p.OneOnOne.MessageEditedSetting, MessageDeleted: p.OneOnOne.MessageDeletedSetting},
		DND:                          p.Mute.DNDPreferenceSetting,
		Schedule:                     p.Mute.SchedulePreferenceSetting,
		BypassPreferencesForMentions: p.BypassPreferencesForMentions,
	}
	for _, up := range userPrefs {
		v, overridable := up.app(&app)
		if chosen := *up.user(&o); chosen != nil && overridable {
			v = *chosen
		}
		*up.eff(&e) = v
	}
	if o.DND != nil && p.Mute.DNDPreferenceOverride {
		e.DND = *o.DND
	}
	if o.Schedule != nil && p.Mute.SchedulePreferenceOverride {
		e.Schedule = *o.Schedule
	}
	switch app.Templates.UsePrivacyTemplate {
	case TemplatesPrivacy:
		e.UsePrivacyTemplate = true
	case TemplatesUserChosen:
		e.UsePrivacyTemplate = o.UsePrivacyTemplate != nil && *o.UsePrivacyTemplate
	}
	return e
}

// NotificationPrefsChange is a user's update of its preferences; nil leaves a preference as
// it is.
type NotificationPrefsChange struct {
	Group    GroupOverrides
	OneOnOne OneOnOneOverrides
	DND      *int
	// Schedule changes the days it names, each field given; the others stay.
	Schedule           map[time.Weekday]DayChange
	UsePrivacyTemplate *bool
}

// DayChange is a change of one day of the schedule; nil leaves a field as it is.
type DayChange struct {
	From, To *int
	DND      *bool
}

// IsZero reports whether the change names nothing.
func (c NotificationPrefsChange) IsZero() bool {
	return c.Group == GroupOverrides{} && c.OneOnOne == OneOnOneOverrides{} && c.DND == nil && len(c.Schedule) == 0 &&
		c.UsePrivacyTemplate == nil
}

// ApplyNotificationPrefsChange returns the user's choices o with ch made, as the app's
// settings allow: every value is checked, and one the app does not let users override is
// left out (the user's earlier choice, if any, stays). A day of the schedule changes from
// what is effective for the user now.
func ApplyNotificationPrefsChange(app NotificationSettings, o NotificationOverrides, ch NotificationPrefsChange) (NotificationOverrides, error) {
	fe := fieldErrors{}
	chOverrides := NotificationOverrides{Group: ch.Group, OneOnOne: ch.OneOnOne}
	for _, up := range userPrefs {
		v := *up.user(&chOverrides)
		if v == nil {
			continue
		}
		fe.setting(up.field, *v, up.max)
		if _, overridable := up.app(&app); overridable {
			n := *v
			*up.user(&o) = &n
		}
	}
	mute := app.Preferences.Mute
	if ch.DND != nil {
		fe.setting("mutePreferences.dnd", *ch.DND, 2)
		if mute.DNDPreferenceOverride {
			n := *ch.DND
			o.DND = &n
		}
	}
	if len(ch.Schedule) > 0 {
		w := EffectiveNotificationPrefs(app, o).Schedule
		for _, d := range weekdays {
			dc, ok := ch.Schedule[d.day]
			if !ok {
				continue
			}
			day := w.day(d.day)
			if dc.From != nil {
				day.From = *dc.From
			}
			if dc.To != nil {
				day.To = *dc.To
			}
			if dc.DND != nil {
				day.DND = *dc.DND
			}
		}
		fe.schedule("mutePreferences.schedule", w)
		if mute.SchedulePreferenceOverride {
			o.Schedule = &w
		}
	}
	if ch.UsePrivacyTemplate != nil && app.Templates.UsePrivacyTemplate == TemplatesUserChosen {
		b := *ch.UsePrivacyTemplate
		o.UsePrivacyTemplate = &b
	}
	if err := fe.err(); err != nil {
		return NotificationOverrides{}, err
	}
	return o, nil
}

// UserNotificationPrefs is a user's preferences as the API answers them: the effective
// ones, and the app's settings they were merged with (whose overrides say what the user may
// change).
type UserNotificationPrefs struct {
	Prefs NotificationPrefs
	App   NotificationSettings
}

// NotificationPrefs reads a user's effective preferences (uid: see notificationUser).
func (s Notifications) NotificationPrefs(ctx context.Context, p Principal, uid string) (UserNotificationPrefs, error) {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	app, err := s.NotificationSettings(ctx, p)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	cur, err := s.store.UserNotifications(ctx, p.App.ID, u.UID)
	if err != nil {
		return UserNotificationPrefs{}, internal("read notification preferences", err)
	}
	return UserNotificationPrefs{cur.Prefs(app), app}, nil
}

// UpdateNotificationPrefs makes a user's choices (ApplyNotificationPrefsChange) and answers
// its effective preferences.
func (s Notifications) UpdateNotificationPrefs(ctx context.Context, p Principal, uid string, ch NotificationPrefsChange) (UserNotificationPrefs, error) {
	if ch.IsZero() { // nothing to change: the SDK drops the sections it has nothing for
		return s.NotificationPrefs(ctx, p, uid)
	}
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	app, err := s.NotificationSettings(ctx, p)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	var out NotificationOverrides
	err = s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, cur NotificationRecipient) error {
		o, err := ApplyNotificationPrefsChange(app, cur.Overrides, ch)
		if err != nil {
			return err
		}
		out = o
		return tx.SaveNotificationOverrides(p.App.ID, u.UID, o, s.now())
	})
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	return UserNotificationPrefs{EffectiveNotificationPrefs(app, out), app}, nil
}

// ResetNotificationPrefs forgets a user's choices: the app's preferences apply again. Its
// mutes, time zone and contact details stay.
func (s Notifications) ResetNotificationPrefs(ctx context.Context, p Principal, uid string) (UserNotificationPrefs, error) {
	u, err := s.notificationUser(ctx, p, uid)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	app, err := s.NotificationSettings(ctx, p)
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	err = s.changeUserNotifications(ctx, p, u.UID, func(tx Tx, _ NotificationRecipient) error {
		return tx.SaveNotificationOverrides(p.App.ID, u.UID, NotificationOverrides{}, s.now())
	})
	if err != nil {
		return UserNotificationPrefs{}, err
	}
	return UserNotificationPrefs{EffectiveNotificationPrefs(app, NotificationOverrides{}), app}, nil
}
