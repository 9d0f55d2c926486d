package httpapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	_ "time/tzdata" // as cmd/natter: the time zones do not depend on the host

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

// notifBackends is backends with a clock the test moves (mutes end).
func notifBackends(t *testing.T, f func(t *testing.T, e *env, clock *atomic.Int64)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			var clock atomic.Int64
			clock.Store(testClock.UnixMilli())
			e := newEnv(t, b, chat.Config{Now: func() time.Time { return time.UnixMilli(clock.Load()) }})
			f(t, e, &clock)
		})
	}
}

func TestNotificationAppSettings(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		other, _ := e.newApp("other", "eu")
		r := e.okr(request{method: "GET", path: "/v3/notifications/v1/settings"})
		golden(t, "notification_settings_default", r.body)
		def, err := e.c.GetNotificationSettings(e.ctx())
		if err != nil {
			t.Fatal(err)
		}

		// A PATCH changes what it names, at any depth; the rest stays.
		e.okr(request{method: "PATCH", path: "/v3/notifications/v1/settings", body: `{"preferences":{"group":{"messagesSetting":3,"messagesOverride":false},
			"mute":{"schedulePreferenceSetting":{"sunday":{"dnd":true}}},"push":{"customJson":{ "k" : "v" }}},"sound":{"chat":"ping.caf"},
			"templates":{"textMessageTemplatePrivacy":{"body":"Psst"}},"somethingElse":1}`})
		got, err := e.c.GetNotificationSettings(e.ctx())
		if err != nil {
			t.Fatal(err)
		}
		want := *def
		want.Preferences.Group.MessagesSetting, want.Preferences.Group.MessagesOverride = 3, false
		want.Preferences.Mute.SchedulePreferenceSetting["sunday"] = client.DaySchedule{From: 0, To: 2359, DND: true}
		want.Preferences.Push.CustomJSON = map[string]any{"k": "v"}
		want.Sound.Chat = "ping.caf"
		want.Templates["textMessageTemplatePrivacy"] = json.RawMessage(`{"titleOneOnOne":"{{message.data.entities.sender.entity.name}}","titleGroup":"{{message.data.entities.sender.entity.name}} @ {{message.data.entities.receiver.entity.name}}","body":"Psst"}`)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("after PATCH:\n got %s\nwant %s", gotJSON, wantJSON)
		}
		// Another app keeps its defaults.
		if o, err := other.GetNotificationSettings(e.ctx()); err != nil || o.Preferences.Group.MessagesSetting != 2 || o.Sound.Chat != "default" {
			t.Fatalf("another app: %+v %v", o, err)
		}
		// DELETE puts the defaults back.
		if a, err := e.c.ResetNotificationSettings(e.ctx()); err != nil || !a.Success {
			t.Fatalf("reset: %+v %v", a, err)
		}
		r = e.okr(request{method: "GET", path: "/v3.0/notifications/v1/settings"})
		golden(t, "notification_settings_default", r.body)
		if n := e.count(`SELECT COUNT(*) FROM notification_settings`); n != 0 {
			t.Fatalf("%d settings rows after reset", n)
		}
	})
}

