package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTwoIdentityHeadersAreRefused: a request that sends onBehalfOf (who acts) or appId
// (which tenant) more than once, in any spelling of the name, is ambiguous. The first value
// used to be served silently; it is now 400 ERR_BAD_REQUEST naming the header, with an API
// key or an auth token, on reads and writes alike, and nothing is written.
func TestTwoIdentityHeadersAreRefused(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		tok := e.mustToken("alice")
		before := e.snapshot()
		send := `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"who sent me?"}}`
		for _, tc := range []struct {
			name   string
			header http.Header
			field  string
		}{
			{"two onBehalfOf", http.Header{"Apikey": {e.full}, "Onbehalfof": {"alice", "bob"}}, "onBehalfOf"},
			{"the same onBehalfOf twice", http.Header{"Apikey": {e.full}, "Onbehalfof": {"alice", "alice"}}, "onBehalfOf"},
			{"onBehalfOf then empty", http.Header{"Apikey": {e.full}, "Onbehalfof": {"alice", ""}}, "onBehalfOf"},
			{"two spellings of onBehalfOf", http.Header{"Apikey": {e.full}, "onBehalfOf": {"alice"}, "ONBEHALFOF": {"bob"}}, "onBehalfOf"},
			{"two onBehalfOf with a token", http.Header{"Authtoken": {tok}, "Onbehalfof": {"alice", "bob"}}, "onBehalfOf"},
			{"two appId", http.Header{"Apikey": {e.full}, "Onbehalfof": {"alice"}, "Appid": {"demo", "other"}}, "appId"},
			{"the same appId twice", http.Header{"Apikey": {e.full}, "Onbehalfof": {"alice"}, "Appid": {"demo", "demo"}}, "appId"},
			{"two appId with a token", http.Header{"Authtoken": {tok}, "Appid": {"demo", "other"}}, "appId"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, target := range []struct{ method, path, body string }{
					{"POST", "/v3/messages", send},
					{"GET", "/v3/users/alice/messages", ""},
					{"GET", "/v3/users", ""},
				} {
					req, err := http.NewRequest(target.method, e.srv.URL+target.path, strings.NewReader(target.body))
					if err != nil {
						t.Fatal(err)
					}
					for k, v := range tc.header {
						req.Header[k] = v
					}
					if target.body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					res, err := e.http.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 400 || !strings.Contains(string(body), `"code":"ERR_BAD_REQUEST"`) || !strings.Contains(string(body), `"`+tc.field+`"`) {
						t.Errorf("%s %s: %d %s; want 400 ERR_BAD_REQUEST naming %s", target.method, target.path, res.StatusCode, body, tc.field)
					}
				}
			})
		}
		if after := e.snapshot(); after != before {
			t.Errorf("a refused request wrote:\nbefore\n%s\nafter\n%s", before, after)
		}
		// One of each is served as before.
		r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "alice", "appId": "demo"}, body: send})
		if r.status != 200 {
			t.Errorf("one onBehalfOf and one appId: %d %s", r.status, r.body)
		}
	})
}
