package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const sendgridKey = "SG.secret-api-key"

func TestSendGrid(t *testing.T) {
	clk := newClock()
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v3/mail/send" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if a := r.Header.Get("Authorization"); a != "Bearer "+sendgridKey {
			t.Errorf("Authorization %q", a)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		body = nil
		json.NewDecoder(r.Body).Decode(&body)
		to := body["personalizations"].([]any)[0].(map[string]any)["to"].([]any)[0].(map[string]any)["email"]
		switch to {
		case "bob@example.com":
			w.Header().Set("X-Message-Id", "sg-msg-1")
			w.WriteHeader(202)
		case "bad@example.com":
			w.WriteHeader(400)
			io.WriteString(w, `{"errors":[{"message":"Does not contain a valid address.","field":"personalizations.0.to.0.email","help":null}]}`)
		case "forbidden@example.com":
			w.WriteHeader(403)
			io.WriteString(w, `{"errors":[{"message":"The from address does not match a verified Sender Identity.","field":"from","help":null}]}`)
		case "unauthorized@example.com":
			w.WriteHeader(401)
			io.WriteString(w, `{"errors":[{"message":"The provided authorization grant is invalid, expired, or revoked","field":null,"help":null}]}`)
		case "limit@example.com":
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(clk.Now().Add(90*time.Second).Unix(), 10))
			w.WriteHeader(429)
		case "down@example.com":
			w.WriteHeader(503)
		default:
			t.Errorf("unexpected recipient %v", to)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Timeout: 2 * time.Second, Now: clk.Now, Endpoints: Endpoints{SendGrid: srv.URL}})
	p, err := c.NewSendGrid(SendGridConfig{APIKey: sendgridKey, FromEmail: "noreply@example.com", FromName: "Natter"})
	if err != nil {
		t.Fatal(err)
	}

	r := p.Send(context.Background(), Notification{Channel: ChannelEmail, UID: "bob", Name: "Bob", To: "bob@example.com",
		Title: "New messages from Alice", Body: "Hello!", HTML: "<p>Hello!</p>"})
	if diff := cmp.Diff(got{Status: 202, OK: true, ID: "sg-msg-1"}, summary(r)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	want := map[string]any{
		"personalizations": []any{map[string]any{"to": []any{map[string]any{"email": "bob@example.com", "name": "Bob"}}}},
		"from":             map[string]any{"email": "noreply@example.com", "name": "Natter"},
		"subject":          "New messages from Alice",
		"content": []any{map[string]any{"type": "text/plain", "value": "Hello!"},
			map[string]any{"type": "text/html", "value": "<p>Hello!</p>"}},
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		to   string
		want got
	}{
		{"bad@example.com", got{Status: 400}},
		{"forbidden@example.com", got{Status: 403, Misconfigured: true}},
		{"unauthorized@example.com", got{Status: 401, Misconfigured: true}},
		{"limit@example.com", got{Status: 429, Retry: true, RetryAfter: 90 * time.Second}},
		{"down@example.com", got{Status: 503, Retry: true}},
	} {
		r := p.Send(context.Background(), Notification{To: tc.to, Title: "s", Body: "b"})
		if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s\nerr: %v", tc.to, diff, r.Err)
		}
		noSecrets(t, r, sendgridKey)
	}
	if r := p.Send(context.Background(), Notification{To: "bob@example.com", Body: "no subject"}); r.OK() || r.Retry {
		t.Errorf("no subject: %+v", summary(r))
	}
}
