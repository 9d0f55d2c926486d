package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

// tokenShape is a token as natter makes them: {uid}_{10-digit creation time}{30 hex}.
var tokenShape = regexp.MustCompile(`^[a-z0-9_-]+_[0-9]{10}[0-9a-f]{30}$`)

// mustToken logs uid in as a client app does: a new auth token, made with the authOnly key.
func (e *env) mustToken(uid string) string {
	e.t.Helper()
	tok, err := e.auth.CreateAuthToken(e.ctx(), uid, client.CreateAuthTokenRequest{})
	if err != nil {
		e.t.Fatalf("create auth token for %s: %v", uid, err)
	}
	return tok.AuthToken
}

// as is a client app's client: the user's auth token, and the app in the appId header, as
// the official SDK sends them.
func (e *env) as(token string) *client.Client {
	return client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithHeader("appId", e.app.ID)).WithAuthToken(token)
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestAuthTokens(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("cometchat-uid-6", "Barry Allen")
		// The official SDK's login: an authOnly key, and what it says about its client.
		r := e.do(request{method: "POST", path: "/v3.0/users/Cometchat-UID-6/auth_tokens", headers: map[string]string{"apikey": e.authKey},
			body: `{"platform":"WEB","deviceId":"WEB-4_2_0-x","appInfo":{"version":"4.2.0","apiVersion":"v3.0","userAgent":"Mozilla/5.0"}}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		var created struct{ Data client.AuthToken }
		mustJSON(t, r.body, &created)
		first := created.Data.AuthToken
		if !tokenShape.MatchString(first) || !strings.HasPrefix(first, "cometchat-uid-6_1793534400") {
			t.Fatalf("token %q is not {uid}_{creation time}{30 hex}", first)
		}
		golden(t, "authtoken_create", r.body, first, "TOKEN")

		// Kept hashed: no column holds the token, and its hash is what is stored.
		if n := e.count(`SELECT COUNT(*) FROM auth_tokens WHERE hash = $1 AND uid = 'cometchat-uid-6'`, sha(first)); n != 1 {
			t.Fatalf("%d rows with the token's hash", n)
		}
		if strings.Contains(e.snapshot(), first[len("cometchat-uid-6_"):]) {
			t.Fatal("the database holds the token")
		}

		// Without force a new token is made too (an existing one cannot be given out again).
		second, err := e.c.CreateAuthToken(e.ctx(), "cometchat-uid-6", client.CreateAuthTokenRequest{})
		if err != nil || second.AuthToken == first || !tokenShape.MatchString(second.AuthToken) || second.Platform != "" {
			t.Fatalf("second create: %+v %v", second, err)
		}
		forced, err := e.c.CreateAuthToken(e.ctx(), "cometchat-uid-6", client.CreateAuthTokenRequest{Force: true})
		if err != nil || forced.AuthToken == second.AuthToken {
			t.Fatalf("forced create: %+v %v", forced, err)
		}

		// Lists mask every token, oldest first.
		r = e.do(request{method: "GET", path: "/v3/users/cometchat-uid-6/auth_tokens?perPage=2"})
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		for _, tok := range []string{first, second.AuthToken, forced.AuthToken} {
			if strings.Contains(string(r.body), tok[len(tok)-36:]) {
				t.Fatalf("a list shows a token: %s", r.body)
			}
		}
		golden(t, "authtoken_list", r.body, first[len(first)-4:], "LST1", second.AuthToken[len(second.AuthToken)-4:], "LST2")
		l, err := e.c.ListAuthTokens(e.ctx(), "cometchat-uid-6", 2, 2)
		if err != nil || len(l.Tokens) != 1 || l.Pagination.Total != 3 || l.Tokens[0].AuthToken[len(l.Tokens[0].AuthToken)-4:] != forced.AuthToken[len(forced.AuthToken)-4:] {
			t.Fatalf("page 2: %+v %v", l, err)
		}

		// Get and update show the token the caller named, in full.
		got, err := e.c.GetAuthToken(e.ctx(), "COMETCHAT-UID-6", first)
		if err != nil || got.AuthToken != first || got.Platform != "WEB" || got.AppInfo["version"] != "4.2.0" {
			t.Fatalf("get: %+v %v", got, err)
		}
		ua := "Natter/2.1 (iPhone)"
		up, err := e.c.UpdateAuthToken(e.ctx(), "cometchat-uid-6", first, client.UpdateAuthTokenRequest{Platform: ptr("ios"), UserAgent: &ua})
		if err != nil || up.AuthToken != first || up.Platform != "ios" || up.UserAgent != ua || up.AppInfo["version"] != "4.2.0" {
			t.Fatalf("update: %+v %v", up, err)
		}
		up, err = e.c.UpdateAuthToken(e.ctx(), "cometchat-uid-6", first, client.UpdateAuthTokenRequest{AppInfo: map[string]any{"version": "5"}})
		if err != nil || up.Platform != "ios" || up.AppInfo["version"] != "5" {
			t.Fatalf("update appInfo: %+v %v", up, err)
		}

		// Delete one; flush the rest.
		ack, err := e.c.DeleteAuthToken(e.ctx(), "cometchat-uid-6", first)
		if err != nil || !ack.Success || strings.Contains(ack.Message, first) {
			t.Fatalf("delete: %+v %v", ack, err)
		}
		_, err = e.c.GetAuthToken(e.ctx(), "cometchat-uid-6", first)
		apiErr(t, err, 404, "ERR_AUTH_TOKEN_NOT_FOUND")
		_, err = e.c.DeleteAuthToken(e.ctx(), "cometchat-uid-6", first)
		apiErr(t, err, 404, "ERR_AUTH_TOKEN_NOT_FOUND")
		ack, err = e.c.FlushAuthTokens(e.ctx(), "cometchat-uid-6")
		if err != nil || ack.Message != "Cleared Auth Tokens successfully for uid cometchat-uid-6." {
			t.Fatalf("flush: %+v %v", ack, err)
		}
		if l, err := e.c.ListAuthTokens(e.ctx(), "cometchat-uid-6", 0, 0); err != nil || len(l.Tokens) != 0 || l.Pagination.Total != 0 {
			t.Fatalf("after flush: %+v %v", l, err)
		}
		if _, err := e.c.FlushAuthTokens(e.ctx(), "cometchat-uid-6"); err != nil {
			t.Fatalf("flushing no tokens: %v", err)
		}

		// withAuthToken makes the user and its first token together.
		r = e.do(request{method: "POST", path: "/v3/users", headers: map[string]string{"apikey": e.authKey},
			body: `{"uid":"Iris","name":"Iris West","withAuthToken":true}`})
		var u struct{ Data client.User }
		mustJSON(t, r.body, &u)
		if r.status != 200 || !strings.HasPrefix(u.Data.AuthToken, "iris_") || !tokenShape.MatchString(u.Data.AuthToken) {
			t.Fatalf("create user withAuthToken: %d %s", r.status, r.body)
		}
		golden(t, "user_create_with_token", r.body, u.Data.AuthToken, "TOKEN")
		if me, err := e.as(u.Data.AuthToken).GetUser(e.ctx(), "iris"); err != nil || me.UID != "iris" || me.AuthToken != "" {
			t.Fatalf("the new token: %+v %v", me, err)
		}
		if got, err := e.c.GetUser(e.ctx(), "iris"); err != nil || got.AuthToken != "" {
			t.Fatalf("get shows a token: %+v %v", got, err)
		}
	})
}

func TestAuthTokenBadInput(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustUser("gone", "Gone")
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		alice, bob := e.mustToken("alice"), e.mustToken("bob")
		other, _ := e.newApp("other", "eu")
		if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "alice", Name: "Other Alice"}); err != nil {
			t.Fatal(err)
		}
		otherAlice, err := other.CreateAuthToken(e.ctx(), "alice", client.CreateAuthTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		unknown := "alice_" + strings.Repeat("0", 40)
		long := strings.Repeat("a", 5000)
		for _, tc := range []struct {
			name string
			r    request
			code string
			// status is implied by code, except where one code has two statuses
			status int
			field  string
		}{
			{"create for an unknown user", request{method: "POST", path: "/v3/users/nobody/auth_tokens"}, "ERR_UID_NOT_FOUND", 404, ""},
			{"create for a deactivated user", request{method: "POST", path: "/v3/users/gone/auth_tokens"}, "ERR_UID_NOT_FOUND", 404, ""},
			{"create for a malformed uid", request{method: "POST", path: "/v3/users/a%20b/auth_tokens"}, "ERR_UID_NOT_FOUND", 404, ""},
			{"force not a boolean", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"force":"yes"}`}, "ERR_BAD_REQUEST", 400, "force"},
			{"platform too long", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"platform":"` + long + `"}`}, "ERR_BAD_REQUEST", 400, "platform"},
			{"platform not a string", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"platform":1}`}, "ERR_BAD_REQUEST", 400, "platform"},
			{"userAgent with NUL", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"userAgent":"a\u0000b"}`}, "ERR_BAD_REQUEST", 400, "userAgent"},
			{"appInfo not an object", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"appInfo":[1]}`}, "ERR_BAD_REQUEST", 400, "appInfo"},
			{"appInfo too large", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{"appInfo":{"a":"` + long + long + `"}}`}, "ERR_BAD_REQUEST", 400, "appInfo"},
			{"body not an object", request{method: "POST", path: "/v3/users/alice/auth_tokens", body: `[]`}, "ERR_BAD_REQUEST", 400, ""},
			{"create with a token", request{method: "POST", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"list for an unknown user", request{method: "GET", path: "/v3/users/nobody/auth_tokens"}, "ERR_UID_NOT_FOUND", 404, ""},
			{"list perPage 0", request{method: "GET", path: "/v3/users/alice/auth_tokens?perPage=0"}, "ERR_BAD_REQUEST", 400, "perPage"},
			{"list with the authOnly key", request{method: "GET", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": e.authKey}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"list with a token", request{method: "GET", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"get another user's token", request{method: "GET", path: "/v3/users/alice/auth_tokens/" + bob}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"get another app's token", request{method: "GET", path: "/v3/users/alice/auth_tokens/" + otherAlice.AuthToken}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"get an unknown token", request{method: "GET", path: "/v3/users/alice/auth_tokens/" + unknown}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"get a malformed token", request{method: "GET", path: "/v3/users/alice/auth_tokens/" + long}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"get an upper-cased token", request{method: "GET", path: "/v3/users/alice/auth_tokens/" + strings.ToUpper(alice)}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"get for an unknown user", request{method: "GET", path: "/v3/users/nobody/auth_tokens/" + alice}, "ERR_UID_NOT_FOUND", 404, ""},
			{"update with nothing", request{method: "PUT", path: "/v3/users/alice/auth_tokens/" + alice, body: `{}`}, "ERR_BAD_REQUEST", 400, "platform"},
			{"update with an empty body", request{method: "PUT", path: "/v3/users/alice/auth_tokens/" + alice}, "ERR_BAD_REQUEST", 400, "platform"},
			{"update appInfo not an object", request{method: "PUT", path: "/v3/users/alice/auth_tokens/" + alice, body: `{"appInfo":"x"}`}, "ERR_BAD_REQUEST", 400, "appInfo"},
			{"update another user's token", request{method: "PUT", path: "/v3/users/alice/auth_tokens/" + bob, body: `{"platform":"x"}`}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"update with a token", request{method: "PUT", path: "/v3/users/alice/auth_tokens/" + alice, body: `{"platform":"x"}`, headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"delete another user's token", request{method: "DELETE", path: "/v3/users/alice/auth_tokens/" + bob}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"delete another app's token", request{method: "DELETE", path: "/v3/users/alice/auth_tokens/" + otherAlice.AuthToken}, "ERR_AUTH_TOKEN_NOT_FOUND", 404, ""},
			{"delete with a token", request{method: "DELETE", path: "/v3/users/alice/auth_tokens/" + alice, headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"flush for an unknown user", request{method: "DELETE", path: "/v3/users/nobody/auth_tokens"}, "ERR_UID_NOT_FOUND", 404, ""},
			{"flush with the authOnly key", request{method: "DELETE", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": e.authKey}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"flush with a token", request{method: "DELETE", path: "/v3/users/alice/auth_tokens", headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
			{"create user withAuthToken with a token", request{method: "POST", path: "/v3/users", body: `{"uid":"z","name":"z","withAuthToken":true}`, headers: map[string]string{"apikey": "", "authToken": alice}}, "AUTH_ERR_NO_ACCESS", 403, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(tc.r)
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %.300s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if tc.field != "" && !strings.Contains(string(r.body), `"`+tc.field+`":[`) {
					t.Errorf("details do not name %s: %s", tc.field, r.body)
				}
				for _, secret := range []string{alice, bob, otherAlice.AuthToken, unknown, long[:100]} {
					if strings.Contains(string(r.body), secret) {
						t.Errorf("the error echoes a token: %s", r.body)
					}
				}
				if e.snapshot() != before {
					t.Error("a refused request wrote")
				}
			})
		}
		// Every token refused above still works.
		for _, tok := range []string{alice, bob} {
			if _, err := e.as(tok).ListUsers(e.ctx(), client.ListUsersParams{}); err != nil {
				t.Errorf("token refused after the table: %v", err)
			}
		}
	})
}

// TestAuthTokensPerUserCap: the 101st token of a user deletes its oldest, which stops
// working at once.
func TestAuthTokensPerUserCap(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		oldest := e.mustToken("alice")
		if _, err := e.as(oldest).GetUser(e.ctx(), "alice"); err != nil { // cached now
			t.Fatal(err)
		}
		var newest string
		for range chat.MaxAuthTokensPerUser {
			newest = e.mustToken("alice")
		}
		if n := e.count(`SELECT COUNT(*) FROM auth_tokens WHERE uid = 'alice'`); n != chat.MaxAuthTokensPerUser {
			t.Fatalf("%d tokens, want %d", n, chat.MaxAuthTokensPerUser)
		}
		_, err := e.as(oldest).GetUser(e.ctx(), "alice")
		apiErr(t, err, 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
		if _, err := e.as(newest).GetUser(e.ctx(), "alice"); err != nil {
			t.Fatal(err)
		}
	})
}

func mustJSON(t *testing.T, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("response is not the JSON expected: %v: %s", err, body)
	}
}

func ptr[T any](v T) *T { return &v }
