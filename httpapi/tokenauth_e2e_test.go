package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// TestAuthTokenAuthentication is the authToken header's refusal table: which app a token
// addresses, and every way a token header can be wrong.
func TestAuthTokenAuthentication(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		other, _ := e.newApp("other", "eu")
		e.mustUser("alice", "Alice")
		e.mustUser("gone", "Gone")
		if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "alice", Name: "Other Alice"}); err != nil {
			t.Fatal(err)
		}
		tok, goneTok := e.mustToken("alice"), e.mustToken("gone")
		otherTok, err := other.CreateAuthToken(e.ctx(), "alice", client.CreateAuthTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		port := e.srv.Listener.Addr().String()[strings.LastIndex(e.srv.Listener.Addr().String(), ":"):]
		host := func(app, region string) string { return app + ".api-" + region + "." + testDomain + port }
		token := func(v string, more ...string) map[string]string {
			h := map[string]string{"apikey": "", "authToken": v}
			for i := 0; i+1 < len(more); i += 2 {
				h[more[i]] = more[i+1]
			}
			return h
		}
		unknown := "alice_" + strings.Repeat("0", 40)
		// What HTTP decides (headers, hosts, the envelope) and a row per code; which tokens
		// authenticate for which app is chat's TestAuthTokenRules, without HTTP.
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"appId header names the app", request{method: "GET", path: "/v3/users/alice", headers: token(tok, "appId", "demo")}, 200, ""},
			{"appId header in upper case", request{method: "GET", path: "/v3/users/alice", headers: token(tok, "appId", "DEMO")}, 200, ""},
			{"host names the app", request{method: "GET", path: "/v3.0/users/alice", host: host("demo", "us"), headers: token(tok)}, 200, ""},
			{"the SDK's client host names the app", request{method: "GET", path: "/v3.0/users/alice", host: "demo.apiclient-us." + testDomain + port, headers: token(tok)}, 200, ""},
			{"the client host names another region", request{method: "GET", path: "/v3.0/users/alice", host: "demo.apiclient-eu." + testDomain + port, headers: token(tok)}, 401, "AUTH_ERR_INVALID_APPID"},
			{"the token's own app", request{method: "GET", path: "/v3/users/alice", headers: token(tok)}, 200, ""},
			{"header name in another case", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": "", "raw:AUTHTOKEN": tok}}, 200, ""},
			{"an empty apikey beside it", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"raw:apikey": "", "authToken": tok}}, 200, ""},
			{"an empty authToken beside a key", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"raw:Authtoken": ""}}, 200, ""},
			{"empty token", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": "", "raw:Authtoken": ""}}, 401, "AUTH_ERR_EMPTY_AUTH_TOKEN"},
			{"no credential at all", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY"},
			{"unknown token", request{method: "GET", path: "/v3/users/alice", headers: token(unknown)}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
			{"a huge token", request{method: "GET", path: "/v3/users/alice", headers: token(strings.Repeat("t", 4000))}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
			{"a token as an API key", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": tok}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"appId header names another app", request{method: "GET", path: "/v3/users/alice", headers: token(tok, "appId", "other")}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
			{"host names another app", request{method: "GET", path: "/v3/users/alice", host: host("other", "eu"), headers: token(tok)}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
			{"another app's token on this app's host", request{method: "GET", path: "/v3/users/alice", host: host("demo", "us"), headers: token(otherTok.AuthToken)}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
			{"appId names no app", request{method: "GET", path: "/v3/users/alice", headers: token(tok, "appId", "nope")}, 401, "AUTH_ERR_INVALID_APPID"},
			{"host names the wrong region", request{method: "GET", path: "/v3/users/alice", host: host("demo", "eu"), headers: token(tok)}, 401, "AUTH_ERR_INVALID_APPID"},
			{"a key and a token", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"authToken": tok}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"an authOnly key and a token", request{method: "POST", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": e.authKey, "authToken": tok}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(tc.r)
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				for _, s := range []string{tok, otherTok.AuthToken, goneTok, e.full, unknown} {
					if tc.status != 200 && strings.Contains(string(r.body), s) {
						t.Errorf("the error echoes a credential: %s", r.body)
					}
				}
				if tc.status != 200 && e.snapshot() != before {
					t.Error("a refused request wrote")
				}
			})
		}
		// The header twice, in any spelling, is ambiguous: refused whatever the values.
		for _, hdr := range []http.Header{
			{"Authtoken": {tok, tok}},
			{"Authtoken": {tok, ""}},
			{"Authtoken": {unknown, tok}},
			{"authToken": {tok}, "AUTHTOKEN": {tok}},
		} {
			req, err := http.NewRequest("GET", e.srv.URL+"/v3/users/alice", nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range hdr {
				req.Header[k] = v
			}
			res, err := e.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 401 || !strings.Contains(string(body), `"code":"AUTH_ERR_AUTH_TOKEN_NOT_FOUND"`) || strings.Contains(string(body), tok) {
				t.Errorf("%v: %d %s", hdr, res.StatusCode, body)
			}
		}
	})
}

// TestAuthTokenRouteAccess calls every route with a user's auth token: the operations of a
// client app run (as the token's user), every other is 403 AUTH_ERR_NO_ACCESS and writes
// nothing, and the endpoints natter lacks answer 501.
func TestAuthTokenRouteAccess(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "hi")
		tok := e.mustToken("alice")
		bobTok := e.mustToken("bob")
		h := map[string]string{"apikey": "", "authToken": tok}
		clientOps := map[string]int{ // route → status for alice's token
			"POST /messages":                             200,
			"POST /files/upload-url":                     501, // accepted; this env stores no files
			"GET /messages/{id}":                         200,
			"GET /messages/{id}/reactions":               200,
			"GET /messages/{id}/reactions/{reaction}":    200,
			"POST /messages/{id}/reactions/{reaction}":   200,
			"DELETE /messages/{id}/reactions/{reaction}": 200,
			"DELETE /messages/{id}":                      200, // alice sent it
			"GET /users":                                 200,
			"GET /users/{uid}":                           200,
			"PUT /users/{uid}":                           200, // her own
			// Groups, as their owner: what the rules refuse her (acting on herself, leaving
			// the group she owns) is refused by the group rules, not by the token.
			"POST /groups":                            200,
			"GET /groups":                             200,
			"GET /groups/{guid}":                      200,
			"PUT /groups/{guid}":                      200,
			"DELETE /groups/{guid}":                   200,
			"PATCH /groups/{guid}/owner":              200,
			"POST /groups/{guid}/members":             200,
			"GET /groups/{guid}/members":              200,
			"DELETE /groups/{guid}/members":           403,
			"PUT /groups/{guid}/members/{uid}":        403,
			"DELETE /groups/{guid}/members/{uid}":     403,
			"POST /groups/{guid}/bannedusers/{uid}":   403,
			"DELETE /groups/{guid}/bannedusers/{uid}": 403,
			"GET /groups/{guid}/bannedusers":          200,
			// The session.
			"PUT /me":             200,
			"GET /me":             200,
			"DELETE /me":          200,
			"GET /settings":       200,
			"POST /user_sessions": 200,
			// Webhooks are the app's, never a client's.
			"POST /webhooks":                403,
			"GET /webhooks":                 403,
			"GET /webhooks/{id}":            403,
			"PUT /webhooks/{id}":            403,
			"DELETE /webhooks/{id}":         403,
			"POST /webhooks/{id}/secrets":   403,
			"GET /webhooks/{id}/deliveries": 403,
			"POST /webhooks/{id}/replay":    403,
			// A user's own notification settings, as the client SDK calls them; the app's
			// settings are the app's (adminRoute).
			"GET /notifications/v1/preferences":              200,
			"PATCH /notifications/v1/preferences":            200,
			"DELETE /notifications/v1/preferences":           200,
			"GET /notifications/push/v1/preferences":         200,
			"PATCH /notifications/push/v1/preferences":       200,
			"DELETE /notifications/push/v1/preferences":      200,
			"GET /notifications/v1/preferences/mute":         200,
			"PUT /notifications/v1/preferences/mute":         200,
			"DELETE /notifications/v1/preferences/mute":      200,
			"GET /notifications/push/v1/preferences/mute":    200,
			"PUT /notifications/push/v1/preferences/mute":    200,
			"DELETE /notifications/push/v1/preferences/mute": 200,
			"GET /notifications/v1/preferences/timezone":     200,
			"PATCH /notifications/v1/preferences/timezone":   200,
			"GET /notifications/v1/contact-details":          200,
			"PATCH /notifications/v1/contact-details":        200,
			"DELETE /notifications/v1/contact-details":       200,
			// Notification providers are the app's; push tokens the client's, for its
			// own auth token (the provider is made below). DELETE of one token runs
			// before DELETE of them all, which finds none and still succeeds.
			"GET /notifications/push/v1/providers/fcm":                       403,
			"POST /notifications/push/v1/providers/fcm":                      403,
			"PUT /notifications/push/v1/providers/fcm":                       403,
			"DELETE /notifications/push/v1/providers/fcm/{providerId}":       403,
			"PUT /notifications/push/v1/providers/fcm/default/{providerId}":  403,
			"GET /notifications/push/v1/providers/apns":                      403,
			"POST /notifications/push/v1/providers/apns":                     403,
			"PUT /notifications/push/v1/providers/apns":                      403,
			"DELETE /notifications/push/v1/providers/apns/{providerId}":      403,
			"PUT /notifications/push/v1/providers/apns/default/{providerId}": 403,
			"GET /notifications/push/v1/providers/custom":                    403,
			"POST /notifications/push/v1/providers/custom":                   403,
			"PUT /notifications/push/v1/providers/custom":                    403,
			"DELETE /notifications/push/v1/providers/custom":                 403,
			"GET /notifications/sms/v1/providers/twilio":                     403,
			"POST /notifications/sms/v1/providers/twilio":                    403,
			"PUT /notifications/sms/v1/providers/twilio":                     403,
			"DELETE /notifications/sms/v1/providers/twilio":                  403,
			"GET /notifications/sms/v1/providers/custom":                     403,
			"POST /notifications/sms/v1/providers/custom":                    403,
			"PUT /notifications/sms/v1/providers/custom":                     403,
			"DELETE /notifications/sms/v1/providers/custom":                  403,
			"GET /notifications/email/v1/providers/sendgrid":                 403,
			"POST /notifications/email/v1/providers/sendgrid":                403,
			"PUT /notifications/email/v1/providers/sendgrid":                 403,
			"DELETE /notifications/email/v1/providers/sendgrid":              403,
			"GET /notifications/email/v1/providers/custom":                   403,
			"POST /notifications/email/v1/providers/custom":                  403,
			"PUT /notifications/email/v1/providers/custom":                   403,
			"DELETE /notifications/email/v1/providers/custom":                403,
			"POST /notifications/push/v1/tokens":                             200,
			"GET /notifications/push/v1/tokens":                              200,
			"DELETE /notifications/push/v1/tokens/{pushToken}":               200,
			"DELETE /notifications/push/v1/tokens":                           200,
		}
		e.mustGroup("g", "alice")
		e.mustFCMProvider("fcm-1")
		path := strings.NewReplacer("{id}", m.ID, "{reaction}", "x", "{uid}", "alice", "{guid}", "g", "{apiKey}", e.full, "{authToken}", bobTok,
			"{role}", "default", "{scope}", "participant", "{permission}", "sendMessage", "{providerId}", "fcm-1", "{pushToken}", "ptok-1")
		bodies := map[string]string{
			"POST /messages":                                 `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hey"}}`,
			"PUT /me":                                        `{"platform":"WEB"}`,
			"PUT /users/{uid}":                               `{"name":"Alice A."}`,
			"POST /users":                                    `{"uid":"carol","name":"Carol"}`,
			"POST /apikeys":                                  `{"name":"k","scope":"fullAccess"}`,
			"POST /groups":                                   `{"guid":"g2","name":"G2","type":"public"}`,
			"PUT /groups/{guid}":                             `{"name":"G"}`,
			"PATCH /groups/{guid}/owner":                     `{"owner":"alice"}`,
			"POST /groups/{guid}/members":                    `{"participants":["bob"]}`,
			"PUT /groups/{guid}/members/{uid}":               `{"scope":"moderator"}`,
			"PATCH /notifications/v1/preferences":            `{"groupPreferences":{"groupMessages":3}}`,
			"PATCH /notifications/push/v1/preferences":       `{"oneOnOnePreferences":{"oneOnOneMessages":1}}`,
			"PUT /notifications/v1/preferences/mute":         `{"conversations":[{"id":"bob","type":"oneOnOne","until":9999999999999}]}`,
			"DELETE /notifications/v1/preferences/mute":      `{"conversations":[{"id":"bob","type":"oneOnOne"}]}`,
			"PUT /notifications/push/v1/preferences/mute":    `{"conversations":[{"id":"g","type":"group","until":9999999999999}]}`,
			"DELETE /notifications/push/v1/preferences/mute": `{"conversations":[{"id":"g","type":"group"}]}`,
			"PATCH /notifications/v1/preferences/timezone":   `{"timezone":"Asia/Tokyo"}`,
			"PATCH /notifications/v1/contact-details":        `{"email":"alice@example.com"}`,
		}
		bodies["POST /notifications/push/v1/tokens"] = `{"platform":"fcm_web","providerId":"default","fcmToken":"ptok-1","timezone":"UTC"}`
		routes := httpapi.Routes()
		// The deletions last, so that the other routes find the message and the group.
		for _, last := range []string{"DELETE /messages/{id}", "DELETE /groups/{guid}"} {
			for i, rt := range routes {
				if rt == last {
					routes = append(append(routes[:i:i], routes[i+1:]...), rt)
					break
				}
			}
		}
		for _, rt := range routes {
			method, p, _ := strings.Cut(rt, " ")
			want, isClient := clientOps[rt]
			admin := adminRoute(rt)
			t.Run(rt, func(t *testing.T) {
				before := e.snapshot()
				hh := h
				if rt == "DELETE /me" { // logging out deletes the token: use one of its own
					hh = map[string]string{"apikey": "", "authToken": e.mustToken("alice")}
				}
				r := e.do(request{method: method, path: "/v3" + path.Replace(p), headers: hh, body: bodies[rt]})
				if !isClient && !admin {
					// The history and conversation routes: a client's, answered by their
					// own rules, never refused for the token.
					if r.code == "AUTH_ERR_NO_ACCESS" || r.status >= 500 {
						t.Fatalf("a client operation refused for its token: %d %s", r.status, r.body)
					}
					return
				}
				if admin {
					if r.status != 403 || r.code != "AUTH_ERR_NO_ACCESS" {
						t.Fatalf("an admin operation with a token: %d %s", r.status, r.body)
					}
					if e.snapshot() != before {
						t.Error("a refused request wrote")
					}
					return
				}
				if r.status != want {
					t.Fatalf("a client operation with a token: %d %s", r.status, r.body)
				}
			})
		}
		// The notification log is the app's: a token may not read it.
		if r := e.do(request{method: "GET", path: "/v3/notifications/v1/logs", headers: h}); r.status != 403 || r.code != "AUTH_ERR_NO_ACCESS" {
			t.Errorf("GET the notification log with a token: %d %s", r.status, r.body)
		}
		for _, p := range []string{"/v3/ai-agents/tools"} {
			if r := e.do(request{method: "POST", path: p, headers: h}); r.status != 501 || r.code != "ERR_NOT_IMPLEMENTED" {
				t.Errorf("POST %s with a token: %d %s", p, r.status, r.body)
			}
		}
		if r := e.do(request{method: "POST", path: "/v3/messages/" + m.ID + "/reactions/", headers: h}); r.status != 400 {
			t.Errorf("an empty reaction with a token: %d %s", r.status, r.body)
		}
	})
}

