package safedial

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	o := Options{Timeout: 2 * time.Second, Name: "webhook", AllowFlag: "--webhook-allow-private"}

	_, err := Client(o).Get(srv.URL)
	if !errors.Is(err, ErrPrivate) || !strings.Contains(err.Error(), "webhook: 127.0.0.1 is a loopback, private or link-local address (--webhook-allow-private allows it)") {
		t.Fatalf("loopback without AllowPrivate: err = %v, want the refusal", err)
	}

	o.AllowPrivate = true
	res, err := Client(o).Get(srv.URL)
	if err != nil {
		t.Fatalf("loopback with AllowPrivate: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("status = %d, want 204", res.StatusCode)
	}

	_, err = Client(o).Get(srv.URL + "/moved")
	if !errors.Is(err, ErrRedirect) {
		t.Fatalf("redirect: err = %v, want ErrRedirect", err)
	}
}

// Without a Name the errors have no prefix, for callers that add their own.
func TestClientUnnamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	_, err := Client(Options{Timeout: time.Second, AllowFlag: "--x"}).Get(srv.URL)
	var refused *refusedError
	if !errors.As(err, &refused) || refused.Error() != "127.0.0.1 is a loopback, private or link-local address (--x allows it)" {
		t.Fatalf("err = %v", err)
	}
}

// Every spelling of a loopback address is refused when it is dialled, never connected to:
// the IPv4-compatible IPv6 form and the IPv4 forms inet_aton reads. With AllowPrivate the
// IPv4 forms reach the loopback server, so they are dialled as the address they spell.
func TestClientSpellings(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	o := Options{Timeout: 2 * time.Second, AllowFlag: "--x"}
	for _, host := range []string{"[::127.0.0.1]", "[::7f00:1]", "[::ffff:127.0.0.1]", "[2002:7f00:1::]",
		"127.1", "127.0.1", "0x7f000001", "2130706433", "0177.0.0.1", "0x7f.1"} {
		_, err := Client(o).Get("http://" + host + ":" + port + "/")
		if !errors.Is(err, ErrPrivate) {
			t.Errorf("%s: err = %v, want ErrPrivate", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server was reached %d times", n)
	}

	o.AllowPrivate = true
	for _, host := range []string{"127.1", "0x7f000001", "2130706433", "0177.0.0.1"} {
		res, err := Client(o).Get("http://" + host + ":" + port + "/")
		if err != nil {
			t.Errorf("%s with AllowPrivate: %v", host, err)
			continue
		}
		res.Body.Close()
	}
	if n := hits.Load(); n != 4 {
		t.Fatalf("with AllowPrivate the server was reached %d times, want 4", n)
	}
}
