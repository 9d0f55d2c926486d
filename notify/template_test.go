package notify

import (
	"context"
	"encoding/json"
	"testing"
)

// The hosted service's sample new-message event, as the placeholders see it.
const sampleEvent = `{"message": {
	"id": "17", "conversationId": "group_cometchat-guid-1", "sender": "cometchat-uid-2",
	"receiverType": "group", "receiver": "cometchat-guid-1", "category": "message", "type": "text",
	"data": {
		"text": "Hello! How are you?",
		"entities": {
			"sender": {"entity": {"uid": "cometchat-uid-2", "name": "George Alan", "role": "default"}, "entityType": "user"},
			"receiver": {"entity": {"guid": "cometchat-guid-1", "name": "Hiking Group", "onlineMembersCount": 3}, "entityType": "group"}
		},
		"metadata": null
	},
	"sentAt": 1707902030, "updatedAt": 1707902030.5, "unread": true
}}`

const sampleDigest = `{
	"to": {"uid": "cometchat-uid-1", "phno": "+12125550123", "name": "Andrew Joseph"},
	"messages": [
		{"sender": {"uid": "cometchat-uid-4", "name": "Susan Marie"}, "message": "Are we meeting this weekend?"},
		{"sender": {"uid": "cometchat-uid-4", "name": "Susan Marie"}, "message": "📷 Has shared an image"}
	],
	"senderDetails": {"uid": "cometchat-uid-4", "name": "Susan Marie"},
	"groupDetails": {"guid": "cometchat-guid-1", "name": "Hiking Group"}
}`

func TestRender(t *testing.T) {
	event, err := ParseVars([]byte(sampleEvent))
	if err != nil {
		t.Fatal(err)
	}
	digest, err := ParseVars([]byte(sampleDigest))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		vars     any
		tmpl     string
		want     string
		complete bool
	}{
		{"one-on-one title", event, "{{message.data.entities.sender.entity.name}}", "George Alan", true},
		{"group title", event, "{{message.data.entities.sender.entity.name}} @ {{message.data.entities.receiver.entity.name}}", "George Alan @ Hiking Group", true},
		{"text body", event, "{{message.data.text}}", "Hello! How are you?", true},
		{"mention body", event, "{{message.data.entities.sender.entity.name}} mentioned you in {{message.data.entities.receiver.entity.name}}: {{message.data.text}}",
			"George Alan mentioned you in Hiking Group: Hello! How are you?", true},
		{"no placeholder", event, "📷 Has sent an image", "📷 Has sent an image", true},
		{"spaces in braces", event, "{{ message.data.text }}", "Hello! How are you?", true},
		{"integer kept whole", event, "{{message.sentAt}}", "1707902030", true},
		{"fraction", event, "{{message.updatedAt}}", "1707902030.5", true},
		{"number in an entity", event, "{{message.data.entities.receiver.entity.onlineMembersCount}} online", "3 online", true},
		{"boolean", event, "{{message.unread}}", "true", true},
		{"unknown path is empty", event, "Hi {{message.data.interactiveData.title}}!", "Hi !", false},
		{"the brief's guess is not a path", event, "{{message.sender.name}}", "", false},
		{"null", event, "[{{message.data.metadata}}]", "[]", false},
		{"object", event, "[{{message.data.entities}}]", "[]", false},
		{"empty placeholder", event, "a{{}}b", "ab", false},
		{"unclosed braces are text", event, "a {{message.data.text", "a {{message.data.text", true},
		{"single braces are text", event, "{message.data.text}", "{message.data.text}", true},
		{"sms count", digest, "You've received {{messages.length}} message(s) from {{senderDetails.name}}!", "You've received 2 message(s) from Susan Marie!", true},
		{"group subject", digest, "New messages in {{groupDetails.name}}", "New messages in Hiking Group", true},
		{"index", digest, "{{messages[0].message}}", "Are we meeting this weekend?", true},
		{"dotted index", digest, "{{messages.1.sender.name}}", "Susan Marie", true},
		{"index out of range", digest, "{{messages[2].message}}", "", false},
		{"bad index", digest, "{{messages[x].message}}", "", false},
		{"nil vars", nil, "{{a}}", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := Render(tc.tmpl, tc.vars)
			if got != tc.want || complete != tc.complete {
				t.Errorf("Render(%q) = %q, %v; want %q, %v", tc.tmpl, got, complete, tc.want, tc.complete)
			}
		})
	}
}

// Text from users is data: it is not read again as a template, and it cannot change the
// shape of a provider's JSON, whatever it holds.
func TestRenderHostileText(t *testing.T) {
	hostile := "\"}, \"token\": \"attacker\", \"x\": {\"a\": \"\\u0000\n</script>\u2028{{message.sender}}\xff"
	vars := map[string]any{"message": map[string]any{"sender": "alice", "data": map[string]any{"text": hostile}}}
	body, complete := Render("{{message.data.text}}", vars)
	if body != hostile || !complete {
		t.Fatalf("Render = %q, %v; want the text as it is", body, complete)
	}

	f := newFakeFCM(t)
	p := newTestFCM(t, f)
	if r := p.Send(context.Background(), Notification{To: "tok-ok", Title: hostile, Body: body, Data: map[string]string{"text": hostile}}); !r.OK() {
		t.Fatal(r.Err)
	}
	m := f.lastBody["message"].(map[string]any)
	// encoding/json replaces the invalid byte with U+FFFD; nothing else changes.
	want := "\"}, \"token\": \"attacker\", \"x\": {\"a\": \"\\u0000\n</script>\u2028{{message.sender}}\uFFFD"
	if m["token"] != "tok-ok" || m["notification"].(map[string]any)["body"] != want || m["data"].(map[string]any)["text"] != want {
		b, _ := json.Marshal(m)
		t.Errorf("the sent message changed shape: %s", b)
	}
}
