package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

// refusal is a request that must answer the error envelope with this status and code, and
// details naming detail when it is set.
type refusal struct {
	name   string
	r      request
	status int
	code   string
	detail string
}

// refused does each request and checks its answer, and that none of them wrote.
func (e *env) refused(t *testing.T, cases []refusal) {
	t.Helper()
	before := e.snapshot()
	for _, tc := range cases {
		r := e.do(tc.r)
		if r.status != tc.status || r.code != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
			continue
		}
		if tc.detail != "" {
			var body struct {
				Error struct{ Details map[string][]string }
			}
			json.Unmarshal(r.body, &body)
			if len(body.Error.Details[tc.detail]) == 0 {
				t.Errorf("%s: no details for %s: %s", tc.name, tc.detail, r.body)
			}
		}
	}
	if e.snapshot() != before {
		t.Fatal("a refused request wrote")
	}
}

func TestRoles(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		// Every app has the default role.
		roles, meta := e.list(request{method: "GET", path: "/v3/roles"})
		if len(roles) != 1 || roles[0]["role"] != "default" || roles[0]["name"] != "Default Role" || roles[0]["settings"] != nil ||
			meta["pagination"].(map[string]any)["total"] != 1.0 {
			t.Fatalf("a new app's roles: %v %v", roles, meta)
		}

		r := e.ok(request{method: "POST", path: "/v3/roles", body: `{"role":"Manager","name":"Managers","description":"Store managers",
			"metadata":{"email":"managers@example.com"},"settings":{"sendMessagesTo":"friendsOnly"}}`})
		want := map[string]any{"role": "manager", "name": "Managers", "description": "Store managers",
			"metadata": map[string]any{"email": "managers@example.com"}, "settings": map[string]any{"listUsers": "all", "sendMessagesTo": "friendsOnly"},
			"createdAt": float64(testClock.Unix())}
		if fmt.Sprint(r) != fmt.Sprint(want) {
			t.Fatalf("created: %v", r)
		}
		if got := e.ok(request{method: "GET", path: "/v3/roles/MANAGER"}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("get: %v", got)
		}

		// Update: fields sent change, settings merge, unset clears and wins.
		got := e.ok(request{method: "PUT", path: "/v3/roles/manager", body: `{"name":"Store managers","settings":{"listUsers":"friendsOnly"},"unset":["description"],"description":"x"}`})
		if got["name"] != "Store managers" || got["description"] != nil || got["updatedAt"] == nil ||
			fmt.Sprint(got["settings"]) != "map[listUsers:friendsOnly sendMessagesTo:friendsOnly]" || got["metadata"] == nil {
			t.Fatalf("update: %v", got)
		}
		got = e.ok(request{method: "PUT", path: "/v3/roles/manager", body: `{"unset":["settings","metadata"]}`})
		if got["settings"] != nil || got["metadata"] != nil {
			t.Fatalf("unset: %v", got)
		}
		// The default role may be changed, not deleted.
		e.ok(request{method: "PUT", path: "/v3/roles/default", body: `{"description":"Everyone else"}`})

		// A user's role must exist, on create and update, whatever the credential.
		if _, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "mia", Name: "Mia", Role: "Manager"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.auth.CreateUser(e.ctx(), client.CreateUserRequest{UID: "ned", Name: "Ned", Role: "ghost"}); err == nil {
			t.Fatal("a user with a role that does not exist, by an authOnly key")
		} else {
			apiErr(t, err, 404, "ERR_ROLE_NOT_FOUND")
		}
		e.mustUser("ned", "Ned")
		ghost := "ghost"
		_, err := e.c.UpdateUser(e.ctx(), "ned", client.UpdateUserRequest{Role: &ghost})
		apiErr(t, err, 404, "ERR_ROLE_NOT_FOUND")
		tok := e.mustToken("ned")
		_, err = e.as(tok).UpdateUser(e.ctx(), "ned", client.UpdateUserRequest{Role: &ghost}) // a user never changes its role
		apiErr(t, err, 403, "AUTH_ERR_NO_ACCESS")
		manager := "manager"
		if u, err := e.c.UpdateUser(e.ctx(), "ned", client.UpdateUserRequest{Role: &manager}); err != nil || u.Role != "manager" {
			t.Fatalf("ned made a manager: %+v %v", u, err)
		}
		e.c.DeactivateUsers(e.ctx(), []string{"ned"})

		// Deleting a role gives its users, deactivated ones too, the default role.
		e.mustRole("temp")
		e.c.RestrictFeatures(e.ctx(), "manager", []string{"u.listUsers"})
		e.c.SetRolePermissions(e.ctx(), "manager", map[string]any{"sendMessage": "deny"})
		del := e.ok(request{method: "DELETE", path: "/v3/roles/Manager"})
		if del["success"] != true || del["message"] != "Role manager has been deleted successfully." {
			t.Fatalf("delete: %v", del)
		}
		if n := e.count(`SELECT COUNT(*) FROM users WHERE role = 'default' AND uid IN ('mia', 'ned')`); n != 2 {
			t.Fatalf("%d of the role's users have the default role, want 2", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM role_permissions`) + e.count(`SELECT COUNT(*) FROM role_features`); n != 0 {
			t.Fatalf("%d permissions and features outlived their role", n)
		}
		if r := e.do(request{method: "GET", path: "/v3/roles/manager"}); r.status != 404 || r.code != "ERR_ROLE_NOT_FOUND" {
			t.Fatalf("a deleted role: %d %s", r.status, r.body)
		}
		// A user created with a role after its delete is refused, and the role may be made again.
		_, err = e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "ola", Name: "Ola", Role: "manager"})
		apiErr(t, err, 404, "ERR_ROLE_NOT_FOUND")
		e.mustRole("manager")

		// The list is newest first, paged.
		roles, meta = e.list(request{method: "GET", path: "/v3/roles?perPage=2&page=1"})
		if len(roles) != 2 || meta["pagination"].(map[string]any)["total"] != 3.0 || meta["pagination"].(map[string]any)["total_pages"] != 2.0 {
			t.Fatalf("page 1: %v %v", roles, meta)
		}

		// At most 25 roles, default included.
		for i := 4; i <= 25; i++ {
			e.mustRole(fmt.Sprintf("r%02d", i))
		}
		miaToken := e.mustToken("mia")
		long := strings.Repeat("x", 101)
		e.refused(t, []refusal{
			{"26th role", request{method: "POST", path: "/v3/roles", body: `{"role":"r26","name":"R"}`}, 400, "ERR_BAD_REQUEST", "role"},
			{"taken id", request{method: "POST", path: "/v3/roles", body: `{"role":"TEMP","name":"R"}`}, 400, "ERR_BAD_REQUEST", "role"},
			{"invalid characters", request{method: "POST", path: "/v3/roles", body: `{"role":"bad role!","name":"R"}`}, 400, "ERR_BAD_REQUEST", "role"},
			{"id too long", request{method: "POST", path: "/v3/roles", body: `{"role":"` + long + `","name":"R"}`}, 400, "ERR_BAD_REQUEST", "role"},
			{"no id", request{method: "POST", path: "/v3/roles", body: `{"name":"R"}`}, 400, "ERR_BAD_REQUEST", "role"},
			{"no name", request{method: "POST", path: "/v3/roles", body: `{"role":"x"}`}, 400, "ERR_BAD_REQUEST", "name"},
			{"name not a string", request{method: "POST", path: "/v3/roles", body: `{"role":"x","name":5}`}, 400, "ERR_BAD_REQUEST", "name"},
			{"settings value", request{method: "POST", path: "/v3/roles", body: `{"role":"x","name":"X","settings":{"listUsers":"some"}}`}, 400, "ERR_BAD_REQUEST", "settings.listUsers"},
			{"settings key", request{method: "POST", path: "/v3/roles", body: `{"role":"x","name":"X","settings":{"callUsers":"all"}}`}, 400, "ERR_BAD_REQUEST", "settings.callUsers"},
			{"settings not an object", request{method: "POST", path: "/v3/roles", body: `{"role":"x","name":"X","settings":"all"}`}, 400, "ERR_BAD_REQUEST", "settings"},
			{"metadata not an object", request{method: "POST", path: "/v3/roles", body: `{"role":"x","name":"X","metadata":[1]}`}, 400, "ERR_BAD_REQUEST", "metadata"},
			{"malformed JSON", request{method: "POST", path: "/v3/roles", body: `{"role":`}, 400, "ERR_BAD_REQUEST", ""},
			{"unset a field", request{method: "PUT", path: "/v3/roles/temp", body: `{"unset":["name"]}`}, 400, "ERR_BAD_REQUEST", "unset"},
			{"empty name", request{method: "PUT", path: "/v3/roles/temp", body: `{"name":""}`}, 400, "ERR_BAD_REQUEST", "name"},
			{"update unknown", request{method: "PUT", path: "/v3/roles/ghost", body: `{"name":"G"}`}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"get unknown", request{method: "GET", path: "/v3/roles/ghost"}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"get malformed", request{method: "GET", path: "/v3/roles/a%20b"}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"delete default", request{method: "DELETE", path: "/v3/roles/DEFAULT"}, 403, "ERR_ROLE_DELETE_DENIED", ""},
			{"delete unknown", request{method: "DELETE", path: "/v3/roles/ghost"}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"authOnly key", request{method: "POST", path: "/v3/roles", headers: map[string]string{"apikey": e.authKey}, body: `{"role":"x","name":"X"}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"auth token", request{method: "GET", path: "/v3/roles", headers: map[string]string{"apikey": "", "authToken": miaToken}}, 403, "AUTH_ERR_NO_ACCESS", ""},
		})
	})
}

