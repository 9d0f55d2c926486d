package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// NotificationSettings is an app's notification settings document (GET
// /notifications/v1/settings). A Setting is 1 (don't notify), 2 (notify) or 3 (mentions
// only; for reactions, on all messages); its Override says whether users may choose their own.
type NotificationSettings struct {
	Preferences struct {
		Group                        NotificationGroupSettings    `json:"group"`
		BypassPreferencesForMentions bool                         `json:"bypassPreferencesForMentions"`
		Call                         map[string]any               `json:"call"`
		OneOnOne                     NotificationOneOnOneSettings `json:"oneOnOne"`
		Mute                         NotificationMuteSettings     `json:"mute"`
		Email                        NotificationDigestSettings   `json:"email"`
		SMS                          NotificationDigestSettings   `json:"sms"`
		Push                         struct {
			IncludeMessageObjectSetting    bool           `json:"includeMessageObjectSetting"`
			IncludeSenderMetadataSetting   bool           `json:"includeSenderMetadataSetting"`
			IncludeReceiverMetadataSetting bool           `json:"includeReceiverMetadataSetting"`
			TrimTextFieldSetting           bool           `json:"trimTextFieldSetting"`
			IncludeMessageMetadataSetting  bool           `json:"includeMessageMetadataSetting"`
			CustomJSON                     map[string]any `json:"customJson"`
		} `json:"push"`
	} `json:"preferences"`
	Sound struct {
		Chat string `json:"chat"`
		Call string `json:"call"`
	} `json:"sound"`
	// Templates are the texts of notifications by name (textMessageTemplateDefault, …),
	// with usePrivacyTemplate among them.
	Templates map[string]json.RawMessage `json:"templates"`
}

// NotificationGroupSettings are an app's preferences for group conversations.
type NotificationGroupSettings struct {
	MessagesSetting            int  `json:"messagesSetting"`
	MessagesOverride           bool `json:"messagesOverride"`
	RepliesSetting             int  `json:"repliesSetting"`
	RepliesOverride            bool `json:"repliesOverride"`
	QuotedRepliesSetting       int  `json:"quotedRepliesSetting"`
	QuotedRepliesOverride      bool `json:"quotedRepliesOverride"`
	ReactionsSetting           int  `json:"reactionsSetting"`
	ReactionsOverride          bool `json:"reactionsOverride"`
	MemberLeftSetting          int  `json:"memberLeftSetting"`
	MemberLeftOverride         bool `json:"memberLeftOverride"`
	MemberAddedSetting         int  `json:"memberAddedSetting"`
	MemberAddedOverride        bool `json:"memberAddedOverride"`
	MemberJoinedSetting        int  `json:"memberJoinedSetting"`
	MemberJoinedOverride       bool `json:"memberJoinedOverride"`
	MemberKickedSetting        int  `json:"memberKickedSetting"`
	MemberKickedOverride       bool `json:"memberKickedOverride"`
	MemberBannedSetting        int  `json:"memberBannedSetting"`
	MemberBannedOverride       bool `json:"memberBannedOverride"`
	MemberUnbannedSetting      int  `json:"memberUnbannedSetting"`
	MemberUnbannedOverride     bool `json:"memberUnbannedOverride"`
	MemberScopeChangedSetting  int  `json:"memberScopeChangedSetting"`
	MemberScopeChangedOverride bool `json:"memberScopeChangedOverride"`
	MessageEditedSetting       int  `json:"messageEditedSetting"`
	MessageDeletedSetting      int  `json:"messageDeletedSetting"`
}

// NotificationOneOnOneSettings are an app's preferences for one-to-one conversations.
type NotificationOneOnOneSettings struct {
	MessagesSetting       int  `json:"messagesSetting"`
	MessagesOverride      bool `json:"messagesOverride"`
	RepliesSetting        int  `json:"repliesSetting"`
	RepliesOverride       bool `json:"repliesOverride"`
	QuotedRepliesSetting  int  `json:"quotedRepliesSetting"`
	QuotedRepliesOverride bool `json:"quotedRepliesOverride"`
	ReactionsSetting      int  `json:"reactionsSetting"`
	ReactionsOverride     bool `json:"reactionsOverride"`
	MessageEditedSetting  int  `json:"messageEditedSetting"`
	MessageDeletedSetting int  `json:"messageDeletedSetting"`
}

