package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/natter-chat/natter/client"
)

// Answers the official client SDK parses, found by driving its whole surface
// (e2e/sdksurface_test.go, docs/sdk-surface.md).

// TestMeUpdatesProfile: the SDK's updateCurrentUserDetails sends the user to PUT /me; the
// name it sends is the user's from then on. Login's PUT /me body changes nothing.
func TestMeUpdatesProfile(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		tok := e.mustToken("alice")
		auth := map[string]string{"apikey": "", "authToken": tok, "appId": e.app.ID}
		login := e.ok(request{method: "PUT", path: "/v3.0/me", headers: auth,
			body: `{"platform":"WEB","deviceId":"d1","appInfo":{"version":"4.2.0"}}`})
		if login["name"] != "Alice" || login["jwt"] == "" {
			t.Errorf("login's PUT /me: %v", login)
		}
		got := e.ok(request{method: "PUT", path: "/v3.0/me", headers: auth,
			body: `{"uid":"alice","name":"Alice Surface","statusMessage":"away","role":"default"}`})
		if got["uid"] != "alice" || got["name"] != "Alice Surface" || got["statusMessage"] != "away" || got["jwt"] == "" {
			t.Errorf("PUT /me with a name: %v", got)
		}
		u := e.ok(request{method: "GET", path: "/v3/users/alice"})
		if u["name"] != "Alice Surface" || u["statusMessage"] != "away" {
			t.Errorf("the user after PUT /me: %v", u)
		}
		// A role other than the user's own is refused, as on PUT /users/{uid} with a token.
		if res := e.do(request{method: "PUT", path: "/v3.0/me", headers: auth, body: `{"name":"X","role":"admin"}`}); res.status != 403 {
			t.Errorf("PUT /me with another role: %d %s, want 403", res.status, res.body)
		}
		if u := e.ok(request{method: "GET", path: "/v3/users/alice"}); u["name"] != "Alice Surface" {
			t.Errorf("the refused PUT /me changed the user: %v", u)
		}
	})
}

