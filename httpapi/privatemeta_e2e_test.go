package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/realtime"
)

// privateMeta is the metadata of the users whose metadata.@private other users must not read.
const privateMeta = `{"team":"red","@private":{"email":"secret@example.com","phone":"+15550100"}}`

// TestPrivateMetadata: a user's metadata.@private (its contact details, on the hosted
// service) is read by the user and by the app's key acting as no one; every path that hands
// a user object to another user — user get and list, members, bans, blocks, friends,
// conversations, reactions — leaves it out, keeping the rest of the metadata.
func TestPrivateMetadata(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "cat"} {
			r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"` + u + `","name":"` + u + `","metadata":` + privateMeta + `}`})
			if r.status != 200 || !strings.Contains(string(r.body), "secret@example.com") {
				t.Fatalf("create %s: %d %s", u, r.status, r.body)
			}
		}
		e.mustUser("bob", "bob")
		e.mustGroup("g", "ann", "bob")
		e.ok(request{method: "POST", path: "/v3/groups/g/bannedusers/cat"})
		e.ok(request{method: "POST", path: "/v3/users/bob/friends", body: `{"accepted":["ann"]}`})
		m := e.send("ann", "bob", "user", "hi")
		e.ok(request{method: "POST", path: "/v3/messages/" + m + "/reactions/x", headers: obo("ann")})
		annTok, _ := e.login("ann")
		bobTok, _ := e.login("bob")
		asBob := map[string]string{"apikey": "", "authToken": bobTok}
		asAnn := map[string]string{"apikey": "", "authToken": annTok}

		// shown asserts that a request answers 200 with the public metadata, and with the
		// private part exactly when want.
		shown := func(what string, r request, want bool) {
			t.Helper()
			res := e.do(r)
			body := string(res.body)
			if res.status != 200 || !strings.Contains(body, `"team":"red"`) {
				t.Errorf("%s: %d %s, want 200 with the public metadata", what, res.status, body)
				return
			}
			if got := strings.Contains(body, "secret@example.com") || strings.Contains(body, "@private"); got != want {
				t.Errorf("%s: metadata.@private shown = %v, want %v: %s", what, got, want, body)
			}
		}
		// Other users: never.
		for name, h := range map[string]map[string]string{"bob's token": asBob, "the key on bob's behalf": obo("bob")} {
			shown(name+": GET /users/ann", request{method: "GET", path: "/v3/users/ann", headers: h}, false)
			shown(name+": GET /users", request{method: "GET", path: "/v3/users", headers: h}, false)
			shown(name+": members", request{method: "GET", path: "/v3/groups/g/members", headers: h}, false)
			shown(name+": banned users", request{method: "GET", path: "/v3/groups/g/bannedusers", headers: h}, false)
			shown(name+": conversations", request{method: "GET", path: "/v3/conversations", headers: h}, false)
			shown(name+": the conversation with ann", request{method: "GET", path: "/v3/users/ann/conversation", headers: h}, false)
			shown(name+": reactions", request{method: "GET", path: "/v3/messages/" + m + "/reactions", headers: h}, false)
		}
		shown("friends on bob's behalf", request{method: "GET", path: "/v3/users/bob/friends", headers: obo("bob")}, false)
		e.ok(request{method: "POST", path: "/v3/blockedusers", headers: asBob, body: `{"blockedUids":["ann"]}`})
		shown("bob's token: blocked users", request{method: "GET", path: "/v3/blockedusers", headers: asBob}, false)
		shown("the key on bob's behalf: blocked users", request{method: "GET", path: "/v3/users/bob/blockedusers", headers: obo("bob")}, false)
		e.ok(request{method: "DELETE", path: "/v3/blockedusers", headers: asBob, body: `{"blockedUids":["ann"]}`})

		// The user itself, and the app.
		shown("ann's token: GET /users/ann", request{method: "GET", path: "/v3/users/ann", headers: asAnn}, true)
		shown("ann's token: GET /me", request{method: "GET", path: "/v3/me", headers: asAnn}, true)
		shown("the key on ann's behalf: GET /users/ann", request{method: "GET", path: "/v3/users/ann", headers: obo("ann")}, true)
		shown("the key: GET /users/ann", request{method: "GET", path: "/v3/users/ann"}, true)
		shown("the key: GET /users", request{method: "GET", path: "/v3/users"}, true)
		shown("the key: members", request{method: "GET", path: "/v3/groups/g/members"}, true)
		shown("the key: banned users", request{method: "GET", path: "/v3/groups/g/bannedusers"}, true)
		shown("the key: friends", request{method: "GET", path: "/v3/users/bob/friends"}, true)
		shown("the key: update", request{method: "PUT", path: "/v3/users/ann", body: `{"name":"Ann"}`}, true)
		// An authOnly key acting as no one is not the app's server.
		if r := e.do(request{method: "POST", path: "/v3/users/ann/auth_tokens", headers: map[string]string{"apikey": e.authKey}}); r.status != 200 || strings.Contains(string(r.body), "secret@example.com") {
			t.Errorf("an authOnly key's login answer: %d %s", r.status, r.body)
		}
	})
}

// TestPrivateMetadataSockets: socket frames carry a user to other users — presence, typing,
// a reaction by a member who is neither the message's sender nor its receiver — without
// metadata.@private.
func TestPrivateMetadataSockets(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			e := realtimeEnv(t, b, realtime.HubOptions{})
			if r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"ann","name":"ann","metadata":` + privateMeta + `}`}); r.status != 200 {
				t.Fatalf("create ann: %d %s", r.status, r.body)
			}
			e.mustUser("bob", "bob")
			e.mustGroup("g", "bob", "ann")
			bob := e.connect("bob", "ALL_USERS")
			ann := e.connect("ann", "")
			private := func(what string, f map[string]json.RawMessage) {
				t.Helper()
				body := string(f["body"])
				if !strings.Contains(body, `"team":"red"`) || strings.Contains(body, "@private") || strings.Contains(body, "secret@example.com") {
					t.Errorf("%s frame: %s, want ann's public metadata only", what, body)
				}
			}
			for {
				f := bob.next("presence")
				if str(f["sender"]) == "ann" {
					private("presence", f)
					break
				}
			}
			ann.send(`{"receiver":"bob","receiverType":"user","type":"typing_indicator","body":{"action":"started"}}`)
			private("typing", bob.next("typing_indicator"))
			m, err := bob.c.SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "g", ReceiverType: "group", Category: "message", Type: "text", Data: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ann.c.AddReaction(e.ctx(), m.ID, "x"); err != nil {
				t.Fatal(err)
			}
			private("reaction", bob.next("reaction"))
		})
	}
}
