package safedial

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