// TestClientAppWithAuthToken is what a client app does with its user's token: the acting
// user is the token's user, whatever onBehalfOf says, under the same rules as onBehalfOf.
func TestClientAppWithAuthToken(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustUser("carol", "Carol")
		aliceTok := e.mustToken("alice")
		alice, bob, carol := e.as(aliceTok), e.as(e.mustToken("bob")), e.as(e.mustToken("carol"))

		// onBehalfOf cannot make alice's token act as bob.
		m, err := alice.OnBehalfOf("bob").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user",
			Data: map[string]any{"text": "hi bob"}})
		if err != nil || m.Sender != "alice" || m.ConversationID != "alice_user_bob" {
			t.Fatalf("send: %+v %v", m, err)
		}
		r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"apikey": "", "authToken": aliceTok, "onBehalfOf": "carol"},
			body: `{"receiver":"bob","receiverType":"user","data":{"text":"again"}}`})
		if r.status != 200 || !strings.Contains(string(r.body), `"sender":"alice"`) {
			t.Fatalf("send with onBehalfOf: %d %s", r.status, r.body)
		}

		// Reactions mark the token's user; only the two parties see the message.
		got, err := bob.AddReaction(e.ctx(), m.ID, "👍")
		if err != nil || len(got.Data.Reactions) != 1 || !got.Data.Reactions[0].ReactedByMe {
			t.Fatalf("react: %+v %v", got, err)
		}
		if got, err := alice.GetMessage(e.ctx(), m.ID); err != nil || got.Data.Reactions[0].ReactedByMe {
			t.Fatalf("alice reads: %+v %v", got, err)
		}
		_, err = carol.GetMessage(e.ctx(), m.ID)
		apiErr(t, err, 403, "ERR_MESSAGE_NO_ACCESS")
		_, err = carol.AddReaction(e.ctx(), m.ID, "x")
		apiErr(t, err, 403, "ERR_MESSAGE_NO_ACCESS")
		if l, err := alice.ListReactions(e.ctx(), m.ID, client.ListReactionsParams{}); err != nil || len(l.Reactions) != 1 || l.Reactions[0].UID != "bob" {
			t.Fatalf("list reactions: %+v %v", l, err)
		}
		if _, err := bob.RemoveReaction(e.ctx(), m.ID, "👍"); err != nil {
			t.Fatal(err)
		}

		// Users are listed relative to the token's user.
		l, err := alice.ListUsers(e.ctx(), client.ListUsersParams{})
		if err != nil || len(l.Users) != 3 || l.Users[1].ConversationID != "alice_user_bob" {
			t.Fatalf("list users: %+v %v", l, err)
		}
		if u, err := alice.GetUser(e.ctx(), "bob"); err != nil || u.UID != "bob" {
			t.Fatalf("get another user: %+v %v", u, err)
		}

		// A user updates its own profile, never another's, and not its role.
		name := "Alice A."
		if u, err := alice.UpdateUser(e.ctx(), "ALICE", client.UpdateUserRequest{Name: &name}); err != nil || u.Name != name {
			t.Fatalf("update own profile: %+v %v", u, err)
		}
		_, err = alice.UpdateUser(e.ctx(), "bob", client.UpdateUserRequest{Name: &name})
		apiErr(t, err, 403, "AUTH_ERR_NO_ACCESS")
		before := e.snapshot()
		_, err = alice.UpdateUser(e.ctx(), "alice", client.UpdateUserRequest{Name: ptr("Admin"), Role: ptr("admin")})
		apiErr(t, err, 403, "AUTH_ERR_NO_ACCESS")
		if e.snapshot() != before {
			t.Error("a refused role change wrote")
		}
		if _, err := alice.UpdateUser(e.ctx(), "alice", client.UpdateUserRequest{Role: ptr("DEFAULT")}); err != nil {
			t.Fatalf("sending the role it has: %v", err)
		}

		// Only the sender deletes.
		_, err = bob.DeleteMessage(e.ctx(), m.ID, false)
		apiErr(t, err, 403, "ERR_MESSAGE_NOT_A_SENDER")
		if d, err := alice.DeleteMessage(e.ctx(), m.ID, false); err != nil || d.Sender != "alice" {
			t.Fatalf("delete own message: %+v %v", d, err)
		}
	})
}

