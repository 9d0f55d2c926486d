package notify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	twilioSID   = "AC0123456789abcdef0123456789abcdef"
	twilioToken = "twilio-auth-token-secret"
)

func TestTwilio(t *testing.T) {
	var form url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+twilioSID+"/Messages.json" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if u, p, ok := r.BasicAuth(); !ok || u != twilioSID || p != twilioToken {
			t.Errorf("basic auth %q %q %v", u, p, ok)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
			t.Errorf("Content-Type %q", ct)
		}
		r.ParseForm()
		form = r.PostForm
		twErr := func(status, code int, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"code":%d,"message":%q,"more_info":"https://www.twilio.com/docs/errors/%d","status":%d}`, code, msg, code, status)
		}
		switch form.Get("To") {
		case "+15550000001":
			w.WriteHeader(201)
			io.WriteString(w, `{"sid":"SM0123456789abcdef0123456789abcdef","status":"queued"}`)
		case "+1555bad":
			twErr(400, 21211, "The 'To' number +1555bad is not a valid phone number.")
		case "+15550000002":
			twErr(400, 21606, "The From phone number is not a valid, SMS-capable inbound phone number for your account.")
		case "+15550000003":
			twErr(401, 20003, "Authenticate")
		case "+15550000004":
			w.Header().Set("Retry-After", "5")
			twErr(429, 20429, "Too Many Requests")
		case "+15550000005":
			twErr(503, 20503, "Service unavailable")
		default:
			t.Errorf("unexpected To %q", form.Get("To"))
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Timeout: 2 * time.Second, Endpoints: Endpoints{Twilio: srv.URL}})
	p, err := c.NewTwilio(TwilioConfig{AccountSID: twilioSID, AuthToken: twilioToken, From: "+15557654321"})
	if err != nil {
		t.Fatal(err)
	}

	r := p.Send(context.Background(), Notification{Channel: ChannelSMS, UID: "bob", To: "+15550000001", Title: "not sent", Body: "Alice: Hello! & <b>"})
	if diff := cmp.Diff(got{Status: 201, OK: true, ID: "SM0123456789abcdef0123456789abcdef"}, summary(r)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(url.Values{"To": {"+15550000001"}, "From": {"+15557654321"}, "Body": {"Alice: Hello! & <b>"}}, form); diff != "" {
		t.Errorf("form (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		to   string
		want got
	}{
		{"+1555bad", got{Status: 400, Reason: "21211"}},
		{"+15550000002", got{Status: 400, Misconfigured: true, Reason: "21606"}},
		{"+15550000003", got{Status: 401, Misconfigured: true, Reason: "20003"}},
		{"+15550000004", got{Status: 429, Retry: true, RetryAfter: 5 * time.Second, Reason: "20429"}},
		{"+15550000005", got{Status: 503, Retry: true, Reason: "20503"}},
	} {
		r := p.Send(context.Background(), Notification{To: tc.to, Body: "b"})
		if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s\nerr: %v", tc.to, diff, r.Err)
		}
		noSecrets(t, r, twilioToken, twilioSID)
	}

	// A messaging service picks the number instead of From.
	p, _ = c.NewTwilio(TwilioConfig{AccountSID: twilioSID, AuthToken: twilioToken, From: "+15557654321", MessagingServiceSID: "MG0123"})
	p.Send(context.Background(), Notification{To: "+15550000001", Body: "b"})
	if form.Get("MessagingServiceSid") != "MG0123" || form.Has("From") {
		t.Errorf("form with a messaging service: %v", form)
	}
}

func TestNewTwilioRefuses(t *testing.T) {
	c := NewClient(ClientConfig{})
	for name, cfg := range map[string]TwilioConfig{
		"no token":      {AccountSID: twilioSID, From: "+1"},
		"no from":       {AccountSID: twilioSID, AuthToken: "x"},
		"path in sid":   {AccountSID: "AC/../x", AuthToken: "x", From: "+1"},
		"not an AC sid": {AccountSID: "SK0123", AuthToken: "x", From: "+1"},
	} {
		if _, err := c.NewTwilio(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
