package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPanicBecomesLogged500(t *testing.T) {
	var logs bytes.Buffer
	s := New(nil, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom: secret internals") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v3/users", nil))
	body := rec.Body.String()
	if rec.Code != 500 || !strings.Contains(body, `"code":"ERR_EXCEPTION"`) || strings.Contains(body, "secret") {
		t.Fatalf("got %d %s", rec.Code, body)
	}
	id := rec.Header().Get("X-Request-Id")
	if id == "" || !strings.Contains(logs.String(), "request_id="+id) || !strings.Contains(logs.String(), "secret internals") {
		t.Fatalf("panic not logged with request id %q:\n%s", id, logs.String())
	}
}

func TestAccessLogNeverHoldsAKey(t *testing.T) {
	var logs bytes.Buffer
	s := New(nil, Options{AccessLog: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	key := "0123456789abcdef0123456789abcdef01234567"
	for _, path := range []string{"/v3/apikeys/", "/v3/apiKeys/", "/V3/APIKEYS/"} {
		req := httptest.NewRequest("DELETE", path+key, nil)
		req.Header.Set("apikey", key)
		h := s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
		h.ServeHTTP(httptest.NewRecorder(), req)
		if strings.Contains(logs.String(), key) || !strings.Contains(logs.String(), "status=204") {
			t.Fatalf("access log for %s:\n%s", path, logs.String())
		}
	}
}

func TestHostApp(t *testing.T) {
	for _, tc := range []struct {
		host, app, region string
		ok                bool
	}{
		{"demo.api-us.localhost:8080", "demo", "us", true},
		{"Demo.API-EU.localhost.", "demo", "eu", true},
		{"127.0.0.1:8080", "", "", false},
		{"localhost", "", "", false},
		{"api-us.localhost", "", "", false},
		{"x.y.api-us.localhost", "x.y", "us", true},
		{"demo.api-us.example.com", "", "", false},
		{"[::1]:8080", "", "", false},
	} {
		app, region, ok := hostApp(tc.host, "localhost")
		if app != tc.app || string(region) != tc.region || ok != tc.ok {
			t.Errorf("%s: got %q %q %v", tc.host, app, region, ok)
		}
	}
}

func TestCanonical(t *testing.T) {
	for p, want := range map[string]bool{"/v3/users": true, "/v3/users/": true, "/v3//users": false, "/v3/users/../x": false, "/v3/./users": false, "/": true} {
		if got := canonical(p); got != want {
			t.Errorf("%s: got %v", p, got)
		}
	}
}
