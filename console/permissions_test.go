package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// row is the table row of page that starts with the permission or feature key (after
// from, to tell a group's scopes apart), or "".
func row(page, from, key string) string {
	i := strings.Index(page, from)
	if i < 0 {
		return ""
	}
	page = page[i:]
	i = strings.Index(page, "<tr><td><code>"+key+"</code>")
	if i < 0 {
		return ""
	}
	page = page[i:]
	return page[:strings.Index(page, "</tr>")]
}

// TestPermissionsPages: a role's page sets and unsets its permissions and restricts and
// allows its features, a group's permissions page does the same for each scope, as the API
// does; a forged form and bad input are refused with the page's error, never a 500.
func TestPermissionsPages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		send := func(path string, form url.Values) *http.Response {
			t.Helper()
			form.Set("csrf", csrf)
			return e.post(t, c, path, form, nil)
		}
		see := func(path string) string {
			t.Helper()
			code, page := e.get(t, c, path)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %s", path, code, page)
			}
			return page
		}
		if res := send("/console/roles", url.Values{"role": {"mod"}, "name": {"Mod"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("create role: %d %s", res.StatusCode, body(res))
		}
		if page := see("/console/roles"); !strings.Contains(page, `<a href="/console/roles/mod"><code>mod</code></a>`) {
			t.Errorf("the roles page does not link the role:\n%s", page)
		}
		if page := see("/console/roles/mod"); !strings.Contains(row(page, "permission-list", "sendMessage"), "<td>allow</td><td>default</td>") {
			t.Errorf("sendMessage is not at its default:\n%s", page)
		}

		// Set, see, unset.
		for _, f := range []url.Values{{"permission": {"sendMessage"}, "value": {"deny"}},
			{"permission": {"sendMessage.allowedMessageTypes"}, "value": {"text, image"}}} {
			if res := send("/console/roles/mod/permissions", f); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("set %v: %d %s", f, res.StatusCode, body(res))
			}
		}
		page := see("/console/roles/mod")
		if r := row(page, "permission-list", "sendMessage"); !strings.Contains(r, "<td>deny</td><td>set</td>") || !strings.Contains(r, "Unset") {
			t.Errorf("sendMessage is not set to deny: %s", r)
		}
		if r := row(page, "permission-list", "sendMessage.allowedMessageTypes"); !strings.Contains(r, "<td>text, image</td><td>set</td>") {
			t.Errorf("the message types are not set: %s", r)
		}
		if res := send("/console/roles/mod/permissions/unset", url.Values{"permission": {"sendMessage"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("unset: %d %s", res.StatusCode, body(res))
		}
		if r := row(see("/console/roles/mod"), "permission-list", "sendMessage"); !strings.Contains(r, "<td>allow</td><td>default</td>") {
			t.Errorf("sendMessage is not back at its default: %s", r)
		}

		// Restrict, see, allow.
		// As htmx sends it: the token in a header, the form otherwise unparsed.
		if res := e.post(t, c, "/console/roles/mod/features", url.Values{"feature": {"u.listUsers"}},
			http.Header{"X-Csrf-Token": {csrf}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("restrict: %d %s", res.StatusCode, body(res))
		}
		if r := row(see("/console/roles/mod"), "restricted-list", "u.listUsers"); r == "" || !strings.Contains(r, "Allow") {
			t.Errorf("u.listUsers is not listed as restricted")
		}
		if res := send("/console/roles/mod/features/allow", url.Values{"feature": {"u.listUsers"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("allow: %d %s", res.StatusCode, body(res))
		}
		if r := row(see("/console/roles/mod"), "restricted-list", "u.listUsers"); r != "" {
			t.Errorf("u.listUsers is still restricted: %s", r)
		}

		// A group scope's permissions.
		if res := send("/console/groups", url.Values{"guid": {"team"}, "name": {"Team"}, "type": {"public"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("create group: %d %s", res.StatusCode, body(res))
		}
		if page := see("/console/groups/team"); !strings.Contains(page, `href="/console/groups/team/permissions"`) {
			t.Errorf("the group page does not link its permissions:\n%s", page)
		}
		if res := send("/console/groups/team/permissions", url.Values{"scope": {"moderator"}, "permission": {"listMembers.allowedScopes"},
			"value": {"admin moderator"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("set scope permission: %d %s", res.StatusCode, body(res))
		}
		page = see("/console/groups/team/permissions")
		if r := row(page, "permissions-moderator", "listMembers.allowedScopes"); !strings.Contains(r, "<td>admin, moderator</td><td>set</td>") {
			t.Errorf("the moderators' permission is not set: %s", r)
		}
		if r := row(page, "permissions-participant", "listMembers.allowedScopes"); !strings.Contains(r, "<td>default</td>") {
			t.Errorf("the participants' permission changed too: %s", r)
		}
		if res := send("/console/groups/team/permissions/unset", url.Values{"scope": {"moderator"}, "permission": {"listMembers.allowedScopes"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("unset scope permission: %d %s", res.StatusCode, body(res))
		}
		if r := row(see("/console/groups/team/permissions"), "permissions-moderator", "listMembers.allowedScopes"); !strings.Contains(r, "<td>default</td>") {
			t.Errorf("the moderators' permission is still set: %s", r)
		}

		// A forged form (no CSRF token) changes nothing.
		for _, path := range []string{"/console/roles/mod/permissions", "/console/roles/mod/features", "/console/groups/team/permissions"} {
			res := e.post(t, c, path, url.Values{"permission": {"sendMessage"}, "value": {"deny"}, "feature": {"u.listUsers"}, "scope": {"admin"}}, nil)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("forged %s: %d", path, res.StatusCode)
			}
		}
		page = see("/console/roles/mod")
		if !strings.Contains(row(page, "permission-list", "sendMessage"), "<td>default</td>") || row(page, "restricted-list", "u.listUsers") != "" {
			t.Errorf("a forged form changed the role:\n%s", page)
		}
		if !strings.Contains(row(see("/console/groups/team/permissions"), "permissions-admin", "sendMessage"), "<td>default</td>") {
			t.Errorf("a forged form changed the group")
		}

		for _, tc := range []struct {
			name, method, path string
			form               url.Values
			status             int
			says               string
		}{
			{"no such role", "GET", "/console/roles/nosuch", nil, 404, "nosuch"},
			{"unknown permission", "POST", "/console/roles/mod/permissions", url.Values{"permission": {"fly"}, "value": {"allow"}}, 400, "fly"},
			{"bad value", "POST", "/console/roles/mod/permissions", url.Values{"permission": {"sendMessage"}, "value": {"maybe"}}, 400, "sendMessage"},
			{"bad list item", "POST", "/console/roles/mod/permissions", url.Values{"permission": {"sendMessage.allowedMessageTypes"}, "value": {"hologram"}}, 400, "allowedMessageTypes"},
			{"no such role in a list", "POST", "/console/roles/mod/permissions", url.Values{"permission": {"listUsers.allowedRoles"}, "value": {"ghost"}}, 400, "ghost"},
			{"permission of no such role", "POST", "/console/roles/nosuch/permissions", url.Values{"permission": {"sendMessage"}, "value": {"deny"}}, 404, "nosuch"},
			{"unset an unknown permission", "POST", "/console/roles/mod/permissions/unset", url.Values{"permission": {"fly"}}, 400, "fly"},
			{"unknown feature", "POST", "/console/roles/mod/features", url.Values{"feature": {"u.fly"}}, 400, "u.fly"},
			{"no feature", "POST", "/console/roles/mod/features", url.Values{}, 400, "featuresToRestrict"},
			{"allow an unknown feature", "POST", "/console/roles/mod/features/allow", url.Values{"feature": {"u.fly"}}, 400, "u.fly"},
			{"feature of no such role", "POST", "/console/roles/nosuch/features", url.Values{"feature": {"u.listUsers"}}, 404, "nosuch"},
			{"no such group", "GET", "/console/groups/nosuch/permissions", nil, 404, "nosuch"},
			{"unknown scope permission", "POST", "/console/groups/team/permissions", url.Values{"scope": {"admin"}, "permission": {"listUsers"}, "value": {"deny"}}, 400, "listUsers"},
			{"bad scope", "POST", "/console/groups/team/permissions", url.Values{"scope": {"king"}, "permission": {"sendMessage"}, "value": {"deny"}}, 0, ""},
			{"scope permission of no such group", "POST", "/console/groups/nosuch/permissions", url.Values{"scope": {"admin"}, "permission": {"sendMessage"}, "value": {"deny"}}, 404, "nosuch"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var code int
				var b string
				if tc.method == "GET" {
					code, b = e.get(t, c, tc.path)
				} else {
					res := send(tc.path, tc.form)
					code, b = res.StatusCode, body(res)
				}
				if code >= 500 || tc.status != 0 && code != tc.status || tc.status == 0 && code < 400 {
					t.Fatalf("got %d, want %d (0: any 4xx):\n%s", code, tc.status, b)
				}
				if tc.says != "" && !strings.Contains(b, tc.says) {
					t.Errorf("the page does not say %q:\n%s", tc.says, b)
				}
				if code == 400 && !strings.Contains(b, `role="alert"`) {
					t.Errorf("no error on the page:\n%s", b)
				}
			})
		}
	})
}
