package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// An app's notification settings (GET/PATCH/DELETE /notifications/v1/settings): which events
// notify by default and which of those defaults its users may override, the DND schedule,
// the email and SMS digests, what a push payload carries, the sounds and the templates.
// The types' JSON is the hosted API's settings document, and natter stores that document as
// it is (docs/notifications.md): an app that never saved any has DefaultNotificationSettings.

// Values of a preference setting.
const (
	NotifyOff = 1 // don't notify
	NotifyOn  = 2 // notify: every message (or reply); for reactions, those on the user's own messages
	// NotifyMentions is 3 for messages and replies: only those that mention the user. For
	// reactions 3 means those on every message (NotifyReactionsOnAll).
	NotifyMentions       = 3
	NotifyReactionsOnAll = 3
)

// Values of the DND preference and of templates.usePrivacyTemplate.
const (
	DNDOff = 1
	DNDOn  = 2

	TemplatesDefault    = 1 // default templates for everyone
	TemplatesPrivacy    = 2 // privacy templates for everyone
	TemplatesUserChosen = 3 // default templates, unless the user chose privacy (usePrivacyTemplate)
)

// Limits of notification settings (natter's own; the hosted service documents none).
const (
	MaxTemplateLen       = 1000 // characters of one template
	MaxSoundLen          = 100  // characters of a sound's name
	MaxCustomJSONBytes   = 2048 // push.customJson compacted: a push payload must stay under ~4 KB
	MinDigestInterval    = 60
	MaxDigestInterval    = 7 * 24 * 3600
	MaxDigestPerDay      = 1000
	MaxScheduleClockTime = 2359
)

// NotificationSettings is an app's settings document.
type NotificationSettings struct {
	Preferences NotificationPreferences `json:"preferences"`
	Sound       NotificationSound       `json:"sound"`
	Templates   NotificationTemplates   `json:"templates"`
}

// NotificationPreferences are the app's preferences. A Setting is the app's value; its
// Override says whether a user may replace it with its own.
type NotificationPreferences struct {
	Group                        GroupNotificationSettings    `json:"group"`
	BypassPreferencesForMentions bool                         `json:"bypassPreferencesForMentions"`
	Call                         CallNotificationSettings     `json:"call"`
	OneOnOne                     OneOnOneNotificationSettings `json:"oneOnOne"`
	Mute                         MuteSettings                 `json:"mute"`
	Email                        DigestSettings               `json:"email"`
	SMS                          DigestSettings               `json:"sms"`
	Push                         PushPayloadSettings          `json:"push"`
}

