package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/blobstore"
)

// feedStep is one write route driven for TestEveryWriteAnnounces: the request to make (built
// when the step runs, after the steps before it) and the kinds of change the service's feed
// must carry for it. A route that writes nothing has no kinds, and says why.
type feedStep struct {
	route string // "METHOD /path" as httpapi.Routes lists it
	req   func() request
	want  []chat.ChangeKind
}

// TestEveryWriteAnnounces drives every write route (the route list is the table: a write
// route without a step fails) and checks that the service's change feed carried its change
// for the app: the socket hub, the workers and the caches hear of every write that way, and
// no handler publishes anything by hand.
func TestEveryWriteAnnounces(t *testing.T) {
	t.Parallel()
	files, err := blobstore.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "sqlite", chat.Config{WebhookAllowPrivate: true, Files: files})
	ctx := context.Background()
	var mu sync.Mutex
	var heard []chat.Change
	e.svc.Subscribe(func(cs []chat.Change) {
		mu.Lock()
		heard = append(heard, cs...)
		mu.Unlock()
	})
	p, err := e.svc.OperatorPrincipal(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// What the steps act on.
	for _, uid := range []string{"alice", "bob", "carl", "dave", "erin"} {
		e.mustUser(uid, strings.ToUpper(uid))
	}
	tokMe, tokLogout, tokUpd, tokDel := e.mustToken("alice"), e.mustToken("alice"), e.mustToken("alice"), e.mustToken("alice")
	keyUpd, err := e.svc.CreateAPIKey(ctx, p, chat.APIKeyCreate{Name: "to update"})
	must(err)
	keyDel, err := e.svc.CreateAPIKey(ctx, p, chat.APIKeyCreate{Name: "to delete"})
	must(err)
	_, _, err = e.svc.CreateGroup(ctx, p.ActingAs("alice"), chat.GroupCreate{GUID: "g", Name: "G", Type: chat.GroupPublic,
		Members: chat.MemberLists{Participants: []string{"bob"}}})
	must(err)
	send := func(to, typ, text string) chat.Message {
		t.Helper()
		m, err := e.svc.SendMessage(ctx, p.ActingAs("alice"), chat.MessageSend{Receiver: to, ReceiverType: typ, Category: chat.CategoryMessage,
			Type: "text", Data: json.RawMessage(`{"text":"` + text + `"}`)})
		must(err)
		return m
	}
	m1 := strconv.FormatInt(send("bob", chat.ReceiverUser, "one").ID, 10)
	m2 := strconv.FormatInt(send("bob", chat.ReceiverUser, "two").ID, 10)
	g1 := strconv.FormatInt(send("g", chat.ReceiverGroup, "in the group").ID, 10)
	var blocked, session string // set by the steps that make them

	text := func(to, typ, s string) string {
		return `{"receiver":"` + to + `","receiverType":"` + typ + `","category":"message","type":"text","data":{"text":"` + s + `"}}`
	}
	r := func(method, path, body string, headers map[string]string) func() request {
		return func() request { return request{method: method, path: "/v3" + path, body: body, headers: headers} }
	}
	token := func(tok string) map[string]string {
		return map[string]string{"apikey": "", "authToken": tok, "appId": "demo"}
	}
	future := strconv.FormatInt(testClock.Add(24*3600e9).UnixMilli(), 10)
	now := testClock.UnixMilli()
	kinds := func(ks ...chat.ChangeKind) []chat.ChangeKind { return ks }
	const (
		msg      = chat.ChangeMessage
		reaction = chat.ChangeReaction
		user     = chat.ChangeUser
		group    = chat.ChangeGroup
		member   = chat.ChangeMember
		block    = chat.ChangeBlock
		friend   = chat.ChangeFriend
		conv     = chat.ChangeConversation
		call     = chat.ChangeCall
		tok      = chat.ChangeToken
		settings = chat.ChangeSettings
	)
	steps := []feedStep{
		{"POST /apikeys", r("POST", "/apikeys", `{"name":"new","scope":"authOnly"}`, nil), kinds(settings)},
		{"PUT /apikeys/{apiKey}", r("PUT", "/apikeys/"+keyUpd.Value, `{"name":"renamed"}`, nil), kinds(settings)},
		{"DELETE /apikeys/{apiKey}", r("DELETE", "/apikeys/"+keyDel.Value, "", nil), kinds(settings)},

		// A socket credential and a session's record: they read, and write nothing.
		{"PUT /me", r("PUT", "/me", `{}`, token(tokMe)), nil},
		{"POST /user_sessions", r("POST", "/user_sessions", `{}`, token(tokMe)), nil},
		// A count of online users: a POST that reads.
		{"POST /online-members", r("POST", "/online-members", `{"groups":["g"]}`, nil), nil},
		{"DELETE /me", r("DELETE", "/me", "", token(tokLogout)), kinds(tok)},

		{"POST /users", r("POST", "/users", `{"uid":"newbie","name":"Newbie"}`, nil), kinds(user)},
		{"PUT /users/{uid}", r("PUT", "/users/newbie", `{"name":"Newer"}`, nil), kinds(user)},
		{"DELETE /users", r("DELETE", "/users", `{"uidsToDeactivate":["newbie"]}`, nil), kinds(user)},
		{"PUT /users", r("PUT", "/users", `{"uidsToActivate":["newbie"]}`, nil), kinds(user)},
		{"DELETE /users/{uid}", r("DELETE", "/users/newbie", "", nil), kinds(user)},
		{"POST /users/{uid}/auth_tokens", r("POST", "/users/alice/auth_tokens", `{}`, nil), kinds(tok)},
		{"PUT /users/{uid}/auth_tokens/{authToken}", r("PUT", "/users/alice/auth_tokens/"+tokUpd, `{"platform":"web"}`, nil), kinds(tok)},
		{"DELETE /users/{uid}/auth_tokens/{authToken}", r("DELETE", "/users/alice/auth_tokens/"+tokDel, "", nil), kinds(tok)},
		{"DELETE /users/{uid}/auth_tokens", r("DELETE", "/users/carl/auth_tokens", "", nil), kinds(tok)},
		{"POST /users/{uid}/friends", r("POST", "/users/alice/friends", `{"accepted":["carl"]}`, nil), kinds(friend)},
		{"DELETE /users/{uid}/friends", r("DELETE", "/users/alice/friends", `{"friends":["carl"]}`, nil), kinds(friend)},
		{"POST /users/{uid}/blockedusers", r("POST", "/users/alice/blockedusers", `{"blockedUids":["dave"]}`, nil), kinds(block)},
		{"DELETE /users/{uid}/blockedusers", r("DELETE", "/users/alice/blockedusers", `{"blockedUids":["dave"]}`, nil), kinds(block)},
		{"POST /blockedusers", r("POST", "/blockedusers", `{"blockedUids":["dave"]}`, obo("alice")), kinds(block)},
		{"DELETE /blockedusers", r("DELETE", "/blockedusers", `{"blockedUids":["dave"]}`, obo("alice")), kinds(block)},

		{"POST /messages", r("POST", "/messages", text("bob", "user", "hi"), obo("alice")), kinds(msg)},
		// Upload forms are signed, not stored: a form becomes a file (a row no cache or socket
		// cares for) only when its file is posted to it, outside the API.
		{"POST /files/upload-url", r("POST", "/files/upload-url", `{"files":{"f":{"name":"a.png","size":3,"mimeType":"image/png"}}}`, obo("alice")), nil},
		{"POST /bots/{uid}/messages", r("POST", "/bots/alice/messages", text("bob", "user", "beep"), nil), kinds(msg)},
		{"POST /messages/{id}/thread", r("POST", "/messages/"+m1+"/thread", text("alice", "user", "a reply"), obo("bob")), kinds(msg)},
		{"PUT /messages/{id}", r("PUT", "/messages/"+m1, `{"data":{"text":"one, edited"}}`, obo("alice")), kinds(msg)},
		{"DELETE /messages/{id}", r("DELETE", "/messages/"+m2, "", obo("alice")), kinds(msg)},
		{"POST /messages/{id}/reactions/{reaction}", r("POST", "/messages/"+m1+"/reactions/ok", "", obo("bob")), kinds(reaction)},
		{"DELETE /messages/{id}/reactions/{reaction}", r("DELETE", "/messages/"+m1+"/reactions/ok", "", obo("bob")), kinds(reaction)},
		{"POST /messages/{id}/pin", r("POST", "/messages/"+m1+"/pin", "", obo("alice")), kinds(conv)},
		{"DELETE /messages/{id}/pin", r("DELETE", "/messages/"+m1+"/pin", "", obo("alice")), kinds(conv)},
		{"POST /messages/{id}/save", r("POST", "/messages/"+m1+"/save", "", obo("bob")), kinds(conv)},
		{"DELETE /messages/{id}/save", r("DELETE", "/messages/"+m1+"/save", "", obo("bob")), kinds(conv)},
		{"POST /messages/{id}/thread/subscription", r("POST", "/messages/"+g1+"/thread/subscription", "", obo("bob")), kinds(conv)},
		{"DELETE /messages/{id}/thread/subscription", r("DELETE", "/messages/"+g1+"/thread/subscription", "", obo("bob")), kinds(conv)},

		{"POST /messages/{id}/flagged", r("POST", "/messages/"+m1+"/flagged", `{"reasonId":"spam"}`, obo("bob")), kinds(settings)},
		{"PATCH /moderation/flagged-messages/{id}", r("PATCH", "/moderation/flagged-messages/"+m1, `{"status":"approved"}`, nil), kinds(settings)},
		{"POST /moderation/reasons", r("POST", "/moderation/reasons", `{"id":"rude","name":"Rude"}`, nil), kinds(settings)},
		{"PUT /moderation/reasons/{id}", r("PUT", "/moderation/reasons/rude", `{"name":"Very rude"}`, nil), kinds(settings)},
		{"DELETE /moderation/reasons/{id}", r("DELETE", "/moderation/reasons/rude", "", nil), kinds(settings)},
		{"POST /moderation/keywords", r("POST", "/moderation/keywords", `{"id":"bad","name":"Bad","searchTerms":["darn"]}`, nil), kinds(settings)},
		{"PUT /moderation/keywords/{keywordId}", r("PUT", "/moderation/keywords/bad", `{"name":"Bad","searchTerms":["heck"]}`, nil), kinds(settings)},
		{"DELETE /moderation/keywords/{keywordId}", r("DELETE", "/moderation/keywords/bad", "", nil), kinds(settings)},
		{"POST /moderation/rules", r("POST", "/moderation/rules", `{"id":"zork","name":"Z","conditions":[{"category":"word","value":["zorkmid"]}],"action":["blockMessage"]}`, nil), kinds(settings)},
		{"PUT /moderation/rules/{ruleId}", r("PUT", "/moderation/rules/zork", `{"name":"Zork","conditions":[{"category":"word","value":["zorkmid"]}],"action":["blockMessage"]}`, nil), kinds(settings)},
		{"PATCH /moderation/blocked-messages/{id}", func() request {
			// A held send (announced too, for its sender only), then its approval: a send.
			held := send("bob", chat.ReceiverUser, "a zorkmid")
			if held.Moderation != chat.ModPending {
				t.Fatalf("not held: %+v", held)
			}
			bs, err := e.svc.Moderation().BlockedMessages(ctx, p, 0, 1)
			must(err)
			blocked = strconv.FormatInt(bs[0].MessageID, 10)
			return request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + blocked, body: `{"status":"approved"}`}
		}, kinds(msg)},
		{"DELETE /moderation/rules/{ruleId}", r("DELETE", "/moderation/rules/zork", "", nil), kinds(settings)},

		{"POST /webhooks", r("POST", "/webhooks", `{"id":"hook","webhookURL":"https://hooks.example.com/x","triggers":["message_sent"]}`, nil), kinds(settings)},
		{"PUT /webhooks/{id}", r("PUT", "/webhooks/hook", `{"enabled":false}`, nil), kinds(settings)},
		{"POST /webhooks/{id}/secrets", r("POST", "/webhooks/hook/secrets", `{"previousExpiresIn":0}`, nil), kinds(settings)},
		{"POST /webhooks/{id}/replay", r("POST", "/webhooks/hook/replay", fmt.Sprintf(`{"from":%d,"to":%d}`, now-3600e3, now), nil), kinds(settings)},
		{"DELETE /webhooks/{id}", r("DELETE", "/webhooks/hook", "", nil), kinds(settings)},

		{"PATCH /notifications/v1/settings", r("PATCH", "/notifications/v1/settings", `{"preferences":{"group":{"messagesSetting":3,"messagesOverride":false}}}`, nil), kinds(settings)},
		{"DELETE /notifications/v1/settings", r("DELETE", "/notifications/v1/settings", "", nil), kinds(settings)},
		{"PATCH /notifications/v1/preferences", r("PATCH", "/notifications/v1/preferences?uid=alice", `{"usePrivacyTemplate":true}`, nil), kinds(settings)},
		{"DELETE /notifications/v1/preferences", r("DELETE", "/notifications/v1/preferences?uid=alice", "", nil), kinds(settings)},
		{"PATCH /notifications/push/v1/preferences", r("PATCH", "/notifications/push/v1/preferences?uid=alice", `{"usePrivacyTemplate":false}`, nil), kinds(settings)},
		{"DELETE /notifications/push/v1/preferences", r("DELETE", "/notifications/push/v1/preferences?uid=alice", "", nil), kinds(settings)},
		{"PUT /notifications/v1/preferences/mute", r("PUT", "/notifications/v1/preferences/mute?uid=alice", `{"conversations":[{"id":"bob","type":"oneOnOne","until":`+future+`}]}`, nil), kinds(settings)},
		{"DELETE /notifications/v1/preferences/mute", r("DELETE", "/notifications/v1/preferences/mute?uid=alice", `{"conversations":[{"id":"bob","type":"oneOnOne"}]}`, nil), kinds(settings)},
		{"PUT /notifications/push/v1/preferences/mute", r("PUT", "/notifications/push/v1/preferences/mute?uid=alice", `{"conversations":[{"id":"g","type":"group","until":`+future+`}]}`, nil), kinds(settings)},
		{"DELETE /notifications/push/v1/preferences/mute", r("DELETE", "/notifications/push/v1/preferences/mute?uid=alice", `{"conversations":[{"id":"g","type":"group"}]}`, nil), kinds(settings)},
		{"PATCH /notifications/v1/preferences/timezone", r("PATCH", "/notifications/v1/preferences/timezone?uid=alice", `{"timezone":"Europe/Paris"}`, nil), kinds(settings)},
		{"PATCH /notifications/v1/contact-details", r("PATCH", "/notifications/v1/contact-details", `{"email":"alice@example.com"}`, obo("alice")), kinds(settings)},
		{"DELETE /notifications/v1/contact-details", r("DELETE", "/notifications/v1/contact-details", "", obo("alice")), kinds(settings)},
		{"POST /notifications/push/v1/providers/fcm", r("POST", "/notifications/push/v1/providers/fcm", fcmBody("fcm-a"), nil), kinds(settings)},
		{"PUT /notifications/push/v1/providers/fcm", r("PUT", "/notifications/push/v1/providers/fcm", fcmBody("fcm-a"), nil), kinds(settings)},
		{"POST /notifications/push/v1/providers/apns", r("POST", "/notifications/push/v1/providers/apns", apnsBody("apns-a"), nil), kinds(settings)},
		{"PUT /notifications/push/v1/providers/apns", r("PUT", "/notifications/push/v1/providers/apns", apnsBody("apns-a"), nil), kinds(settings)},
		{"PUT /notifications/push/v1/providers/apns/default/{providerId}", r("PUT", "/notifications/push/v1/providers/apns/default/apns-a", "", nil), kinds(settings)},
		{"POST /notifications/push/v1/tokens", r("POST", "/notifications/push/v1/tokens", `{"providerId":"default","fcmToken":"ftok-1","platform":"fcm_web"}`, token(tokMe)), kinds(settings)},
		{"DELETE /notifications/push/v1/tokens/{pushToken}", r("DELETE", "/notifications/push/v1/tokens/ftok-1", "", token(tokMe)), kinds(settings)},
		{"DELETE /notifications/push/v1/tokens", func() request {
			e.okr(request{method: "POST", path: "/v3/notifications/push/v1/tokens", headers: token(tokMe), body: `{"providerId":"default","fcmToken":"ftok-2","platform":"fcm_web"}`})
			return request{method: "DELETE", path: "/v3/notifications/push/v1/tokens", body: `{}`, headers: token(tokMe)}
		}, kinds(settings)},
		{"PUT /notifications/push/v1/providers/fcm/default/{providerId}", func() request {
			e.okr(request{method: "POST", path: "/v3/notifications/push/v1/providers/fcm", body: fcmBody("fcm-b")})
			return request{method: "PUT", path: "/v3/notifications/push/v1/providers/fcm/default/fcm-b"}
		}, kinds(settings)},
		{"DELETE /notifications/push/v1/providers/fcm/{providerId}", r("DELETE", "/notifications/push/v1/providers/fcm/fcm-a", "", nil), kinds(settings)},
		{"DELETE /notifications/push/v1/providers/apns/{providerId}", func() request {
			e.okr(request{method: "POST", path: "/v3/notifications/push/v1/providers/apns", body: apnsBody("apns-b")})
			return request{method: "DELETE", path: "/v3/notifications/push/v1/providers/apns/apns-b"}
		}, kinds(settings)},
		{"POST /notifications/push/v1/providers/custom", r("POST", "/notifications/push/v1/providers/custom", `{"isEnabled":true,"useBasicAuth":false,"webhookURL":"https://push.example.com/x"}`, nil), kinds(settings)},
		{"PUT /notifications/push/v1/providers/custom", r("PUT", "/notifications/push/v1/providers/custom", `{"isEnabled":false}`, nil), kinds(settings)},
		{"DELETE /notifications/push/v1/providers/custom", r("DELETE", "/notifications/push/v1/providers/custom", "", nil), kinds(settings)},
		{"POST /notifications/sms/v1/providers/custom", r("POST", "/notifications/sms/v1/providers/custom", `{"isEnabled":true,"useBasicAuth":false,"useStoredPhNo":true,"webhookURL":"https://sms.example.com/x"}`, nil), kinds(settings)},
		{"PUT /notifications/sms/v1/providers/custom", r("PUT", "/notifications/sms/v1/providers/custom", `{"isEnabled":false}`, nil), kinds(settings)},
		{"DELETE /notifications/sms/v1/providers/custom", r("DELETE", "/notifications/sms/v1/providers/custom", "", nil), kinds(settings)},
		{"POST /notifications/email/v1/providers/custom", r("POST", "/notifications/email/v1/providers/custom", `{"isEnabled":true,"useBasicAuth":false,"useStoredEmailID":true,"webhookURL":"https://mail.example.com/x"}`, nil), kinds(settings)},
		{"PUT /notifications/email/v1/providers/custom", r("PUT", "/notifications/email/v1/providers/custom", `{"isEnabled":false}`, nil), kinds(settings)},
		{"DELETE /notifications/email/v1/providers/custom", r("DELETE", "/notifications/email/v1/providers/custom", "", nil), kinds(settings)},
		{"POST /notifications/sms/v1/providers/twilio", r("POST", "/notifications/sms/v1/providers/twilio", `{"twilioAccountSID":"AC0123456789abcdef0123456789abcdef","twilioAuthToken":"secret","twilioSenderPhoneNumber":"+15555550100","isEnabled":true}`, nil), kinds(settings)},
		{"PUT /notifications/sms/v1/providers/twilio", r("PUT", "/notifications/sms/v1/providers/twilio", `{"isEnabled":false}`, nil), kinds(settings)},
		{"DELETE /notifications/sms/v1/providers/twilio", r("DELETE", "/notifications/sms/v1/providers/twilio", "", nil), kinds(settings)},
		{"POST /notifications/email/v1/providers/sendgrid", r("POST", "/notifications/email/v1/providers/sendgrid", `{"sendGridApiKey":"SG.fake-key-0000000001","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"natter","senderEmail":"noreply@example.com"}`, nil), kinds(settings)},
		{"PUT /notifications/email/v1/providers/sendgrid", r("PUT", "/notifications/email/v1/providers/sendgrid", `{"senderName":"natter too"}`, nil), kinds(settings)},
		{"DELETE /notifications/email/v1/providers/sendgrid", r("DELETE", "/notifications/email/v1/providers/sendgrid", "", nil), kinds(settings)},

		{"PUT /users/{uid}/conversation", r("PUT", "/users/bob/conversation", `{"tags":["work"]}`, obo("alice")), kinds(conv)},
		{"POST /users/{uid}/conversation/delivered", r("POST", "/users/bob/conversation/delivered", `{}`, obo("alice")), kinds(conv)},
		{"POST /users/{uid}/conversation/read", r("POST", "/users/bob/conversation/read", `{}`, obo("alice")), kinds(conv)},
		{"DELETE /users/{uid}/conversation/read", r("DELETE", "/users/bob/conversation/read", `{"messageId":`+m1+`}`, obo("alice")), kinds(conv)},
		{"POST /users/{uid}/conversation/pin", r("POST", "/users/bob/conversation/pin", "", obo("alice")), kinds(conv)},
		{"DELETE /users/{uid}/conversation/pin", r("DELETE", "/users/bob/conversation/pin", "", obo("alice")), kinds(conv)},
		{"DELETE /users/{uid}/conversation", r("DELETE", "/users/bob/conversation", "", obo("alice")), kinds(conv)},
		{"DELETE /conversations/{conversationId}", r("DELETE", "/conversations/alice_user_bob", "", obo("bob")), kinds(conv)},
		{"PUT /groups/{guid}/conversation", r("PUT", "/groups/g/conversation", `{"tags":["team"]}`, obo("bob")), kinds(conv)},
		{"POST /groups/{guid}/conversation/delivered", r("POST", "/groups/g/conversation/delivered", `{}`, obo("bob")), kinds(conv)},
		{"POST /groups/{guid}/conversation/read", r("POST", "/groups/g/conversation/read", `{}`, obo("bob")), kinds(conv)},
		{"DELETE /groups/{guid}/conversation/read", r("DELETE", "/groups/g/conversation/read", `{"messageId":`+g1+`}`, obo("bob")), kinds(conv)},
		{"POST /groups/{guid}/conversation/pin", r("POST", "/groups/g/conversation/pin", "", obo("bob")), kinds(conv)},
		{"DELETE /groups/{guid}/conversation/pin", r("DELETE", "/groups/g/conversation/pin", "", obo("bob")), kinds(conv)},
		{"DELETE /groups/{guid}/conversation", r("DELETE", "/groups/g/conversation", "", obo("bob")), kinds(conv)},
		{"PUT /conversations/pinned", r("PUT", "/conversations/pinned", `{"pinnedConversations":[{"guid":"g"},{"uid":"bob"}]}`, nil), kinds(settings)},

		{"POST /groups", r("POST", "/groups", `{"guid":"g2","name":"G2","type":"public"}`, obo("alice")), kinds(group)},
		{"PUT /groups/{guid}", r("PUT", "/groups/g2", `{"name":"G two"}`, obo("alice")), kinds(group)},
		{"POST /groups/{guid}/members", r("POST", "/groups/g2/members", `{"participants":["bob","carl","erin"]}`, obo("alice")), kinds(member, msg)},
		{"PUT /groups/{guid}/members", r("PUT", "/groups/g2/members", `{"participants":["dave"]}`, obo("alice")), kinds(member, msg)},
		{"PUT /groups/{guid}/members/{uid}", r("PUT", "/groups/g2/members/carl", `{"scope":"moderator"}`, obo("alice")), kinds(member, msg)},
		{"DELETE /groups/{guid}/members/{uid}", r("DELETE", "/groups/g2/members/carl", "", obo("alice")), kinds(member, msg)},
		{"POST /groups/{guid}/bannedusers/{uid}", r("POST", "/groups/g2/bannedusers/dave", "", obo("alice")), kinds(member, msg)},
		{"DELETE /groups/{guid}/bannedusers/{uid}", r("DELETE", "/groups/g2/bannedusers/dave", "", obo("alice")), kinds(member, msg)},
		{"DELETE /groups/{guid}/members", r("DELETE", "/groups/g2/members", "", obo("erin")), kinds(member, msg)},
		{"PATCH /groups/{guid}/owner", r("PATCH", "/groups/g2/owner", `{"owner":"bob"}`, obo("alice")), kinds(member)},
		{"DELETE /groups/{guid}", r("DELETE", "/groups/g2", "", nil), kinds(group)},

		{"POST /roles", r("POST", "/roles", `{"role":"mgr","name":"Manager"}`, nil), kinds(settings)},
		{"PUT /roles/{role}", r("PUT", "/roles/mgr", `{"name":"Managers"}`, nil), kinds(settings)},
		{"POST /roles/{role}/restrictedfeatures", r("POST", "/roles/mgr/restrictedfeatures", `{"featuresToRestrict":["listUsers"]}`, nil), kinds(settings)},
		{"DELETE /roles/{role}/restrictedfeatures", r("DELETE", "/roles/mgr/restrictedfeatures", `{"allowAll":true}`, nil), kinds(settings)},
		{"PUT /roles/{role}/permissions", r("PUT", "/roles/mgr/permissions", `{"permissions":{"getUserDetails.allowedRoles":"default"}}`, nil), kinds(settings)},
		{"DELETE /roles/{role}/permissions/{permission}", r("DELETE", "/roles/mgr/permissions/getUserDetails.allowedRoles", "", nil), kinds(settings)},
		{"DELETE /roles/{role}", r("DELETE", "/roles/mgr", "", nil), kinds(settings)},
		{"PUT /groups/{guid}/scopes/{scope}/permissions", r("PUT", "/groups/g/scopes/participant/permissions", `{"permissions":{"sendMessage":"deny"}}`, nil), kinds(settings)},
		{"DELETE /groups/{guid}/scopes/{scope}/permissions/{permission}", r("DELETE", "/groups/g/scopes/participant/permissions/sendMessage", "", nil), kinds(settings)},

		{"POST /ai-agents/agents", r("POST", "/ai-agents/agents", `{"uid":"bot","name":"Bot","integrationMeta":{"url":"https://agents.example.com/x"}}`, nil), kinds(settings, user)},
		{"PUT /ai-agents/agents/{uid}", r("PUT", "/ai-agents/agents/bot", `{"name":"Bot two"}`, nil), kinds(settings)},
		{"PATCH /ai-agents/agents/{uid}", r("PATCH", "/ai-agents/agents/bot", `{"name":"Bot three"}`, nil), kinds(settings)},
		{"DELETE /ai-agents/agents/{uid}", r("DELETE", "/ai-agents/agents/bot", "", nil), kinds(settings)},

		{"POST /calls", r("POST", "/calls", `{"receiver":"bob","receiverType":"user","type":"audio","status":"initiated"}`, obo("alice")), kinds(msg, call)},
		{"PUT /calls/{sessionId}", func() request {
			cs, _, err := e.svc.Calls().List(ctx, p, chat.CallFilter{}, chat.Page{PerPage: 1, Number: 1})
			must(err)
			session = cs[0].SessionID
			return request{method: "PUT", path: "/v3/calls/" + session, body: `{"status":"ongoing"}`, headers: obo("bob")}
		}, kinds(msg, call)},
		{"PATCH /calls/{sessionId}/type", func() request {
			return request{method: "PATCH", path: "/v3/calls/" + session + "/type", body: `{"type":"video"}`, headers: obo("alice")}
		}, kinds(call)},
		{"POST /calls/{sessionId}/transcriptions", func() request {
			return request{method: "POST", path: "/v3/calls/" + session + "/transcriptions",
				body: fmt.Sprintf(`{"startTime":%d,"endTime":%d,"transcriptUrl":"https://transcripts.example/one.json"}`, testClock.Unix(), testClock.Unix()+10)}
		}, kinds(call)},

		{"POST /data_import/users", r("POST", "/data_import/users", `{"users":{"imp":{"uid":"imp","name":"Imported"}}}`, nil), kinds(settings)},
		{"POST /data_import/groups", r("POST", "/data_import/groups", `{"groups":{"ig":{"guid":"ig","name":"Imported","type":"public"}}}`, nil), kinds(settings)},
		{"POST /data_import/members", r("POST", "/data_import/members", `{"members":{"ig_imp":{"guid":"ig","uid":"imp"}}}`, nil), kinds(settings)},
		{"POST /data_import/messages", r("POST", "/data_import/messages", `{"messages":{"im":{"muid":"im","sender":"imp","receiverType":"user","receiver":"alice","type":"text","category":"message","data":{"text":"old"},"sentAt":1674104350}}}`, nil), kinds(settings)},
	}

	table := map[string]bool{}
	for _, st := range steps {
		if table[st.route] {
			t.Errorf("%s: two steps", st.route)
		}
		table[st.route] = true
	}
	routes := map[string]bool{}
	for _, rt := range httpapi.Routes() {
		routes[rt] = true
		if !strings.HasPrefix(rt, "GET ") && !table[rt] {
			t.Errorf("%s: a write route with no step in this table: add one, with the changes it announces", rt)
		}
	}
	for _, st := range steps {
		if !routes[st.route] {
			t.Errorf("%s: a step for a route the server does not have", st.route)
			continue
		}
		mu.Lock()
		heard = heard[:0]
		mu.Unlock()
		req := st.req()
		if method, _, _ := strings.Cut(st.route, " "); req.method != method {
			t.Fatalf("%s: the step makes a %s request", st.route, req.method)
		}
		res := e.do(req)
		if res.status/100 != 2 {
			t.Errorf("%s: %d %s", st.route, res.status, res.body)
			continue
		}
		mu.Lock()
		var got []chat.ChangeKind
		for _, c := range heard {
			if c.App != "demo" {
				t.Errorf("%s: a change of app %q: %+v", st.route, c.App, c)
			}
			if !slices.Contains(got, c.Kind) {
				got = append(got, c.Kind)
			}
		}
		mu.Unlock()
		for _, k := range st.want {
			if !slices.Contains(got, k) {
				t.Errorf("%s: the feed carried %v, want %s among them", st.route, got, k)
			}
		}
	}
}
