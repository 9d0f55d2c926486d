package httpapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rawRequest sends one request line exactly as given (backslashes, odd methods) and returns
// the status and body.
func rawRequest(t *testing.T, addr, method, target, apikey string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\napikey: %s\r\nConnection: close\r\n\r\n", method, target, addr, apikey)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(res.Body)
	return res.StatusCode, body.String()
}

// TestAccessLogHoldsNoSecretPath sends API keys and auth tokens in every spelling of path a
// client might get wrong, and a method made of a key, and checks that the access log holds
// none of them: matched requests are logged by their route pattern, others by a short
// redacted form. Logging is the same on both databases, so this runs on SQLite.
func TestAccessLogHoldsNoSecretPath(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{})
	var logs syncBuffer
	srv := httptest.NewServer(httpapi.New(e.svc, httpapi.Options{Domain: testDomain, AccessLog: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	addr := srv.Listener.Addr().String()
	key := e.full
	token := "tok" + strings.Repeat("9f", 20)
	secrets := []string{key, token, strings.ToUpper(key)}
	requests := []struct{ method, target string }{
		{"GET", `/v3\apikeys\` + key},
		{"GET", "/v3/apikeys%5C" + key},
		{"GET", "/v3/apikey/" + key},
		{"GET", "/v3/API-KEYS/" + strings.ToUpper(key)},
		{"GET", "/v3/apikeys/" + key},  // matched: logged by pattern
		{"POST", "/v3/apikeys/" + key}, // known path, wrong method
		{"GET", "/v3//apikeys/" + key}, // not canonical
		{"GET", "/v3/apikeys/" + key + "/"},
		{"GET", "/v3/" + key},
		{"GET", "/" + key},
		{"GET", "/v3.0/users/" + key + "/x/y"},
		{"GET", "/v3/users/" + key}, // matched: the key is a well-formed uid
		{"GET", "/v3/users/u1/auth_tokens/" + token},
		{"GET", "/v3/users/u1/auth_token/" + token},
		{"DELETE", "/v3/users/u1/auth_tokens/" + token + "/"},
		{"GET", "/v3/users?apikey=" + key},
		{"GET", "/v3/%61pikeys%2F" + key},
		{"GET", "/" + strings.Repeat("a/", 2000) + key},
		{"K" + key, "/v3/users"},
		{"K" + key, "/v3/nothing"},
	}
	for _, r := range requests {
		rawRequest(t, addr, r.method, r.target, key)
	}
	srv.Close() // waits for every request, so every line is logged
	out := logs.String()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("the access log holds a secret %.8s…:\n%s", s, out)
		}
	}
	lines := regexp.MustCompile(`(?m)^.* msg=request .*$`).FindAllString(out, -1)
	if len(lines) != len(requests) {
		t.Errorf("%d request lines for %d requests:\n%s", len(lines), len(requests), out)
	}
	path := regexp.MustCompile(` path=("(?:[^"\\]|\\.)*"|\S*)`)
	for _, l := range lines {
		m := path.FindStringSubmatch(l)
		if m == nil || len(m[1]) > 64 {
			t.Errorf("path missing or too long: %s", l)
		}
	}
	for _, want := range []string{`path=/v3/apikeys/{apiKey}`, `path=/v3/users/{uid}/auth_tokens/{authToken}`, `path=/v3/users/{uid}`} {
		if !strings.Contains(out, want) {
			t.Errorf("no line with %s:\n%s", want, out)
		}
	}
}
