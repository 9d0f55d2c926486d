package httpapi_test

import (
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

func TestAddressingAndAuth(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		_, otherKey := e.newApp("other", "eu")
		e.mustUser("alice", "Alice")
		port := e.srv.Listener.Addr().String()[strings.LastIndex(e.srv.Listener.Addr().String(), ":"):]
		host := func(app, region string) string { return app + ".api-" + region + "." + testDomain + port }
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"key alone names the app", request{method: "GET", path: "/v3/users/alice"}, 200, ""},
			{"v3.0 prefix", request{method: "GET", path: "/v3.0/users/alice"}, 200, ""},
			{"host names the app", request{method: "GET", path: "/v3/users/alice", host: host("demo", "us")}, 200, ""},
			{"host in upper case", request{method: "GET", path: "/v3/users/alice", host: strings.ToUpper(host("demo", "us"))}, 200, ""},
			{"header name in upper case", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": "", "raw:APIKEY": e.full}}, 200, ""},
			{"appId header matches", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"appId": "demo"}}, 200, ""},
			{"missing key", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY"},
			{"unknown key", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": strings.Repeat("0", 40)}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"huge key", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"apikey": strings.Repeat("k", 4000)}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"host names another app", request{method: "GET", path: "/v3/users/alice", host: host("other", "eu")}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"host names the wrong region", request{method: "GET", path: "/v3/users/alice", host: host("demo", "eu")}, 401, "AUTH_ERR_INVALID_APPID"},
			{"host names an unknown region", request{method: "GET", path: "/v3/users/alice", host: host("demo", "xx")}, 401, "AUTH_ERR_INVALID_APPID"},
			{"host names an unknown app", request{method: "GET", path: "/v3/users/alice", host: host("nope", "us")}, 401, "AUTH_ERR_INVALID_APPID"},
			{"appId header names another app", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"appId": "other"}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"appId header names no app", request{method: "GET", path: "/v3/users/alice", headers: map[string]string{"appId": "nope"}}, 401, "AUTH_ERR_INVALID_APPID"},
			{"other app's key on this app's host", request{method: "GET", path: "/v3/users/alice", host: host("demo", "us"), headers: map[string]string{"apikey": otherKey}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
			{"authOnly key may create users", request{method: "POST", path: "/v3/users", body: `{"uid":"bob","name":"Bob"}`, headers: map[string]string{"apikey": e.authKey}}, 200, ""},
			{"authOnly key may not read users", request{method: "GET", path: "/v3/users", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key may not react", request{method: "POST", path: "/v3/messages/1/reactions/x", headers: map[string]string{"apikey": e.authKey, "onBehalfOf": "alice"}}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key may not manage keys", request{method: "GET", path: "/v3/apikeys", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.r)
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if strings.Contains(string(r.body), e.full) || strings.Contains(string(r.body), e.authKey) {
					t.Errorf("a response echoes a key: %s", r.body)
				}
			})
		}
	})
}