// NotificationMuteSettings are do-not-disturb (1 off, 2 on), the schedule, and whether users
// may change them or mute conversations.
type NotificationMuteSettings struct {
	DNDPreferenceSetting       int                    `json:"dndPreferenceSetting"`
	DNDPreferenceOverride      bool                   `json:"dndPreferenceOverride"`
	SchedulePreferenceSetting  map[string]DaySchedule `json:"schedulePreferenceSetting"`
	SchedulePreferenceOverride bool                   `json:"schedulePreferenceOverride"`
	MutedGroupsOverride        bool                   `json:"mutedGroupsOverride"`
	MutedOneOnOnesOverride     bool                   `json:"mutedOneOnOnesOverride"`
}

// DaySchedule is one day of a schedule, by its name (monday, …): notifications from From
// to To (HHMM), none on a DND day.
type DaySchedule struct {
	From int  `json:"from"`
	To   int  `json:"to"`
	DND  bool `json:"dnd"`
}

// NotificationDigestSettings are an email or SMS digest's rules.
type NotificationDigestSettings struct {
	NotifyForUnreadOnly      bool `json:"notifyForUnreadOnly"`
	IntervalInSeconds        int  `json:"intervalInSeconds"`
	MaxPerDay                int  `json:"maxPerDay"`
	MaxPerDayPerConversation int  `json:"maxPerDayPerConversation"`
}

const (
	notificationSettingsPath = "/notifications/v1/settings"
	contactDetailsPath       = "/notifications/v1/contact-details"
	timezonePath             = "/notifications/v1/preferences/timezone"
	preferencesPath          = "/notifications/v1/preferences"
	pushPreferencesPath      = "/notifications/push/v1/preferences" // the client SDK's
)

// GetNotificationSettings reads the app's notification settings.
func (c *Client) GetNotificationSettings(ctx context.Context) (*NotificationSettings, error) {
	var out NotificationSettings
	if _, err := c.call(ctx, http.MethodGet, notificationSettingsPath, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateNotificationSettings changes what patch names, at any depth, and leaves the rest:
// patch is any value that encodes as part of the settings document, such as
// map[string]any{"sound": map[string]any{"chat": "ping.caf"}}.
func (c *Client) UpdateNotificationSettings(ctx context.Context, patch any) (*Ack, error) {
	return c.ack(ctx, http.MethodPatch, notificationSettingsPath, patch)
}

// ResetNotificationSettings puts the app's settings back to the defaults.
func (c *Client) ResetNotificationSettings(ctx context.Context) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, notificationSettingsPath, nil)
}

// ackQuery is ack with query parameters.
func (c *Client) ackQuery(ctx context.Context, method, path string, q url.Values, body any) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, method, path, q, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// uidQuery names the user of a per-user notification call; none for a client with an auth
// token, which acts as its own user.
func uidQuery(uid string) url.Values {
	if uid == "" {
		return nil
	}
	return url.Values{"uid": {uid}}
}

// NotificationPreferences are a user's effective preferences: its choices where the app lets
// users override, else the app's. Preferences holds the same in the shape of the app's
// settings, each Override saying whether the user may change it.
type NotificationPreferences struct {
	GroupPreferences    GroupPreferences    `json:"groupPreferences"`
	OneOnOnePreferences OneOnOnePreferences `json:"oneOnOnePreferences"`
	MutePreferences     MutePreferences     `json:"mutePreferences"`
	UsePrivacyTemplate  bool                `json:"usePrivacyTemplate"`
	Preferences         struct {
		Group    NotificationGroupSettings    `json:"group"`
		OneOnOne NotificationOneOnOneSettings `json:"oneOnOne"`
		Mute     NotificationMuteSettings     `json:"mute"`
	} `json:"preferences"`
	// Sound and Templates are the app's (a user has none of its own), as in
	// NotificationSettings.
	Sound struct {
		Chat string `json:"chat"`
		Call string `json:"call"`
	} `json:"sound"`
	Templates map[string]json.RawMessage `json:"templates"`
}