// GroupNotificationSettings are the app's preferences for group conversations.
type GroupNotificationSettings struct {
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

// OneOnOneNotificationSettings are the app's preferences for one-to-one conversations.
type OneOnOneNotificationSettings struct {
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

// CallNotificationSettings are the app's preferences for call events (1 or 2 each).
type CallNotificationSettings struct {
	InitiatedSetting   int  `json:"initiatedSetting"`
	InitiatedOverride  bool `json:"initiatedOverride"`
	OngoingSetting     int  `json:"ongoingSetting"`
	OngoingOverride    bool `json:"ongoingOverride"`
	CancelledSetting   int  `json:"cancelledSetting"`
	CancelledOverride  bool `json:"cancelledOverride"`
	RejectedSetting    int  `json:"rejectedSetting"`
	RejectedOverride   bool `json:"rejectedOverride"`
	UnansweredSetting  int  `json:"unansweredSetting"`
	UnansweredOverride bool `json:"unansweredOverride"`
	BusySetting        int  `json:"busySetting"`
	BusyOverride       bool `json:"busyOverride"`
	EndedSetting       int  `json:"endedSetting"`
	EndedOverride      bool `json:"endedOverride"`
}

// MuteSettings are the app's DND and schedule, and whether users may change them or mute
// conversations of each kind.
type MuteSettings struct {
	DNDPreferenceSetting       int          `json:"dndPreferenceSetting"`
	DNDPreferenceOverride      bool         `json:"dndPreferenceOverride"`
	SchedulePreferenceSetting  WeekSchedule `json:"schedulePreferenceSetting"`
	SchedulePreferenceOverride bool         `json:"schedulePreferenceOverride"`
	MutedGroupsOverride        bool         `json:"mutedGroupsOverride"`
	MutedOneOnOnesOverride     bool         `json:"mutedOneOnOnesOverride"`
}

// WeekSchedule is when, each day, notifications may be sent, in the user's time zone.
type WeekSchedule struct {
	Monday    DaySchedule `json:"monday"`
	Tuesday   DaySchedule `json:"tuesday"`
	Wednesday DaySchedule `json:"wednesday"`
	Thursday  DaySchedule `json:"thursday"`
	Friday    DaySchedule `json:"friday"`
	Saturday  DaySchedule `json:"saturday"`
	Sunday    DaySchedule `json:"sunday"`
}

// DaySchedule is one day of a schedule: notifications may be sent from From to To, clock
// times as HHMM (0 to 2359; from later than to wraps past midnight), and not at all when
// DND is set.
type DaySchedule struct {
	From int  `json:"from"`
	To   int  `json:"to"`
	DND  bool `json:"dnd"`
}

// Day is the schedule of one day of the week.
func (w WeekSchedule) Day(d time.Weekday) DaySchedule { return *w.day(d) }

func (w *WeekSchedule) day(d time.Weekday) *DaySchedule {
	return [...]*DaySchedule{&w.Sunday, &w.Monday, &w.Tuesday, &w.Wednesday, &w.Thursday, &w.Friday, &w.Saturday}[d%7]
}

// weekdays are the days in the schedule's JSON order, with their names.
var weekdays = []struct {
	day  time.Weekday
	name string
}{{time.Monday, "monday"}, {time.Tuesday, "tuesday"}, {time.Wednesday, "wednesday"}, {time.Thursday, "thursday"},
	{time.Friday, "friday"}, {time.Saturday, "saturday"}, {time.Sunday, "sunday"}}

// DigestSettings are the email or SMS digest's rules.
type DigestSettings struct {
	NotifyForUnreadOnly      bool `json:"notifyForUnreadOnly"`
	IntervalInSeconds        int  `json:"intervalInSeconds"`
	MaxPerDay                int  `json:"maxPerDay"`
	MaxPerDayPerConversation int  `json:"maxPerDayPerConversation"`
}

// PushPayloadSettings say what a push payload carries. CustomJSON is a compact JSON object.
type PushPayloadSettings struct {
	IncludeMessageObjectSetting    bool            `json:"includeMessageObjectSetting"`
	IncludeSenderMetadataSetting   bool            `json:"includeSenderMetadataSetting"`
	IncludeReceiverMetadataSetting bool            `json:"includeReceiverMetadataSetting"`
	TrimTextFieldSetting           bool            `json:"trimTextFieldSetting"`
	IncludeMessageMetadataSetting  bool            `json:"includeMessageMetadataSetting"`
	CustomJSON                     json.RawMessage `json:"customJson"`
}

// NotificationSound names the sounds of chat and call notifications.
type NotificationSound struct {
	Chat string `json:"chat"`
	Call string `json:"call"`
}

// NotificationTemplates are the texts of notifications, with {{…}} placeholders. Which set
// applies is UsePrivacyTemplate's choice (TemplatesDefault, …).
type NotificationTemplates struct {
	UsePrivacyTemplate             int                  `json:"usePrivacyTemplate"`
	TextMessageTemplateDefault     TextTemplate         `json:"textMessageTemplateDefault"`
	TextMessageTemplatePrivacy     TextTemplate         `json:"textMessageTemplatePrivacy"`
	MediaMessageTemplateDefault    MediaTemplate        `json:"mediaMessageTemplateDefault"`
	MediaMessageTemplatePrivacy    MediaTemplate        `json:"mediaMessageTemplatePrivacy"`
	PollMessageTemplateDefault     FallbackTemplate     `json:"pollMessageTemplateDefault"`
	PollMessageTemplatePrivacy     FallbackTemplate     `json:"pollMessageTemplatePrivacy"`
	ReminderMessageTemplateDefault FallbackTemplate     `json:"reminderMessageTemplateDefault"`
	ReminderMessageTemplatePrivacy FallbackTemplate     `json:"reminderMessageTemplatePrivacy"`
	CustomMessageTemplateDefault   FallbackTemplate     `json:"customMessageTemplateDefault"`
	CustomMessageTemplatePrivacy   FallbackTemplate     `json:"customMessageTemplatePrivacy"`
	EmailSubjectTemplateDefault    EmailSubjectTemplate `json:"emailSubjectTemplateDefault"`
	EmailSubjectTemplatePrivacy    EmailSubjectTemplate `json:"emailSubjectTemplatePrivacy"`
	SMSContentTemplateDefault      SMSContentTemplate   `json:"smsContentTemplateDefault"`
	SMSContentTemplatePrivacy      SMSContentTemplate   `json:"smsContentTemplatePrivacy"`
	UserMentionTemplateDefault     UserMentionTemplate  `json:"userMentionTemplateDefault"`
	UserMentionTemplatePrivacy     UserMentionTemplate  `json:"userMentionTemplatePrivacy"`
	GroupMentionTemplateDefault    GroupMentionTemplate `json:"groupMentionTemplateDefault"`
	GroupMentionTemplatePrivacy    GroupMentionTemplate `json:"groupMentionTemplatePrivacy"`
	// The interactive messages' templates, one pair per type (form, card, scheduler; Custom
	// for customInteractive), as the hosted settings name them since 70e0661.
	InteractiveFormTemplateDefault      TextTemplate `json:"interactiveFormTemplateDefault"`
	InteractiveFormTemplatePrivacy      TextTemplate `json:"interactiveFormTemplatePrivacy"`
	InteractiveCardTemplateDefault      TextTemplate `json:"interactiveCardTemplateDefault"`
	InteractiveCardTemplatePrivacy      TextTemplate `json:"interactiveCardTemplatePrivacy"`
	InteractiveSchedulerTemplateDefault TextTemplate `json:"interactiveSchedulerTemplateDefault"`
	InteractiveSchedulerTemplatePrivacy TextTemplate `json:"interactiveSchedulerTemplatePrivacy"`
	InteractiveCustomTemplateDefault    TextTemplate `json:"interactiveCustomTemplateDefault"`
	InteractiveCustomTemplatePrivacy    TextTemplate `json:"interactiveCustomTemplatePrivacy"`
}

// TextTemplate is a text message's notification.
type TextTemplate struct {
	TitleOneOnOne string `json:"titleOneOnOne"`
	TitleGroup    string `json:"titleGroup"`
	Body          string `json:"body"`
}

// MediaTemplate is a media message's notification, a body per type.
type MediaTemplate struct {
	TitleOneOnOne string `json:"titleOneOnOne"`
	TitleGroup    string `json:"titleGroup"`
	BodyImage     string `json:"body_image"`
	BodyAudio     string `json:"body_audio"`
	BodyVideo     string `json:"body_video"`
	BodyFile      string `json:"body_file"`
}

// FallbackTemplate is a poll's, reminder's or custom message's notification; BodyFallback
// when Body renders empty.
type FallbackTemplate struct {
	TitleOneOnOne string `json:"titleOneOnOne"`
	TitleGroup    string `json:"titleGroup"`
	Body          string `json:"body"`
	BodyFallback  string `json:"body_fallback"`
}

// EmailSubjectTemplate is an email digest's subject.
type EmailSubjectTemplate struct {
	SubjectGroup    string `json:"subjectGroup"`
	SubjectOneOnOne string `json:"subjectOneOnOne"`
}

// SMSContentTemplate is an SMS digest's text.
type SMSContentTemplate struct {
	BodyGroup    string `json:"bodyGroup"`
	BodyOneOnOne string `json:"bodyOneOnOne"`
}

// UserMentionTemplate is the notification of a message that mentions the user.
type UserMentionTemplate struct {
	TitleOneOnOne string `json:"titleOneOnOne"`
	TitleGroup    string `json:"titleGroup"`
	BodyOneOnOne  string `json:"bodyOneOnOne"`
	BodyGroup     string `json:"bodyGroup"`
	BodyFallback  string `json:"body_fallback"`
}

// GroupMentionTemplate is the notification of a message that mentions everyone (@all).
type GroupMentionTemplate struct {
	TitleGroup   string `json:"titleGroup"`
	Body         string `json:"body"`
	BodyFallback string `json:"body_fallback"`
}

// Placeholders of the default templates.
const (
	tplSender   = "{{message.data.entities.sender.entity.name}}"
	tplReceiver = "{{message.data.entities.receiver.entity.name}}"
	tplText     = "{{message.data.text}}"
)

// DefaultNotificationSettings are the settings of an app that has saved none, and what
// DELETE /notifications/v1/settings restores: the hosted service's documented defaults
// (docs/notifications.md). Every call returns a fresh copy.
func DefaultNotificationSettings() NotificationSettings {
	allDay := DaySchedule{From: 0, To: MaxScheduleClockTime}
	digest := DigestSettings{NotifyForUnreadOnly: true, IntervalInSeconds: 7200, MaxPerDay: 20, MaxPerDayPerConversation: 2}
	title := func(t *TextTemplate) { t.TitleOneOnOne, t.TitleGroup = tplSender, tplSender+" @ "+tplReceiver }
	text := func(body string) TextTemplate {
		t := TextTemplate{Body: body}
		title(&t)
		return t
	}
	fallback := func(body, fb string) FallbackTemplate {
		return FallbackTemplate{TitleOneOnOne: tplSender, TitleGroup: tplSender + " @ " + tplReceiver, Body: body, BodyFallback: fb}
	}
	return NotificationSettings{
		Preferences: NotificationPreferences{
			Group: GroupNotificationSettings{
				MessagesSetting: NotifyOn, MessagesOverride: true,
				RepliesSetting: NotifyOn, RepliesOverride: true,
				QuotedRepliesSetting: NotifyOn, QuotedRepliesOverride: true,
				ReactionsSetting: NotifyOn, ReactionsOverride: true,
				MemberLeftSetting: NotifyOff, MemberLeftOverride: true,
				MemberAddedSetting: NotifyOff, MemberAddedOverride: true,
				MemberJoinedSetting: NotifyOff, MemberJoinedOverride: true,
				MemberKickedSetting: NotifyOff, MemberKickedOverride: true,
				MemberBannedSetting: NotifyOff, MemberBannedOverride: true,
				MemberUnbannedSetting: NotifyOff, MemberUnbannedOverride: true,
				MemberScopeChangedSetting: NotifyOff, MemberScopeChangedOverride: true,
				MessageEditedSetting: NotifyOn, MessageDeletedSetting: NotifyOn,
			},
			Call: CallNotificationSettings{InitiatedSetting: NotifyOff, OngoingSetting: NotifyOff, CancelledSetting: NotifyOff,
				RejectedSetting: NotifyOff, UnansweredSetting: NotifyOff, BusySetting: NotifyOff, EndedSetting: NotifyOff},
			OneOnOne: OneOnOneNotificationSettings{
				MessagesSetting: NotifyOn, MessagesOverride: true,
				RepliesSetting: NotifyOn, RepliesOverride: true,
				QuotedRepliesSetting: NotifyOn, QuotedRepliesOverride: true,
				ReactionsSetting: NotifyOn, ReactionsOverride: true,
				MessageEditedSetting: NotifyOn, MessageDeletedSetting: NotifyOn,
			},
			Mute: MuteSettings{
				DNDPreferenceSetting: DNDOff, DNDPreferenceOverride: true,
				SchedulePreferenceSetting:  WeekSchedule{allDay, allDay, allDay, allDay, allDay, allDay, allDay},
				SchedulePreferenceOverride: true, MutedGroupsOverride: true, MutedOneOnOnesOverride: true,
			},
			Email: digest,
			SMS:   digest,
			Push: PushPayloadSettings{IncludeSenderMetadataSetting: true, IncludeReceiverMetadataSetting: true,
				IncludeMessageMetadataSetting: true, CustomJSON: json.RawMessage(`{}`)},
		},
		Sound: NotificationSound{Chat: "default", Call: "default"},
		Templates: NotificationTemplates{
			UsePrivacyTemplate:         TemplatesUserChosen,
			TextMessageTemplateDefault: text(tplText),
			TextMessageTemplatePrivacy: text("New message"),
			MediaMessageTemplateDefault: MediaTemplate{TitleOneOnOne: tplSender, TitleGroup: tplSender + " @ " + tplReceiver,
				BodyImage: "📷 Has sent an image", BodyAudio: "🔈 Has sent an audio", BodyVideo: "🎥 Has sent a video", BodyFile: "📄 Has sent a file"},
			MediaMessageTemplatePrivacy: MediaTemplate{TitleOneOnOne: tplSender, TitleGroup: tplSender + " @ " + tplReceiver,
				BodyImage: "New image message", BodyAudio: "New audio message", BodyVideo: "New video message", BodyFile: "New file message"},
			PollMessageTemplateDefault:     fallback(tplText, ""),
			PollMessageTemplatePrivacy:     fallback(tplText, ""),
			ReminderMessageTemplateDefault: fallback(tplText, ""),
			ReminderMessageTemplatePrivacy: fallback(tplText, ""),
			CustomMessageTemplateDefault:   fallback(tplText, "New message"),
			CustomMessageTemplatePrivacy:   fallback("New message", "New message"),
			EmailSubjectTemplateDefault: EmailSubjectTemplate{SubjectGroup: "New messages in {{groupDetails.name}}",
				SubjectOneOnOne: "New messages from {{senderDetails.name}}"},
			EmailSubjectTemplatePrivacy: EmailSubjectTemplate{SubjectGroup: "New messages in {{groupDetails.name}}",
				SubjectOneOnOne: "New messages from {{senderDetails.name}}"},
			SMSContentTemplateDefault: SMSContentTemplate{BodyGroup: "You've received {{messages.length}} message(s) in {{groupDetails.name}}.",
				BodyOneOnOne: "You've received {{messages.length}} message(s) from {{senderDetails.name}}."},
			SMSContentTemplatePrivacy: SMSContentTemplate{BodyGroup: "You've received {{messages.length}} new message(s).",
				BodyOneOnOne: "You've received {{messages.length}} new message(s)."},
			UserMentionTemplateDefault: UserMentionTemplate{TitleOneOnOne: tplSender, TitleGroup: tplSender + " @ " + tplReceiver,
				BodyOneOnOne: tplSender + " mentioned you: " + tplText, BodyGroup: tplSender + " mentioned you in " + tplReceiver + ": " + tplText,
				BodyFallback: "New mention"},
			UserMentionTemplatePrivacy: UserMentionTemplate{TitleOneOnOne: tplSender, TitleGroup: tplSender + " @ " + tplReceiver,
				BodyOneOnOne: tplSender + " mentioned you", BodyGroup: tplSender + " mentioned you in " + tplReceiver, BodyFallback: "New mention"},
			GroupMentionTemplateDefault: GroupMentionTemplate{TitleGroup: tplSender + " @ " + tplReceiver,
				Body: tplSender + " mentioned everyone: " + tplText, BodyFallback: "New mention"},
			GroupMentionTemplatePrivacy: GroupMentionTemplate{TitleGroup: tplSender + " @ " + tplReceiver,
				Body: tplSender + " mentioned everyone", BodyFallback: "New mention"},
			// The hosted file gives the interactive templates' keys but no texts: natter's say
			// what was sent, as the media ones do (an interactive message has no data.text).
			InteractiveFormTemplateDefault:      text("📝 Has sent a form"),
			InteractiveFormTemplatePrivacy:      text("New form"),
			InteractiveCardTemplateDefault:      text("🃏 Has sent a card"),
			InteractiveCardTemplatePrivacy:      text("New card"),
			InteractiveSchedulerTemplateDefault: text("📅 Has sent a scheduler"),
			InteractiveSchedulerTemplatePrivacy: text("New scheduler"),
			InteractiveCustomTemplateDefault:    text("Has sent an interactive message"),
			InteractiveCustomTemplatePrivacy:    text("New message"),
		},
	}
}

// setting checks one preference value: 1 to max.
func (f fieldErrors) setting(field string, v, max int) {
	if v < 1 || v > max {
		f.add(field, "The "+field+" must be an integer from 1 to "+strconv.Itoa(max)+".")
	}
}

// clockTime checks a schedule's HHMM time.
func (f fieldErrors) clockTime(field string, v int) {
	if v < 0 || v > MaxScheduleClockTime || v%100 > 59 {
		f.add(field, "The "+field+" must be a time of day as HHMM, from 0 to 2359.")
	}
}

func (f fieldErrors) schedule(field string, w WeekSchedule) {
	for _, d := range weekdays {
		day := w.Day(d.day)
		f.clockTime(field+"."+d.name+".from", day.From)
		f.clockTime(field+"."+d.name+".to", day.To)
	}
}

func (f fieldErrors) intRange(field string, v, min, max int) {
	if v < min || v > max {
		f.add(field, "The "+field+" must be an integer from "+strconv.Itoa(min)+" to "+strconv.Itoa(max)+".")
	}
}

// Validate checks every value of the settings and normalises what it keeps (push.customJson
// compacted, null as {}); the fields of its errors are the document's paths.
func (s *NotificationSettings) Validate() error {
	fe := fieldErrors{}
	p := &s.Preferences
	g, o, c, m := p.Group, p.OneOnOne, p.Call, p.Mute
	for _, e := range []struct {
		field string
		v     int
		max   int
	}{
		{"group.messagesSetting", g.MessagesSetting, 3}, {"group.repliesSetting", g.RepliesSetting, 4},
		{"group.quotedRepliesSetting", g.QuotedRepliesSetting, 3}, {"group.reactionsSetting", g.ReactionsSetting, 3},
		{"group.memberLeftSetting", g.MemberLeftSetting, 2}, {"group.memberAddedSetting", g.MemberAddedSetting, 2},
		{"group.memberJoinedSetting", g.MemberJoinedSetting, 2}, {"group.memberKickedSetting", g.MemberKickedSetting, 2},
		{"group.memberBannedSetting", g.MemberBannedSetting, 2}, {"group.memberUnbannedSetting", g.MemberUnbannedSetting, 2},
		{"group.memberScopeChangedSetting", g.MemberScopeChangedSetting, 2},
		{"group.messageEditedSetting", g.MessageEditedSetting, 2}, {"group.messageDeletedSetting", g.MessageDeletedSetting, 2},
		{"oneOnOne.messagesSetting", o.MessagesSetting, 3}, {"oneOnOne.repliesSetting", o.RepliesSetting, 4},
		{"oneOnOne.quotedRepliesSetting", o.QuotedRepliesSetting, 3}, {"oneOnOne.reactionsSetting", o.ReactionsSetting, 3},
		{"oneOnOne.messageEditedSetting", o.MessageEditedSetting, 2}, {"oneOnOne.messageDeletedSetting", o.MessageDeletedSetting, 2},
		{"call.initiatedSetting", c.InitiatedSetting, 2}, {"call.ongoingSetting", c.OngoingSetting, 2},
		{"call.cancelledSetting", c.CancelledSetting, 2}, {"call.rejectedSetting", c.RejectedSetting, 2},
		{"call.unansweredSetting", c.UnansweredSetting, 2}, {"call.busySetting", c.BusySetting, 2},
		{"call.endedSetting", c.EndedSetting, 2},
		{"mute.dndPreferenceSetting", m.DNDPreferenceSetting, 2},
	} {
		fe.setting("preferences."+e.field, e.v, e.max)
	}
	fe.schedule("preferences.mute.schedulePreferenceSetting", m.SchedulePreferenceSetting)
	for name, d := range map[string]DigestSettings{"email": p.Email, "sms": p.SMS} {
		fe.intRange("preferences."+name+".intervalInSeconds", d.IntervalInSeconds, MinDigestInterval, MaxDigestInterval)
		fe.intRange("preferences."+name+".maxPerDay", d.MaxPerDay, 0, MaxDigestPerDay)
		fe.intRange("preferences."+name+".maxPerDayPerConversation", d.MaxPerDayPerConversation, 0, MaxDigestPerDay)
	}
	p.Push.CustomJSON = fe.customJSON("preferences.push.customJson", p.Push.CustomJSON)
	fe.text("sound.chat", s.Sound.Chat, MaxSoundLen, true)
	fe.text("sound.call", s.Sound.Call, MaxSoundLen, true)
	fe.setting("templates.usePrivacyTemplate", s.Templates.UsePrivacyTemplate, 3)
	templateTexts(reflect.ValueOf(s.Templates), "templates", func(field, v string) { fe.text(field, v, MaxTemplateLen, false) })
	return fe.err()
}

// templateTexts calls fn with every string of v, a templates struct, and its path.
func templateTexts(v reflect.Value, path string, fn func(field, v string)) {
	switch v.Kind() {
	case reflect.String:
		fn(path, v.String())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			templateTexts(v.Field(i), path+"."+name, fn)
		}
	}
}

// customJSON checks push.customJson, a JSON object within MaxCustomJSONBytes, and returns it
// compacted; null or nothing is {}.
func (f fieldErrors) customJSON(field string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`)
	}
	return f.jsonObject(field, raw, MaxCustomJSONBytes)
}

// NotificationSettings reads the app's settings.
func (s Notifications) NotificationSettings(ctx context.Context, p Principal) (NotificationSettings, error) {
	ns, err := s.store.NotificationSettings(ctx, p.App.ID)
	if err != nil {
		return NotificationSettings{}, internal("read notification settings", err)
	}
	return ns, nil
}

// UpdateNotificationSettings changes the app's settings: apply changes a copy of the
// current ones (the HTTP layer decodes the PATCH body onto it, so that what the body leaves
// out stays), the result is checked whole, and written in one transaction.
func (s Notifications) UpdateNotificationSettings(ctx context.Context, p Principal, apply func(*NotificationSettings) error) (NotificationSettings, error) {
	var out NotificationSettings
	err := s.transactSettings(ctx, p.App.ID, SettingNotification, func(tx Tx) error {
		cur, err := tx.NotificationSettingsForUpdate(p.App.ID)
		if err != nil {
			return err
		}
		cur.Preferences.Push.CustomJSON = bytes.Clone(cur.Preferences.Push.CustomJSON)
		if err := apply(&cur); err != nil {
			return err
		}
		if err := cur.Validate(); err != nil {
			return err
		}
		out = cur
		return tx.SaveNotificationSettings(p.App.ID, cur, s.now())
	})
	if err != nil && ErrorCode(err) == "" {
		return NotificationSettings{}, internal("update notification settings", err)
	}
	return out, err
}

// ResetNotificationSettings puts the app's settings back to the defaults. Users' own
// choices stay, and count again as far as the defaults let them.
func (s Notifications) ResetNotificationSettings(ctx context.Context, p Principal) error {
	err := s.transactSettings(ctx, p.App.ID, SettingNotification, func(tx Tx) error { return tx.DeleteNotificationSettings(p.App.ID) })
	if err != nil {
		return internal("reset notification settings", err)
	}
	return nil
}
