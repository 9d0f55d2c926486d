package httpapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestBlockedUsers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.send("bob", "ann", "user", "before the block")
		r := e.do(request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["BOB","ann","ghost","bob"]}`})
		if r.status != 200 {
			t.Fatalf("block: %d %s", r.status, r.body)
		}
		var res struct {
			Data map[string]struct {
				Success bool
				Code    string
			}
		}
		json.Unmarshal(r.body, &res)
		if !res.Data["bob"].Success || res.Data["ann"].Code != "ERR_CANNOT_BLOCK_SELF" || res.Data["ghost"].Code != "ERR_UID_NOT_FOUND" || len(res.Data) != 3 {
			t.Fatalf("block results: %s", r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM blocks`); n != 1 {
			t.Fatalf("%d blocks, want 1", n)
		}
		// Blocking again changes nothing.
		e.ok(request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["bob"]}`})

		// Neither side can message the other; a group is not stopped.
		before := e.snapshot()
		for _, tc := range []struct{ from, to, code string }{{"ann", "bob", "ERR_BLOCKED_RECEIVER"}, {"bob", "ann", "ERR_BLOCKED_SENDER"}} {
			r := e.do(request{method: "POST", path: "/v3/messages", headers: obo(tc.from), body: `{"receiver":"` + tc.to + `","receiverType":"user","data":{"text":"x"}}`})
			if r.status != 403 || r.code != tc.code {
				t.Errorf("%s to %s: %d %s", tc.from, tc.to, r.status, r.body)
			}
		}
		if e.snapshot() != before {
			t.Fatal("a refused send wrote")
		}
		e.mustGroup("g", "ann", "bob")
		e.send("bob", "g", "group", "in the group")
		e.send("cat", "ann", "user", "from cat")

		// Lists: the block fields with onBehalfOf, the blocked list in both directions.
		got := e.ok(request{method: "GET", path: "/v3/users/bob", headers: obo("ann")})
		if got["blockedByMe"] != true || got["blockedByMeAt"] == nil || got["hasBlockedMe"] != false {
			t.Fatalf("bob as ann sees him: %v", got)
		}
		got = e.ok(request{method: "GET", path: "/v3/users/ann", headers: obo("bob")})
		if got["hasBlockedMe"] != true || got["blockedAt"] == nil || got["blockedByMe"] != false {
			t.Fatalf("ann as bob sees her: %v", got)
		}
		if got := e.ok(request{method: "GET", path: "/v3/users/bob"}); got["blockedByMe"] != nil {
			t.Fatalf("without onBehalfOf: %v", got)
		}
		users, _ := e.list(request{method: "GET", path: "/v3/users", headers: obo("ann")})
		for _, u := range users {
			if (u["uid"] == "bob") != (u["blockedByMe"] == true) {
				t.Fatalf("users list as ann: %v", users)
			}
		}
		for q, want := range map[string]string{"": "bob", "?direction=hasBlockedMe": "", "?direction=both": "bob"} {
			l, _ := e.list(request{method: "GET", path: "/v3/users/ann/blockedusers" + q})
			var uids []string
			for _, u := range l {
				uids = append(uids, u["uid"].(string))
			}
			if strings.Join(uids, ",") != want {
				t.Errorf("ann's blocked %s: %v", q, uids)
			}
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/users/bob/blockedusers?direction=hasBlockedMe"}); len(l) != 1 || l[0]["uid"] != "ann" || l[0]["hasBlockedMe"] != true {
			t.Fatalf("who blocked bob: %v", l)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/users/ann/blockedusers"}); l[0]["blockedAt"] != l[0]["blockedByMeAt"] || l[0]["conversationId"] != "ann_user_bob" {
			t.Fatalf("ann's blocked list: %v", l)
		}
		if !strings.Contains(string(r.body), `"message":"The user with UID ann has blocked user with UID bob successfully."`) {
			t.Fatalf("block message: %s", r.body)
		}
		// hideMessagesFromBlockedUsers hides bob's messages from ann's lists.
		if l := e.messages(request{method: "GET", path: "/v3/groups/g/messages?categories=message&hideMessagesFromBlockedUsers=true", headers: obo("ann")}); len(l.Data) != 0 {
			t.Fatalf("group list without bob: %s", l.texts())
		}
		if l := e.messages(request{method: "GET", path: "/v3/messages?hideMessagesFromBlockedUsers=true&categories=message&limit=100", headers: obo("ann")}); l.texts() != "from cat" {
			t.Fatalf("ann's messages without bob's: %s", l.texts())
		}

		before = e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"no list", request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{}`}, 400, "ERR_BAD_REQUEST"},
			{"26 uids", request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":[` + strings.Repeat(`"x",`, 25) + `"y"]}`}, 400, "ERR_BAD_REQUEST"},
			{"unknown blocker", request{method: "POST", path: "/v3/users/ghost/blockedusers", body: `{"blockedUids":["bob"]}`}, 404, "ERR_UID_NOT_FOUND"},
			{"bad direction", request{method: "GET", path: "/v3/users/ann/blockedusers?direction=sideways"}, 400, "ERR_BAD_REQUEST"},
			{"hide without onBehalfOf", request{method: "GET", path: "/v3/messages?hideMessagesFromBlockedUsers=true"}, 400, "ERR_BAD_REQUEST"},
			{"authOnly key", request{method: "POST", path: "/v3/users/ann/blockedusers", headers: map[string]string{"apikey": e.authKey}, body: `{"blockedUids":["cat"]}`}, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}

		// Unblocking lets them talk again.
		e.ok(request{method: "DELETE", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["bob"]}`})
		e.send("ann", "bob", "user", "hello again")
	})
}

// TestMyBlockedUsers: /blockedusers is the acting user's own blocks, as the client SDK's
// blockUsers, unblockUsers and BlockedUsersRequestBuilder call it with an auth token (or a key
// with onBehalfOf), paged as the builder pages (per_page, page).
func TestMyBlockedUsers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat", "dan"} {
			e.mustUser(u, u)
		}
		token, _ := e.login("ann")
		asAnn := map[string]string{"apikey": "", "authToken": token}
		r := e.do(request{method: "POST", path: "/v3/blockedusers", headers: asAnn, body: `{"blockedUids":["bob","cat","dan","ann"]}`})
		if r.status != 200 || !strings.Contains(string(r.body), `"message":"The user with UID ann has blocked user with UID bob successfully."`) ||
			!strings.Contains(string(r.body), `"code":"ERR_CANNOT_BLOCK_SELF"`) {
			t.Fatalf("block as ann: %d %s", r.status, r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM blocks WHERE uid = 'ann'`); n != 3 {
			t.Fatalf("%d blocks by ann, want 3", n)
		}
		var pages []string
		for page := 1; page <= 3; page++ {
			l, _ := e.list(request{method: "GET", path: "/v3/blockedusers?perPage=2&direction=blockedByMe&page=" + strconv.Itoa(page), headers: asAnn})
			pages = append(pages, uids(l, "uid"))
		}
		if strings.Join(pages, "|") != "bob,cat|dan|" {
			t.Fatalf("ann's blocked, by pages of 2: %q", pages)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/blockedusers?direction=hasBlockedMe", headers: obo("bob")}); uids(l, "uid") != "ann" || l[0]["conversationId"] != "ann_user_bob" {
			t.Fatalf("who blocked bob, with onBehalfOf: %v", l)
		}
		e.ok(request{method: "DELETE", path: "/v3/blockedusers", headers: asAnn, body: `{"blockedUids":["cat"]}`})
		if l, _ := e.list(request{method: "GET", path: "/v3/users/ann/blockedusers"}); uids(l, "uid") != "bob,dan" {
			t.Fatalf("after unblocking cat: %v", l)
		}
		before := e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"a key acting as no one", request{method: "POST", path: "/v3/blockedusers", body: `{"blockedUids":["cat"]}`}, 400, "ERR_BAD_REQUEST"},
			{"list acting as no one", request{method: "GET", path: "/v3/blockedusers"}, 400, "ERR_BAD_REQUEST"},
			{"an unknown acting user", request{method: "GET", path: "/v3/blockedusers", headers: obo("ghost")}, 404, "ERR_UID_NOT_FOUND"},
			{"bad direction", request{method: "GET", path: "/v3/blockedusers?direction=sideways", headers: asAnn}, 400, "ERR_BAD_REQUEST"},
			{"the app's route with a token", request{method: "GET", path: "/v3/users/ann/blockedusers", headers: asAnn}, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
	})
}