// GroupPreferences are a user's group preferences.
type GroupPreferences struct {
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

// OneOnOnePreferences are a user's one-to-one preferences.
type OneOnOnePreferences struct {
	OneOnOneMessages      int `json:"oneOnOneMessages"`
	OneOnOneReplies       int `json:"oneOnOneReplies"`
	OneOnOneQuotedReplies int `json:"oneOnOneQuotedReplies"`
	OneOnOneReactions     int `json:"oneOnOneReactions"`
}

// MutePreferences are a user's do-not-disturb (1 off, 2 on) and schedule by day name.
type MutePreferences struct {
	DND      int                    `json:"dnd"`
	Schedule map[string]DaySchedule `json:"schedule"`
}

// NotificationPreferencesUpdate is the body of UpdateNotificationPreferences; nil is left as
// it is.
type NotificationPreferencesUpdate struct {
	GroupPreferences    *GroupPreferencesUpdate    `json:"groupPreferences,omitempty"`
	OneOnOnePreferences *OneOnOnePreferencesUpdate `json:"oneOnOnePreferences,omitempty"`
	MutePreferences     *MutePreferencesUpdate     `json:"mutePreferences,omitempty"`
	UsePrivacyTemplate  *bool                      `json:"usePrivacyTemplate,omitempty"`
}

// GroupPreferencesUpdate changes a user's group preferences; nil is left as it is.
type GroupPreferencesUpdate struct {
	GroupMessages           *int `json:"groupMessages,omitempty"`
	GroupReplies            *int `json:"groupReplies,omitempty"`
	GroupQuotedReplies      *int `json:"groupQuotedReplies,omitempty"`
	GroupReactions          *int `json:"groupReactions,omitempty"`
	GroupMemberLeft         *int `json:"groupMemberLeft,omitempty"`
	GroupMemberAdded        *int `json:"groupMemberAdded,omitempty"`
	GroupMemberJoined       *int `json:"groupMemberJoined,omitempty"`
	GroupMemberKicked       *int `json:"groupMemberKicked,omitempty"`
	GroupMemberBanned       *int `json:"groupMemberBanned,omitempty"`
	GroupMemberUnbanned     *int `json:"groupMemberUnbanned,omitempty"`
	GroupMemberScopeChanged *int `json:"groupMemberScopeChanged,omitempty"`
}

// OneOnOnePreferencesUpdate changes a user's one-to-one preferences; nil is left as it is.
type OneOnOnePreferencesUpdate struct {
	OneOnOneMessages      *int `json:"oneOnOneMessages,omitempty"`
	OneOnOneReplies       *int `json:"oneOnOneReplies,omitempty"`
	OneOnOneQuotedReplies *int `json:"oneOnOneQuotedReplies,omitempty"`
	OneOnOneReactions     *int `json:"oneOnOneReactions,omitempty"`
}

// MutePreferencesUpdate changes a user's do-not-disturb and the days of its schedule it
// names (monday, …), by the fields given.
type MutePreferencesUpdate struct {
	DND      *int                         `json:"dnd,omitempty"`
	Schedule map[string]DayScheduleUpdate `json:"schedule,omitempty"`
}

// DayScheduleUpdate changes one day of a user's schedule; nil is left as it is.
type DayScheduleUpdate struct {
	From *int  `json:"from,omitempty"`
	To   *int  `json:"to,omitempty"`
	DND  *bool `json:"dnd,omitempty"`
}

func (c *Client) preferences(ctx context.Context, method, path, uid string, body any) (*NotificationPreferences, error) {
	var out NotificationPreferences
	if _, err := c.call(ctx, method, path, uidQuery(uid), body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetNotificationPreferences reads the user uid's effective preferences ("" with an auth
// token: its own).
func (c *Client) GetNotificationPreferences(ctx context.Context, uid string) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodGet, preferencesPath, uid, nil)
}

// UpdateNotificationPreferences makes the user's choices in u; one the app does not let
// users override is ignored.
func (c *Client) UpdateNotificationPreferences(ctx context.Context, uid string, u NotificationPreferencesUpdate) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodPatch, preferencesPath, uid, u)
}

// ResetNotificationPreferences forgets the user's choices.
func (c *Client) ResetNotificationPreferences(ctx context.Context, uid string) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodDelete, preferencesPath, uid, nil)
}

// FetchPushPreferences is GetNotificationPreferences at the client SDK's path.
func (c *Client) FetchPushPreferences(ctx context.Context, uid string) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodGet, pushPreferencesPath, uid, nil)
}

// UpdatePushPreferences is UpdateNotificationPreferences at the client SDK's path.
func (c *Client) UpdatePushPreferences(ctx context.Context, uid string, u NotificationPreferencesUpdate) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodPatch, pushPreferencesPath, uid, u)
}

// ResetPushPreferences is ResetNotificationPreferences at the client SDK's path.
func (c *Client) ResetPushPreferences(ctx context.Context, uid string) (*NotificationPreferences, error) {
	return c.preferences(ctx, http.MethodDelete, pushPreferencesPath, uid, nil)
}

// Kinds of muted conversation.
const (
	MuteOneOnOne = "oneOnOne"
	MuteGroup    = "group"
)