// TestAuthTokenRevocation: a token stops working on this node as soon as it, or its user,
// goes, even while this node has it cached.
func TestAuthTokenRevocation(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		works := func(tok string) error {
			_, err := e.as(tok).ListUsers(e.ctx(), client.ListUsersParams{})
			return err
		}
		refused := func(what, tok string) {
			t.Helper()
			err := works(tok)
			if err == nil {
				t.Fatalf("%s: the token still works", what)
			}
			apiErr(t, err, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
		}
		one, two, three := e.mustToken("alice"), e.mustToken("alice"), e.mustToken("alice")
		for _, tok := range []string{one, two, three} {
			if err := works(tok); err != nil { // and now cached
				t.Fatal(err)
			}
		}
		if _, err := e.c.DeleteAuthToken(e.ctx(), "alice", one); err != nil {
			t.Fatal(err)
		}
		refused("deleted", one)
		if err := works(two); err != nil {
			t.Fatalf("deleting one token stopped another: %v", err)
		}
		if _, err := e.c.FlushAuthTokens(e.ctx(), "alice"); err != nil {
			t.Fatal(err)
		}
		refused("flushed", two)
		refused("flushed", three)

		// A deactivated user's tokens stop; reactivated, they work again.
		tok := e.mustToken("alice")
		if err := works(tok); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"alice"}); err != nil {
			t.Fatal(err)
		}
		refused("deactivated", tok)
		if _, err := e.c.ReactivateUsers(e.ctx(), []string{"alice"}); err != nil {
			t.Fatal(err)
		}
		if err := works(tok); err != nil {
			t.Fatalf("reactivated: %v", err)
		}
		// Deleted: soft, then for good, which takes the tokens along.
		if _, err := e.c.DeleteUser(e.ctx(), "alice", false); err != nil {
			t.Fatal(err)
		}
		refused("soft-deleted", tok)
		if n := e.count(`SELECT COUNT(*) FROM auth_tokens WHERE uid = 'alice'`); n != 0 {
			t.Errorf("a deleted user kept %d tokens", n)
		}
		bobTok := e.mustToken("bob")
		if err := works(bobTok); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeleteUser(e.ctx(), "bob", true); err != nil {
			t.Fatal(err)
		}
		refused("purged", bobTok)
		if n := e.count(`SELECT COUNT(*) FROM auth_tokens WHERE uid = 'bob'`); n != 0 {
			t.Errorf("a purged user left %d tokens", n)
		}
		// A purged user's uid made again has no token of the old one.
		e.mustUser("bob", "Bob again")
		refused("uid reused", bobTok)
	})
}

