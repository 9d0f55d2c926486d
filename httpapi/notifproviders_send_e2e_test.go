package httpapi_test

import (
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/notify"
)

// providerFakes is one HTTP/2 TLS server in the place of Google's OAuth2 and FCM, APNs,
// Twilio and SendGrid, as the notify package's own tests build them: it records who each
// provider was asked to notify, and answers FCM's UNREGISTERED and APNs' 410 for the tokens
// dead names.
type providerFakes struct {
	srv  *httptest.Server
	dead map[string]bool
	mu   sync.Mutex
	got  []string // "provider destination"
}

func newProviderFakes(t *testing.T, dead ...string) *providerFakes {
	f := &providerFakes{dead: map[string]bool{}}
	for _, d := range dead {
		f.dead[d] = true
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.EnableHTTP2 = true
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *providerFakes) record(s string) {
	f.mu.Lock()
	f.got = append(f.got, s)
	f.mu.Unlock()
}

func (f *providerFakes) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := r.URL.Path
	switch {
	case p == "/token":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"ya29.fake","expires_in":3600,"token_type":"Bearer"}`)
	case strings.HasSuffix(p, "/messages:send"):
		var m struct {
			Message struct {
				Token string `json:"token"`
			} `json:"message"`
		}
		json.Unmarshal(body, &m)
		f.record("fcm " + m.Message.Token)
		if f.dead[m.Message.Token] {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`)
			return
		}
		io.WriteString(w, `{"name":"projects/natter-test-1/messages/1"}`)
	case strings.Contains(p, "/3/device/"):
		tok := p[strings.LastIndex(p, "/")+1:]
		f.record("apns " + tok)
		if f.dead[tok] {
			w.WriteHeader(http.StatusGone)
			io.WriteString(w, `{"reason":"Unregistered","timestamp":1700000000000}`)
			return
		}
		w.Header().Set("apns-id", "11111111-2222-3333-4444-555555555555")
	case strings.HasSuffix(p, "/Messages.json"):
		form, _ := url.ParseQuery(string(body))
		f.record("twilio " + form.Get("To"))
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"sid":"SM00000000000000000000000000000001"}`)
	case p == "/v3/mail/send":
		var m struct {
			Personalizations []struct {
				To []struct {
					Email string `json:"email"`
				} `json:"to"`
			} `json:"personalizations"`
		}
		json.Unmarshal(body, &m)
		if len(m.Personalizations) == 1 && len(m.Personalizations[0].To) == 1 {
			f.record("sendgrid " + m.Personalizations[0].To[0].Email)
		}
		w.Header().Set("X-Message-Id", "sg-1")
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, r)
	}
}

func (f *providerFakes) received(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f.mu.Lock()
		got := slices.Clone(f.got)
		f.mu.Unlock()
		if len(got) >= n {
			time.Sleep(300 * time.Millisecond)
			f.mu.Lock()
			got = slices.Clone(f.got)
			f.mu.Unlock()
			sort.Strings(got)
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the providers got %q, want %d", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *providerFakes) config() notify.ClientConfig {
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	u := f.srv.URL
	return notify.ClientConfig{AllowPrivate: true, RootCAs: pool, Endpoints: notify.Endpoints{FCM: u, GoogleToken: u + "/token",
		APNs: u, APNsSandbox: u + "/sandbox", Twilio: u, SendGrid: u}}
}

func TestNotificationsThroughProviders(t *testing.T) {
	const (
		bobLive = "fcm-bob-live"
		bobDead = "fcm-bob-dead"
		catLive = "aaaa0000aaaa0000aaaa0000aaaa0000aaaa0000aaaa0000aaaa0000aaaa0000"
		catDead = "dead0000dead0000dead0000dead0000dead0000dead0000dead0000dead0000"
	)
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			fakes := newProviderFakes(t, bobDead, catDead)
			e := notifyEnvWith(t, b, fakes.config())
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, u)
			}
			e.mustGroup("g", "ann", "bob", "cat")
			e.mustFCMProvider("fcm-a")
			e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-a")})
			e.okr(request{method: "POST", path: twilioPath, body: `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"tw-secret-token-0001","twilioSenderPhoneNumber":"+13611364718"}`})
			e.okr(request{method: "POST", path: "/v3/notifications/email/v1/providers/sendgrid", body: `{"sendGridApiKey":"SG.fake-key-0000000001","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"natter","senderEmail":"noreply@example.com"}`})
			register := func(uid, body string) {
				e.okr(request{method: "POST", path: "/v3/notifications/push/v1/tokens", headers: map[string]string{"apikey": "", "authToken": e.mustToken(uid)}, body: body})
			}
			register("bob", `{"platform":"fcm_android","providerId":"default","fcmToken":"`+bobLive+`"}`)
			register("bob", `{"platform":"fcm_android","providerId":"default","fcmToken":"`+bobDead+`"}`)
			register("cat", `{"platform":"apns_ios_device","providerId":"default","deviceToken":"`+catLive+`"}`)
			register("cat", `{"platform":"apns_ios_device","providerId":"default","deviceToken":"`+catDead+`"}`)
			for uid, c := range map[string]string{"bob": `{"email":"bob@example.com","phno":"+14155550101"}`, "cat": `{"email":"cat@example.com","phno":"+14155550102"}`} {
				e.okr(request{method: "PATCH", path: "/v3/notifications/v1/contact-details", headers: obo(uid), body: c})
			}
			id := e.send("ann", "g", "group", "hello")
			got := fakes.received(t, 4)
			want := []string{"apns " + catDead, "apns " + catLive, "fcm " + bobDead, "fcm " + bobLive}
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("pushed %q, want %q", got, want)
			}
			// The tokens the providers call gone are gone.
			deadline := time.Now().Add(10 * time.Second)
			for e.count(`SELECT COUNT(*) FROM push_tokens WHERE token IN ($1, $2)`, bobDead, catDead) != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the invalid tokens were not removed")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if n := e.count(`SELECT COUNT(*) FROM push_tokens WHERE token IN ($1, $2)`, bobLive, catLive); n != 2 {
				t.Fatalf("%d live tokens left, want 2", n)
			}
			// SMS and email wait for the digest interval (7200 s by default), then go only to
			// who has not read the message: cat reads it first.
			var waits []int64
			rows, err := e.raw.Query(`SELECT next_at - created_at FROM notification_sends WHERE channel <> 'push'`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var d int64
				rows.Scan(&d)
				waits = append(waits, d)
			}
			rows.Close()
			if len(waits) != 4 || waits[0] != 7200_000 || waits[3] != 7200_000 {
				t.Fatalf("SMS and email sends wait %v ms, want four of 7200000", waits)
			}
			e.ok(request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("cat"), body: `{"messageId":` + id + `}`})
			e.rawExec(`UPDATE notification_sends SET next_at = 0`) // the interval has passed
			got = fakes.received(t, 6)
			want = append(want, "sendgrid bob@example.com", "twilio +14155550101")
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("the providers got %q, want %q", got, want)
			}
			gotLog := decisions(e.logs(url.Values{"messageId": {id}}))
			for _, w := range []string{
				"bob email sendgrid attempt 0 triggered",
				"bob email sendgrid attempt 1 sent",
				"bob push fcm attempt 0 triggered",
				"cat sms twilio attempt 0 triggered",
				"bob push fcm attempt 1 failed UNREGISTERED",
				"bob push fcm attempt 1 sent",
				"bob sms twilio attempt 1 sent",
				"cat push apns attempt 1 failed Unregistered",
				"cat push apns attempt 1 sent",
				"cat sms twilio attempt 1 failed read",
				"cat email sendgrid attempt 1 failed read",
			} {
				if !slices.Contains(gotLog, w) {
					t.Errorf("the log has no %q:\n%q", w, gotLog)
				}
			}
			for _, l := range e.logs(url.Values{"messageId": {id}, "reason": {"read"}}) {
				if l.Success || l.NotificationTriggered {
					t.Errorf("a read message's record: %+v", l)
				}
			}
		})
	}
}
