package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

func TestPermissionsAPI(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustRole("manager")
		e.mustUser("ann", "Ann")
		e.mustGroup("g", "ann")

		// Every role permission, at its default, in the hosted order.
		perms, meta := e.list(request{method: "GET", path: "/v3/roles/manager/permissions"})
		if len(perms) != 28 || meta["pagination"].(map[string]any)["total"] != 28.0 || perms[0]["id"] != "listUsers" ||
			perms[0]["type"] != "role" || perms[0]["value"] != "allow" || perms[0]["defaultValue"] != "allow" {
			t.Fatalf("role permissions: %d %v", len(perms), perms[0])
		}
		for _, p := range perms {
			if fmt.Sprint(p["value"]) != fmt.Sprint(p["defaultValue"]) {
				t.Errorf("%s: value %v, default %v", p["id"], p["value"], p["defaultValue"])
			}
		}
		if page, _ := e.list(request{method: "GET", path: "/v3/roles/manager/permissions?perPage=5&page=6"}); len(page) != 3 || page[0]["id"] != "joinGroup.allowedGroupTypes" {
			t.Fatalf("page 6 of 5: %v", page)
		}

		// Set: each key acknowledged, then every value, in the table's order.
		e.ok(request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"getUserDetails.allowedRoles":"Default"}}`})
		r := e.do(request{method: "PUT", path: "/v3/roles/MANAGER/permissions", body: `{"permissions":{"listUsers.mode":"friends",
			"createGroup.allowedGroupTypes":["public"],"listUsers.allowedRoles":["Manager","default"],"sendMessage.allowedMimeTypes":"image/*"}}`})
		if r.status != 200 {
			t.Fatalf("set: %d %s", r.status, r.body)
		}
		body := string(r.body)
		for _, want := range []string{
			`{"data":{"listUsers.mode":{"success":true,"message":"Permission with id listUsers.mode have been mapped successfully to role manager."},"listUsers.allowedRoles":`,
			`"permissions":{"listUsers":"allow","listUsers.mode":"friends","listUsers.allowedRoles":["manager","default"],"getUserDetails.mode":"all",`,
			`"sendMessage.allowedMimeTypes":["image/*"]`, `"createGroup.allowedGroupTypes":["public"]`, `"listMessages.allowedMessageTypes":[]}}}`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("set: %s lacks %s", body, want)
			}
		}
		perms, _ = e.list(request{method: "GET", path: "/v3/roles/manager/permissions?perPage=2"})
		if perms[1]["value"] != "friends" || perms[1]["updatedAt"] == nil {
			t.Fatalf("after set: %v", perms[1])
		}
		// Unset returns it to its default; unsetting again changes nothing.
		for range 2 {
			got := e.ok(request{method: "DELETE", path: "/v3/roles/manager/permissions/listUsers.mode"})
			if got["permissions"].(map[string]any)["listUsers.mode"] != "all" || got["permissions"].(map[string]any)["createGroup.allowedGroupTypes"].([]any)[0] != "public" {
				t.Fatalf("unset: %v", got)
			}
		}

		// A group scope's permissions.
		sp, _ := e.list(request{method: "GET", path: "/v3/groups/G/scopes/participant/permissions"})
		if len(sp) != 11 || sp[0]["id"] != "sendMessage" || sp[0]["type"] != "scope" {
			t.Fatalf("scope permissions: %v", sp)
		}
		r = e.do(request{method: "PUT", path: "/v3/groups/g/scopes/participant/permissions", body: `{"permissions":{"sendMessage":"deny","listMembers.allowedScopes":"admin"}}`})
		if r.status != 200 || !strings.Contains(string(r.body), `"message":"Permission with id sendMessage have been mapped successfully to scope participant on group g."`) ||
			!strings.Contains(string(r.body), `"listMembers.allowedScopes":["admin"]`) {
			t.Fatalf("set scope: %d %s", r.status, r.body)
		}
		if sp, _ := e.list(request{method: "GET", path: "/v3/groups/g/scopes/admin/permissions"}); sp[0]["value"] != "allow" {
			t.Fatalf("another scope changed: %v", sp[0])
		}
		got := e.ok(request{method: "DELETE", path: "/v3/groups/g/scopes/participant/permissions/sendMessage"})
		if got["permissions"].(map[string]any)["sendMessage"] != "allow" {
			t.Fatalf("unset scope: %v", got)
		}

		e.refused(t, []refusal{
			{"unknown key", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessages":"deny"}}`}, 400, "ERR_BAD_REQUEST", "permissions.sendMessages"},
			{"a scope key on a role", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"addReaction":"deny"}}`}, 400, "ERR_BAD_REQUEST", "permissions.addReaction"},
			{"a role key on a scope", request{method: "PUT", path: "/v3/groups/g/scopes/admin/permissions", body: `{"permissions":{"listUsers":"deny"}}`}, 400, "ERR_BAD_REQUEST", "permissions.listUsers"},
			{"a good key beside a bad one", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessage":"deny","x y":"deny"}}`}, 400, "ERR_BAD_REQUEST", "permissions"},
			{"a string as a boolean", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessage":false}}`}, 400, "ERR_BAD_REQUEST", "permissions.sendMessage"},
			{"a string as a list", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessage":["deny"]}}`}, 400, "ERR_BAD_REQUEST", "permissions.sendMessage"},
			{"a value out of its values", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"listUsers.mode":"allow"}}`}, 400, "ERR_BAD_REQUEST", "permissions.listUsers.mode"},
			{"a list of numbers", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessage.allowedMessageTypes":[1]}}`}, 400, "ERR_BAD_REQUEST", "permissions.sendMessage.allowedMessageTypes"},
			{"a list item out of its values", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"createGroup.allowedGroupTypes":["secret"]}}`}, 400, "ERR_BAD_REQUEST", "permissions.createGroup.allowedGroupTypes"},
			{"a role that does not exist", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"listUsers.allowedRoles":["default","ghost"]}}`}, 400, "ERR_BAD_REQUEST", "permissions.listUsers.allowedRoles"},
			{"a lone role that does not exist", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"getUserDetails.allowedRoles":"ghost"}}`}, 400, "ERR_BAD_REQUEST", "permissions.getUserDetails.allowedRoles"},
			{"a MIME type that is not one", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":{"sendMessage.allowedMimeTypes":["png"]}}`}, 400, "ERR_BAD_REQUEST", "permissions.sendMessage.allowedMimeTypes"},
			{"a scope not a scope", request{method: "PUT", path: "/v3/groups/g/scopes/admin/permissions", body: `{"permissions":{"listMembers.allowedScopes":["owner"]}}`}, 400, "ERR_BAD_REQUEST", "permissions.listMembers.allowedScopes"},
			{"no permissions", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{}`}, 400, "ERR_BAD_REQUEST", "permissions"},
			{"permissions not an object", request{method: "PUT", path: "/v3/roles/manager/permissions", body: `{"permissions":["sendMessage"]}`}, 400, "ERR_BAD_REQUEST", "permissions"},
			{"unset an unknown key", request{method: "DELETE", path: "/v3/roles/manager/permissions/sendMessages"}, 400, "ERR_BAD_REQUEST", "permission"},
			{"unset a role key on a scope", request{method: "DELETE", path: "/v3/groups/g/scopes/admin/permissions/listUsers"}, 400, "ERR_BAD_REQUEST", "permission"},
			{"unknown role", request{method: "PUT", path: "/v3/roles/ghost/permissions", body: `{"permissions":{"sendMessage":"deny"}}`}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"malformed role", request{method: "GET", path: "/v3/roles/a%21b/permissions"}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"unknown group", request{method: "PUT", path: "/v3/groups/nope/scopes/admin/permissions", body: `{"permissions":{"sendMessage":"deny"}}`}, 404, "ERR_GUID_NOT_FOUND", ""},
			{"unknown scope", request{method: "GET", path: "/v3/groups/g/scopes/owner/permissions"}, 400, "ERR_BAD_REQUEST", "scope"},
			{"unknown scope, set", request{method: "PUT", path: "/v3/groups/g/scopes/owner/permissions", body: `{"permissions":{"sendMessage":"deny"}}`}, 400, "ERR_BAD_REQUEST", "scope"},
			{"authOnly key", request{method: "PUT", path: "/v3/roles/manager/permissions", headers: map[string]string{"apikey": e.authKey}, body: `{"permissions":{"sendMessage":"deny"}}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
		})
		// Deleting the group takes its scope permissions with it.
		e.ok(request{method: "PUT", path: "/v3/groups/g/scopes/admin/permissions", body: `{"permissions":{"addReaction":"deny"}}`})
		e.ok(request{method: "DELETE", path: "/v3/groups/g"})
		if n := e.count(`SELECT COUNT(*) FROM scope_permissions`); n != 0 {
			t.Fatalf("%d scope permissions outlived their group", n)
		}
	})
}

