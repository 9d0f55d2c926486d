package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadChannels(t *testing.T) {
	custom := func(kind ProviderKind, enabled, stored bool) Provider {
		s, _ := json.Marshal(CustomSettings{WebhookURL: "https://x.example", UseStored: stored})
		return Provider{Kind: kind, Enabled: enabled, Settings: s}
	}
	for _, tc := range []struct {
		name string
		ps   []Provider
		want appChannels
	}{
		{"none", nil, appChannels{}},
		{"FCM default and another, APNs",
			[]Provider{{Kind: ProviderFCM, ID: "f1", Default: true, Enabled: true}, {Kind: ProviderFCM, ID: "f2", Enabled: true}, {Kind: ProviderAPNs, ID: "a1", Default: true, Enabled: true}},
			appChannels{push: true, pushOn: true, pushIDs: map[PushTokenKind]map[string]bool{
				PushFCM: {"f1": true, "f2": true, DefaultProviderID: true}, PushAPNs: {"a1": true, DefaultProviderID: true}, PushVoIP: {"a1": true, DefaultProviderID: true}}}},
		{"custom push, disabled", []Provider{custom(ProviderCustomPush, false, false)}, appChannels{push: true}},
		{"custom push takes every push", []Provider{custom(ProviderCustomPush, true, false)}, appChannels{push: true, pushOn: true, customPush: true}},
		{"Twilio disabled, custom SMS with stored numbers only",
			[]Provider{custom(ProviderCustomSMS, true, true), {Kind: ProviderTwilio, Enabled: false}},
			appChannels{sms: true, smsOn: true, smsProvider: LogProviderCustom, smsStored: true}},
		{"SendGrid enabled wins over custom email, whatever the order",
			[]Provider{custom(ProviderCustomEmail, true, false), {Kind: ProviderSendGrid, Enabled: true}},
			appChannels{email: true, emlOn: true, emailProvider: LogProviderSendGrid}},
		{"Twilio enabled wins over custom SMS", []Provider{custom(ProviderCustomSMS, true, true), {Kind: ProviderTwilio, Enabled: true}},
			appChannels{sms: true, smsOn: true, smsProvider: LogProviderTwilio}},
		{"both disabled: Twilio, off", []Provider{custom(ProviderCustomSMS, false, false), {Kind: ProviderTwilio}},
			appChannels{sms: true, smsProvider: LogProviderTwilio}},
		{"SendGrid disabled alone: the channel is off", []Provider{{Kind: ProviderSendGrid}}, appChannels{email: true, emailProvider: LogProviderSendGrid}},
	} {
		got := readChannels(tc.ps)
		if tc.want.pushIDs == nil {
			tc.want.pushIDs = map[PushTokenKind]map[string]bool{PushFCM: {}, PushAPNs: {}, PushVoIP: {}}
		}
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(appChannels{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestNotificationPreferences(t *testing.T) {
	p := NotificationPrefs{Group: GroupPrefs{Messages: 1, Replies: 2, QuotedReplies: 3, Reactions: 3, MemberJoined: 2},
		OneOnOne: OneOnOnePrefs{Messages: 3, Replies: 1, QuotedReplies: 2, Reactions: 2}}
	for _, tc := range []struct {
		name string
		m    Message
		msg  int
		reac int
	}{
		{"group message", Message{ReceiverType: ReceiverGroup}, 1, 3},
		{"group reply", Message{ReceiverType: ReceiverGroup, ParentID: 9}, 2, 3},
		{"one-to-one message", Message{ReceiverType: ReceiverUser}, 3, 2},
		{"one-to-one reply", Message{ReceiverType: ReceiverUser, ParentID: 9}, 1, 2},
		{"group quoted reply", Message{ReceiverType: ReceiverGroup, QuotedID: 7}, 3, 3},
		{"one-to-one quoted reply", Message{ReceiverType: ReceiverUser, QuotedID: 7}, 2, 2},
		// A thread reply that quotes is a reply: its thread decides.
		{"group thread reply quoting", Message{ReceiverType: ReceiverGroup, ParentID: 9, QuotedID: 7}, 2, 3},
		{"one-to-one thread reply quoting", Message{ReceiverType: ReceiverUser, ParentID: 9, QuotedID: 7}, 1, 2},
	} {
		if got := messagePreference(p, &tc.m); got != tc.msg {
			t.Errorf("%s: message preference %d, want %d", tc.name, got, tc.msg)
		}
		if got := reactionPreference(p, &tc.m); got != tc.reac {
			t.Errorf("%s: reaction preference %d, want %d", tc.name, got, tc.reac)
		}
	}
	if got := memberPreferences[TriggerMemberJoined](p.Group); got != 2 {
		t.Errorf("member joined: %d", got)
	}
	if len(memberPreferences) != len(memberVerbs) {
		t.Errorf("%d member triggers have a preference, %d a text", len(memberPreferences), len(memberVerbs))
	}
}

// TestInteractivePushTemplate: an interactive message is pushed with its type's template,
// customInteractive (or a type the hosted enum adds later) with the custom one; the
// privacy set when it applies. A quoted reply keeps its kind's template.
func TestInteractivePushTemplate(t *testing.T) {
	st := DefaultNotificationSettings()
	tp := &st.Templates
	tp.InteractiveFormTemplateDefault.Body, tp.InteractiveFormTemplatePrivacy.Body = "form", "form!"
	tp.InteractiveCardTemplateDefault.Body, tp.InteractiveCardTemplatePrivacy.Body = "card", "card!"
	tp.InteractiveSchedulerTemplateDefault.Body, tp.InteractiveSchedulerTemplatePrivacy.Body = "sched", "sched!"
	tp.InteractiveCustomTemplateDefault.Body, tp.InteractiveCustomTemplatePrivacy.Body = "custom", "custom!"
	tp.InteractiveCardTemplateDefault.TitleGroup = "group title"
	for _, tc := range []struct {
		typ, group string
		privacy    bool
		title      string
		body       string
	}{
		{"form", "", false, tplSender, "form"},
		{"form", "", true, tplSender, "form!"},
		{"card", "g", false, "group title", "card"},
		{"scheduler", "", true, tplSender, "sched!"},
		{"customInteractive", "", false, tplSender, "custom"},
		{"someday", "", true, tplSender, "custom!"},
	} {
		m := Message{Category: CategoryInteractive, Type: tc.typ, ReceiverType: ReceiverUser}
		if tc.group != "" {
			m.ReceiverType = ReceiverGroup
		}
		title, body, fb := NotificationContent{Message: &m, Settings: st, Privacy: tc.privacy}.PushTemplate()
		if title != tc.title || body != tc.body || fb != "" {
			t.Errorf("%s privacy=%v: %q %q %q, want %q %q", tc.typ, tc.privacy, title, body, fb, tc.title, tc.body)
		}
	}
	q := Message{Category: CategoryMessage, Type: "text", ReceiverType: ReceiverUser, QuotedID: 3}
	if _, body, _ := (NotificationContent{Message: &q, Settings: st}).PushTemplate(); body != tplText {
		t.Errorf("a quoted text reply: %q, want the text template", body)
	}
}
