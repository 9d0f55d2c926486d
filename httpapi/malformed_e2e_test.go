package httpapi_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// TestMalformedHTTPIsRefusedByNetHTTP pins what docs/security.md says of requests that are not
// valid HTTP/1.1: Go's net/http answers them itself, in plain text, before natter sees them,
// so they carry no JSON envelope and reach no natter log, and the answer echoes nothing.
func TestMalformedHTTPIsRefusedByNetHTTP(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{})
	var logs syncBuffer
	srv := httptest.NewServer(httpapi.New(e.svc, httpapi.Options{Domain: testDomain, AccessLog: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	key := e.full
	for _, tc := range []struct {
		name, raw string
		status    int
	}{
		{"header name with a space", "GET /v3/users HTTP/1.1\r\nHost: x\r\napi key: " + key + "\r\n\r\n", 400},
		{"header value with a control byte", "GET /v3/users HTTP/1.1\r\nHost: x\r\napikey: " + key + "\x01\r\n\r\n", 400},
		{"two Host headers", "GET /v3/users/" + key + " HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
		{"no Host", "GET /v3/users/" + key + " HTTP/1.1\r\n\r\n", 400},
		{"a bad request line", "GET /v3/users/" + key + " HTTP/1.1 extra\r\nHost: x\r\n\r\n", 400},
		{"HTTP/2 over a plain connection", "GET /v3/users/" + key + " HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"an unknown transfer coding", "POST /v3/users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + key + "\r\n\r\n", 501},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprint(conn, tc.raw)
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			var body strings.Builder
			bufio.NewReader(res.Body).WriteTo(&body)
			res.Body.Close()
			if res.StatusCode != tc.status || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
				res.Header.Get("X-Request-Id") != "" || strings.Contains(body.String(), key) {
				t.Errorf("got %d %v %q", res.StatusCode, res.Header, body.String())
			}
		})
	}
	srv.Close()
	if strings.Contains(logs.String(), "msg=request") {
		t.Errorf("natter logged a request net/http refused:\n%s", logs.String())
	}
}
