package chat

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // as cmd/natter: the time zones do not depend on the host

	"github.com/google/go-cmp/cmp"
)

func ptrTo[T any](v T) *T { return &v }

// detailKeys are the fields an error's details name, sorted; nil for no error.
func detailKeys(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*Error)
	if !ok || e.Code != CodeBadRequest {
		t.Fatalf("not a validation error: %v", err)
	}
	var keys []string
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestNotificationSettingsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *NotificationSettings)
		want   []string // the fields refused; none: valid
	}{
		{"defaults", func(*NotificationSettings) {}, nil},
		{"messages 3 (mentions)", func(s *NotificationSettings) { s.Preferences.Group.MessagesSetting = 3 }, nil},
		{"messages 4", func(s *NotificationSettings) { s.Preferences.Group.MessagesSetting = 4 },
			[]string{"preferences.group.messagesSetting"}},
		{"messages 0", func(s *NotificationSettings) { s.Preferences.OneOnOne.MessagesSetting = 0 },
			[]string{"preferences.oneOnOne.messagesSetting"}},
		{"member left 3: two values only", func(s *NotificationSettings) { s.Preferences.Group.MemberLeftSetting = 3 },
			[]string{"preferences.group.memberLeftSetting"}},
		{"call 3", func(s *NotificationSettings) { s.Preferences.Call.EndedSetting = 3 }, []string{"preferences.call.endedSetting"}},
		{"dnd 3", func(s *NotificationSettings) { s.Preferences.Mute.DNDPreferenceSetting = 3 }, []string{"preferences.mute.dndPreferenceSetting"}},
		{"schedule 2400", func(s *NotificationSettings) { s.Preferences.Mute.SchedulePreferenceSetting.Friday.To = 2400 },
			[]string{"preferences.mute.schedulePreferenceSetting.friday.to"}},
		{"schedule 1260", func(s *NotificationSettings) { s.Preferences.Mute.SchedulePreferenceSetting.Monday.From = 1260 },
			[]string{"preferences.mute.schedulePreferenceSetting.monday.from"}},
		{"schedule wrapping midnight", func(s *NotificationSettings) {
			s.Preferences.Mute.SchedulePreferenceSetting.Sunday = DaySchedule{From: 2200, To: 700}
		}, nil},
		{"digest interval too short", func(s *NotificationSettings) { s.Preferences.Email.IntervalInSeconds = 5 },
			[]string{"preferences.email.intervalInSeconds"}},
		{"negative digest cap", func(s *NotificationSettings) { s.Preferences.SMS.MaxPerDay = -1 }, []string{"preferences.sms.maxPerDay"}},
		{"customJson an array", func(s *NotificationSettings) { s.Preferences.Push.CustomJSON = json.RawMessage(`[1]`) },
			[]string{"preferences.push.customJson"}},
		{"customJson too big", func(s *NotificationSettings) {
			s.Preferences.Push.CustomJSON = json.RawMessage(`{"a":"` + strings.Repeat("x", MaxCustomJSONBytes) + `"}`)
		}, []string{"preferences.push.customJson"}},
		{"customJson null", func(s *NotificationSettings) { s.Preferences.Push.CustomJSON = json.RawMessage(`null`) }, nil},
		{"no chat sound", func(s *NotificationSettings) { s.Sound.Chat = "" }, []string{"sound.chat"}},
		{"privacy template 4", func(s *NotificationSettings) { s.Templates.UsePrivacyTemplate = 4 }, []string{"templates.usePrivacyTemplate"}},
		{"template too long", func(s *NotificationSettings) {
			s.Templates.MediaMessageTemplatePrivacy.BodyVideo = strings.Repeat("é", MaxTemplateLen+1)
		}, []string{"templates.mediaMessageTemplatePrivacy.body_video"}},
		{"template with NUL", func(s *NotificationSettings) { s.Templates.GroupMentionTemplateDefault.Body = "a\x00b" },
			[]string{"templates.groupMentionTemplateDefault.body"}},
		{"an empty template", func(s *NotificationSettings) { s.Templates.TextMessageTemplateDefault.Body = "" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultNotificationSettings()
			tt.change(&s)
			got := detailKeys(t, s.Validate())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("refused fields (-want +got):\n%s", diff)
			}
		})
	}
	s := DefaultNotificationSettings()
	s.Preferences.Push.CustomJSON = json.RawMessage("{ \"a\" : 1 }")
	if err := s.Validate(); err != nil || string(s.Preferences.Push.CustomJSON) != `{"a":1}` {
		t.Errorf("customJson kept as %s, %v", s.Preferences.Push.CustomJSON, err)
	}
}