func TestNotificationPreferences(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		alice := e.as(e.mustToken("alice"))
		r := e.okr(request{method: "GET", path: "/v3/notifications/v1/preferences?uid=ALICE"})
		golden(t, "notification_preferences_default", r.body)

		// Her choices, by API key and by her token on the SDK's path; she sees them both ways.
		three, off := 3, 1
		p, err := e.c.UpdateNotificationPreferences(e.ctx(), "alice", client.NotificationPreferencesUpdate{
			GroupPreferences: &client.GroupPreferencesUpdate{GroupMessages: &three},
			MutePreferences: &client.MutePreferencesUpdate{DND: ptr(2),
				Schedule: map[string]client.DayScheduleUpdate{"monday": {From: ptr(900), To: ptr(1730)}}},
		})
		if err != nil || p.GroupPreferences.GroupMessages != 3 || p.MutePreferences.DND != 2 ||
			p.MutePreferences.Schedule["monday"] != (client.DaySchedule{From: 900, To: 1730}) ||
			p.MutePreferences.Schedule["tuesday"] != (client.DaySchedule{From: 0, To: 2359}) ||
			p.Preferences.Group.MessagesSetting != 3 || !p.Preferences.Group.MessagesOverride {
			t.Fatalf("update: %+v %v", p, err)
		}
		p, err = alice.UpdatePushPreferences(e.ctx(), "", client.NotificationPreferencesUpdate{
			OneOnOnePreferences: &client.OneOnOnePreferencesUpdate{OneOnOneReactions: &three}, UsePrivacyTemplate: ptr(true)})
		if err != nil || p.OneOnOnePreferences.OneOnOneReactions != 3 || p.GroupPreferences.GroupMessages != 3 || !p.UsePrivacyTemplate {
			t.Fatalf("update with her token: %+v %v", p, err)
		}
		for _, got := range []func() (*client.NotificationPreferences, error){
			func() (*client.NotificationPreferences, error) { return alice.FetchPushPreferences(e.ctx(), "") },
			func() (*client.NotificationPreferences, error) {
				return alice.GetNotificationPreferences(e.ctx(), "alice")
			},
			func() (*client.NotificationPreferences, error) { return e.c.FetchPushPreferences(e.ctx(), "alice") },
		} {
			if g, err := got(); err != nil || g.OneOnOnePreferences.OneOnOneReactions != 3 || g.GroupPreferences.GroupMessages != 3 {
				t.Fatalf("read back: %+v %v", g, err)
			}
		}
		if g, err := e.c.GetNotificationPreferences(e.ctx(), "bob"); err != nil || g.GroupPreferences.GroupMessages != 2 {
			t.Fatalf("bob has the app's: %+v %v", g, err)
		}

		// The app locks group messages: the app's value is in effect and her change is ignored;
		// unlocked again, her earlier choice is back.
		if _, err := e.c.UpdateNotificationSettings(e.ctx(), map[string]any{"preferences": map[string]any{"group": map[string]any{"messagesOverride": false}}}); err != nil {
			t.Fatal(err)
		}
		p, err = alice.UpdateNotificationPreferences(e.ctx(), "", client.NotificationPreferencesUpdate{GroupPreferences: &client.GroupPreferencesUpdate{GroupMessages: &off}})
		if err != nil || p.GroupPreferences.GroupMessages != 2 || p.Preferences.Group.MessagesOverride {
			t.Fatalf("a locked preference: %+v %v", p, err)
		}
		if _, err := e.c.ResetNotificationSettings(e.ctx()); err != nil {
			t.Fatal(err)
		}
		if g, err := alice.FetchPushPreferences(e.ctx(), ""); err != nil || g.GroupPreferences.GroupMessages != 3 {
			t.Fatalf("unlocked: %+v %v", g, err)
		}

		// An empty PATCH changes nothing; DELETE forgets her choices, not her time zone.
		if _, err := alice.SetNotificationTimezone(e.ctx(), "", "Europe/Paris"); err != nil {
			t.Fatal(err)
		}
		before := e.snapshot()
		e.okr(request{method: "PATCH", path: "/v3/notifications/v1/preferences?uid=alice", body: `{}`})
		if e.snapshot() != before {
			t.Fatal("an empty PATCH wrote")
		}
		r = e.okr(request{method: "DELETE", path: "/v3/notifications/push/v1/preferences?uid=alice"})
		golden(t, "notification_preferences_default", r.body)
		if tz, err := alice.GetNotificationTimezone(e.ctx(), ""); err != nil || tz != "Europe/Paris" {
			t.Fatalf("time zone after reset: %q %v", tz, err)
		}

		// A deleted user's notification rows go with it.
		if _, err := alice.UpdateContactDetails(e.ctx(), client.ContactDetailsUpdate{Email: ptr("alice@example.com")}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeleteUser(e.ctx(), "alice", false); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM notification_users`); n != 0 {
			t.Fatalf("%d notification rows outlive their user", n)
		}
	})
}

func TestNotificationMutes(t *testing.T) {
	notifBackends(t, func(t *testing.T, e *env, clock *atomic.Int64) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustGroup("team", "bob")
		alice := e.as(e.mustToken("alice"))
		now := clock.Load()
		if _, err := e.c.MuteConversations(e.ctx(), "alice", []client.MutedConversation{
			{ID: "TEAM", Type: client.MuteGroup, Until: now + 60_000},
			{ID: "bob", Type: client.MuteOneOnOne, Until: now + 1000},
		}); err != nil {
			t.Fatal(err)
		}
		ms, err := alice.GetPushMutedConversations(e.ctx(), "")
		want := []client.MutedConversation{{ID: "team", Type: "group", Until: now + 60_000}, {ID: "bob", Type: "oneOnOne", Until: now + 1000}}
		if err != nil || len(ms) != 2 || ms[0] != want[0] || ms[1] != want[1] {
			t.Fatalf("muted: %+v %v", ms, err)
		}
		// Muting again moves the end; the one with bob ends and is no longer listed.
		if _, err := alice.MutePushConversations(e.ctx(), "", []client.MutedConversation{{ID: "team", Type: "group", Until: now + 120_000}}); err != nil {
			t.Fatal(err)
		}
		clock.Add(1000)
		if ms, err := e.c.GetMutedConversations(e.ctx(), "alice"); err != nil || len(ms) != 1 || ms[0].Until != now+120_000 {
			t.Fatalf("after bob's ended: %+v %v", ms, err)
		}
		// The next change drops the ended mute; unmuting what is not muted is no error.
		if _, err := alice.UnmuteConversations(e.ctx(), "", []client.MutedConversation{{ID: "team", Type: "group"}, {ID: "nobody", Type: "oneOnOne"}}); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM notification_mutes`); n != 0 {
			t.Fatalf("%d mutes left", n)
		}
		// A deleted group takes its mutes along.
		if _, err := e.c.MuteConversations(e.ctx(), "alice", []client.MutedConversation{{ID: "team", Type: "group", Until: now + 120_000}}); err != nil {
			t.Fatal(err)
		}
		e.okr(request{method: "DELETE", path: "/v3/groups/team"})
		if n := e.count(`SELECT COUNT(*) FROM notification_mutes`); n != 0 {
			t.Fatalf("%d mutes of a deleted group", n)
		}
		r := e.okr(request{method: "GET", path: "/v3/notifications/v1/preferences/mute?uid=alice"})
		if strings.TrimSpace(string(r.body)) != `{"data":{"mutedConversations":[]}}` {
			t.Fatalf("none muted: %s", r.body)
		}
	})
}

