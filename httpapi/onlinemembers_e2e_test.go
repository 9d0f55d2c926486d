package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/realtime"
)

// TestOnlineMembers: the SDK's getOnlineUserCount and getOnlineGroupMemberCount post to
// /api/{version}/online-members with the socket credential in Authorization; REST clients
// post to /v3/online-members. Both count the users with a socket open, and the online
// members of the groups the caller may list the members of.
func TestOnlineMembers(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{})
			for _, u := range []string{"alice", "bob", "carol", "dave", "erin"} {
				e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
			}
			for _, g := range []client.CreateGroupRequest{
				{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice", Members: &client.MemberLists{Participants: []string{"bob", "erin"}}},
				{GUID: "hideout", Name: "Hideout", Type: "private", Owner: "carol", Members: &client.MemberLists{Participants: []string{"dave"}}},
				{GUID: "club", Name: "Club", Type: "public", Owner: "carol", Members: &client.MemberLists{Participants: []string{"bob"}}},
			} {
				if _, err := e.c.CreateGroup(e.ctx(), g); err != nil {
					t.Fatal(err)
				}
			}
			// erin is banned from crew: no member any more, and counted in none of its counts.
			e.ok(request{method: "POST", path: "/v3/groups/crew/bannedusers/erin"})
			alice, bob, carol, erin := e.connect("alice", "all"), e.connect("bob", "all"), e.connect("carol", "all"), e.connect("erin", "all")
			for _, w := range []*wsClient{alice, bob, carol, erin} {
				w.sync() // the socket's presence is recorded before its writer starts
			}
			sdk := func(jwt, body string) request {
				return request{method: "POST", path: "/api/v3.0/online-members", body: body,
					headers: map[string]string{"apikey": "", "Authorization": jwt, "appId": "demo"}}
			}
			counts := func(r request) (int64, map[string]int64) {
				t.Helper()
				res := e.do(r)
				var out struct {
					Data struct {
						OnlineUsersCount *int64           `json:"onlineUsersCount"`
						Groups           map[string]int64 `json:"groups"`
					} `json:"data"`
				}
				if res.status != 200 || json.Unmarshal(res.body, &out) != nil || out.Data.OnlineUsersCount == nil || out.Data.Groups == nil {
					t.Fatalf("%s %s %s: %d %s", r.method, r.path, r.body, res.status, res.body)
				}
				return *out.Data.OnlineUsersCount, out.Data.Groups
			}
			check := func(what string, r request, wantUsers int64, wantGroups map[string]int64) {
				t.Helper()
				users, groups := counts(r)
				if users != wantUsers || !cmp.Equal(groups, wantGroups) {
					t.Errorf("%s: onlineUsersCount %d, groups %v; want %d, %v", what, users, groups, wantUsers, wantGroups)
				}
			}
			all := `{"groups":["crew","hideout","club","nowhere","CREW"]}`
			check("getOnlineUserCount (no body)", sdk(alice.jwt, ""), 4, map[string]int64{})
			check("getOnlineUserCount (Bearer)", sdk("Bearer "+alice.jwt, "{}"), 4, map[string]int64{})
			// alice is in crew only: hideout is private and club public, but she lists the
			// members of neither; nowhere does not exist. A guid is case-insensitive.
			check("alice's groups", sdk(alice.jwt, all), 4, map[string]int64{"crew": 2})
			check("carol's groups", sdk(carol.jwt, all), 4, map[string]int64{"hideout": 1, "club": 2})
			// erin, banned from crew, sees none of it.
			check("erin's groups", sdk(erin.jwt, all), 4, map[string]int64{})
			// The REST form: an API key sees every group; onBehalfOf as that user's client.
			check("API key", request{method: "POST", path: "/v3/online-members", body: all}, 4, map[string]int64{"crew": 2, "hideout": 1, "club": 2})
			check("API key, onBehalfOf bob", request{method: "POST", path: "/v3.0/online-members", body: all, headers: map[string]string{"onBehalfOf": "bob"}},
				4, map[string]int64{"crew": 2, "club": 2})
			got, err := alice.c.OnlineMembers(e.ctx(), "crew", "club")
			if err != nil || got.OnlineUsersCount != 4 || !cmp.Equal(got.Groups, map[string]int64{"crew": 2}) {
				t.Errorf("the Go client as alice: %+v, %v", got, err)
			}

			// Another app's key counts its own users, none online.
			other, _ := e.newApp("other", "us")
			if got, err := other.OnlineMembers(e.ctx(), "crew"); err != nil || got.OnlineUsersCount != 0 || len(got.Groups) != 0 {
				t.Errorf("another app: %+v, %v", got, err)
			}

			// bob goes offline: no longer counted, anywhere.
			bob.ws.Close(websocket.StatusNormalClosure, "")
			deadline := time.Now().Add(loadedWait)
			for {
				users, groups := counts(sdk(alice.jwt, `{"groups":["crew"]}`))
				if users == 3 && groups["crew"] == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after bob's socket closed: %d online, crew %d; want 3 and 1", users, groups["crew"])
				}
				time.Sleep(20 * time.Millisecond)
			}

			// Refusals: each is an error envelope, never a count.
			tooMany := make([]string, 101)
			for i := range tooMany {
				tooMany[i] = fmt.Sprintf("g%d", i)
			}
			many, _ := json.Marshal(map[string]any{"groups": tooMany})
			for _, c := range []struct {
				name   string
				r      request
				status int
				code   string
			}{
				{"SDK path: a credential that is no socket credential", sdk("not-a-jwt", ""), 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
				{"SDK path: an empty Authorization", request{method: "POST", path: "/api/v3.0/online-members",
					headers: map[string]string{"apikey": "", "raw:Authorization": "", "appId": "demo"}}, 401, "AUTH_ERR_EMPTY_AUTH_TOKEN"},
				{"SDK path: alice's credential for another app", request{method: "POST", path: "/api/v3.0/online-members",
					headers: map[string]string{"apikey": "", "Authorization": alice.jwt, "appId": "other"}}, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
				{"SDK path: a credential with a forged signature", sdk(alice.jwt[:strings.LastIndexByte(alice.jwt, '.')]+".AAAA", ""), 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"},
				{"SDK path: neither Authorization nor a key", request{method: "POST", path: "/api/v3.0/online-members", headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY"},
				{"SDK path: GET", request{method: "GET", path: "/api/v3.0/online-members", headers: map[string]string{"apikey": "", "Authorization": alice.jwt}}, 405, "ERR_METHOD_NOT_ALLOWED"},
				{"groups not a list", sdk(alice.jwt, `{"groups":"crew"}`), 400, "ERR_BAD_REQUEST"},
				{"a group that cannot be a guid", sdk(alice.jwt, `{"groups":["crew","no such guid!"]}`), 400, "ERR_BAD_REQUEST"},
				{"an empty guid", sdk(alice.jwt, `{"groups":[""]}`), 400, "ERR_BAD_REQUEST"},
				{"more than 100 groups", sdk(alice.jwt, string(many)), 400, "ERR_BAD_REQUEST"},
				{"a body that is not JSON", sdk(alice.jwt, `groups=crew`), 400, "ERR_BAD_REQUEST"},
				{"REST: an unknown onBehalfOf", request{method: "POST", path: "/v3/online-members", body: `{}`, headers: map[string]string{"onBehalfOf": "nobody"}}, 404, "ERR_UID_NOT_FOUND"},
				{"REST: no credential", request{method: "POST", path: "/v3/online-members", body: `{}`, headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY"},
				{"REST: an authOnly key", request{method: "POST", path: "/v3/online-members", body: `{}`, headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
			} {
				if res := e.do(c.r); res.status != c.status || res.code != c.code {
					t.Errorf("%s: %d %s, want %d %s", c.name, res.status, res.body, c.status, c.code)
				}
			}

			// A logged-out session's credential is refused at once (its auth token is gone).
			if _, err := alice.c.Logout(e.ctx()); err != nil {
				t.Fatal(err)
			}
			if res := e.do(sdk(alice.jwt, "")); res.status != 401 {
				t.Errorf("after logout: %d %s, want 401", res.status, res.body)
			}
		})
	}
}

// TestOnlineMembersAcrossNodes: on PostgreSQL, alice's socket is on node A and bob's on node
// B; either node counts both, and counts bob out once his socket on B closes.
func TestOnlineMembersAcrossNodes(t *testing.T) {
	t.Parallel()
	a := newEnvHub(t, "postgres", chat.Config{}, httpapi.Options{}, &realtime.HubOptions{})
	a.mustUser("alice", "Alice")
	a.mustUser("bob", "Bob")
	if _, err := a.c.CreateGroup(a.ctx(), client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
		Members: &client.MemberLists{Participants: []string{"bob"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := a.hubNode(chat.Config{})
	alice, bob := a.connect("alice", ""), b.connect("bob", "")
	alice.sync()
	bob.sync()
	// count asks node e the SDK's way, with alice's socket credential.
	count := func(e *env) (int64, int64) {
		t.Helper()
		res := e.do(request{method: "POST", path: "/api/v3.0/online-members", body: `{"groups":["crew"]}`,
			headers: map[string]string{"apikey": "", "Authorization": alice.jwt, "appId": "demo"}})
		var out struct {
			Data struct {
				OnlineUsersCount int64            `json:"onlineUsersCount"`
				Groups           map[string]int64 `json:"groups"`
			} `json:"data"`
		}
		if res.status != 200 || json.Unmarshal(res.body, &out) != nil {
			t.Fatalf("the SDK's path: %d %s", res.status, res.body)
		}
		return out.Data.OnlineUsersCount, out.Data.Groups["crew"]
	}
	for name, e := range map[string]*env{"node A": a, "node B": b} {
		if users, crew := count(e); users != 2 || crew != 2 {
			t.Errorf("%s: %d online, crew %d; want 2 and 2", name, users, crew)
		}
		// The REST form, with alice's auth token, answers the same.
		got, err := client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithAuthToken(alice.token)).OnlineMembers(e.ctx(), "crew")
		if err != nil || got.OnlineUsersCount != 2 || got.Groups["crew"] != 2 {
			t.Errorf("%s, POST /v3/online-members: %+v, %v", name, got, err)
		}
	}
	bob.ws.Close(websocket.StatusNormalClosure, "")
	waitFor(t, "node A counts bob out", func() bool { users, crew := count(a); return users == 1 && crew == 1 })
}
