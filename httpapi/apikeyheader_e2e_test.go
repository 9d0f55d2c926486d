package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTwoAPIKeyHeadersAreRefused: a request carrying the apikey header more than once, in any
// spelling of its name, is ambiguous about who is calling. The first used to win silently; it
// is now 401 AUTH_ERR_APIKEY_NOT_FOUND, whatever the values.
func TestTwoAPIKeyHeadersAreRefused(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		for _, tc := range []struct {
			name   string
			header http.Header
		}{
			{"same key twice", http.Header{"Apikey": {e.full, e.full}}},
			{"valid then unknown", http.Header{"Apikey": {e.full, strings.Repeat("0", 40)}}},
			{"unknown then valid", http.Header{"Apikey": {strings.Repeat("0", 40), e.full}}},
			{"valid then empty", http.Header{"Apikey": {e.full, ""}}},
			{"two spellings", http.Header{"apikey": {e.full}, "APIKEY": {e.authKey}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, target := range []struct{ method, path string }{{"GET", "/v3/users/alice"}, {"POST", "/v3/users"}, {"GET", "/v3/apikeys"}} {
					req, err := http.NewRequest(target.method, e.srv.URL+target.path, strings.NewReader(`{"uid":"bob","name":"Bob"}`))
					if err != nil {
						t.Fatal(err)
					}
					for k, v := range tc.header {
						req.Header[k] = v
					}
					res, err := e.http.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 401 || !strings.Contains(string(body), `"code":"AUTH_ERR_APIKEY_NOT_FOUND"`) {
						t.Errorf("%s %s: %d %s", target.method, target.path, res.StatusCode, body)
					}
					if strings.Contains(string(body), e.full) || strings.Contains(string(body), e.authKey) {
						t.Errorf("the body echoes a key: %s", body)
					}
				}
			})
		}
		if n := e.count("SELECT COUNT(*) FROM users"); n != 1 {
			t.Errorf("%d users: a refused request wrote", n)
		}
	})
}
