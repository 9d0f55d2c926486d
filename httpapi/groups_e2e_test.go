package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

// obo is the onBehalfOf header for a request.
func obo(uid string) map[string]string { return map[string]string{"onBehalfOf": uid} }

// ok does a request that must answer 200 and decodes its data.
func (e *env) ok(r request) map[string]any {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(res.body, &out); err != nil {
		e.t.Fatalf("%s %s: %v\n%s", r.method, r.path, err, res.body)
	}
	return out.Data
}

// list does a list request that must answer 200 and decodes data and meta.
func (e *env) list(r request) ([]map[string]any, map[string]any) {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	var out struct {
		Data []map[string]any `json:"data"`
		Meta map[string]any   `json:"meta"`
	}
	if err := json.Unmarshal(res.body, &out); err != nil {
		e.t.Fatalf("%s %s: %v\n%s", r.method, r.path, err, res.body)
	}
	return out.Data, out.Meta
}

// mustGroup creates a public group owned by owner (the app's when empty) with these
// participants.
func (e *env) mustGroup(guid, owner string, participants ...string) map[string]any {
	e.t.Helper()
	p, _ := json.Marshal(participants)
	body := fmt.Sprintf(`{"guid":%q,"name":"Group %s","type":"public","members":{"participants":%s}}`, guid, guid, p)
	return e.ok(request{method: "POST", path: "/v3/groups", headers: obo(owner), body: body})
}

func (e *env) membersCount(guid string) int {
	e.t.Helper()
	return e.count(`SELECT members_count FROM groups WHERE guid = $1`, guid)
}

// assertMembersCount checks the kept count against the member rows.
func (e *env) assertMembersCount(guid string, want int) {
	e.t.Helper()
	rows := e.count(`SELECT COUNT(*) FROM group_members WHERE guid = $1`, guid)
	if kept := e.membersCount(guid); kept != rows || rows != want {
		e.t.Fatalf("group %s: members_count %d, member rows %d, want %d", guid, kept, rows, want)
	}
}

