package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/internal/safedial"
)

func TestCustom(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/hook" || r.URL.RawQuery != "k=1" {
			t.Errorf("%s %s", r.Method, r.URL)
		}
		if u, p, ok := r.BasicAuth(); !ok || u != "natter" || p != "hook-password" {
			t.Errorf("basic auth %q %q %v", u, p, ok)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		body = nil
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("body: %v", err)
		}
		switch body["data"].(map[string]any)["to"].(map[string]any)["uid"] {
		case "ok":
			w.WriteHeader(204)
		case "limit":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		case "down":
			w.WriteHeader(502)
		case "auth":
			w.WriteHeader(401)
		case "gone":
			w.WriteHeader(404)
		case "moved":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "slow":
			io.Copy(io.Discard, r.Body) // so the server notices the client going away
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Timeout: 300 * time.Millisecond, AllowPrivate: true})
	p, err := c.NewCustom(CustomConfig{URL: srv.URL + "/hook?k=1", Username: "natter", Password: "hook-password", AppID: "app1", Region: "us"})
	if err != nil {
		t.Fatal(err)
	}
	event := json.RawMessage(`{"message":{"id":"17","data":{"text":"Hello!"}}}`)

	for _, tc := range []struct {
		name string
		n    Notification
		want map[string]any
	}{
		{"push", Notification{Channel: ChannelPush, UID: "ok", Name: "Bob", To: "fcm-token", Title: "Alice", Body: "Hello!",
			Data: map[string]string{"sender": "alice", "title": "overridden"}, Event: event},
			map[string]any{"trigger": "push-notification-payload-generated", "appId": "app1", "region": "us", "webhook": "custom",
				"data": map[string]any{"channel": "push", "to": map[string]any{"uid": "ok", "name": "Bob", "token": "fcm-token"},
					"title": "Alice", "body": "Hello!",
					"notificationDetails": map[string]any{"sender": "alice", "title": "Alice", "body": "Hello!"},
					"event":               map[string]any{"message": map[string]any{"id": "17", "data": map[string]any{"text": "Hello!"}}}}}},
		{"sms with stored phone", Notification{Channel: ChannelSMS, UID: "ok", To: "+15550000001", Body: "You have new messages"},
			map[string]any{"trigger": "sms-notification-payload-generated", "appId": "app1", "region": "us", "webhook": "custom",
				"data": map[string]any{"channel": "sms", "to": map[string]any{"uid": "ok", "phno": "+15550000001"},
					"body": "You have new messages", "smsContent": "You have new messages"}}},
		{"email without stored address", Notification{Channel: ChannelEmail, UID: "ok", Title: "New messages", Body: "text", HTML: "<p>text</p>"},
			map[string]any{"trigger": "email-notification-payload-generated", "appId": "app1", "region": "us", "webhook": "custom",
				"data": map[string]any{"channel": "email", "to": map[string]any{"uid": "ok"},
					"title": "New messages", "body": "text", "subject": "New messages", "html": "<p>text</p>"}}},
	} {
		r := p.Send(context.Background(), tc.n)
		if diff := cmp.Diff(got{Status: 204, OK: true}, summary(r)); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s\nerr: %v", tc.name, diff, r.Err)
		}
		if diff := cmp.Diff(tc.want, body); diff != "" {
			t.Errorf("%s: body (-want +got):\n%s", tc.name, diff)
		}
	}

	for _, tc := range []struct {
		uid  string
		want got
	}{
		{"limit", got{Status: 429, Retry: true, RetryAfter: 7 * time.Second}},
		{"down", got{Status: 502, Retry: true}},
		{"auth", got{Status: 401, Misconfigured: true}},
		{"gone", got{Status: 404}},
		{"moved", got{Misconfigured: true}},
		{"slow", got{Retry: true}},
	} {
		r := p.Send(context.Background(), Notification{Channel: ChannelPush, UID: tc.uid, Body: "b"})
		if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s\nerr: %v", tc.uid, diff, r.Err)
		}
		noSecrets(t, r, "hook-password", "k=1")
	}

	for name, n := range map[string]Notification{
		"no channel": {UID: "ok"},
		"no uid":     {Channel: ChannelSMS},
		"bad event":  {Channel: ChannelPush, UID: "ok", Event: json.RawMessage(`{"a":`)},
	} {
		if r := p.Send(context.Background(), n); r.OK() || r.Retry {
			t.Errorf("%s: %+v", name, summary(r))
		}
	}
}

// Private, loopback and link-local addresses are refused: literals when the provider is
// made, and any address at connect time, after resolution.
func TestCustomPrivateAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := NewClient(ClientConfig{Timeout: time.Second})
	for _, u := range []string{srv.URL, "http://localhost:8080/", "http://169.254.169.254/latest", "http://[::1]/", "http://10.0.0.1/"} {
		if _, err := c.NewCustom(CustomConfig{URL: u}); err == nil {
			t.Errorf("NewCustom(%s): no error", u)
		}
	}
	for _, u := range []string{"ftp://example.com/", "https://user:pw@example.com/", "/relative"} {
		if _, err := c.NewCustom(CustomConfig{URL: u}); err == nil {
			t.Errorf("NewCustom(%s): no error", u)
		}
	}

	// As a name resolving to loopback would be: past the construction check, refused when dialled.
	p := &Custom{c: c, cfg: CustomConfig{URL: srv.URL}}
	r := p.Send(context.Background(), Notification{Channel: ChannelPush, UID: "bob", Body: "b"})
	if !r.Misconfigured || r.Retry || !errors.Is(r.Err, safedial.ErrPrivate) {
		t.Errorf("dial to loopback: %+v, err %v", summary(r), r.Err)
	}
	if hits.Load() != 0 {
		t.Error("the loopback server got the request")
	}
}