// MutedConversation is a conversation muted until Until (UNIX milliseconds): with the user
// ID (MuteOneOnOne) or the group ID (MuteGroup). Unmuting leaves Until zero.
type MutedConversation struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Until int64  `json:"until,omitempty"`
}

func (c *Client) mutes(ctx context.Context, base, uid string) ([]MutedConversation, error) {
	var out struct {
		MutedConversations []MutedConversation `json:"mutedConversations"`
	}
	if _, err := c.call(ctx, http.MethodGet, base+"/mute", uidQuery(uid), nil, &out); err != nil {
		return nil, err
	}
	return out.MutedConversations, nil
}

func (c *Client) changeMutes(ctx context.Context, method, base, uid string, convs []MutedConversation) (*Ack, error) {
	return c.ackQuery(ctx, method, base+"/mute", uidQuery(uid), map[string][]MutedConversation{"conversations": convs})
}

// GetMutedConversations lists the conversations the user muted whose mute has not ended.
func (c *Client) GetMutedConversations(ctx context.Context, uid string) ([]MutedConversation, error) {
	return c.mutes(ctx, preferencesPath, uid)
}

// MuteConversations mutes each conversation until its Until.
func (c *Client) MuteConversations(ctx context.Context, uid string, convs []MutedConversation) (*Ack, error) {
	return c.changeMutes(ctx, http.MethodPut, preferencesPath, uid, convs)
}

// UnmuteConversations lifts the user's mutes of convs.
func (c *Client) UnmuteConversations(ctx context.Context, uid string, convs []MutedConversation) (*Ack, error) {
	return c.changeMutes(ctx, http.MethodDelete, preferencesPath, uid, convs)
}

// GetPushMutedConversations is GetMutedConversations at the client SDK's path.
func (c *Client) GetPushMutedConversations(ctx context.Context, uid string) ([]MutedConversation, error) {
	return c.mutes(ctx, pushPreferencesPath, uid)
}

// MutePushConversations is MuteConversations at the client SDK's path.
func (c *Client) MutePushConversations(ctx context.Context, uid string, convs []MutedConversation) (*Ack, error) {
	return c.changeMutes(ctx, http.MethodPut, pushPreferencesPath, uid, convs)
}

// UnmutePushConversations is UnmuteConversations at the client SDK's path.
func (c *Client) UnmutePushConversations(ctx context.Context, uid string, convs []MutedConversation) (*Ack, error) {
	return c.changeMutes(ctx, http.MethodDelete, pushPreferencesPath, uid, convs)
}

func (c *Client) timezone(ctx context.Context, method, uid string, body any) (string, error) {
	var out struct {
		Timezone string `json:"timezone"`
	}
	if _, err := c.call(ctx, method, timezonePath, uidQuery(uid), body, &out); err != nil {
		return "", err
	}
	return out.Timezone, nil
}

// GetNotificationTimezone reads the user's time zone (UTC when it set none).
func (c *Client) GetNotificationTimezone(ctx context.Context, uid string) (string, error) {
	return c.timezone(ctx, http.MethodGet, uid, nil)
}

// SetNotificationTimezone sets the user's time zone, an IANA name such as Asia/Tokyo.
func (c *Client) SetNotificationTimezone(ctx context.Context, uid, tz string) (string, error) {
	return c.timezone(ctx, http.MethodPatch, uid, map[string]string{"timezone": tz})
}

// ContactDetails are where a user's email and SMS notifications go.
type ContactDetails struct {
	Email string `json:"email,omitempty"`
	Phno  string `json:"phno,omitempty"`
}

// ContactDetailsUpdate is the body of UpdateContactDetails: nil is left as it is, "" removes.
type ContactDetailsUpdate struct {
	Email *string `json:"email,omitempty"`
	Phno  *string `json:"phno,omitempty"`
}

func (c *Client) contactDetails(ctx context.Context, method string, body any) (*ContactDetails, error) {
	var out ContactDetails
	if _, err := c.call(ctx, method, contactDetailsPath, nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetContactDetails reads the contact details of the onBehalfOf user (OnBehalfOf), or of
// the auth token's user.
func (c *Client) GetContactDetails(ctx context.Context) (*ContactDetails, error) {
	return c.contactDetails(ctx, http.MethodGet, nil)
}

// UpdateContactDetails changes the acting user's contact details.
func (c *Client) UpdateContactDetails(ctx context.Context, u ContactDetailsUpdate) (*ContactDetails, error) {
	return c.contactDetails(ctx, http.MethodPatch, u)
}

// DeleteContactDetails removes the acting user's contact details.
func (c *Client) DeleteContactDetails(ctx context.Context) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, contactDetailsPath, nil)
}
