package console_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/console"
)

// consoleStep is one console action driven for TestEveryActionAnnounces: its form (built when
// the step runs, after the steps before it) and the kinds of change the service's feed must
// carry for it.
type consoleStep struct {
	route string // the pattern as console.SessionRoutes lists it
	path  string
	form  func() url.Values
	want  []chat.ChangeKind
}

// TestEveryActionAnnounces posts every console action (the console's route list is the
// table: an action without a step fails) and checks that the service's change feed carried
// its change: sockets, workers and caches hear of the console's writes as of the API's, and
// the console publishes nothing itself.
func TestEveryActionAnnounces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "sqlite")
	ctx := context.Background()
	var mu sync.Mutex
	var heard []chat.Change
	e.svc.Subscribe(func(cs []chat.Change) {
		mu.Lock()
		heard = append(heard, cs...)
		mu.Unlock()
	})
	p := principal(t, e)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, uid := range []string{"alice", "bob", "carl"} {
		_, err := e.svc.CreateUser(ctx, p, chat.UserCreate{UID: uid, Name: strings.ToUpper(uid)})
		must(err)
	}
	tokDel, err := e.svc.CreateAuthToken(ctx, p, "alice", chat.AuthTokenCreate{})
	must(err)
	keyDel, err := e.svc.CreateAPIKey(ctx, p, chat.APIKeyCreate{Name: "to delete"})
	must(err)
	_, err = e.svc.Moderation().CreateRule(ctx, p, chat.RuleInput{ID: "zork", Name: "Z", Conditions: []chat.Condition{{Category: "word", Value: []string{"zorkmid"}}},
		Action: []string{chat.ActionBlockMessage}})
	must(err)
	send := func(text string) chat.Message {
		t.Helper()
		m, err := e.svc.SendMessage(ctx, p.ActingAs("alice"), chat.MessageSend{Receiver: "bob", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"` + text + `"}`)})
		must(err)
		return m
	}
	m1 := strconv.FormatInt(send("one").ID, 10)
	must(e.svc.Moderation().FlagMessage(ctx, p.ActingAs("bob"), m1, chat.FlagInput{ReasonID: "spam"}))
	send("a zorkmid")
	held, err := e.svc.Moderation().BlockedMessages(ctx, p, 0, 1)
	must(err)
	blocked := strconv.FormatInt(held[0].MessageID, 10)
	_, err = chat.Twilio.Create(ctx, e.svc, p, chat.TwilioInput{AccountSID: ptr("AC" + strings.Repeat("0", 32)), AuthToken: ptr(twilioToken),
		SenderPhoneNumber: ptr("+15005550006")})
	must(err)

	c := e.browser(t)
	_, csrf := e.signIn(t, c, "demo", e.full)
	form := func(kv ...string) func() url.Values {
		return func() url.Values {
			v := url.Values{"csrf": {csrf}}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Add(kv[i], kv[i+1])
			}
			return v
		}
	}
	const (
		msg      = chat.ChangeMessage
		reaction = chat.ChangeReaction
		user     = chat.ChangeUser
		group    = chat.ChangeGroup
		member   = chat.ChangeMember
		tok      = chat.ChangeToken
		settings = chat.ChangeSettings
	)
	kinds := func(ks ...chat.ChangeKind) []chat.ChangeKind { return ks }
	steps := []consoleStep{
		{"POST /users", "/users", form("uid", "newbie", "name", "Newbie"), kinds(user)},
		{"POST /users/{uid}", "/users/newbie", form("name", "Newer", "role", "default"), kinds(user)},
		{"POST /users/{uid}/deactivate", "/users/newbie/deactivate", form(), kinds(user)},
		{"POST /users/{uid}/reactivate", "/users/newbie/reactivate", form(), kinds(user)},
		{"POST /users/{uid}/tokens", "/users/alice/tokens", form(), kinds(tok)},
		{"POST /users/{uid}/tokens/delete", "/users/alice/tokens/delete", form("token", chat.HashKey(tokDel.Value)), kinds(tok)},
		{"POST /keys", "/keys", form("name", "new", "scope", "authOnly"), kinds(settings)},
		{"POST /keys/delete", "/keys/delete", form("key", keyDel.Hash), kinds(settings)},
		{"POST /groups", "/groups", form("guid", "team", "name", "Team", "type", "public"), kinds(group)},
		{"POST /groups/{guid}", "/groups/team", form("name", "The team", "description", "us"), kinds(group)},
		{"POST /groups/{guid}/members", "/groups/team/members", form("uids", "bob carl", "scope", "participant"), kinds(member, msg)},
		{"POST /groups/{guid}/members/{uid}/scope", "/groups/team/members/bob/scope", form("scope", "moderator"), kinds(member, msg)},
		{"POST /groups/{guid}/members/{uid}/kick", "/groups/team/members/carl/kick", form(), kinds(member, msg)},
		{"POST /groups/{guid}/permissions", "/groups/team/permissions", form("scope", "participant", "permission", "sendMessage", "value", "deny"), kinds(settings)},
		{"POST /groups/{guid}/permissions/unset", "/groups/team/permissions/unset", form("scope", "participant", "permission", "sendMessage"), kinds(settings)},
		{"POST /groups/{guid}/delete", "/groups/team/delete", form(), kinds(group)},
		{"POST /messages", "/messages", form("sender", "alice", "receiver", "bob", "receiverType", "user", "text", "hello"), kinds(msg)},
		{"POST /messages/{id}/reactions", "/messages/" + m1 + "/reactions", form("uid", "bob", "reaction", "👍"), kinds(reaction)},
		{"POST /moderation/blocked/{id}", "/moderation/blocked/" + blocked, form("status", "approved"), kinds(msg)},
		{"POST /moderation/flagged/{id}", "/moderation/flagged/" + m1, form("status", "disapproved"), kinds(settings, msg)},
		{"POST /roles", "/roles", form("role", "mod", "name", "Moderators"), kinds(settings)},
		{"POST /roles/{role}/permissions", "/roles/mod/permissions", form("permission", "sendMessage", "value", "deny"), kinds(settings)},
		{"POST /roles/{role}/permissions/unset", "/roles/mod/permissions/unset", form("permission", "sendMessage"), kinds(settings)},
		{"POST /roles/{role}/features", "/roles/mod/features", form("feature", "u.listUsers"), kinds(settings)},
		{"POST /roles/{role}/features/allow", "/roles/mod/features/allow", form("feature", "u.listUsers"), kinds(settings)},
		{"POST /roles/{role}/delete", "/roles/mod/delete", form(), kinds(settings)},
		{"POST /notifications/{kind}", "/notifications/apns", form("kind", "apns", "providerId", "ios", "keyId", "ABC123DEFG", "teamId", "DEF123GHIJ",
			"bundleId", "com.example.push", "p8Key", testKeys().p8), kinds(settings)},
		{"POST /notifications/{kind}/{id}/default", "/notifications/apns/ios/default", form(), kinds(settings)},
		{"POST /notifications/{kind}/{id}/delete", "/notifications/apns/ios/delete", form(), kinds(settings)},
		{"POST /notifications/{kind}/delete", "/notifications/twilio/delete", form(), kinds(settings)},
		{"POST /webhooks", "/webhooks", form("id", "hook", "url", "https://hooks.example.com/x", "triggers", "message_sent", "enabled", "1"), kinds(settings)},
		{"POST /webhooks/{id}/secret", "/webhooks/hook/secret", form(), kinds(settings)},
		{"POST /webhooks/{id}/replay", "/webhooks/hook/replay", func() url.Values {
			// An event to replay: a send the webhook subscribes to, and its delivery.
			send("for the hook")
			ds, err := e.svc.Webhooks().WebhookDeliveries(ctx, p, "hook", chat.DeliveryPage{Limit: 1})
			must(err)
			if len(ds) == 0 {
				t.Fatal("no delivery to replay")
			}
			return form("event", strconv.FormatInt(ds[0].EventID, 10))()
		}, kinds(settings)},
		{"POST /webhooks/{id}/delete", "/webhooks/hook/delete", form(), kinds(settings)},
		// Signing out ends the session: its cookie, nothing stored.
		{"POST /signout", "/signout", form(), nil},
	}

	table := map[string]bool{}
	for _, st := range steps {
		table[st.route] = true
	}
	routes := map[string]bool{}
	for _, rt := range console.SessionRoutes() {
		routes[rt] = true
		if !strings.HasPrefix(rt, "GET ") && !table[rt] {
			t.Errorf("%s: a console action with no step in this table: add one, with the changes it announces", rt)
		}
	}
	for _, st := range steps {
		if !routes[st.route] {
			t.Errorf("%s: a step for an action the console does not have", st.route)
			continue
		}
		mu.Lock()
		heard = heard[:0]
		mu.Unlock()
		res := e.post(t, c, "/console"+st.path, st.form(), nil)
		if res.StatusCode >= http.StatusBadRequest {
			t.Errorf("%s: %d %s", st.route, res.StatusCode, body(res))
			continue
		}
		res.Body.Close()
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