// world is what the enforcement tests act in: alice (role r) is a moderator of group g,
// whose admin and owner is bob (role b), with carol (role c, alice's friend) a participant;
// g2 is a public group alice is not in. m1 is alice's message to bob, mg hers to g, with a
// reaction of bob's and one of carol's.
type world struct{ m1, mg string }

func newWorld(t *testing.T, e *env) world {
	e.mustRole("r", "b", "c")
	for _, u := range []struct{ uid, role string }{{"alice", "r"}, {"bob", "b"}, {"carol", "c"}, {"dave", "b"}, {"erin", "b"}} {
		if _, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: u.uid, Name: u.uid, Role: u.role}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.c.AddFriends(e.ctx(), "alice", []string{"carol"}); err != nil {
		t.Fatal(err)
	}
	e.mustGroup("g", "bob", "alice", "carol")
	e.ok(request{method: "PUT", path: "/v3/groups/g/members/alice", headers: obo("bob"), body: `{"scope":"moderator"}`})
	e.mustGroup("g2", "bob")
	e.ok(request{method: "POST", path: "/v3/groups", headers: obo("bob"), body: `{"guid":"p","name":"Private","type":"private"}`})
	w := world{m1: e.send("alice", "bob", "user", "to bob"), mg: e.send("alice", "g", "group", "to g")}
	e.ok(request{method: "POST", path: "/v3/messages/" + w.mg + "/reactions/up", headers: obo("bob")})
	e.ok(request{method: "POST", path: "/v3/messages/" + w.mg + "/reactions/up", headers: obo("carol")})
	return w
}