func TestEffectiveNotificationPrefs(t *testing.T) {
	locked := DefaultNotificationSettings()
	locked.Preferences.Group.MessagesOverride = false
	locked.Preferences.Group.MessagesSetting = NotifyMentions
	locked.Preferences.Mute.DNDPreferenceOverride = false
	locked.Preferences.Mute.SchedulePreferenceOverride = false
	privacy := DefaultNotificationSettings()
	privacy.Templates.UsePrivacyTemplate = TemplatesPrivacy
	plain := DefaultNotificationSettings()
	plain.Templates.UsePrivacyTemplate = TemplatesDefault
	night := DefaultNotificationSettings().Preferences.Mute.SchedulePreferenceSetting
	night.Monday = DaySchedule{From: 800, To: 2000}
	chose := NotificationOverrides{
		Group:              GroupOverrides{Messages: ptrTo(NotifyOff), MemberLeft: ptrTo(NotifyOn)},
		OneOnOne:           OneOnOneOverrides{Reactions: ptrTo(NotifyReactionsOnAll)},
		DND:                ptrTo(DNDOn),
		Schedule:           &night,
		UsePrivacyTemplate: ptrTo(true),
	}
	tests := []struct {
		name string
		app  NotificationSettings
		o    NotificationOverrides
		want func(p *NotificationPrefs)
	}{
		{"nothing chosen: the app's", DefaultNotificationSettings(), NotificationOverrides{}, func(*NotificationPrefs) {}},
		{"the user's choices where the app allows them", DefaultNotificationSettings(), chose, func(p *NotificationPrefs) {
			p.Group.Messages, p.Group.MemberLeft, p.OneOnOne.Reactions = NotifyOff, NotifyOn, NotifyReactionsOnAll
			p.DND, p.Schedule, p.UsePrivacyTemplate = DNDOn, night, true
		}},
		{"the app's where it does not", locked, chose, func(p *NotificationPrefs) {
			p.Group.Messages = NotifyMentions // the app's, not the user's 1
			p.Group.MemberLeft, p.OneOnOne.Reactions, p.UsePrivacyTemplate = NotifyOn, NotifyReactionsOnAll, true
		}},
		{"privacy templates for everyone", privacy, NotificationOverrides{UsePrivacyTemplate: ptrTo(false)},
			func(p *NotificationPrefs) { p.UsePrivacyTemplate = true }},
		{"default templates for everyone", plain, chose, func(p *NotificationPrefs) {
			p.Group.Messages, p.Group.MemberLeft, p.OneOnOne.Reactions = NotifyOff, NotifyOn, NotifyReactionsOnAll
			p.DND, p.Schedule, p.UsePrivacyTemplate = DNDOn, night, false
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := DefaultNotificationSettings().Preferences
			want := NotificationPrefs{
				Group: GroupPrefs{Messages: 2, Replies: 2, QuotedReplies: 2, Reactions: 2, MemberLeft: 1, MemberAdded: 1, MemberJoined: 1,
					MemberKicked: 1, MemberBanned: 1, MemberUnbanned: 1, MemberScopeChanged: 1, MessageEdited: 2, MessageDeleted: 2},
				OneOnOne: OneOnOnePrefs{Messages: 2, Replies: 2, QuotedReplies: 2, Reactions: 2, MessageEdited: 2, MessageDeleted: 2},
				DND:      DNDOff, Schedule: base.Mute.SchedulePreferenceSetting,
			}
			tt.want(&want)
			if diff := cmp.Diff(want, EffectiveNotificationPrefs(tt.app, tt.o)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyNotificationPrefsChange(t *testing.T) {
	app := DefaultNotificationSettings()
	locked := DefaultNotificationSettings()
	locked.Preferences.Group.RepliesOverride = false
	locked.Preferences.Mute.SchedulePreferenceOverride = false
	locked.Preferences.Mute.DNDPreferenceOverride = false
	locked.Templates.UsePrivacyTemplate = TemplatesDefault
	earlier := NotificationOverrides{Group: GroupOverrides{Replies: ptrTo(NotifyMentions)}}
	tests := []struct {
		name     string
		app      NotificationSettings
		o        NotificationOverrides
		ch       NotificationPrefsChange
		want     NotificationOverrides
		refusals []string
	}{
		{"a choice", app, earlier, NotificationPrefsChange{Group: GroupOverrides{Messages: ptrTo(NotifyMentions)}},
			NotificationOverrides{Group: GroupOverrides{Messages: ptrTo(3), Replies: ptrTo(3)}}, nil},
		{"subscribed threads for replies", app, earlier, NotificationPrefsChange{Group: GroupOverrides{Replies: ptrTo(NotifySubscribedThreads)}},
			NotificationOverrides{Group: GroupOverrides{Replies: ptrTo(4)}}, nil},
		{"replaces the earlier one", app, earlier, NotificationPrefsChange{Group: GroupOverrides{Replies: ptrTo(NotifyOff)}},
			NotificationOverrides{Group: GroupOverrides{Replies: ptrTo(1)}}, nil},
		{"what the app locks is ignored, the earlier choice stays", locked, earlier,
			NotificationPrefsChange{Group: GroupOverrides{Replies: ptrTo(NotifyOff)}, DND: ptrTo(DNDOn), UsePrivacyTemplate: ptrTo(true),
				Schedule: map[time.Weekday]DayChange{time.Monday: {DND: ptrTo(true)}}},
			earlier, nil},
		{"a wrong value is refused, locked or not", locked, earlier,
			NotificationPrefsChange{Group: GroupOverrides{Replies: ptrTo(5), MemberLeft: ptrTo(3)}, OneOnOne: OneOnOneOverrides{Messages: ptrTo(0)},
				DND: ptrTo(0)},
			NotificationOverrides{}, []string{"groupPreferences.groupMemberLeft", "groupPreferences.groupReplies", "mutePreferences.dnd",
				"oneOnOnePreferences.oneOnOneMessages"}},
		{"one day of the schedule: the others are the app's", app, NotificationOverrides{},
			NotificationPrefsChange{Schedule: map[time.Weekday]DayChange{time.Tuesday: {From: ptrTo(900), DND: ptrTo(false)},
				time.Sunday: {DND: ptrTo(true)}}},
			func() NotificationOverrides {
				w := app.Preferences.Mute.SchedulePreferenceSetting
				w.Tuesday.From, w.Sunday.DND = 900, true
				return NotificationOverrides{Schedule: &w}
			}(), nil},
		{"a day's time out of range", app, NotificationOverrides{},
			NotificationPrefsChange{Schedule: map[time.Weekday]DayChange{time.Friday: {To: ptrTo(2400)}}},
			NotificationOverrides{}, []string{"mutePreferences.schedule.friday.to"}},
		{"privacy templates when the app lets the user choose", app, NotificationOverrides{},
			NotificationPrefsChange{UsePrivacyTemplate: ptrTo(true), DND: ptrTo(DNDOn)},
			NotificationOverrides{UsePrivacyTemplate: ptrTo(true), DND: ptrTo(2)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyNotificationPrefsChange(tt.app, tt.o, tt.ch)
			if diff := cmp.Diff(tt.refusals, detailKeys(t, err)); diff != "" {
				t.Fatalf("refusals (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCheckMutes(t *testing.T) {
	const now = int64(1_800_000_000_000)
	mute := func(typ, id string, until int64) MutedConversation {
		return MutedConversation{ConversationRef{typ, id}, until}
	}
	tests := []struct {
		name      string
		in        []MutedConversation
		withUntil bool
		want      []MutedConversation
		refusals  []string
	}{
		{"one of each", []MutedConversation{mute("oneOnOne", "Bob", now+1), mute("group", "team", MaxMuteUntil)}, true,
			[]MutedConversation{mute("oneOnOne", "bob", now+1), mute("group", "team", MaxMuteUntil)}, nil},
		{"a repeat: the last wins", []MutedConversation{mute("group", "team", now+5), mute("group", "TEAM", now+9)}, true,
			[]MutedConversation{mute("group", "team", now+9)}, nil},
		{"the same id as both kinds", []MutedConversation{mute("group", "x", now+5), mute("oneOnOne", "x", now+9)}, true,
			[]MutedConversation{mute("group", "x", now+5), mute("oneOnOne", "x", now+9)}, nil},
		{"none", nil, true, nil, []string{"conversations"}},
		{"too many", make([]MutedConversation, MaxMutesPerCall+1), true, nil, []string{"conversations"}},
		{"unknown type", []MutedConversation{mute("user", "bob", now+1)}, true, nil, []string{"conversations[0].type"}},
		{"no id", []MutedConversation{mute("group", "", now+1)}, true, nil, []string{"conversations[0].id"}},
		{"bad id", []MutedConversation{mute("group", "a/b", now+1)}, true, nil, []string{"conversations[0].id"}},
		{"itself", []MutedConversation{mute("oneOnOne", "ALICE", now+1)}, true, nil, []string{"conversations[0].id"}},
		{"until now", []MutedConversation{mute("group", "g", now)}, true, nil, []string{"conversations[0].until"}},
		{"until missing", []MutedConversation{mute("group", "g", 0)}, true, nil, []string{"conversations[0].until"}},
		{"until past the year 9999", []MutedConversation{mute("group", "g", MaxMuteUntil+1)}, true, nil, []string{"conversations[0].until"}},
		{"unmute needs no until", []MutedConversation{mute("group", "g", 0), mute("oneOnOne", "bob", 7)}, false,
			[]MutedConversation{mute("group", "g", 0), mute("oneOnOne", "bob", 0)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckMutes("alice", tt.in, tt.withUntil, now)
			if diff := cmp.Diff(tt.refusals, detailKeys(t, err)); diff != "" {
				t.Fatalf("refusals (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMutedAt(t *testing.T) {
	app := DefaultNotificationSettings()
	noGroups := DefaultNotificationSettings()
	noGroups.Preferences.Mute.MutedGroupsOverride = false
	r := NotificationRecipient{UID: "alice", MutedUntil: 5000}
	for _, tt := range []struct {
		name string
		app  NotificationSettings
		typ  string
		at   int64
		want bool
	}{
		{"before the end", app, MuteGroup, 4999, true},
		{"at the end: ended", app, MuteGroup, 5000, false},
		{"after", app, MuteOneOnOne, 6000, false},
		{"the app lets no one mute groups", noGroups, MuteGroup, 1, false},
		{"one-to-one still may be", noGroups, MuteOneOnOne, 1, true},
		{"an unknown kind", app, "broadcast", 1, false},
	} {
		if got := r.MutedAt(tt.app, tt.typ, tt.at); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if (NotificationRecipient{}).MutedAt(app, MuteGroup, 0) {
		t.Error("no mute is muted")
	}
}

func TestCheckTimezone(t *testing.T) {
	for tz, ok := range map[string]bool{
		"Asia/Tokyo": true, "UTC": true, "America/Argentina/Buenos_Aires": true, "Etc/GMT+5": true,
		"": false, "Local": false, "Mars/Olympus_Mons": false, "asia/tokyo ": false, "../../etc/passwd": false, "/etc/localtime": false,
		"Asia/Tokyo\x00": false, strings.Repeat("A", MaxTimezoneLen+1): false,
	} {
		if err := CheckTimezone(tz); (err == nil) != ok {
			t.Errorf("%q: %v", tz, err)
		}
	}
	r := NotificationRecipient{Timezone: "Asia/Kolkata"}
	if got := r.Location().String(); got != "Asia/Kolkata" {
		t.Errorf("location %s", got)
	}
	for _, tz := range []string{"", "Gone/Zone"} {
		if got := (NotificationRecipient{Timezone: tz}).Location(); got != time.UTC {
			t.Errorf("%q: %v, want UTC", tz, got)
		}
	}
}

func TestCheckContactChange(t *testing.T) {
	for _, tt := range []struct {
		email, phone *string
		wantPhone    string
		refusals     []string
	}{
		{ptrTo("someone@example.com"), ptrTo("+919591128691"), "+919591128691", nil},
		{nil, ptrTo("+1 (415) 555-0123"), "+14155550123", nil},
		{ptrTo(""), ptrTo(""), "", nil}, // both removed
		{nil, nil, "", []string{"email", "phno"}},
		{ptrTo("not an address"), nil, "", []string{"email"}},
		{ptrTo("Someone <someone@example.com>"), nil, "", []string{"email"}},
		{ptrTo(strings.Repeat("a", 250) + "@example.com"), nil, "", []string{"email"}},
		{nil, ptrTo("9591128691"), "", []string{"phno"}},
		{nil, ptrTo("+0123456789"), "", []string{"phno"}},
		{nil, ptrTo("+12"), "", []string{"phno"}},
		{nil, ptrTo("+1415555012345678"), "", []string{"phno"}},
		{nil, ptrTo("+1415abc0123"), "", []string{"phno"}},
	} {
		got, err := CheckContactChange(ContactChange{Email: tt.email, Phone: tt.phone})
		if diff := cmp.Diff(tt.refusals, detailKeys(t, err)); diff != "" {
			t.Errorf("%v %v: refusals (-want +got):\n%s", tt.email, tt.phone, diff)
			continue
		}
		if err == nil && tt.phone != nil && *got.Phone != tt.wantPhone {
			t.Errorf("phone kept as %q, want %q", *got.Phone, tt.wantPhone)
		}
	}
}