// TestSettingsForTheSDK: the settings carry an empty extensions list (isExtensionEnabled
// answers false instead of rejecting), the flag reasons (getFlagReasons, flagMessage), the
// feature flags (parameters: isFeatureEnabled) and WS_API_VERSION (the online counts' path).
func TestSettingsForTheSDK(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.ok(request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"off-topic","name":"Off topic","description":"Not about the group's subject"}`})
		tok := e.mustToken("alice")
		auth := map[string]string{"apikey": "", "authToken": tok, "appId": e.app.ID}
		for _, r := range []request{
			{method: "GET", path: "/v3.0/settings", headers: auth},
			{method: "PUT", path: "/v3.0/me", headers: auth, body: `{}`},
		} {
			data := e.ok(r)
			if s, ok := data["settings"].(map[string]any); ok {
				data = s
			}
			ext, ok := data["extensions"].([]any)
			if !ok || len(ext) != 0 {
				t.Errorf("%s %s: extensions %v, want []", r.method, r.path, data["extensions"])
			}
			reasons, _ := data["flagReasons"].([]any)
			ids := map[string]bool{}
			for _, x := range reasons {
				m, _ := x.(map[string]any)
				ids[fmt.Sprint(m["id"])] = m["name"] != "" && m["name"] != nil
			}
			if !ids["spam"] || !ids["off-topic"] {
				t.Errorf("%s %s: flagReasons %v, want the default spam and the app's off-topic among them, named", r.method, r.path, data["flagReasons"])
			}
			// The feature flags the SDK's isFeatureEnabled, isPin…Enabled, the pin and save
			// limits and getConversationUpdateSettings read; without parameters every name
			// is rejected and pinning reads as disabled.
			params, _ := data["parameters"].(map[string]any)
			for name, want := range map[string]any{
				"features.ux.messages.pinned.enabled": true, "features.ux.messages.saved.enabled": true,
				"features.ux.conversations.pinned.enabled": true, "features.ux.messages.pinned.limit": 100.0,
				"features.ux.messages.saved.limit": 100.0, "features.ux.conversations.pinned.limit": 5.0,
				"core.conversations.updateOnCustomMessage": true, "core.conversations.updateOnReplies": false,
				"core.conversations.updateOnGroupActions": false, "core.conversations.updateOnCallActivity": false,
				"features.ai.enabled": false,
			} {
				if got, ok := params[name]; !ok || got != want {
					t.Errorf("%s %s: parameters[%s] = %v, want %v", r.method, r.path, name, got, want)
				}
			}
			// The version of the chat host's path for the SDK's online counts.
			if data["WS_API_VERSION"] != "v3.0" {
				t.Errorf("%s %s: WS_API_VERSION %v, want v3.0", r.method, r.path, data["WS_API_VERSION"])
			}
		}
	})
}

// TestMarkUnreadAnswersConversation: DELETE …/conversation/read answers the conversation as
// it now is, which the SDK's markMessageAsUnread resolves with.
func TestMarkUnreadAnswersConversation(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m1 := e.mustText("bob", "alice", "one")
		e.mustText("bob", "alice", "two")
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("alice"), body: `{}`})
		got := e.ok(request{method: "DELETE", path: "/v3/users/bob/conversation/read", headers: obo("alice"), body: `{"messageId":` + m1.ID + `}`})
		c, _ := got["conversation"].(map[string]any)
		with, _ := c["conversationWith"].(map[string]any)
		if got["success"] != true || c["conversationId"] != "alice_user_bob" || with["uid"] != "bob" || fmt.Sprint(c["unreadMessageCount"]) != "1" {
			t.Errorf("DELETE /users/bob/conversation/read: %v", got)
		}
		e.ok(request{method: "POST", path: "/v3/groups", body: `{"guid":"g","name":"G","type":"public","owner":"alice","members":{"participants":["bob"]}}`})
		g1, err := e.c.OnBehalfOf("alice").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "g", ReceiverType: "group",
			Category: "message", Type: "text", Data: map[string]any{"text": "hello"}})
		if err != nil {
			t.Fatal(err)
		}
		e.ok(request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("bob"), body: `{}`})
		got = e.ok(request{method: "DELETE", path: "/v3/groups/g/conversation/read", headers: obo("bob"), body: `{"messageId":` + g1.ID + `}`})
		c, _ = got["conversation"].(map[string]any)
		if c["conversationId"] != "group_g" || c["conversationType"] != "group" {
			t.Errorf("DELETE /groups/g/conversation/read: %v", got)
		}
	})
}

// TestFlagWithSDKField: the SDK's flagMessage names the reason id, not reasonId.
func TestFlagWithSDKField(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("bob", "alice", "buy now")
		auth := map[string]string{"apikey": "", "authToken": e.mustToken("alice"), "appId": e.app.ID}
		e.ok(request{method: "POST", path: "/v3.0/messages/" + m.ID + "/flagged", headers: auth, body: `{"id":"spam","remark":"an advert"}`})
		res := e.okr(request{method: "GET", path: "/v3/moderation/flagged-messages"})
		var list struct {
			Data []struct {
				ID    string `json:"id"`
				Flags []struct {
					UID, ReasonID, Remark string
				} `json:"flags"`
			} `json:"data"`
		}
		mustJSON(t, res.body, &list)
		if len(list.Data) != 1 || list.Data[0].ID != m.ID || len(list.Data[0].Flags) != 1 ||
			list.Data[0].Flags[0].ReasonID != "spam" || list.Data[0].Flags[0].UID != "alice" || list.Data[0].Flags[0].Remark != "an advert" {
			t.Errorf("flagged messages: %s", res.body)
		}
		if res := e.do(request{method: "POST", path: "/v3.0/messages/" + m.ID + "/flagged", headers: auth, body: `{"remark":"no reason"}`}); res.status != 400 {
			t.Errorf("a flag without a reason: %d %s, want 400", res.status, res.body)
		}
	})
}

// TestMeRegistersFCMToken: the SDK's registerTokenForPushNotification sends the FCM token in
// PUT /me's appInfo; it is the session's push token from then on.
func TestMeRegistersFCMToken(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		auth := map[string]string{"apikey": "", "authToken": e.mustToken("alice"), "appId": e.app.ID}
		register := request{method: "PUT", path: "/v3.0/me", headers: auth,
			body: `{"platform":"WEB","deviceId":"d1","appInfo":{"version":"v4.2.0","apiVersion":"v3.0","pushNotification":{"fcmDeviceToken":"fcm-web-token-1"}}}`}
		// Without an FCM provider there is nothing to send with: refused, as on the tokens API.
		if res := e.do(register); res.status != 404 || res.code != "ERR_PROVIDER_NOT_FOUND" {
			t.Errorf("PUT /me with an FCM token and no provider: %d %s, want 404 ERR_PROVIDER_NOT_FOUND", res.status, res.body)
		}
		e.mustFCMProvider("fcm-1")
		e.ok(register)
		res := e.okr(request{method: "GET", path: "/v3.0/notifications/push/v1/tokens", headers: auth})
		var list struct {
			Data struct {
				PushTokens []struct {
					Platform  string `json:"platform"`
					PushToken string `json:"pushToken"`
				} `json:"pushTokens"`
			} `json:"data"`
		}
		mustJSON(t, res.body, &list)
		if len(list.Data.PushTokens) != 1 || list.Data.PushTokens[0].Platform != "fcm_web" || list.Data.PushTokens[0].PushToken != "fcm-web-token-1" {
			t.Errorf("push tokens after PUT /me: %s", res.body)
		}
		if res := e.do(request{method: "PUT", path: "/v3.0/me", headers: auth, body: `{"appInfo":{"pushNotification":{"fcmDeviceToken":"bad token!"}}}`}); res.status != 400 {
			t.Errorf("PUT /me with a malformed FCM token: %d %s, want 400", res.status, res.body)
		}
	})
}

// TestCreateGroupMemberResultsForClients: the SDK's createGroupWithMembers reads a create's
// member results at data.members.data, every list of them; a client (auth token) gets them
// there as well as the lists it sent at data.members, and an API key's create keeps the REST
// shape alone.
func TestCreateGroupMemberResultsForClients(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustUser("cat", "Cat")
		auth := map[string]string{"apikey": "", "authToken": e.mustToken("alice"), "appId": e.app.ID}
		participant := func(lists map[string]any, uid string) bool {
			p, _ := lists["participants"].(map[string]any)
			r, _ := p[uid].(map[string]any)
			return r["success"] == true
		}
		g := e.ok(request{method: "POST", path: "/v3.0/groups", headers: auth,
			body: `{"guid":"made","name":"Made","type":"private","members":{"participants":["bob"],"usersToBan":["cat"]}}`})
		members, _ := g["members"].(map[string]any)
		nested, _ := members["data"].(map[string]any)
		for _, l := range []string{"admins", "moderators", "participants", "usersToBan"} {
			if _, ok := nested[l].(map[string]any); !ok {
				t.Errorf("a client's create: data.members.data.%s missing (the SDK walks all four): %v", l, nested)
			}
		}
		if !participant(members, "bob") || !participant(nested, "bob") || members["admins"] != nil {
			t.Errorf("a client's create: members %v", members)
		}
		g = e.ok(request{method: "POST", path: "/v3/groups", headers: obo("alice"),
			body: `{"guid":"keyed","name":"Keyed","type":"private","members":{"participants":["bob"]}}`})
		members, _ = g["members"].(map[string]any)
		if !participant(members, "bob") || members["data"] != nil {
			t.Errorf("an API key's create: members %v, want the REST lists alone", members)
		}
		// With no members sent, neither gets a members key.
		if g := e.ok(request{method: "POST", path: "/v3.0/groups", headers: auth, body: `{"guid":"bare","name":"Bare","type":"public"}`}); g["members"] != nil {
			t.Errorf("a create without members: %v", g["members"])
		}
	})
}
