package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// preflight sends an OPTIONS preflight as a browser would: no apikey. It bypasses the
// contract check, which knows no OPTIONS operations.
func preflight(t *testing.T, url, origin, method, headers string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		req.Header.Set("Access-Control-Request-Headers", headers)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestCORS(t *testing.T) {
	e := newEnvWith(t, "sqlite", chat.Config{}, httpapi.Options{CORSOrigins: []string{"https://app.example.com", "http://localhost:3000/"}})
	url := e.srv.URL + "/v3/messages"

	t.Run("preflight without a key", func(t *testing.T) {
		res := preflight(t, url, "https://app.example.com", "POST", "apikey, onBehalfOf, content-type, Idempotency-Key")
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("status %d, want 204", res.StatusCode)
		}
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":  "https://app.example.com",
			"Access-Control-Allow-Headers": "apikey, onBehalfOf, content-type, Idempotency-Key",
			"Access-Control-Max-Age":       "600",
		} {
			if got := res.Header.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		if res.Header.Get("Access-Control-Allow-Methods") == "" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("methods %q, credentials %q", res.Header.Get("Access-Control-Allow-Methods"), res.Header.Get("Access-Control-Allow-Credentials"))
		}
	})
	t.Run("origin listed with a trailing slash", func(t *testing.T) {
		res := preflight(t, url, "http://localhost:3000", "GET", "")
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
			t.Fatalf("got %d %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("preflight from another origin", func(t *testing.T) {
		res := preflight(t, url, "https://evil.example.com", "POST", "apikey")
		if res.StatusCode == http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("got %d, allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("preflight asking for a header that is not a token", func(t *testing.T) {
		res := preflight(t, url, "https://app.example.com", "POST", "apikey, bad header")
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Headers") != "" {
			t.Fatalf("got %d, allow-headers %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Headers"))
		}
	})
	t.Run("actual request", func(t *testing.T) {
		r := e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"Origin": "https://app.example.com"}})
		if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			r.header.Get("Access-Control-Expose-Headers") == "" || r.header.Get("Vary") != "Origin" {
			t.Fatalf("got %d %v", r.status, r.header)
		}
		// Authentication still applies to everything but the preflight.
		r = e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"Origin": "https://app.example.com", "apikey": ""}})
		if r.status != 401 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
			t.Fatalf("without a key: got %d %v", r.status, r.header)
		}
		r = e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"Origin": "https://evil.example.com"}})
		if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("other origin: got %d %v", r.status, r.header)
		}
	})
}

func TestCORSOffByDefault(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{})
	res := preflight(t, e.srv.URL+"/v3/users", "https://app.example.com", "GET", "apikey")
	if res.StatusCode == http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("got %d, allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
}

func TestCORSAnyOrigin(t *testing.T) {
	e := newEnvWith(t, "sqlite", chat.Config{}, httpapi.Options{CORSOrigins: []string{"*"}})
	res := preflight(t, e.srv.URL+"/v3/users", "https://anything.example", "GET", "apikey")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("got %d, allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
}
