package console_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/console"
)

// backends runs f on SQLite and on PostgreSQL: the console reads through chat, whose
// queries differ by engine. The test runs in parallel with the package's other parallel
// tests: each env is its own console, service and database.
func backends(t *testing.T, f func(t *testing.T, e *env)) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, newEnv(t, b))
		})
	}
}

// TestSignInRefusals: only an app's own fullAccess key signs in, only through the
// console's own form; a refusal says nothing about which half was wrong and sets no session.
func TestSignInRefusals(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, tc := range []struct {
		name, app, key string
		status         int
		says           string
	}{
		{"wrong key", "demo", "0123456789abcdef0123456789abcdef", 401, "No app with that id has that API key."},
		{"empty key", "demo", "", 401, "No app with that id has that API key."},
		{"another app's key", "demo", e.other, 401, "No app with that id has that API key."},
		{"no such app", "nosuch", e.full, 401, "No app with that id has that API key."},
		{"bad app id", "Demo App!", e.full, 401, "No app with that id has that API key."},
		{"authOnly key", "demo", e.authKey, 401, "needs a fullAccess key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := e.browser(t)
			res, _ := e.signIn(t, c, tc.app, tc.key)
			if b := body(res); res.StatusCode != tc.status || !strings.Contains(b, tc.says) {
				t.Fatalf("got %d, want %d saying %q:\n%s", res.StatusCode, tc.status, tc.says, b)
			}
			for _, ck := range res.Cookies() {
				if ck.Name == "natter_console" && ck.Value != "" {
					t.Errorf("a refused sign-in set a session cookie")
				}
			}
			if code, _ := e.get(t, c, "/console/"); code != http.StatusSeeOther {
				t.Errorf("overview after a refused sign-in: %d, want 303 to sign in", code)
			}
		})
	}
	t.Run("too many failures", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		for i := range 10 {
			if res, _ := e.signIn(t, e.browser(t), "demo", "0123456789abcdef0123456789abcdef"); res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("failure %d: %d, want 401", i+1, res.StatusCode)
			}
		}
		// The 11th attempt from the same address in the minute is refused, right key or not.
		if res, _ := e.signIn(t, e.browser(t), "demo", e.full); res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("after 10 failures: %d, want 429", res.StatusCode)
		}
	})
	t.Run("no sign-in token", func(t *testing.T) {
		res := e.post(t, e.browser(t), "/console/signin", url.Values{"appId": {"demo"}, "apiKey": {e.full}}, nil)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("got %d, want 403", res.StatusCode)
		}
	})
	t.Run("another site's form", func(t *testing.T) {
		c := e.browser(t)
		_, page := e.get(t, c, "/console/signin")
		tok := hiddenCSRF.FindStringSubmatch(page)[1]
		res := e.post(t, c, "/console/signin", url.Values{"csrf": {tok}, "appId": {"demo"}, "apiKey": {e.full}},
			http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}})
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("got %d, want 403", res.StatusCode)
		}
	})
}

// TestForgedPosts: a signed-in browser's state-changing request needs the session's CSRF
// token, and must come from the console's own origin.
func TestForgedPosts(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		form := func(tok string) url.Values {
			v := url.Values{"uid": {"forged"}, "name": {"Forged"}}
			if tok != "" {
				v.Set("csrf", tok)
			}
			return v
		}
		for _, tc := range []struct {
			name   string
			form   url.Values
			header http.Header
		}{
			{"no token", form(""), nil},
			{"wrong token", form(strings.Repeat("A", len(csrf))), nil},
			{"wrong header token", form(""), http.Header{"X-Csrf-Token": {"nope"}}},
			{"another session's token", form(forged(csrf)), nil},
			{"cross-site with the right token", form(csrf), http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}},
		} {
			res := e.post(t, c, "/console/users", tc.form, tc.header)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("%s: got %d, want 403", tc.name, res.StatusCode)
			}
		}
		if _, err := e.svc.Console().ConsoleUser(context.Background(), principal(t, e), "forged"); chat.ErrorCode(err) != chat.CodeUIDNotFound {
			t.Fatalf("a forged post created the user: %v", err)
		}
		// The same form with the token, as a field or as htmx's header, is done.
		if res := e.post(t, c, "/console/users", form(csrf), nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("with the token: %d %s", res.StatusCode, body(res))
		}
		v := url.Values{"uid": {"viaheader"}, "name": {"Via header"}}
		res := e.post(t, c, "/console/users", v, http.Header{"X-Csrf-Token": {csrf}, "Hx-Request": {"true"}})
		if res.StatusCode != http.StatusNoContent || res.Header.Get("HX-Location") != "/console/users/viaheader" {
			t.Fatalf("with htmx's header: %d %v", res.StatusCode, res.Header)
		}
		if code, page := e.get(t, c, "/console/users"); code != 200 || !strings.Contains(page, ">forged</a>") || !strings.Contains(page, ">viaheader</a>") {
			t.Fatalf("users list: %d\n%s", code, page)
		}
	})
}