// TestRoleSettings: a role's settings restrict what its users list and whom they message,
// on their own behalf, with onBehalfOf or their auth token; the app is not restricted.
func TestRoleSettings(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.ok(request{method: "POST", path: "/v3/roles", body: `{"role":"guest","name":"Guest","settings":{"listUsers":"friendsOnly","sendMessagesTo":"friendsOnly"}}`})
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		if _, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "gus", Name: "Gus", Role: "guest"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.AddFriends(e.ctx(), "gus", []string{"cat"}); err != nil {
			t.Fatal(err)
		}
		e.mustGroup("g", "ann", "gus")
		for mode, h := range map[string]map[string]string{"onBehalfOf": obo("gus"), "authToken": {"apikey": "", "authToken": e.mustToken("gus")}} {
			t.Run(mode, func(t *testing.T) {
				users, _ := e.list(request{method: "GET", path: "/v3/users", headers: h})
				if len(users) != 1 || users[0]["uid"] != "cat" {
					t.Errorf("gus lists %v, want only his friend cat", users)
				}
				before := e.snapshot()
				r := e.do(request{method: "POST", path: "/v3/messages", headers: h, body: `{"receiver":"bob","receiverType":"user","data":{"text":"hi"}}`})
				if r.status != 403 || r.code != "ERR_PERMISSION_DENIED" || !strings.Contains(string(r.body), `"permission":["settings.sendMessagesTo"]`) {
					t.Errorf("gus to bob: %d %s", r.status, r.body)
				}
				if e.snapshot() != before {
					t.Error("a refused send wrote")
				}
				e.ok(request{method: "POST", path: "/v3/messages", headers: h, body: `{"receiver":"cat","receiverType":"user","data":{"text":"hi"}}`})
				e.ok(request{method: "POST", path: "/v3/messages", headers: h, body: `{"receiver":"g","receiverType":"group","data":{"text":"hi"}}`})
			})
		}
		// The app, and a user of another role, see and message everyone.
		if users, _ := e.list(request{method: "GET", path: "/v3/users"}); len(users) != 4 {
			t.Errorf("the app lists %d users", len(users))
		}
		if users, _ := e.list(request{method: "GET", path: "/v3/users", headers: obo("ann")}); len(users) != 4 {
			t.Errorf("ann lists %d users", len(users))
		}
		// Unsetting the settings lifts them at once.
		e.ok(request{method: "PUT", path: "/v3/roles/guest", body: `{"unset":["settings"]}`})
		e.ok(request{method: "POST", path: "/v3/messages", headers: obo("gus"), body: `{"receiver":"bob","receiverType":"user","data":{"text":"hi"}}`})
	})
}