func TestNotificationTimezoneAndContacts(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		alice := e.as(e.mustToken("alice"))
		r := e.okr(request{method: "GET", path: "/v3/notifications/v1/preferences/timezone?uid=alice"})
		if strings.TrimSpace(string(r.body)) != `{"data":{"success":true,"timezone":"UTC"}}` {
			t.Fatalf("default time zone: %s", r.body)
		}
		if tz, err := e.c.SetNotificationTimezone(e.ctx(), "alice", "America/Argentina/Buenos_Aires"); err != nil || tz != "America/Argentina/Buenos_Aires" {
			t.Fatalf("set: %q %v", tz, err)
		}
		if tz, err := alice.GetNotificationTimezone(e.ctx(), "alice"); err != nil || tz != "America/Argentina/Buenos_Aires" {
			t.Fatalf("get: %q %v", tz, err)
		}

		r = e.okr(request{method: "GET", path: "/v3/notifications/v1/contact-details", headers: map[string]string{"onBehalfOf": "alice"}})
		if strings.TrimSpace(string(r.body)) != `{"data":{}}` {
			t.Fatalf("no contact details: %s", r.body)
		}
		c, err := e.c.OnBehalfOf("alice").UpdateContactDetails(e.ctx(), client.ContactDetailsUpdate{Email: ptr("alice@example.com")})
		if err != nil || *c != (client.ContactDetails{Email: "alice@example.com"}) {
			t.Fatalf("email: %+v %v", c, err)
		}
		c, err = alice.UpdateContactDetails(e.ctx(), client.ContactDetailsUpdate{Phno: ptr("+91 95911-28691")})
		if err != nil || *c != (client.ContactDetails{Email: "alice@example.com", Phno: "+919591128691"}) {
			t.Fatalf("phone: %+v %v", c, err)
		}
		if c, err := e.c.OnBehalfOf("alice").GetContactDetails(e.ctx()); err != nil || c.Phno != "+919591128691" {
			t.Fatalf("get: %+v %v", c, err)
		}
		if c, err := alice.UpdateContactDetails(e.ctx(), client.ContactDetailsUpdate{Email: ptr("")}); err != nil || c.Email != "" || c.Phno == "" {
			t.Fatalf("email removed: %+v %v", c, err)
		}
		if _, err := alice.DeleteContactDetails(e.ctx()); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM notification_users WHERE phno <> '' OR email <> ''`); n != 0 {
			t.Fatal("contact details outlive their deletion")
		}
		if _, err := alice.DeleteContactDetails(e.ctx()); err != nil {
			t.Fatalf("deleting none: %v", err)
		}
	})
}

// TestNotificationRefusals is every way a notification call can be wrong: each answers the
// error envelope with its status, never a 500, and writes nothing.
func TestNotificationRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		other, _ := e.newApp("other", "eu")
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustGroup("team", "bob")
		if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "carol", Name: "Carol"}); err != nil {
			t.Fatal(err)
		}
		if _, err := other.CreateGroup(e.ctx(), client.CreateGroupRequest{GUID: "theirs", Name: "Theirs", Type: "public"}); err != nil {
			t.Fatal(err)
		}
		e.mustUser("gone", "Gone")
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		// Something stored, so that a refused change has something to spoil.
		if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "alice", client.NotificationPreferencesUpdate{UsePrivacyTemplate: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		tok := e.mustToken("alice")
		token := map[string]string{"apikey": "", "authToken": tok}
		obo := map[string]string{"onBehalfOf": "alice"}
		const (
			settings = "/v3/notifications/v1/settings"
			prefs    = "/v3/notifications/v1/preferences?uid=alice"
			mute     = "/v3/notifications/v1/preferences/mute?uid=alice"
			tz       = "/v3/notifications/v1/preferences/timezone?uid=alice"
			contact  = "/v3/notifications/v1/contact-details"
		)
		future := strconv.FormatInt(testClock.UnixMilli()+3_600_000, 10)
		muteBody := func(id, typ, until string) string {
			return `{"conversations":[{"id":"` + id + `","type":"` + typ + `","until":` + until + `}]}`
		}
		huge := `{"sound":{"chat":"` + strings.Repeat("x", 70<<10) + `"}}`
		e.refused(t, []refusal{
			// The app's settings.
			{"settings: a value out of range", request{method: "PATCH", path: settings, body: `{"preferences":{"group":{"messagesSetting":4}}}`}, 400, "ERR_BAD_REQUEST", "preferences.group.messagesSetting"},
			{"settings: member events have two values", request{method: "PATCH", path: settings, body: `{"preferences":{"group":{"memberLeftSetting":3}}}`}, 400, "ERR_BAD_REQUEST", "preferences.group.memberLeftSetting"},
			{"settings: a value as a string", request{method: "PATCH", path: settings, body: `{"preferences":{"oneOnOne":{"messagesSetting":"2"}}}`}, 400, "ERR_BAD_REQUEST", "preferences.oneOnOne.messagesSetting"},
			{"settings: a fraction", request{method: "PATCH", path: settings, body: `{"preferences":{"call":{"endedSetting":1.5}}}`}, 400, "ERR_BAD_REQUEST", "preferences.call.endedSetting"},
			{"settings: a schedule time", request{method: "PATCH", path: settings, body: `{"preferences":{"mute":{"schedulePreferenceSetting":{"friday":{"to":1275}}}}}`}, 400, "ERR_BAD_REQUEST", "preferences.mute.schedulePreferenceSetting.friday.to"},
			{"settings: customJson an array", request{method: "PATCH", path: settings, body: `{"preferences":{"push":{"customJson":[1]}}}`}, 400, "ERR_BAD_REQUEST", "preferences.push.customJson"},
			{"settings: a digest every second", request{method: "PATCH", path: settings, body: `{"preferences":{"email":{"intervalInSeconds":1}}}`}, 400, "ERR_BAD_REQUEST", "preferences.email.intervalInSeconds"},
			{"settings: no sound", request{method: "PATCH", path: settings, body: `{"sound":{"call":""}}`}, 400, "ERR_BAD_REQUEST", "sound.call"},
			{"settings: a template too long", request{method: "PATCH", path: settings, body: `{"templates":{"textMessageTemplateDefault":{"body":"` + strings.Repeat("a", 1001) + `"}}}`}, 400, "ERR_BAD_REQUEST", "templates.textMessageTemplateDefault.body"},
			{"settings: not an object", request{method: "PATCH", path: settings, body: `[1]`}, 400, "ERR_BAD_REQUEST", ""},
			{"settings: malformed", request{method: "PATCH", path: settings, body: `{"sound":`}, 400, "ERR_BAD_REQUEST", ""},
			{"settings: too large", request{method: "PATCH", path: settings, body: huge}, 413, "ERR_BAD_REQUEST", ""},
			{"settings: an authOnly key", request{method: "PATCH", path: settings, headers: map[string]string{"apikey": e.authKey}, body: `{}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"settings: a user's token", request{method: "DELETE", path: settings, headers: token}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"settings: no key", request{method: "GET", path: settings, headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY", ""},
			// A user's preferences.
			{"prefs: no uid", request{method: "GET", path: "/v3/notifications/v1/preferences"}, 400, "ERR_BAD_REQUEST", "uid"},
			{"prefs: unknown uid", request{method: "PATCH", path: "/v3/notifications/v1/preferences?uid=nobody", body: `{"usePrivacyTemplate":false}`}, 404, "ERR_UID_NOT_FOUND", ""},
			{"prefs: another app's user", request{method: "DELETE", path: "/v3/notifications/v1/preferences?uid=carol"}, 404, "ERR_UID_NOT_FOUND", ""},
			{"prefs: a deactivated user", request{method: "GET", path: "/v3/notifications/push/v1/preferences?uid=gone"}, 404, "ERR_UID_NOT_FOUND", ""},
			{"prefs: a malformed uid", request{method: "GET", path: "/v3/notifications/v1/preferences?uid=a%2Fb"}, 404, "ERR_UID_NOT_FOUND", ""},
			{"prefs: a value out of range", request{method: "PATCH", path: prefs, body: `{"groupPreferences":{"groupMessages":4}}`}, 400, "ERR_BAD_REQUEST", "groupPreferences.groupMessages"},
			{"prefs: 0", request{method: "PATCH", path: prefs, body: `{"oneOnOnePreferences":{"oneOnOneReplies":0}}`}, 400, "ERR_BAD_REQUEST", "oneOnOnePreferences.oneOnOneReplies"},
			{"prefs: member events have two values", request{method: "PATCH", path: prefs, body: `{"groupPreferences":{"groupMemberKicked":3}}`}, 400, "ERR_BAD_REQUEST", "groupPreferences.groupMemberKicked"},
			{"prefs: dnd 3", request{method: "PATCH", path: prefs, body: `{"mutePreferences":{"dnd":3}}`}, 400, "ERR_BAD_REQUEST", "mutePreferences.dnd"},
			{"prefs: a day that is not one", request{method: "PATCH", path: prefs, body: `{"mutePreferences":{"schedule":{"someday":{"dnd":true}}}}`}, 400, "ERR_BAD_REQUEST", "mutePreferences.schedule"},
			{"prefs: a time out of range", request{method: "PATCH", path: prefs, body: `{"mutePreferences":{"schedule":{"monday":{"from":-5}}}}`}, 400, "ERR_BAD_REQUEST", "mutePreferences.schedule.monday.from"},
			{"prefs: a string for a number", request{method: "PATCH", path: prefs, body: `{"groupPreferences":{"groupReplies":"all"}}`}, 400, "ERR_BAD_REQUEST", "groupPreferences.groupReplies"},
			{"prefs: one good, one bad: neither", request{method: "PATCH", path: prefs, body: `{"groupPreferences":{"groupReplies":1,"groupReactions":9}}`}, 400, "ERR_BAD_REQUEST", "groupPreferences.groupReactions"},
			{"prefs: another user's with a token", request{method: "GET", path: "/v3/notifications/push/v1/preferences?uid=bob", headers: token}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"prefs: an authOnly key", request{method: "GET", path: prefs, headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"prefs: too large", request{method: "PATCH", path: prefs, body: `{"x":"` + strings.Repeat("x", 70<<10) + `"}`}, 413, "ERR_BAD_REQUEST", ""},
			// Mutes.
			{"mute: no uid", request{method: "PUT", path: "/v3/notifications/v1/preferences/mute", body: muteBody("bob", "oneOnOne", future)}, 400, "ERR_BAD_REQUEST", "uid"},
			{"mute: unknown uid", request{method: "GET", path: "/v3/notifications/v1/preferences/mute?uid=nobody"}, 404, "ERR_UID_NOT_FOUND", ""},
			{"mute: no conversations", request{method: "PUT", path: mute, body: `{"conversations":[]}`}, 400, "ERR_BAD_REQUEST", "conversations"},
			{"mute: no body", request{method: "PUT", path: mute}, 400, "ERR_BAD_REQUEST", "conversations"},
			{"mute: an unknown type", request{method: "PUT", path: mute, body: muteBody("bob", "user", future)}, 400, "ERR_BAD_REQUEST", "conversations[0].type"},
			{"mute: until in the past", request{method: "PUT", path: mute, body: muteBody("bob", "oneOnOne", "1000")}, 400, "ERR_BAD_REQUEST", "conversations[0].until"},
			{"mute: until in seconds, long past", request{method: "PUT", path: mute, body: muteBody("bob", "oneOnOne", strconv.FormatInt(testClock.Unix()+3600, 10))}, 400, "ERR_BAD_REQUEST", "conversations[0].until"},
			{"mute: until missing", request{method: "PUT", path: mute, body: `{"conversations":[{"id":"bob","type":"oneOnOne"}]}`}, 400, "ERR_BAD_REQUEST", "conversations[0].until"},
			{"mute: until not a number", request{method: "PUT", path: mute, body: muteBody("bob", "oneOnOne", `"soon"`)}, 400, "ERR_BAD_REQUEST", "conversations.until"},
			{"mute: until a fraction", request{method: "PUT", path: mute, body: muteBody("bob", "oneOnOne", future+".5")}, 400, "ERR_BAD_REQUEST", "conversations.until"},
			{"mute: until past the year 9999", request{method: "PUT", path: mute, body: muteBody("bob", "oneOnOne", "253402300800000")}, 400, "ERR_BAD_REQUEST", "conversations[0].until"},
			{"mute: herself", request{method: "PUT", path: mute, body: muteBody("alice", "oneOnOne", future)}, 400, "ERR_BAD_REQUEST", "conversations[0].id"},
			{"mute: a malformed id", request{method: "PUT", path: mute, body: muteBody("a b", "group", future)}, 400, "ERR_BAD_REQUEST", "conversations[0].id"},
			{"mute: an unknown user", request{method: "PUT", path: mute, body: muteBody("nobody", "oneOnOne", future)}, 404, "ERR_UID_NOT_FOUND", ""},
			{"mute: an unknown group", request{method: "PUT", path: mute, body: muteBody("nothing", "group", future)}, 404, "ERR_GUID_NOT_FOUND", ""},
			{"mute: another app's user", request{method: "PUT", path: mute, body: muteBody("carol", "oneOnOne", future)}, 404, "ERR_UID_NOT_FOUND", ""},
			{"mute: another app's group", request{method: "PUT", path: mute, body: muteBody("theirs", "group", future)}, 404, "ERR_GUID_NOT_FOUND", ""},
			{"mute: one good, one unknown: neither", request{method: "PUT", path: mute, body: `{"conversations":[{"id":"team","type":"group","until":` + future + `},{"id":"ghost","type":"group","until":` + future + `}]}`}, 404, "ERR_GUID_NOT_FOUND", ""},
			{"mute: too many", request{method: "PUT", path: mute, body: `{"conversations":[` + strings.TrimSuffix(strings.Repeat(`{"id":"team","type":"group","until":`+future+`},`, 101), ",") + `]}`}, 400, "ERR_BAD_REQUEST", "conversations"},
			{"unmute: an unknown type", request{method: "DELETE", path: mute, body: `{"conversations":[{"id":"team","type":"channel"}]}`}, 400, "ERR_BAD_REQUEST", "conversations[0].type"},
			{"mute: another user's with a token", request{method: "PUT", path: "/v3/notifications/push/v1/preferences/mute?uid=bob", headers: token, body: muteBody("team", "group", future)}, 403, "AUTH_ERR_NO_ACCESS", ""},
			// Time zones.
			{"tz: no uid", request{method: "GET", path: "/v3/notifications/v1/preferences/timezone"}, 400, "ERR_BAD_REQUEST", "uid"},
			{"tz: unknown uid", request{method: "PATCH", path: "/v3/notifications/v1/preferences/timezone?uid=nobody", body: `{"timezone":"Asia/Tokyo"}`}, 404, "ERR_UID_NOT_FOUND", ""},
			{"tz: none", request{method: "PATCH", path: tz, body: `{}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: not a zone", request{method: "PATCH", path: tz, body: `{"timezone":"Mars/Olympus_Mons"}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: the server's", request{method: "PATCH", path: tz, body: `{"timezone":"Local"}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: a path", request{method: "PATCH", path: tz, body: `{"timezone":"../../../etc/passwd"}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: an offset", request{method: "PATCH", path: tz, body: `{"timezone":"+05:30"}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: a number", request{method: "PATCH", path: tz, body: `{"timezone":330}`}, 400, "ERR_BAD_REQUEST", "timezone"},
			{"tz: another user's with a token", request{method: "PATCH", path: "/v3/notifications/v1/preferences/timezone?uid=bob", headers: token, body: `{"timezone":"Asia/Tokyo"}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
			// Contact details.
			{"contact: no onBehalfOf", request{method: "GET", path: contact}, 400, "ERR_BAD_REQUEST", "onBehalfOf"},
			{"contact: unknown onBehalfOf", request{method: "PATCH", path: contact, headers: map[string]string{"onBehalfOf": "nobody"}, body: `{"email":"a@example.com"}`}, 404, "ERR_UID_NOT_FOUND", ""},
			{"contact: another app's user", request{method: "DELETE", path: contact, headers: map[string]string{"onBehalfOf": "carol"}}, 404, "ERR_UID_NOT_FOUND", ""},
			{"contact: nothing to change", request{method: "PATCH", path: contact, headers: obo, body: `{}`}, 400, "ERR_BAD_REQUEST", "email"},
			{"contact: not an email", request{method: "PATCH", path: contact, headers: obo, body: `{"email":"alice at example"}`}, 400, "ERR_BAD_REQUEST", "email"},
			{"contact: a display name", request{method: "PATCH", path: contact, headers: obo, body: `{"email":"Alice <alice@example.com>"}`}, 400, "ERR_BAD_REQUEST", "email"},
			{"contact: no country code", request{method: "PATCH", path: contact, headers: obo, body: `{"phno":"9591128691"}`}, 400, "ERR_BAD_REQUEST", "phno"},
			{"contact: letters", request{method: "PATCH", path: contact, headers: obo, body: `{"phno":"+1 415 CALL NOW"}`}, 400, "ERR_BAD_REQUEST", "phno"},
			{"contact: a good email, a bad phone: neither", request{method: "PATCH", path: contact, headers: obo, body: `{"email":"alice@example.com","phno":"12"}`}, 400, "ERR_BAD_REQUEST", "phno"},
			{"contact: a number for a phone", request{method: "PATCH", path: contact, headers: obo, body: `{"phno":919591128691}`}, 400, "ERR_BAD_REQUEST", "phno"},
			{"contact: an authOnly key", request{method: "GET", path: contact, headers: map[string]string{"apikey": e.authKey, "onBehalfOf": "alice"}}, 403, "AUTH_ERR_NO_ACCESS", ""},
			// Methods the paths do not serve; the delivery log's bad filters.
			{"POST on settings", request{method: "POST", path: settings, body: `{}`}, 405, "ERR_METHOD_NOT_ALLOWED", ""},
			{"PUT on preferences", request{method: "PUT", path: prefs, body: `{}`}, 405, "ERR_METHOD_NOT_ALLOWED", ""},
			{"DELETE on the time zone", request{method: "DELETE", path: tz}, 405, "ERR_METHOD_NOT_ALLOWED", ""},
			{"logs: an unknown channel", request{method: "GET", path: "/v3/notifications/v1/logs?channel=fax"}, 400, "ERR_BAD_REQUEST", "channel"},
			{"logs: append without logId", request{method: "GET", path: "/v3/notifications/v1/logs?affix=append"}, 400, "ERR_BAD_REQUEST", "logId"},
			{"logs: a bad limit", request{method: "GET", path: "/v3/notifications/v1/logs?limit=0"}, 400, "ERR_BAD_REQUEST", "limit"},
			{"logs: an authOnly key", request{method: "GET", path: "/v3/notifications/v1/logs", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"POST on logs", request{method: "POST", path: "/v3/notifications/v1/logs", body: `{}`}, 405, "ERR_METHOD_NOT_ALLOWED", ""},
			{"an unknown notification path", request{method: "GET", path: "/v3/notifications/v1/nothing"}, 404, "ERR_API_NOT_FOUND", ""},
		})
	})
}
