package notify

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{"-5", 0},
		{now.Add(90 * time.Second).UTC().Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).UTC().Format(http.TimeFormat), 0},
		{"soon", 0},
	} {
		if got := retryAfter(http.Header{"Retry-After": {tc.v}}, now); got != tc.want {
			t.Errorf("Retry-After %q: %v, want %v", tc.v, got, tc.want)
		}
	}
}

// The providers' hosts get the same care as app URLs: no redirect is followed (it is the
// configuration's fault), and a request that outlives the timeout is retryable.
func TestProviderRedirectAndTimeout(t *testing.T) {
	var followed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved/v3/mail/send":
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		case "/slow/v3/mail/send":
			io.Copy(io.Discard, r.Body) // so the server notices the client going away
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		default:
			followed.Add(1)
		}
	}))
	defer srv.Close()
	send := func(base string) Result {
		c := NewClient(ClientConfig{Timeout: 200 * time.Millisecond, Endpoints: Endpoints{SendGrid: srv.URL + base}})
		p, _ := c.NewSendGrid(SendGridConfig{APIKey: "k", FromEmail: "a@example.com"})
		return p.Send(context.Background(), Notification{To: "b@example.com", Title: "s", Body: "b"})
	}
	if r := send("/moved"); !r.Misconfigured || r.Retry || followed.Load() != 0 {
		t.Errorf("redirect: %+v, followed %d", summary(r), followed.Load())
	}
	r := send("/slow")
	if !r.Retry || r.Status != 0 || r.Latency < 200*time.Millisecond || r.Latency > 1500*time.Millisecond {
		t.Errorf("timeout: %+v after %v", summary(r), r.Latency)
	}
	if strings.Contains(r.Err.Error(), srv.URL) {
		t.Errorf("the error %q shows the URL", r.Err)
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("é", maxReasonLen) // 2 bytes each
	got := clip(s)
	if !strings.HasSuffix(got, "…") || len(got) > maxReasonLen+len("…") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("clip cut badly: %d bytes", len(got))
	}
	if !strings.HasPrefix(got, "éé") || strings.Count(got, "é") != maxReasonLen/2 {
		t.Errorf("clip kept %d runes", strings.Count(got, "é"))
	}
}
