package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeFCM is Google's token endpoint and FCM's messages:send. It checks the wire format and
// answers messages:send by the registration token.
type fakeFCM struct {
	t         *testing.T
	srv       *httptest.Server
	clock     *clock
	exchanges atomic.Int32
	refuse401 func(accessToken string) bool // messages:send answers 401 to these access tokens
	tokenFail int                           // the token endpoint's status when not 0
	slowToken time.Duration                 // the token endpoint's delay
	mu        sync.Mutex
	lastBody  map[string]any
}

func newFakeFCM(t *testing.T) *fakeFCM {
	f := &fakeFCM{t: t, clock: newClock(), refuse401: func(string) bool { return false }}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("POST /v1/projects/{project}/{op}", f.send)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeFCM) client() *Client {
	return NewClient(ClientConfig{Timeout: 2 * time.Second, Now: f.clock.Now,
		Endpoints: Endpoints{FCM: f.srv.URL, GoogleToken: f.srv.URL + "/token"}})
}

func (f *fakeFCM) token(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		t.Errorf("token request Content-Type %q", ct)
	}
	if err := r.ParseForm(); err != nil {
		t.Errorf("token form: %v", err)
	}
	if g := r.PostForm.Get("grant_type"); g != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		t.Errorf("grant_type %q", g)
	}
	header, claims := jwtParts(t, r.PostForm.Get("assertion"), &rsaKey.PublicKey)
	if diff := cmp.Diff(map[string]any{"alg": "RS256", "typ": "JWT", "kid": "kid-1"}, header); diff != "" {
		t.Errorf("assertion header (-want +got):\n%s", diff)
	}
	now := f.clock.Now().Unix()
	iat, exp := num(t, claims["iat"]), num(t, claims["exp"])
	if iat != now || exp <= iat || exp-iat > 3600 {
		t.Errorf("iat %d exp %d, want iat %d and exp within the hour after", iat, exp, now)
	}
	delete(claims, "iat")
	delete(claims, "exp")
	want := map[string]any{"iss": "natter@proj-1.iam.gserviceaccount.com",
		"scope": "https://www.googleapis.com/auth/firebase.messaging", "aud": f.srv.URL + "/token"}
	if diff := cmp.Diff(want, claims); diff != "" {
		t.Errorf("assertion claims (-want +got):\n%s", diff)
	}
	n := f.exchanges.Add(1)
	time.Sleep(f.slowToken)
	if f.tokenFail != 0 {
		w.WriteHeader(f.tokenFail)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`)
		return
	}
	fmt.Fprintf(w, `{"access_token":"ya29.at-%d","expires_in":3599,"token_type":"Bearer"}`, n)
}

func (f *fakeFCM) send(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.PathValue("project") != "proj-1" || r.PathValue("op") != "messages:send" {
		t.Errorf("path %s", r.URL.Path)
	}
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "Bearer ya29.at-") {
		t.Errorf("Authorization %q", auth)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("body: %v", err)
	}
	f.mu.Lock()
	f.lastBody = body
	f.mu.Unlock()
	if f.refuse401(strings.TrimPrefix(auth, "Bearer ")) {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
		return
	}
	token, _ := body["message"].(map[string]any)["token"].(string)
	fcmErr := func(status int, code, message, errorCode string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q,"details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":%q}]}}`,
			status, message, code, errorCode)
	}
	switch token {
	case "tok-ok":
		io.WriteString(w, `{"name":"projects/proj-1/messages/0:1500415314455276%31bd1c9631bd1c96"}`)
	case "tok-unregistered":
		fcmErr(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED")
	case "tok-invalid":
		fcmErr(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", "INVALID_ARGUMENT")
	case "tok-badfield":
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"code":400,"message":"Invalid value","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"Invalid registration token"}]}]}}`)
	case "tok-badpayload":
		fcmErr(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"x\"", "INVALID_ARGUMENT")
	case "tok-quota":
		w.Header().Set("Retry-After", "42")
		fcmErr(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", "QUOTA_EXCEEDED")
	case "tok-unavailable":
		fcmErr(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE")
	case "tok-denied":
		fcmErr(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH")
	case "tok-apnsauth":
		fcmErr(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", "THIRD_PARTY_AUTH_ERROR")
	default:
		t.Errorf("unexpected token %q", token)
		w.WriteHeader(500)
	}
}

func newTestFCM(t *testing.T, f *fakeFCM) *FCM {
	t.Helper()
	p, err := f.client().NewFCM(FCMConfig{ServiceAccount: serviceAccount(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFCMWire(t *testing.T) {
	f := newFakeFCM(t)
	p := newTestFCM(t, f)
	r := p.Send(context.Background(), Notification{Channel: ChannelPush, UID: "bob", To: "tok-ok", Title: "Alice",
		Body: "Hello!", Sound: "default", Data: map[string]string{"conversationId": "alice_user_bob", "tag": "17"}})
	if !r.OK() {
		t.Fatalf("send: %v", r.Err)
	}
	if r.Latency <= 0 {
		t.Errorf("latency %v", r.Latency)
	}
	want := map[string]any{"message": map[string]any{
		"token":        "tok-ok",
		"notification": map[string]any{"title": "Alice", "body": "Hello!"},
		"data":         map[string]any{"conversationId": "alice_user_bob", "tag": "17"},
		"android":      map[string]any{"notification": map[string]any{"sound": "default"}},
		"apns":         map[string]any{"payload": map[string]any{"aps": map[string]any{"sound": "default"}}},
	}}
	if diff := cmp.Diff(want, f.lastBody); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if got := r.ProviderMessageID; got != "projects/proj-1/messages/0:1500415314455276%31bd1c9631bd1c96" {
		t.Errorf("message id %q", got)
	}

	// No title, body or sound: a data-only message without the sub-objects.
	p.Send(context.Background(), Notification{To: "tok-ok", Data: map[string]string{"k": "v"}})
	want = map[string]any{"message": map[string]any{"token": "tok-ok", "data": map[string]any{"k": "v"}}}
	if diff := cmp.Diff(want, f.lastBody); diff != "" {
		t.Errorf("data-only body (-want +got):\n%s", diff)
	}
}

func TestFCMClassify(t *testing.T) {
	f := newFakeFCM(t)
	p := newTestFCM(t, f)
	for _, tc := range []struct {
		token string
		want  got
	}{
		{"tok-ok", got{Status: 200, OK: true, ID: "projects/proj-1/messages/0:1500415314455276%31bd1c9631bd1c96"}},
		{"tok-unregistered", got{Status: 404, InvalidToken: true, Reason: "UNREGISTERED"}},
		{"tok-invalid", got{Status: 400, InvalidToken: true, Reason: "INVALID_ARGUMENT"}},
		{"tok-badfield", got{Status: 400, InvalidToken: true, Reason: "INVALID_ARGUMENT"}},
		{"tok-badpayload", got{Status: 400, Reason: "INVALID_ARGUMENT"}},
		{"tok-quota", got{Status: 429, Retry: true, RetryAfter: 42 * time.Second, Reason: "QUOTA_EXCEEDED"}},
		{"tok-unavailable", got{Status: 503, Retry: true, Reason: "UNAVAILABLE"}},
		{"tok-denied", got{Status: 403, Misconfigured: true, Reason: "SENDER_ID_MISMATCH"}},
		{"tok-apnsauth", got{Status: 401, Misconfigured: true, Reason: "THIRD_PARTY_AUTH_ERROR"}},
		{"", got{}},
	} {
		t.Run(tc.token, func(t *testing.T) {
			r := p.Send(context.Background(), Notification{To: tc.token, Title: "t", Body: "b"})
			if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
				t.Errorf("result (-want +got):\n%s\nerr: %v", diff, r.Err)
			}
			if !tc.want.OK && r.Err == nil {
				t.Error("no error")
			}
			noSecrets(t, r, "ya29", "PRIVATE KEY", "Bearer")
		})
	}
	// THIRD_PARTY_AUTH_ERROR is not about the access token: it made no new exchange.
	if n := f.exchanges.Load(); n != 1 {
		t.Errorf("%d token exchanges, want 1", n)
	}
}

// One OAuth2 exchange serves many sends, concurrent ones too, until shortly before the
// token expires; then one new exchange.
func TestFCMTokenCache(t *testing.T) {
	f := newFakeFCM(t)
	p := newTestFCM(t, f)
	send := func() {
		if r := p.Send(context.Background(), Notification{To: "tok-ok", Body: "b"}); !r.OK() {
			t.Errorf("send: %v", r.Err)
		}
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(send)
	}
	wg.Wait()
	if n := f.exchanges.Load(); n != 1 {
		t.Fatalf("%d exchanges for 20 concurrent sends, want 1", n)
	}
	f.clock.Add(50 * time.Minute)
	send()
	if n := f.exchanges.Load(); n != 1 {
		t.Fatalf("%d exchanges at 50 minutes, want 1", n)
	}
	f.clock.Add(5 * time.Minute) // 55 of the token's 59:59: within the margin
	send()
	send()
	if n := f.exchanges.Load(); n != 2 {
		t.Fatalf("%d exchanges after expiry, want 2", n)
	}
}

// A 401 to an access token gets one new token and one more try; a second 401 is the
// configuration.
func TestFCMUnauthorized(t *testing.T) {
	f := newFakeFCM(t)
	f.refuse401 = func(at string) bool { return at == "ya29.at-1" }
	p := newTestFCM(t, f)
	if r := p.Send(context.Background(), Notification{To: "tok-ok", Body: "b"}); !r.OK() {
		t.Fatalf("send after a refused token: %v", r.Err)
	}
	if n := f.exchanges.Load(); n != 2 {
		t.Fatalf("%d exchanges, want 2", n)
	}

	f.refuse401 = func(string) bool { return true }
	r := p.Send(context.Background(), Notification{To: "tok-ok", Body: "b"})
	if diff := cmp.Diff(got{Status: 401, Misconfigured: true, Reason: "UNAUTHENTICATED"}, summary(r)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if n := f.exchanges.Load(); n != 3 {
		t.Fatalf("%d exchanges, want 3", n)
	}
}

func TestFCMTokenEndpointFails(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   got
	}{
		{400, got{Status: 400, Misconfigured: true, Reason: "invalid_grant"}},
		{401, got{Status: 401, Misconfigured: true, Reason: "invalid_grant"}},
		{503, got{Status: 503, Retry: true, Reason: "invalid_grant"}},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			f := newFakeFCM(t)
			f.tokenFail = tc.status
			r := newTestFCM(t, f).Send(context.Background(), Notification{To: "tok-ok", Body: "b"})
			if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			noSecrets(t, r, "PRIVATE KEY", "assertion", "eyJ")
		})
	}
}

// Sends waiting for an exchange that fails share its failure instead of each trying again.
func TestFCMTokenFailureShared(t *testing.T) {
	f := newFakeFCM(t)
	f.tokenFail, f.slowToken = 503, 300*time.Millisecond
	p := newTestFCM(t, f)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if r := p.Send(context.Background(), Notification{To: "tok-ok", Body: "b"}); !r.Retry || r.Status != 503 {
				t.Errorf("result %+v", summary(r))
			}
		})
	}
	wg.Wait()
	if n := f.exchanges.Load(); n > 2 {
		t.Errorf("%d exchanges for 10 sends at once, want 1 (2 at worst, for a late starter)", n)
	}
	// Later sends try again.
	f.tokenFail, f.slowToken = 0, 0
	if r := p.Send(context.Background(), Notification{To: "tok-ok", Body: "b"}); !r.OK() {
		t.Errorf("send after the endpoint recovered: %v", r.Err)
	}
}

func TestNewFCMRefuses(t *testing.T) {
	c := NewClient(ClientConfig{})
	testKeys(t)
	for name, sa := range map[string]string{
		"not JSON":    `{`,
		"no key":      `{"type":"service_account","client_email":"a@b","project_id":"p"}`,
		"bad PEM":     `{"type":"service_account","client_email":"a@b","project_id":"p","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}`,
		"EC key":      fmt.Sprintf(`{"type":"service_account","client_email":"a@b","project_id":"p","private_key":%q}`, ecPEM),
		"no project":  fmt.Sprintf(`{"type":"service_account","client_email":"a@b","private_key":%q}`, rsaPEM),
		"not account": fmt.Sprintf(`{"type":"authorized_user","client_email":"a@b","project_id":"p","private_key":%q}`, rsaPEM),
	} {
		_, err := c.NewFCM(FCMConfig{ServiceAccount: []byte(sa)})
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "AAAA") {
			t.Errorf("%s: error %q quotes the key", name, err)
		}
	}
}