func TestErrorEnvelope(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, p := range []string{"/v3/nothing/here", "/v3//users", "/v3/users/../users", "/v4/users"} {
			r := e.do(request{method: "GET", path: p})
			if r.status != 404 || r.code != "ERR_API_NOT_FOUND" {
				t.Errorf("%s: %d %s", p, r.status, r.body)
			}
		}
		r := e.do(request{method: "POST", path: "/v3/apikeys/" + e.full})
		if r.status != 405 || strings.Contains(string(r.body), e.full) {
			t.Errorf("405 on a key path: %d %s", r.status, r.body)
		}
		r = e.do(request{method: "PATCH", path: "/v3/users/alice"})
		if r.status != 405 || r.code != "ERR_METHOD_NOT_ALLOWED" || !strings.Contains(r.header.Get("Allow"), "PUT") {
			t.Errorf("wrong method: %d %v %s", r.status, r.header, r.body)
		}
		// A feature natter lacks answers 501 to any valid key, and only after authentication.
		for _, tc := range []struct {
			name, method, path, key string
			status                  int
			code                    string
		}{
			{"fullAccess key", "POST", "/v3/ai-agents/tools", e.full, 501, "ERR_NOT_IMPLEMENTED"},
			{"authOnly key", "POST", "/v3.0/ai-agents/tools", e.authKey, 501, "ERR_NOT_IMPLEMENTED"},
			{"any method", "GET", "/v3/ai-agents/tools", e.full, 501, "ERR_NOT_IMPLEMENTED"},
			{"no key", "GET", "/v3/threads", "", 401, "AUTH_ERR_EMPTY_APIKEY"},
			{"unknown key", "PUT", "/v3/messages/1", strings.Repeat("0", 40), 401, "AUTH_ERR_APIKEY_NOT_FOUND"},
		} {
			r = e.do(request{method: tc.method, path: tc.path, headers: map[string]string{"apikey": tc.key}})
			if r.status != tc.status || r.code != tc.code {
				t.Errorf("not yet implemented, %s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
			}
		}
		before := e.snapshot()
		r = e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"big","name":"` + strings.Repeat("x", 70<<10) + `"}`})
		if r.status != 413 || r.code != "ERR_BAD_REQUEST" {
			t.Errorf("oversized body: %d %s", r.status, r.body)
		}
		if e.snapshot() != before {
			t.Error("an oversized body wrote")
		}
		golden(t, "error_uid_not_found", e.do(request{method: "GET", path: "/v3/users/123123"}).body)
		golden(t, "error_validation", e.do(request{method: "POST", path: "/v3/users", body: `{}`}).body)
	})
}

func TestTenantIsolation(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		other, _ := e.newApp("other", "us")
		for _, c := range []*client.Client{e.c, other} {
			for _, uid := range []string{"alice", "bob"} {
				if _, err := c.CreateUser(e.ctx(), client.CreateUserRequest{UID: uid, Name: uid + " of some app"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		mine := e.mustText("alice", "bob", "for demo only")
		if _, err := e.c.OnBehalfOf("alice").AddReaction(e.ctx(), mine.ID, "👍"); err != nil {
			t.Fatal(err)
		}
		name := "renamed in other"
		if _, err := other.UpdateUser(e.ctx(), "alice", client.UpdateUserRequest{Name: &name}); err != nil {
			t.Fatal(err)
		}
		// The other app sees none of demo's message, cannot react to it, list it or delete it.
		_, err := other.GetMessage(e.ctx(), mine.ID)
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		_, err = other.OnBehalfOf("alice").AddReaction(e.ctx(), mine.ID, "👎")
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		_, err = other.ListReactions(e.ctx(), mine.ID, client.ListReactionsParams{})
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		_, err = other.OnBehalfOf("alice").DeleteMessage(e.ctx(), mine.ID, false)
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		// Demo's users are untouched by the other app's writes, and the other way round.
		u, err := e.c.GetUser(e.ctx(), "alice")
		if err != nil || u.Name != "alice of some app" {
			t.Fatalf("demo's alice: %+v %v", u, err)
		}
		got, err := e.c.GetMessage(e.ctx(), mine.ID)
		if err != nil || len(got.Data.Reactions) != 1 || got.Data.Entities.Sender.Entity.Name != "alice of some app" {
			t.Fatalf("demo's message: %+v %v", got, err)
		}
		if _, err := other.DeleteUser(e.ctx(), "bob", true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.GetUser(e.ctx(), "bob"); err != nil {
			t.Fatalf("purging other's bob touched demo's bob: %v", err)
		}
		if n := e.count("SELECT COUNT(*) FROM messages WHERE app_id = 'demo'"); n != 1 {
			t.Fatalf("demo has %d messages", n)
		}
		l, err := other.ListUsers(e.ctx(), client.ListUsersParams{})
		if err != nil || l.Pagination.Total != 1 {
			t.Fatalf("other's users: %+v %v", l, err)
		}
	})
}