func TestGroupLifecycle(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "ann", "pat", "eve"} {
			e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
		}
		r := e.do(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"Project-Group","name":"Project Group",
			"type":"public","description":"project talk","icon":"https://x/i.png","metadata":{"k":"v"},"tags":["friends","project"],
			"members":{"admins":["ann"],"participants":["pat","ghost"]}}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		golden(t, "group_create", r.body)
		e.assertMembersCount("project-group", 3)

		// The viewer's fields come with onBehalfOf only.
		g := e.ok(request{method: "GET", path: "/v3/groups/PROJECT-GROUP"})
		if _, ok := g["hasJoined"]; ok || g["membersCount"] != 3.0 || g["conversationId"] != "group_project-group" || g["owner"] != "olga" {
			t.Fatalf("get as the app: %v", g)
		}
		g = e.ok(request{method: "GET", path: "/v3/groups/project-group", headers: obo("pat")})
		if g["hasJoined"] != true || g["scope"] != "participant" || g["joinedAt"] != float64(testClock.Unix()) {
			t.Fatalf("get as pat: %v", g)
		}
		g = e.ok(request{method: "GET", path: "/v3/groups/project-group", headers: obo("eve")})
		if g["hasJoined"] != false || g["scope"] != nil {
			t.Fatalf("get as eve: %v", g)
		}
		if strings.Contains(fmt.Sprint(g), "password") {
			t.Fatalf("password leaked: %v", g)
		}

		// Update: type to password (with one), unset, tags; the password is never returned.
		g = e.ok(request{method: "PUT", path: "/v3/groups/project-group", body: `{"name":"Renamed","type":"password","password":"s3cret",
			"unset":["description"],"tags":["x"]}`})
		if g["name"] != "Renamed" || g["type"] != "password" || g["description"] != nil || fmt.Sprint(g["tags"]) != "[x]" || g["updatedBy"] != "app_system" {
			t.Fatalf("update: %v", g)
		}
		if h := e.count(`SELECT COUNT(*) FROM groups WHERE guid = 'project-group' AND password_hash LIKE 'pbkdf2-sha256$%' AND password_hash NOT LIKE '%s3cret%'`); h != 1 {
			t.Fatal("password not stored hashed")
		}
		// Joining a password group takes its password.
		r = e.do(request{method: "POST", path: "/v3/groups/project-group/members", headers: obo("eve"), body: `{"password":"wrong"}`})
		if r.status != 403 || r.code != "ERR_WRONG_GROUP_PASS" {
			t.Fatalf("wrong password: %d %s", r.status, r.body)
		}
		// The answer is the joined action, the group in its entities.for (where the SDKs read it).
		g = e.ok(request{method: "POST", path: "/v3/groups/project-group/members", headers: obo("eve"), body: `{"password":"s3cret"}`})
		if d := g["data"].(map[string]any); g["category"] != "action" || d["action"] != "joined" ||
			d["entities"].(map[string]any)["for"].(map[string]any)["entity"].(map[string]any)["membersCount"] != 4.0 {
			t.Fatalf("join: %v", g)
		}
		// Leaving, and the owner cannot leave.
		e.ok(request{method: "DELETE", path: "/v3/groups/project-group/members", headers: obo("eve")})
		r = e.do(request{method: "DELETE", path: "/v3/groups/project-group/members", headers: obo("olga")})
		if r.status != 403 || r.code != "ERR_GROUP_NO_SCOPE_CLEARANCE" {
			t.Fatalf("owner leaves: %d %s", r.status, r.body)
		}
		e.assertMembersCount("project-group", 3)

		// Ownership moves, and makes the new owner an admin; an acting user's owner is ignored on PUT.
		g = e.ok(request{method: "PATCH", path: "/v3/groups/project-group/owner", headers: obo("olga"), body: `{"owner":"pat"}`})
		if g["owner"] != "pat" {
			t.Fatalf("transfer: %v", g)
		}
		if sc := e.count(`SELECT COUNT(*) FROM group_members WHERE guid = 'project-group' AND uid = 'pat' AND scope = 'admin'`); sc != 1 {
			t.Fatal("new owner is not an admin")
		}
		g = e.ok(request{method: "PUT", path: "/v3/groups/project-group", headers: obo("ann"), body: `{"owner":"ann"}`})
		if g["owner"] != "pat" || g["updatedBy"] != "ann" {
			t.Fatalf("owner with onBehalfOf: %v", g)
		}
		g = e.ok(request{method: "PUT", path: "/v3/groups/project-group", body: `{"owner":"eve"}`})
		if g["owner"] != "eve" || g["membersCount"] != 4.0 {
			t.Fatalf("owner by the app, to a non-member: %v", g)
		}

		// History has the action messages of every change.
		var actions []string
		rows, err := e.raw.Query(`SELECT data FROM messages WHERE conversation_id = 'group_project-group' AND category = 'action' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var d string
			rows.Scan(&d)
			var a struct{ Action string }
			json.Unmarshal([]byte(d), &a)
			actions = append(actions, a.Action)
		}
		rows.Close()
		if got := strings.Join(actions, ","); got != "added,added,joined,left,scopeChanged,added" {
			t.Fatalf("actions: %s", got)
		}

		// A message and a reaction in the group go with it.
		m := e.ok(request{method: "POST", path: "/v3/messages", headers: obo("ann"),
			body: `{"receiver":"project-group","receiverType":"group","category":"message","type":"text","data":{"text":"hi all"}}`})
		e.ok(request{method: "POST", path: "/v3/messages/" + m["id"].(string) + "/reactions/%F0%9F%91%8D", headers: obo("pat")})
		d := e.ok(request{method: "DELETE", path: "/v3/groups/project-group"})
		if d["message"] != "Group with guid project-group has been deleted successfully." {
			t.Fatalf("delete: %v", d)
		}
		for _, q := range []string{
			`SELECT COUNT(*) FROM groups`, `SELECT COUNT(*) FROM group_members`, `SELECT COUNT(*) FROM group_tags`,
			`SELECT COUNT(*) FROM messages WHERE conversation_id = 'group_project-group'`, `SELECT COUNT(*) FROM reactions`,
			`SELECT COUNT(*) FROM reaction_counts`,
		} {
			if n := e.count(q); n != 0 {
				t.Errorf("%s = %d after delete", q, n)
			}
		}
		r = e.do(request{method: "GET", path: "/v3/groups/project-group"})
		if r.status != 404 || r.code != "ERR_GUID_NOT_FOUND" {
			t.Fatalf("get deleted: %d %s", r.status, r.body)
		}
	})
}

func TestListGroups(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("u1", "U1")
		e.mustUser("u2", "U2")
		for _, g := range []string{
			`{"guid":"alpha","name":"Alpha","type":"public","tags":["t1"]}`,
			`{"guid":"beta","name":"beta","type":"private","members":{"participants":["u1"]}}`,
			`{"guid":"gamma","name":"Gamma","type":"password","password":"pw","tags":["t2"]}`,
			`{"guid":"delta","name":"Delta","type":"private"}`,
		} {
			e.ok(request{method: "POST", path: "/v3/groups", body: g})
		}
		guids := func(data []map[string]any) string {
			var out []string
			for _, g := range data {
				out = append(out, g["guid"].(string))
			}
			return strings.Join(out, ",")
		}
		for _, tc := range []struct {
			query, obo, want string
		}{
			{"", "", "alpha,beta,delta,gamma"},
			{"?sortBy=guid&sortOrder=desc", "", "gamma,delta,beta,alpha"},
			{"?types=private,password", "", "beta,delta,gamma"},
			{"?type=public", "", "alpha"},
			{"?tags=t2", "", "gamma"},
			{"?searchKey=ga", "", "gamma"},
			{"?searchKey=de&searchIn=guid", "", "delta"},
			{"?perPage=2&page=2", "", "delta,gamma"},
			// Private groups show only to their members.
			{"", "u2", "alpha,gamma"},
			{"", "u1", "alpha,beta,gamma"},
			{"?hasJoined=true", "u1", "beta"},
		} {
			var h map[string]string
			if tc.obo != "" {
				h = obo(tc.obo)
			}
			data, meta := e.list(request{method: "GET", path: "/v3/groups" + tc.query, headers: h})
			if got := guids(data); got != tc.want {
				t.Errorf("%s as %q: %s, want %s", tc.query, tc.obo, got, tc.want)
			}
			if meta["pagination"] == nil || meta["cursor"] == nil {
				t.Errorf("%s: meta %v", tc.query, meta)
			}
		}
		data, _ := e.list(request{method: "GET", path: "/v3/groups?withTags=true&type=public"})
		if fmt.Sprint(data[0]["tags"]) != "[t1]" {
			t.Fatalf("withTags: %v", data)
		}
		data, _ = e.list(request{method: "GET", path: "/v3/groups?type=public"})
		if data[0]["tags"] != nil {
			t.Fatalf("tags without withTags: %v", data)
		}
		data, meta := e.list(request{method: "GET", path: "/v3/groups?hasJoined=true", headers: obo("u1")})
		if p := meta["pagination"].(map[string]any); p["total"] != 1.0 || data[0]["scope"] != "participant" {
			t.Fatalf("hasJoined: %v %v", data, meta)
		}
	})
}

// TestGroupRefusals: every refused group request answers its status and code and changes
// nothing: a row per error code with its status and envelope, and what only HTTP decides (bodies, keys, hosts, query parameters).
// Who may do what to a group is chat's TestGroupRules, against the store without HTTP.
func TestGroupRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "ann", "mo", "pat", "eve", "bob"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"g","name":"G","type":"public",
			"members":{"admins":["ann"],"moderators":["mo"],"participants":["pat"],"usersToBan":["bob"]}}`})
		e.ok(request{method: "POST", path: "/v3/groups", body: `{"guid":"priv","name":"P","type":"private"}`})
		other, otherKey := e.newApp("other", "us")
		if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "olga", Name: "Olga"}); err != nil {
			t.Fatal(err)
		}
		twentySix := make([]string, 26)
		for i := range twentySix {
			twentySix[i] = fmt.Sprintf("%q", fmt.Sprintf("u%d", i))
		}
		before := e.snapshot()
		for _, tc := range []struct {
			name              string
			method, path, obo string
			body              string
			key, host         string
			status            int
			code              string
		}{
			{"create: no guid", "POST", "/v3/groups", "", `{"name":"X","type":"public"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: bad guid", "POST", "/v3/groups", "", `{"guid":"a b","name":"X","type":"public"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: no name", "POST", "/v3/groups", "", `{"guid":"x","type":"public"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: wrong type", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"secret"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: no type", "POST", "/v3/groups", "", `{"guid":"x","name":"X"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: password on a public group", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"public","password":"p"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: password group without one", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"password"}`, "", "", 400, "ERR_EMPTY_GROUP_PASS"},
			{"create: long name", "POST", "/v3/groups", "", `{"guid":"x","name":"` + strings.Repeat("n", 101) + `","type":"public"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: long description", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"public","description":"` + strings.Repeat("d", 256) + `"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: long password", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"password","password":"` + strings.Repeat("p", 101) + `"}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: 26 uids", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"public","members":{"participants":[` + strings.Join(twentySix, ",") + `]}}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"create: taken guid", "POST", "/v3/groups", "", `{"guid":"G","name":"X","type":"public"}`, "", "", 400, "ERR_GUID_ALREADY_EXISTS"},
			{"create: unknown owner", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"public","owner":"ghost"}`, "", "", 404, "ERR_UID_NOT_FOUND"},
			{"create: unknown onBehalfOf", "POST", "/v3/groups", "ghost", `{"guid":"x","name":"X","type":"public"}`, "", "", 404, "ERR_UID_NOT_FOUND"},
			{"create: authOnly key", "POST", "/v3/groups", "", `{"guid":"x","name":"X","type":"public"}`, e.authKey, "", 403, "AUTH_ERR_NO_ACCESS"},
			{"get: unknown", "GET", "/v3/groups/nope", "", "", "", "", 404, "ERR_GUID_NOT_FOUND"},
			{"get: bad guid", "GET", "/v3/groups/a%20b", "", "", "", "", 404, "ERR_GUID_NOT_FOUND"},
			{"get: another app's group by key", "GET", "/v3/groups/g", "", "", "other", "", 404, "ERR_GUID_NOT_FOUND"},
			{"get: another app's group by host", "GET", "/v3/groups/g", "", "", "other", "other.api-us." + testDomain, 404, "ERR_GUID_NOT_FOUND"},
			{"update: another app's group by host", "PUT", "/v3/groups/g", "olga", `{"name":"N"}`, "other", "other.api-us." + testDomain, 404, "ERR_GUID_NOT_FOUND"},
			{"update: by a moderator", "PUT", "/v3/groups/g", "mo", `{"name":"N"}`, "", "", 403, "ERR_GROUP_NO_CLEARANCE"},
			{"update: bad unset", "PUT", "/v3/groups/g", "", `{"unset":["name"]}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"update: empty name", "PUT", "/v3/groups/g", "", `{"name":""}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"update: banned owner", "PUT", "/v3/groups/g", "", `{"owner":"bob"}`, "", "", 403, "ERR_BANNED_GROUPMEMBER"},
			{"transfer: no owner", "PATCH", "/v3/groups/g/owner", "olga", `{}`, "", "", 400, "ERR_BAD_REQUEST"},
			{"delete: another app's group", "DELETE", "/v3/groups/g", "", "", "other", "", 404, "ERR_GUID_NOT_FOUND"},
			{"list: bad sortBy", "GET", "/v3/groups?sortBy=size", "", "", "", "", 400, "ERR_BAD_REQUEST"},
			{"list: bad type", "GET", "/v3/groups?types=public,secret", "", "", "", "", 400, "ERR_BAD_REQUEST"},
			{"list: perPage 1001", "GET", "/v3/groups?perPage=1001", "", "", "", "", 400, "ERR_BAD_REQUEST"},
			{"list: hasJoined without onBehalfOf", "GET", "/v3/groups?hasJoined=true", "", "", "", "", 400, "ERR_BAD_REQUEST"},
			{"join: private", "POST", "/v3/groups/priv/members", "eve", `{}`, "", "", 403, "ERR_GROUP_JOIN_NOT_ALLOWED"},
			{"join: already", "POST", "/v3/groups/g/members", "pat", `{}`, "", "", 409, "ERR_ALREADY_JOINED"},
			{"leave: not a member", "DELETE", "/v3/groups/g/members", "eve", "", "", "", 403, "ERR_NOT_A_MEMBER"},
			{"leave: no onBehalfOf", "DELETE", "/v3/groups/g/members", "", "", "", "", 400, "ERR_BAD_REQUEST"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.obo != "" {
					h["onBehalfOf"] = tc.obo
				}
				switch tc.key {
				case "":
				case "other":
					h["apikey"] = otherKey
				default:
					h["apikey"] = tc.key
				}
				r := e.do(request{method: tc.method, path: tc.path, headers: h, body: tc.body, host: tc.host})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if after := e.snapshot(); after != before {
					t.Fatalf("a refused request changed the database")
				}
			})
		}
	})
}
