package httpapi_test

import (
	"strings"
	"testing"
)

// TestUIDValidatedBeforeFolding: a uid is checked against [A-Za-z0-9_-]{1,100} as sent, then
// lower-cased. Non-ASCII letters that lower-case to ASCII (the Kelvin sign to k, İ to i) used
// to pass the check after folding and create or find kelvin and i.
func TestUIDValidatedBeforeFolding(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, uid := range []string{`\u212aelvin`, `\u0130`, `\u212a`, `a\u017f`} {
			r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"` + uid + `","name":"N"}`})
			if r.status != 400 || r.code != "ERR_BAD_REQUEST" || !strings.Contains(string(r.body), `"uid":`) {
				t.Errorf("create %s: %d %s", uid, r.status, r.body)
			}
		}
		if n := e.count("SELECT COUNT(*) FROM users"); n != 0 {
			t.Fatalf("%d users created", n)
		}
		if r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"Kelvin","name":"K"}`}); r.status != 200 || !strings.Contains(string(r.body), `"uid":"kelvin"`) {
			t.Fatalf("ASCII upper case is folded: %d %s", r.status, r.body)
		}
		e.mustUser("i", "I")
		for _, r := range []request{
			{method: "GET", path: "/v3/users/%E2%84%AAelvin"},
			{method: "GET", path: "/v3/users/%C4%B0"},
			{method: "PUT", path: "/v3/users/%E2%84%AAelvin", body: `{"name":"x"}`},
			{method: "DELETE", path: "/v3/users/%E2%84%AAelvin?permanent=true"},
		} {
			if got := e.do(r); got.status != 404 || got.code != "ERR_UID_NOT_FOUND" {
				t.Errorf("%s %s: %d %s", r.method, r.path, got.status, got.body)
			}
		}
		m := e.mustText("kelvin", "i", "hi")
		if r := e.do(request{method: "GET", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": "\u212aelvin"}}); r.status != 404 || r.code != "ERR_UID_NOT_FOUND" {
			t.Errorf("onBehalfOf with a Kelvin sign: %d %s", r.status, r.body)
		}
		if n := e.count("SELECT COUNT(*) FROM users"); n != 2 {
			t.Errorf("%d users after the lookups, want 2", n)
		}
	})
}
