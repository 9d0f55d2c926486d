package notify

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeAPNs is APNs over HTTP/2 with TLS. It checks the wire format and answers by the device
// token; expired lists the provider tokens it calls expired.
type fakeAPNs struct {
	t       *testing.T
	srv     *httptest.Server
	clock   *clock
	mu      sync.Mutex
	jwts    []string // every provider token seen, in order
	expired map[string]bool
	header  http.Header
	body    map[string]any
}

func newFakeAPNs(t *testing.T) *fakeAPNs {
	testKeys(t)
	f := &fakeAPNs{t: t, clock: newClock(), expired: map[string]bool{}}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.EnableHTTP2 = true
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPNs) client() *Client {
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	return NewClient(ClientConfig{Timeout: 2 * time.Second, Now: f.clock.Now, RootCAs: pool,
		Endpoints: Endpoints{APNs: f.srv.URL, APNsSandbox: f.srv.URL + "/sandbox"}})
}

func (f *fakeAPNs) newAPNs(t *testing.T) *APNs {
	t.Helper()
	p, err := f.client().NewAPNs(APNsConfig{TeamID: "TEAM123456", KeyID: "KEY1234567", Key: ecPEM, Topic: "com.example.chat"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fakeAPNs) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.ProtoMajor != 2 {
		t.Errorf("protocol %s, want HTTP/2", r.Proto)
	}
	token, ok := strings.CutPrefix(r.URL.Path, "/3/device/")
	if r.Method != http.MethodPost || !ok {
		t.Errorf("%s %s", r.Method, r.URL.Path)
	}
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "bearer ")
	if !ok {
		t.Errorf("authorization %q", r.Header.Get("Authorization"))
	}
	header, claims := jwtParts(t, jwt, &ecKey.PublicKey)
	if diff := cmp.Diff(map[string]any{"alg": "ES256", "kid": "KEY1234567"}, header); diff != "" {
		t.Errorf("JWT header (-want +got):\n%s", diff)
	}
	if len(claims) != 2 || claims["iss"] != "TEAM123456" || num(t, claims["iat"]) > f.clock.Now().Unix() {
		t.Errorf("JWT claims %v", claims)
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("body: %v", err)
	}
	f.mu.Lock()
	f.jwts = append(f.jwts, jwt)
	expired := f.expired[jwt]
	f.header, f.body = r.Header.Clone(), body
	f.mu.Unlock()
	reason := func(status int, reason string) {
		w.Header().Set("Apns-Id", "0E3A6E62-0000-0000-0000-000000000000")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"reason":%q}`, reason)
	}
	switch {
	case expired:
		reason(403, "ExpiredProviderToken")
	case token == "aa01":
		w.Header().Set("Apns-Id", "5A7B3C2D-1111-2222-3333-444455556666")
	case token == "aa02":
		w.WriteHeader(410)
		io.WriteString(w, `{"reason":"Unregistered","timestamp":1800000000000}`)
	case token == "aa03":
		reason(400, "BadDeviceToken")
	case token == "aa04":
		reason(400, "DeviceTokenNotForTopic")
	case token == "aa05":
		w.Header().Set("Retry-After", "30")
		reason(429, "TooManyRequests")
	case token == "aa06":
		reason(503, "ServiceUnavailable")
	case token == "aa07":
		reason(403, "InvalidProviderToken")
	case token == "aa08":
		reason(400, "BadTopic")
	case token == "aa09":
		reason(413, "PayloadTooLarge")
	case token == "aa0a":
		reason(500, "InternalServerError")
	default:
		t.Errorf("unexpected token %q", token)
	}
}

func (f *fakeAPNs) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.jwts...)
}

func TestAPNsWire(t *testing.T) {
	f := newFakeAPNs(t)
	p := f.newAPNs(t)
	exp := time.Unix(1_800_003_600, 0)
	r := p.Send(context.Background(), Notification{To: "aa01", Title: "Alice", Body: "Hello!", Sound: "default",
		Data: map[string]string{"conversationId": "alice_user_bob", "aps": "not Apple's"}, Expiration: exp})
	if !r.OK() || r.ProviderMessageID != "5A7B3C2D-1111-2222-3333-444455556666" {
		t.Fatalf("send: %+v", r)
	}
	for k, want := range map[string]string{"Apns-Topic": "com.example.chat", "Apns-Push-Type": "alert",
		"Apns-Priority": "10", "Apns-Expiration": "1800003600", "Content-Type": "application/json"} {
		if got := f.header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	want := map[string]any{"aps": map[string]any{"alert": map[string]any{"title": "Alice", "body": "Hello!"}, "sound": "default"},
		"conversationId": "alice_user_bob"}
	if diff := cmp.Diff(want, f.body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}

	// A VoIP token: the .voip topic, the voip push type, and "now or never".
	if r := p.Send(context.Background(), Notification{To: "aa01", VoIP: true, Title: "Alice", Body: "Audio call"}); !r.OK() {
		t.Fatalf("voip send: %v", r.Err)
	}
	for k, want := range map[string]string{"Apns-Topic": "com.example.chat.voip", "Apns-Push-Type": "voip", "Apns-Expiration": "0"} {
		if got := f.header.Get(k); got != want {
			t.Errorf("voip %s: %q, want %q", k, got, want)
		}
	}
}

func TestAPNsClassify(t *testing.T) {
	f := newFakeAPNs(t)
	p := f.newAPNs(t)
	for _, tc := range []struct {
		token string
		want  got
	}{
		{"aa01", got{Status: 200, OK: true, ID: "5A7B3C2D-1111-2222-3333-444455556666"}},
		{"aa02", got{Status: 410, InvalidToken: true, Reason: "Unregistered"}},
		{"aa03", got{Status: 400, InvalidToken: true, Reason: "BadDeviceToken"}},
		{"aa04", got{Status: 400, InvalidToken: true, Reason: "DeviceTokenNotForTopic"}},
		{"aa05", got{Status: 429, Retry: true, RetryAfter: 30 * time.Second, Reason: "TooManyRequests"}},
		{"aa06", got{Status: 503, Retry: true, Reason: "ServiceUnavailable"}},
		{"aa0a", got{Status: 500, Retry: true, Reason: "InternalServerError"}},
		{"aa07", got{Status: 403, Misconfigured: true, Reason: "InvalidProviderToken"}},
		{"aa08", got{Status: 400, Misconfigured: true, Reason: "BadTopic"}},
		{"aa09", got{Status: 413, Reason: "PayloadTooLarge"}},
		{"../../x", got{InvalidToken: true, Reason: "BadDeviceToken"}},
	} {
		t.Run(tc.token, func(t *testing.T) {
			r := p.Send(context.Background(), Notification{To: tc.token, Title: "t", Body: "b"})
			if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
				t.Errorf("result (-want +got):\n%s\nerr: %v", diff, r.Err)
			}
			noSecrets(t, r, "eyJ", "PRIVATE KEY")
		})
	}
}

// The provider token is reused for 50 minutes, then replaced.
func TestAPNsTokenReuse(t *testing.T) {
	f := newFakeAPNs(t)
	p := f.newAPNs(t)
	send := func() {
		t.Helper()
		if r := p.Send(context.Background(), Notification{To: "aa01", Body: "b"}); !r.OK() {
			t.Fatalf("send: %v", r.Err)
		}
	}
	send()
	send()
	f.clock.Add(49 * time.Minute)
	send()
	if s := f.seen(); s[0] != s[1] || s[1] != s[2] {
		t.Fatal("the provider token changed within 49 minutes")
	}
	f.clock.Add(2 * time.Minute)
	send()
	s := f.seen()
	if s[3] == s[2] {
		t.Fatal("the provider token was not renewed after 51 minutes")
	}
	_, claims := jwtParts(t, s[3], &ecKey.PublicKey)
	if iat := num(t, claims["iat"]); iat != f.clock.Now().Unix() {
		t.Errorf("renewed token iat %d, want %d", iat, f.clock.Now().Unix())
	}
}

// 403 ExpiredProviderToken renews the token once and tries again; sends that meet the same
// expired token at once renew it once between them.
func TestAPNsExpiredProviderToken(t *testing.T) {
	f := newFakeAPNs(t)
	p := f.newAPNs(t)
	if r := p.Send(context.Background(), Notification{To: "aa01", Body: "b"}); !r.OK() {
		t.Fatal(r.Err)
	}
	stale := f.seen()[0]
	f.mu.Lock()
	f.expired[stale] = true
	f.mu.Unlock()
	f.clock.Add(time.Minute) // a new token has a new iat, so differs

	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if r := p.Send(context.Background(), Notification{To: "aa01", Body: "b"}); !r.OK() {
				t.Errorf("send with an expired provider token: %v", r.Err)
			}
		})
	}
	wg.Wait()
	distinct := map[string]bool{}
	for _, j := range f.seen() {
		distinct[j] = true
	}
	if len(distinct) != 2 {
		t.Fatalf("%d provider tokens, want the stale one and one renewal", len(distinct))
	}

	// A token APNs keeps refusing: one renewal, then misconfigured.
	n := len(f.seen())
	f.clock.Add(time.Minute)
	r := p.Send(context.Background(), Notification{To: "aa07", Body: "b"})
	if !r.Misconfigured || r.Retry || len(f.seen()) != n+2 {
		t.Fatalf("InvalidProviderToken: %+v after %d requests, want misconfigured after 2", summary(r), len(f.seen())-n)
	}
}

func TestNewAPNsRefuses(t *testing.T) {
	testKeys(t)
	c := NewClient(ClientConfig{})
	for name, cfg := range map[string]APNsConfig{
		"no team":  {KeyID: "K", Key: ecPEM, Topic: "t"},
		"no topic": {TeamID: "T", KeyID: "K", Key: ecPEM},
		"RSA key":  {TeamID: "T", KeyID: "K", Key: rsaPEM, Topic: "t"},
		"not PEM":  {TeamID: "T", KeyID: "K", Key: []byte("MIGT"), Topic: "t"},
	} {
		if _, err := c.NewAPNs(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	p, err := c.NewAPNs(APNsConfig{TeamID: "T", KeyID: "K", Key: ecPEM, Topic: "t", Sandbox: true})
	if err != nil || p.base != DefaultAPNsSandboxURL {
		t.Errorf("sandbox: %v, base %q", err, p.base)
	}
}
