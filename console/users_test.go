package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestUserPages: a user renamed and given another role, an auth token created (shown once)
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
		post("/console/users", url.Values{"uid": {"Carol"}, "name": {"Carol"}}, http.StatusSeeOther)
		if _, err := e.svc.CreateRole(t.Context(), principal(t, e), chat.RoleCreate{Role: "editor", Name: "Editor"}); err != nil {
			t.Fatal(err)
		}
		post("/console/users/carol", url.Values{"name": {"Carol Ann"}, "role": {"editor"}}, http.StatusSeeOther)
		p := page("/console/users/carol")
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
