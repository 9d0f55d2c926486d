package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestUserPages: a role created, a user renamed and given it, an auth token created (shown once)
// and deleted, the user deactivated (gone from the default list, shown with "include
// deactivated") and reactivated.
func TestUserPages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		post := func(path string, v url.Values, want int) string {
			t.Helper()
			if v == nil {
				v = url.Values{}
			}
			v.Set("csrf", csrf)
			res := e.post(t, c, path, v, nil)
			b := body(res)
			if res.StatusCode != want {
				t.Fatalf("POST %s: %d, want %d\n%s", path, res.StatusCode, want, b)
			}
			return b
		}
		page := func(path string) string {
			t.Helper()
			code, b := e.get(t, c, path)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", path, code, b)
			}
			return b
		}
		// A refused form comes back with the error and what was typed.
		p := post("/console/users", url.Values{"uid": {"zed"}, "name": {"Zed Zero"}, "role": {"nosuch"}}, http.StatusNotFound)
		if !strings.Contains(p, `role="alert"`) || !strings.Contains(p, `value="Zed Zero"`) || !strings.Contains(p, `value="nosuch"`) {
			t.Fatalf("the refused form:\n%s", p)
		}
		post("/console/users", url.Values{"uid": {"Carol"}, "name": {"Carol"}}, http.StatusSeeOther)
		post("/console/roles", url.Values{"role": {"editor"}, "name": {"Editor"}, "description": {"edits"}}, http.StatusSeeOther)
		if p := page("/console/roles"); !strings.Contains(p, "<code>editor</code>") || !strings.Contains(p, "<code>default</code>") {
			t.Fatalf("roles:\n%s", p)
		}
		post("/console/users/carol", url.Values{"name": {"Carol Ann"}, "role": {"editor"}}, http.StatusSeeOther)
		p = page("/console/users/carol")
		if !strings.Contains(p, `value="Carol Ann"`) || !strings.Contains(p, `value="editor"`) {
			t.Fatalf("after the edit:\n%s", p)
		}

		p = post("/console/users/carol/tokens", nil, http.StatusOK)
		tok := regexp.MustCompile(`<output id="new-token">(carol_[0-9a-f]+)</output>`).FindStringSubmatch(p)
		if tok == nil {
			t.Fatalf("no new token shown:\n%s", p)
		}
		p = page("/console/users/carol")
		if strings.Contains(p, tok[1]) || !strings.Contains(p, "1 token") {
			t.Fatalf("the token is shown again, or not listed:\n%s", p)
		}
		hash := regexp.MustCompile(`name="token" value="([0-9a-f]{64})"`).FindStringSubmatch(p)
		if hash == nil {
			t.Fatalf("no delete form for the token:\n%s", p)
		}
		post("/console/users/carol/tokens/delete", url.Values{"token": {hash[1]}}, http.StatusSeeOther)
		if p = page("/console/users/carol"); !strings.Contains(p, "0 tokens") {
			t.Fatalf("the token is still listed:\n%s", p)
		}

		post("/console/users/carol/deactivate", nil, http.StatusSeeOther)
		if p = page("/console/users/carol"); !strings.Contains(p, "deactivated") || !strings.Contains(p, "Reactivate") {
			t.Fatalf("a deactivated user's page:\n%s", p)
		}
		if p = page("/console/users"); strings.Contains(p, ">carol</a>") {
			t.Errorf("the default list shows a deactivated user")
		}
		if p = page("/console/users?all=1"); !strings.Contains(p, ">carol</a>") {
			t.Errorf("the list with deactivated users lacks carol:\n%s", p)
		}
		post("/console/users/carol/reactivate", nil, http.StatusSeeOther)
		if p = page("/console/users?q=car"); !strings.Contains(p, ">carol</a>") || !strings.Contains(p, "1 user matching") {
			t.Errorf("search after reactivation:\n%s", p)
		}
	})
}

// TestRolePages: a role is created, listed, given to a user and deleted, and its user then
// has the default role.
func TestRolePages(t *testing.T) {
	e := newEnv(t, "sqlite")
	c := e.browser(t)
	_, csrf := e.signIn(t, c, "demo", e.full)
	for _, step := range []struct {
		path string
		form url.Values
	}{
		{"/console/roles", url.Values{"role": {"mod"}, "name": {"Moderator"}}},
		{"/console/users", url.Values{"uid": {"erin"}, "name": {"Erin"}, "role": {"mod"}}},
		{"/console/roles/mod/delete", nil},
	} {
		v := url.Values{"csrf": {csrf}}
		for k, x := range step.form {
			v[k] = x
		}
		if res := e.post(t, c, step.path, v, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", step.path, res.StatusCode, body(res))
		}
	}
	if _, p := e.get(t, c, "/console/roles"); strings.Contains(p, "<code>mod</code>") {
		t.Errorf("the deleted role is listed")
	}
	if _, p := e.get(t, c, "/console/users/erin"); !strings.Contains(p, `name="role" required maxlength="100" value="default"`) {
		t.Errorf("erin's role after its deletion:\n%s", p)
	}
}