// authModes are alice's two ways to act: her app's key with onBehalfOf, and her auth token.
func authModes(e *env) map[string]map[string]string {
	return map[string]map[string]string{"onBehalfOf": obo("alice"), "authToken": {"apikey": "", "authToken": e.mustToken("alice")}}
}

func uids(l []map[string]any, key string) string {
	var out []string
	for _, u := range l {
		out = append(out, fmt.Sprint(u[key]))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

type call struct{ method, path, body string }

// enforcedCase is a permission key, a value that denies, and what alice is then refused
// or shown.
type enforcedCase struct {
	typ   chat.PermissionType
	key   string
	value string // the JSON value that denies
	deny  call   // refused with 403 naming key; empty for a list that narrows only
	// narrowed checks a list the value narrows, for the keys that narrow one.
	narrowed func(t *testing.T, h map[string]string)
	allow    *call // an operation the value still lets through
}

// TestPermissionsEnforced shows every enforced permission key deny what it names to alice,
// with 403 ERR_PERMISSION_DENIED naming the key (or, for a list, narrow what it shows),
// over both ways a user acts, while the app acting as itself is not restricted.
func TestPermissionsEnforced(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		w := newWorld(t, e)
		msg := func(to, rt, extra string) string {
			return `{"receiver":"` + to + `","receiverType":"` + rt + `"` + extra + `}`
		}
		text := `,"data":{"text":"hi"}`
		audio := `,"type":"audio"`
		cases := []enforcedCase{
			{typ: chat.RolePermission, key: "listUsers", value: `"deny"`, deny: call{"GET", "/v3/users", ""}},
			{typ: chat.RolePermission, key: "listUsers.mode", value: `"friends"`, narrowed: func(t *testing.T, h map[string]string) {
				if l, _ := e.list(request{method: "GET", path: "/v3/users", headers: h}); uids(l, "uid") != "carol" {
					t.Errorf("friends mode lists %s", uids(l, "uid"))
				}
			}},
			{typ: chat.RolePermission, key: "listUsers.allowedRoles", value: `["c","r"]`, deny: call{"GET", "/v3/users?roles=b", ""},
				narrowed: func(t *testing.T, h map[string]string) {
					if l, _ := e.list(request{method: "GET", path: "/v3/users", headers: h}); uids(l, "uid") != "alice,carol" {
						t.Errorf("allowedRoles lists %s", uids(l, "uid"))
					}
				}},
			{typ: chat.RolePermission, key: "getUserDetails.mode", value: `"friends"`, deny: call{"GET", "/v3/users/bob", ""}, allow: &call{"GET", "/v3/users/carol", ""}},
			{typ: chat.RolePermission, key: "getUserDetails.allowedRoles", value: `["c"]`, deny: call{"GET", "/v3/users/bob", ""}, allow: &call{"GET", "/v3/users/alice", ""}},
			{typ: chat.RolePermission, key: "sendMessage", value: `"deny"`, deny: call{"POST", "/v3/messages", msg("bob", "user", text)}},
			{typ: chat.RolePermission, key: "sendMessage.mode", value: `"friends"`, deny: call{"POST", "/v3/messages", msg("bob", "user", text)},
				allow: &call{"POST", "/v3/messages", msg("carol", "user", text)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedReceiverTypes", value: `["group"]`, deny: call{"POST", "/v3/messages", msg("bob", "user", text)},
				allow: &call{"POST", "/v3/messages", msg("g", "group", text)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedReceiverRoles", value: `["c"]`, deny: call{"POST", "/v3/messages", msg("bob", "user", text)},
				allow: &call{"POST", "/v3/messages", msg("carol", "user", text)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedMessageTypes", value: `["text"]`,
				deny: call{"POST", "/v3/messages", msg("bob", "user", `,"type":"image","data":{"url":"https://x.example/a.png"}`)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedMessageCategories", value: `["message"]`,
				deny: call{"POST", "/v3/messages", msg("bob", "user", `,"category":"custom","type":"poll","data":{"customData":{"q":"?"}}`)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedCustomTypes", value: `["poll"]`,
				deny:  call{"POST", "/v3/messages", msg("bob", "user", `,"category":"custom","type":"vote","data":{"customData":{"q":"?"}}`)},
				allow: &call{"POST", "/v3/messages", msg("bob", "user", `,"category":"custom","type":"poll","data":{"customData":{"q":"?"}}`)}},
			{typ: chat.RolePermission, key: "sendMessage.allowedMimeTypes", value: `["image/png"]`,
				deny:  call{"POST", "/v3/messages", msg("bob", "user", `,"type":"image","data":{"attachments":[{"url":"https://x.example/a.jpg","mimeType":"image/jpeg"}]}`)},
				allow: &call{"POST", "/v3/messages", msg("bob", "user", `,"type":"image","data":{"attachments":[{"url":"https://x.example/a.png","mimeType":"image/png"}]}`)}},
			{typ: chat.RolePermission, key: "editMessage", value: `"deny"`, deny: call{"PUT", "/v3/messages/" + w.m1, `{"data":{"text":"edited"}}`}},
			{typ: chat.RolePermission, key: "editMessage.denyForScopes", value: `["moderator"]`, deny: call{"PUT", "/v3/messages/" + w.mg, `{"data":{"text":"edited"}}`},
				allow: &call{"PUT", "/v3/messages/" + w.m1, `{"data":{"text":"edited"}}`}},
			{typ: chat.RolePermission, key: "deleteMessage", value: `"deny"`, deny: call{"DELETE", "/v3/messages/" + w.m1, ""}},
			{typ: chat.RolePermission, key: "deleteMessage.denyForScopes", value: `["moderator"]`, deny: call{"DELETE", "/v3/messages/" + w.mg, ""}},
			{typ: chat.RolePermission, key: "createGroup", value: `"deny"`, deny: call{"POST", "/v3/groups", `{"guid":"n1","name":"N","type":"public"}`}},
			{typ: chat.RolePermission, key: "createGroup.allowedGroupTypes", value: `["private"]`, deny: call{"POST", "/v3/groups", `{"guid":"n1","name":"N","type":"public"}`}},
			{typ: chat.RolePermission, key: "listGroups", value: `"deny"`, deny: call{"GET", "/v3/groups", ""}},
			{typ: chat.RolePermission, key: "listGroups.allowedGroupTypes", value: `["private"]`, deny: call{"GET", "/v3/groups?types=public", ""},
				narrowed: func(t *testing.T, h map[string]string) {
					// alice is in no private group, and sees no public one.
					if l, _ := e.list(request{method: "GET", path: "/v3/groups", headers: h}); len(l) != 0 {
						t.Errorf("private groups only lists %s", uids(l, "guid"))
					}
				}},
			{typ: chat.RolePermission, key: "joinGroup", value: `"deny"`, deny: call{"POST", "/v3/groups/g2/members", ""}},
			{typ: chat.RolePermission, key: "joinGroup.allowedGroupTypes", value: `["password"]`, deny: call{"POST", "/v3/groups/g2/members", ""}},
			{typ: chat.RolePermission, key: "listMessages.allowedMessageCategories", value: `["custom"]`, narrowed: func(t *testing.T, h map[string]string) {
				// Actions (edits) stay; messages of category message go.
				l := e.messages(request{method: "GET", path: "/v3/users/bob/messages?limit=100", headers: h})
				for _, m := range l.Data {
					if m.Category == "message" {
						t.Errorf("custom only lists %s", l.texts())
					}
				}
				if l := e.messages(request{method: "GET", path: "/v3/users/alice/messages?limit=100&categories=message", headers: obo("bob")}); len(l.Data) == 0 {
					t.Error("bob, of another role, lists no messages")
				}
			}},
			{typ: chat.RolePermission, key: "listMessages.allowedMessageTypes", value: `["image"]`, narrowed: func(t *testing.T, h map[string]string) {
				if l := e.messages(request{method: "GET", path: "/v3/groups/g/messages?categories=message", headers: h}); len(l.Data) != 0 {
					t.Errorf("images only lists %s", l.texts())
				}
			}},

			{typ: chat.ScopePermission, key: "sendMessage", value: `"deny"`, deny: call{"POST", "/v3/messages", msg("g", "group", text)},
				allow: &call{"POST", "/v3/messages", msg("bob", "user", text)}},
			{typ: chat.ScopePermission, key: "listMembers", value: `"deny"`, deny: call{"GET", "/v3/groups/g/members", ""}},
			{typ: chat.ScopePermission, key: "listMembers.allowedScopes", value: `["admin"]`, deny: call{"GET", "/v3/groups/g/members?scopes=participant", ""},
				narrowed: func(t *testing.T, h map[string]string) {
					if l, _ := e.list(request{method: "GET", path: "/v3/groups/g/members", headers: h}); uids(l, "uid") != "bob" {
						t.Errorf("admins only lists %s", uids(l, "uid"))
					}
				}},
			{typ: chat.ScopePermission, key: "addReaction", value: `"deny"`, deny: call{"POST", "/v3/messages/" + w.mg + "/reactions/ok", ""},
				allow: &call{"POST", "/v3/messages/" + w.m1 + "/reactions/ok", ""}},
			{typ: chat.ScopePermission, key: "listReactions", value: `"deny"`, deny: call{"GET", "/v3/messages/" + w.mg + "/reactions", ""}},
			{typ: chat.ScopePermission, key: "listReactions.allowedScopes", value: `["admin"]`, narrowed: func(t *testing.T, h map[string]string) {
				if l, _ := e.list(request{method: "GET", path: "/v3/messages/" + w.mg + "/reactions", headers: h}); uids(l, "uid") != "bob" {
					t.Errorf("admins' reactions only lists %s", uids(l, "uid"))
				}
			}},
			{typ: chat.ScopePermission, key: "sendThreadedMessage", value: `"deny"`, deny: call{"POST", "/v3/messages/" + w.mg + "/thread", `{"data":{"text":"re"}}`},
				allow: &call{"POST", "/v3/messages", msg("g", "group", text)}},
			{typ: chat.ScopePermission, key: "editMessage", value: `"deny"`, deny: call{"PUT", "/v3/messages/" + w.mg, `{"data":{"text":"edited"}}`}},

			{typ: chat.RolePermission, key: "initiateCall", value: `"deny"`, deny: call{"POST", "/v3/calls", msg("bob", "user", audio)}},
			{typ: chat.RolePermission, key: "initiateCall.mode", value: `"friends"`, deny: call{"POST", "/v3/calls", msg("bob", "user", audio)},
				allow: &call{"POST", "/v3/calls", msg("carol", "user", audio)}},
			{typ: chat.RolePermission, key: "initiateCall.allowedReceiverRoles", value: `["c"]`, deny: call{"POST", "/v3/calls", msg("bob", "user", audio)},
				allow: &call{"POST", "/v3/calls", msg("carol", "user", audio)}},
			{typ: chat.ScopePermission, key: "initiateCall", value: `"deny"`, deny: call{"POST", "/v3/calls", msg("g", "group", audio)},
				allow: &call{"POST", "/v3/calls", msg("bob", "user", audio)}},
			{typ: chat.ScopePermission, key: "initiateCall.allowedScopes", value: `["admin"]`, deny: call{"POST", "/v3/calls", msg("g", "group", audio)}},
			{typ: chat.ScopePermission, key: "initiateCall.allowedType", value: `["video"]`, deny: call{"POST", "/v3/calls", msg("g", "group", audio)},
				allow: &call{"POST", "/v3/calls", msg("g", "group", `,"type":"video"`)}},
		}
		// Every enforced key has a case.
		for _, ty := range []chat.PermissionType{chat.RolePermission, chat.ScopePermission} {
			for _, d := range chat.PermissionDefs(ty) {
				has := slices.ContainsFunc(cases, func(c enforcedCase) bool { return c.typ == ty && c.key == d.Key })
				if has != d.Enforced {
					t.Errorf("%s %s: enforced %v, a case %v", ty, d.Key, d.Enforced, has)
				}
			}
		}
		modes := authModes(e)
		for _, tc := range cases {
			base := "/v3/roles/r/permissions"
			if tc.typ == chat.ScopePermission {
				base = "/v3/groups/g/scopes/moderator/permissions"
			}
			e.ok(request{method: "PUT", path: base, body: `{"permissions":{"` + tc.key + `":` + tc.value + `}}`})
			for mode, h := range modes {
				t.Run(string(tc.typ)+"/"+tc.key+"/"+mode, func(t *testing.T) {
					if tc.deny.method != "" {
						before := e.snapshot()
						r := e.do(request{method: tc.deny.method, path: tc.deny.path, headers: h, body: tc.deny.body})
						if r.status != 403 || r.code != "ERR_PERMISSION_DENIED" || !strings.Contains(string(r.body), `"details":{"permission":["`+tc.key+`"]}`) {
							t.Errorf("%s %s: %d %s", tc.deny.method, tc.deny.path, r.status, r.body)
						}
						if e.snapshot() != before {
							t.Error("a refused request wrote")
						}
						// The app acting as itself is not restricted (reads only: the writes
						// the app would do differ).
						if tc.deny.method == "GET" {
							if r := e.do(request{method: "GET", path: tc.deny.path}); r.status != 200 {
								t.Errorf("the app: %d %s", r.status, r.body)
							}
						}
					}
					if tc.narrowed != nil {
						tc.narrowed(t, h)
					}
					if tc.allow != nil {
						if r := e.do(request{method: tc.allow.method, path: tc.allow.path, headers: h, body: tc.allow.body}); r.status != 200 {
							t.Errorf("still allowed: %s %s: %d %s", tc.allow.method, tc.allow.path, r.status, r.body)
						}
					}
				})
			}
			e.ok(request{method: "DELETE", path: base + "/" + tc.key})
		}
	})
}

// TestFeaturesEnforced: restricting each feature a user does refuses its operation to the
// role's users, naming the feature, over both ways a user acts.
func TestFeaturesEnforced(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		w := newWorld(t, e)
		sid := e.callTo("alice", "bob", "user", "audio")
		calls := map[string][3]string{ // feature → method, path, body
			"u.createCall":                {"POST", "/v3/calls", `{"receiver":"bob","receiverType":"user","type":"audio"}`},
			"u.updateCall":                {"PUT", "/v3/calls/" + sid, `{"status":"cancelled"}`},
			"u.getCall":                   {"GET", "/v3/calls/" + sid, ""},
			"u.listCalls":                 {"GET", "/v3/calls", ""},
			"u.addMember":                 {"POST", "/v3/groups/g/members", `{"participants":["dave"]}`},
			"u.massMemberOperate":         {"POST", "/v3/groups/g/members", `{"participants":["dave","erin"]}`},
			"u.ban":                       {"POST", "/v3/groups/g/bannedusers/carol", ""},
			"u.changeScope":               {"PUT", "/v3/groups/g/members/carol", `{"scope":"participant"}`},
			"u.createGroup":               {"POST", "/v3/groups", `{"guid":"n1","name":"N","type":"public"}`},
			"u.createMessage":             {"POST", "/v3/messages", `{"receiver":"bob","receiverType":"user","data":{"text":"hi"}}`},
			"u.createMessageThread":       {"POST", "/v3/messages/" + w.m1 + "/thread", `{"data":{"text":"re"}}`},
			"u.deleteConversationForUser": {"DELETE", "/v3/users/bob/conversation", ""},
			"u.deleteGroup":               {"DELETE", "/v3/groups/g", ""},
			"u.deleteGroupMessages":       {"DELETE", "/v3/messages/" + w.mg, ""},
			"u.deleteMessage":             {"DELETE", "/v3/messages/" + w.m1, ""},
			"u.getConversation":           {"GET", "/v3/users/bob/conversation", ""},
			"u.getGroup":                  {"GET", "/v3/groups/g", ""},
			"u.getGroupMessages":          {"GET", "/v3/groups/g/messages", ""},
			"u.getMessage":                {"GET", "/v3/messages/" + w.m1, ""},
			"u.getMyDetails":              {"GET", "/v3/users/alice", ""},
			"u.getUser":                   {"GET", "/v3/users/bob", ""},
			"u.getUserMessages":           {"GET", "/v3/users/bob/messages", ""},
			"u.joinGroup":                 {"POST", "/v3/groups/g2/members", ""},
			"u.kickMember":                {"DELETE", "/v3/groups/g/members/carol", ""},
			"u.leaveGroup":                {"DELETE", "/v3/groups/g/members", ""},
			"u.listBannedUsers":           {"GET", "/v3/groups/g/bannedusers", ""},
			"u.listConversations":         {"GET", "/v3/conversations", ""},
			"u.listGroupMembers":          {"GET", "/v3/groups/g/members", ""},
			"u.listGroups":                {"GET", "/v3/groups", ""},
			"u.listMessages":              {"GET", "/v3/messages", ""},
			"u.listThreadedMessages":      {"GET", "/v3/messages/" + w.m1 + "/thread", ""},
			"u.listUsers":                 {"GET", "/v3/users", ""},
			"u.patchOwner":                {"PATCH", "/v3/groups/g/owner", `{"owner":"carol"}`},
			"u.unban":                     {"DELETE", "/v3/groups/g/bannedusers/carol", ""},
			"u.updateGroup":               {"PUT", "/v3/groups/g", `{"name":"G"}`},
			"u.updateMessage":             {"PUT", "/v3/messages/" + w.m1, `{"data":{"text":"edited"}}`},
			"u.updateAuthToken":           {"PUT", "/v3/users/alice", `{"name":"Alice"}`}, // a client app's own profile only
			"u.blockUser":                 {"POST", "/v3/blockedusers", `{"blockedUids":["bob"]}`},
			"u.unblockUser":               {"DELETE", "/v3/blockedusers", `{"blockedUids":["bob"]}`},
			"u.getBlockedUsers":           {"GET", "/v3/blockedusers", ""},
		}
		modes := authModes(e)
		for _, f := range chat.Features() {
			c, ok := calls[f.Key]
			if ok != f.Enforced {
				t.Errorf("%s: enforced %v, a call %v", f.Key, f.Enforced, ok)
				continue
			}
			if !ok {
				continue
			}
			// The bare name restricts as well as the key.
			acks, err := e.c.RestrictFeatures(e.ctx(), "r", []string{strings.TrimPrefix(f.Key, "u.")})
			if err != nil || !acks[f.Key].Success {
				t.Fatalf("restrict %s: %v %v", f.Key, acks, err)
			}
			for mode, h := range modes {
				if f.Key == "u.updateAuthToken" && mode == "onBehalfOf" {
					continue // PUT /users/{uid} with a key is the app's, whatever onBehalfOf says
				}
				t.Run(f.Key+"/"+mode, func(t *testing.T) {
					before := e.snapshot()
					r := e.do(request{method: c[0], path: c[1], headers: h, body: c[2]})
					if r.status != 403 || r.code != "ERR_PERMISSION_DENIED" || !strings.Contains(string(r.body), `"details":{"permission":["`+f.Key+`"]}`) {
						t.Errorf("%s %s: %d %s", c[0], c[1], r.status, r.body)
					}
					if e.snapshot() != before {
						t.Error("a refused request wrote")
					}
				})
			}
			if _, err := e.c.AllowFeatures(e.ctx(), "r", []string{f.Key}, false); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestRestrictedFeaturesAPI(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustRole("r")
		r := e.do(request{method: "POST", path: "/v3/roles/R/restrictedfeatures", body: `{"featuresToRestrict":["listUsers","u.deleteGroup","u.listUsers"]}`})
		if r.status != 200 || string(r.body) != `{"data":{"u.listUsers":{"success":true,"message":"The feature u.listUsers has been restricted successfully."},`+
			`"u.deleteGroup":{"success":true,"message":"The feature u.deleteGroup has been restricted successfully."}}}`+"\n" {
			t.Fatalf("restrict: %d %s", r.status, r.body)
		}
		l, meta := e.list(request{method: "GET", path: "/v3/roles/r/restrictedfeatures"})
		if uids(l, "key") != "u.deleteGroup,u.listUsers" || l[0]["path"] != "/v3/groups/{{guid}}" || l[1]["title"] != "List Users" ||
			meta["pagination"].(map[string]any)["total"] != 2.0 {
			t.Fatalf("list: %v %v", l, meta)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/roles/default/restrictedfeatures"}); len(l) != 0 {
			t.Fatalf("default: %v", l)
		}
		got := e.ok(request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToAllow":["deleteGroup","u.addMember"]}`})
		if got["success"] != true || got["message"] != "The feature has been allowed successfully." {
			t.Fatalf("allow: %v", got)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/roles/r/restrictedfeatures"}); uids(l, "key") != "u.listUsers" {
			t.Fatalf("after allow: %v", l)
		}
		e.ok(request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{"allowAll":true}`})
		if l, _ := e.list(request{method: "GET", path: "/v3/roles/r/restrictedfeatures"}); len(l) != 0 {
			t.Fatalf("after allowAll: %v", l)
		}

		e.ok(request{method: "POST", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToRestrict":["u.getUser"]}`})
		e.refused(t, []refusal{
			{"unknown feature", request{method: "POST", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToRestrict":["u.listUsers","u.fly"]}`}, 400, "ERR_BAD_REQUEST", "featuresToRestrict"},
			{"no features", request{method: "POST", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToRestrict":[]}`}, 400, "ERR_BAD_REQUEST", "featuresToRestrict"},
			{"features not a list", request{method: "POST", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToRestrict":"u.listUsers"}`}, 400, "ERR_BAD_REQUEST", "featuresToRestrict"},
			{"allow unknown", request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToAllow":["u.fly"]}`}, 400, "ERR_BAD_REQUEST", "featuresToAllow"},
			{"allow nothing", request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{}`}, 400, "ERR_BAD_REQUEST", "featuresToAllow"},
			{"allow both", request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{"featuresToAllow":["u.getUser"],"allowAll":true}`}, 400, "ERR_BAD_REQUEST", "allowAll"},
			{"allowAll not a boolean", request{method: "DELETE", path: "/v3/roles/r/restrictedfeatures", body: `{"allowAll":"yes"}`}, 400, "ERR_BAD_REQUEST", "allowAll"},
			{"unknown role", request{method: "POST", path: "/v3/roles/ghost/restrictedfeatures", body: `{"featuresToRestrict":["u.listUsers"]}`}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"unknown role, list", request{method: "GET", path: "/v3/roles/ghost/restrictedfeatures"}, 404, "ERR_ROLE_NOT_FOUND", ""},
			{"authOnly key", request{method: "GET", path: "/v3/roles/r/restrictedfeatures", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS", ""},
		})
	})
}