func principal(t *testing.T, e *env) chat.Principal {
	p, err := e.svc.OperatorPrincipal(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSessionEnds: a session ends when unused for 30 minutes, 12 hours after sign-in however
// busy, when its key is deleted or loses full access, when its cookie is altered, and at
// sign-out.
func TestSessionEnds(t *testing.T) {
	ctx := context.Background()
	signedOut := func(t *testing.T, e *env, c *http.Client, when string) {
		t.Helper()
		res, err := c.Get(e.srv.URL + "/console/users")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/signin" {
			t.Fatalf("%s: got %d to %q, want 303 to the sign-in page", when, res.StatusCode, res.Header.Get("Location"))
		}
	}
	signedIn := func(t *testing.T, e *env, c *http.Client, when string) {
		t.Helper()
		if code, page := e.get(t, c, "/console/users"); code != 200 {
			t.Fatalf("%s: got %d, want the page\n%s", when, code, page)
		}
	}
	t.Run("idle", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		e.clock.advance(29 * time.Minute)
		signedIn(t, e, c, "29 minutes on")
		e.clock.advance(29 * time.Minute) // each use renews the idle expiry
		signedIn(t, e, c, "29 more minutes on")
		e.clock.advance(31 * time.Minute)
		signedOut(t, e, c, "31 idle minutes on")
	})
	t.Run("absolute", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		for range 12*3 - 1 {
			e.clock.advance(20 * time.Minute)
			signedIn(t, e, c, "in use")
		}
		e.clock.advance(21 * time.Minute)
		signedOut(t, e, c, "12 hours after sign-in")
	})
	t.Run("key deleted", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		other, err := e.svc.CreateAPIKey(ctx, principal(t, e), chat.APIKeyCreate{Name: "admin", Scope: chat.ScopeFullAccess})
		if err != nil {
			t.Fatal(err)
		}
		c2 := e.browser(t)
		e.signIn(t, c2, "demo", other.Value)
		scope := chat.ScopeAuthOnly
		if _, err := e.svc.UpdateAPIKey(ctx, principal(t, e), other.Value, chat.APIKeyChange{Scope: &scope}); err != nil {
			t.Fatal(err)
		}
		signedOut(t, e, c2, "its key made authOnly")
		if _, err := e.svc.DeleteAPIKey(ctx, principal(t, e), e.full); err != nil {
			t.Fatal(err)
		}
		signedOut(t, e, c, "its key deleted")
	})
	t.Run("altered cookie", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		u, _ := url.Parse(e.srv.URL + "/console/")
		var v string
		for _, ck := range c.Jar.Cookies(u) {
			if ck.Name == "natter_console" {
				v = ck.Value
			}
		}
		if v == "" || strings.Contains(v, e.full) {
			t.Fatalf("session cookie %q: missing, or holds the key", v)
		}
		for _, bad := range []string{v[:len(v)-2] + "AA", "x" + v[1:], "", "a.b", strings.Repeat("x", 2000)} {
			c.Jar.SetCookies(u, []*http.Cookie{{Name: "natter_console", Value: bad, Path: "/console"}})
			signedOut(t, e, c, "cookie "+bad[:min(len(bad), 10)])
		}
	})
	t.Run("sign out", func(t *testing.T) {
		e := newEnv(t, "sqlite")
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		if res := e.post(t, c, "/console/signout", url.Values{"csrf": {csrf}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign out: %d", res.StatusCode)
		}
		signedOut(t, e, c, "after signing out")
		// A post without a session is refused, not redirected into a page.
		if res := e.post(t, c, "/console/users", url.Values{"csrf": {csrf}, "uid": {"late"}, "name": {"Late"}}, nil); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("post after sign-out: %d", res.StatusCode)
		}
	})
}

// TestHeaders: every console response carries the strict CSP and the other protective
// headers; the console is not served on the API's host names at all.
func TestHeaders(t *testing.T) {
	e := newEnv(t, "sqlite")
	c := e.browser(t)
	for _, path := range []string{"/console/signin", "/console/", "/console/nosuch", "/console/assets/htmx.min.js", "/console/assets/console.css"} {
		res, err := c.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		for k, want := range map[string]string{"Content-Security-Policy": console.CSP, "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if got := res.Header.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", path, k, got, want)
			}
		}
		if cc := res.Header.Get("Cache-Control"); !strings.HasPrefix(path, "/console/assets/") && cc != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", path, cc)
		}
	}
	if !strings.Contains(console.CSP, "script-src 'self';") || strings.Contains(console.CSP, "unsafe") {
		t.Errorf("CSP %q", console.CSP)
	}
	for _, host := range []string{"demo.api-us.natter.test", "demo.apiclient-eu.natter.test:8080", "DEMO.API-US.NATTER.TEST."} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/console/signin", nil)
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(res); res.StatusCode != 404 || strings.TrimSpace(b) != "api" {
			t.Errorf("host %s: %d %q, want the API's answer", host, res.StatusCode, b)
		}
		res.Body.Close()
	}
	for _, host := range []string{"127.0.0.1", "localhost:8080", "console.natter.test", "natter.test"} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/console/signin", nil)
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("host %s: %d, want the console", host, res.StatusCode)
		}
	}
}

// TestSecureCookie: over TLS the console's cookies are Secure; all of them are HttpOnly,
// SameSite=Strict and limited to /console.
func TestSecureCookie(t *testing.T) {
	e := newEnv(t, "sqlite")
	srv := httptest.NewTLSServer(console.New(e.svc, console.Options{}))
	t.Cleanup(srv.Close)
	e.srv = srv
	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, _ := e.signIn(t, c, "demo", e.full)
	var seen bool
	for _, ck := range res.Cookies() {
		if ck.Name != "natter_console" || ck.Value == "" {
			continue
		}
		seen = true
		if !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console" {
			t.Errorf("session cookie %+v", ck)
		}
	}
	if !seen {
		t.Fatalf("no session cookie in %v", res.Header["Set-Cookie"])
	}
}

// forged is token with its first character changed: a token of the same shape that is not
// the session's (always different, whatever the first character was).
func forged(token string) string {
	if strings.HasPrefix(token, "x") {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