// TestAuthTokenCacheBoundsStaleness: two services on one database stand for two nodes. A
// token deleted through one stops working there at once and on the other within the cache
// TTL, as keys do.
func TestAuthTokenCacheBoundsStaleness(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			cfg := defaultConfigWithTTL(300 * time.Millisecond)
			e := newEnv(t, backend, cfg)
			e.mustUser("alice", "Alice")
			tok := e.mustToken("alice")
			node2 := client.New(e.secondNode(cfg), "", client.WithHTTPClient(e.http)).WithAuthToken(tok)
			node1 := e.as(tok)
			for _, c := range []*client.Client{node1, node2} { // both nodes cache it
				if _, err := c.GetUser(e.ctx(), "alice"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.c.DeleteAuthToken(e.ctx(), "alice", tok); err != nil {
				t.Fatal(err)
			}
			_, err := node1.GetUser(e.ctx(), "alice")
			apiErr(t, err, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
			deadline := time.Now().Add(2 * time.Second)
			for {
				began := time.Now() // a request begun in time may answer late on a loaded machine
				_, err := node2.GetUser(e.ctx(), "alice")
				if err != nil {
					apiErr(t, err, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
					return
				}
				if began.After(deadline) {
					t.Fatal("a deleted token still works on the second node after 2s with a 300ms cache")
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// adminRoute reports whether a route is for server-side apps only: API keys, users in bulk
// and their deletion, auth tokens, friends, blocks, bots, usage metrics and attaching call
// transcriptions.
func adminRoute(rt string) bool {
	switch rt {
	case "POST /users", "PUT /users", "DELETE /users", "DELETE /users/{uid}", "POST /calls/{sessionId}/transcriptions":
		return true
	}
	_, p, _ := strings.Cut(rt, " ")
	return strings.HasPrefix(p, "/apikeys") || strings.HasPrefix(p, "/bots/") || strings.Contains(p, "/auth_tokens") ||
		strings.HasSuffix(p, "/friends") || strings.HasSuffix(p, "/users/{uid}/blockedusers") || p == "/conversations/pinned" ||
		strings.HasPrefix(p, "/stats") || p == "/notifications/v1/settings" || p == "/notifications/v1/logs" ||
		strings.HasPrefix(p, "/roles") || strings.Contains(p, "/scopes/") || strings.HasPrefix(p, "/data_import/") ||
		strings.HasPrefix(p, "/moderation/") && !strings.HasPrefix(rt, "GET /moderation/reasons") ||
		strings.HasPrefix(p, "/ai-agents")
}
