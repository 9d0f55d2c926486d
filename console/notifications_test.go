package console_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// testKeys are an RSA service-account key and an APNs P-256 key, made once.
var testKeys = sync.OnceValue(func() (k struct{ rsa, p8 string }) {
	pemOf := func(key any) string {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			panic(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k.rsa, k.p8 = pemOf(rk), pemOf(p256)
	return k
})

// keyBody is the middle line of a PEM key: what a page must never show.
func keyBody(pemText string) string {
	lines := strings.Split(strings.TrimSpace(pemText), "\n")
	return lines[len(lines)/2]
}

const twilioToken = "71c2301435733997e83db7a3445bc5f7"

// providers gives the app FCM providers a (the default) and b, APNs provider ios, and a
// Twilio provider.
func providers(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	p := principal(t, e)
	for _, id := range []string{"a", "b"} {
		if _, err := chat.FCM.Create(ctx, e.svc, p, chat.FCMProviderInput{ProviderID: id, ServiceAccount: &chat.ServiceAccount{Type: "service_account",
			ProjectID: "natter-test-1", ClientEmail: "fcm@natter-test-1.iam.gserviceaccount.com", PrivateKeyID: "k1d", PrivateKey: testKeys().rsa}}); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) *string { return &s }
	if _, err := chat.APNs.Create(ctx, e.svc, p, chat.APNsProviderInput{ProviderID: "ios", KeyID: str("ABC123DEFG"), TeamID: str("DEF123GHIJ"),
		BundleID: str("com.example.chat"), P8Key: str(testKeys().p8)}); err != nil {
		t.Fatal(err)
	}
	if _, err := chat.Twilio.Create(ctx, e.svc, p, chat.TwilioInput{AccountSID: str("AC" + strings.Repeat("0", 32)), AuthToken: str(twilioToken),
		SenderPhoneNumber: str("+15005550006")}); err != nil {
		t.Fatal(err)
	}
}

// TestNotificationsPage: the providers are listed without their credentials; a default is
// set and a provider deleted through CSRF-checked forms; refusals show on the page.
func TestNotificationsPage(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		providers(t, e)
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		code, page := e.get(t, c, "/console/notifications")
		if code != http.StatusOK {
			t.Fatalf("notifications page: %d %s", code, page)
		}
		fcm := between(page, `id="fcm-providers"`, "</table>")
		if !strings.Contains(between(fcm, `id="fcm-a"`, "</tr>"), "default") || strings.Contains(between(fcm, `id="fcm-b"`, "</tr>"), ">default<") {
			t.Errorf("FCM providers: a should be the default:\n%s", fcm)
		}
		for _, want := range []string{"natter-test-1", "com.example.chat", "sandbox", "15005550006", `aria-current="page">Notifications`,
			"POST /v3/notifications/push/v1/providers/fcm"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page does not show %q", want)
			}
		}
		if !strings.Contains(between(page, `id="sendgrid"`, "</tr>"), "<td>no</td>") || !strings.Contains(between(page, `id="custom_sms"`, "</tr>"), "<td>no</td>") {
			t.Errorf("SendGrid and custom SMS should be shown not configured:\n%s", between(page, `id="channel-providers"`, "</table>"))
		}
		for _, secret := range []string{keyBody(testKeys().rsa), keyBody(testKeys().p8), twilioToken, twilioToken[len(twilioToken)-4:], "********"} {
			if strings.Contains(page, secret) {
				t.Errorf("the page shows a credential, or part of one: %q", secret)
			}
		}

		// Signed out: the pages send to sign-in, and a post changes nothing.
		anon := e.browser(t)
		for _, path := range []string{"/console/notifications", "/console/moderation"} {
			if code, _ := e.get(t, anon, path); code != http.StatusSeeOther {
				t.Errorf("GET %s signed out: %d", path, code)
			}
		}
		if res := e.post(t, anon, "/console/notifications/fcm/a/delete", url.Values{"csrf": {csrf}}, nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("a delete signed out: %d", res.StatusCode)
		}
		if res := e.post(t, c, "/console/notifications/fcm/b/default", url.Values{}, nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("a default set without the CSRF token: %d", res.StatusCode)
		}
		if res := e.post(t, c, "/console/notifications/fcm/a/delete", url.Values{"csrf": {"forged"}}, nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("a delete with a forged CSRF token: %d", res.StatusCode)
		}
		if res := e.post(t, c, "/console/notifications/fcm/b/default", url.Values{"csrf": {csrf}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("make b the default: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, "/console/notifications/fcm/a/delete", url.Values{"csrf": {csrf}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete a: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, "/console/notifications/twilio/delete", url.Values{"csrf": {csrf}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete Twilio: %d %s", res.StatusCode, body(res))
		}
		_, page = e.get(t, c, "/console/notifications")
		fcm = between(page, `id="fcm-providers"`, "</table>")
		if strings.Contains(fcm, `id="fcm-a"`) || !strings.Contains(between(fcm, `id="fcm-b"`, "</tr>"), "default") {
			t.Errorf("after the changes, FCM providers should be b, the default:\n%s", fcm)
		}
		if !strings.Contains(between(page, `id="twilio"`, "</tr>"), "<td>no</td>") {
			t.Errorf("Twilio still configured:\n%s", between(page, `id="twilio"`, "</tr>"))
		}
		got, err := chat.FCM.List(context.Background(), e.svc, principal(t, e))
		if err != nil || len(got) != 1 || got[0].ID != "b" || !got[0].Default {
			t.Errorf("the service's FCM providers: %+v %v", got, err)
		}

		if _, err := chat.APNs.Create(context.Background(), e.svc, principal(t, e), chat.APNsProviderInput{ProviderID: "ios2",
			KeyID: ptr("ABC123DEFG"), TeamID: ptr("DEF123GHIJ"), BundleID: ptr("com.example.chat2"), P8Key: ptr(testKeys().p8)}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, path string
			status     int
			says       string
		}{
			{"delete no such FCM provider", "/console/notifications/fcm/nosuch/delete", 404, "nosuch"},
			{"default of no such APNs provider", "/console/notifications/apns/nosuch/default", 404, "nosuch"},
			{"a kind that is not one", "/console/notifications/gcm/a/delete", 404, "gcm"},
			{"a single kind with an id", "/console/notifications/twilio/a/default", 404, "twilio"},
			{"delete a kind that has ids", "/console/notifications/fcm/delete", 404, "fcm"},
			{"delete Twilio twice", "/console/notifications/twilio/delete", 404, "Twilio"},
			{"delete SendGrid, never configured", "/console/notifications/sendgrid/delete", 404, "SendGrid"},
			{"delete the default APNs provider while another is left", "/console/notifications/apns/ios/delete", 0, "default"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := e.post(t, c, tc.path, url.Values{"csrf": {csrf}}, nil)
				b := body(res)
				if res.StatusCode >= 500 || tc.status != 0 && res.StatusCode != tc.status || res.StatusCode < 400 ||
					!strings.Contains(b, tc.says) || !strings.Contains(b, `role="alert"`) || !strings.Contains(b, `id="fcm-providers"`) {
					t.Fatalf("got %d, want %d (0: any 4xx) saying %q on the page:\n%s", res.StatusCode, tc.status, tc.says, b)
				}
			})
		}
		if got, _ := chat.APNs.List(context.Background(), e.svc, principal(t, e)); len(got) != 2 {
			t.Errorf("a refused delete removed an APNs provider: %+v", got)
		}
	})
}

func ptr(s string) *string { return &s }

// TestAddPushProviders: FCM and APNs providers added through the page's forms are listed
// without their keys; refusals show on the page, write nothing, and never write a pasted key
// back into it.
func TestAddPushProviders(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		saJSON := func(key string) string {
			b, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "natter-push-2", "private_key_id": "k2",
				"private_key": key, "client_email": "fcm@natter-push-2.iam.gserviceaccount.com", "token_uri": "https://oauth2.googleapis.com/token"})
			return string(b)
		}
		fcm := func(id, creds string) url.Values {
			return url.Values{"csrf": {csrf}, "kind": {"fcm"}, "providerId": {id}, "serviceAccountCreds": {creds}}
		}
		apns := func(id, keyID, p8 string) url.Values {
			return url.Values{"csrf": {csrf}, "kind": {"apns"}, "providerId": {id}, "keyId": {keyID}, "teamId": {"DEF123GHIJ"},
				"bundleId": {"com.example.push"}, "p8Key": {p8}, "productionMode": {"1"}}
		}
		if res := e.post(t, c, "/console/notifications/fcm", fcm("android", saJSON(testKeys().rsa)), nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("add FCM: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, "/console/notifications/apns", apns("ios", "ABC123DEFG", testKeys().p8), nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("add APNs: %d %s", res.StatusCode, body(res))
		}
		_, page := e.get(t, c, "/console/notifications")
		if row := between(page, `id="fcm-android"`, "</tr>"); !strings.Contains(row, "natter-push-2") || !strings.Contains(row, "default") {
			t.Errorf("the FCM provider: %s", row)
		}
		if row := between(page, `id="apns-ios"`, "</tr>"); !strings.Contains(row, "com.example.push") || !strings.Contains(row, "production") {
			t.Errorf("the APNs provider: %s", row)
		}
		for _, secret := range []string{keyBody(testKeys().rsa), keyBody(testKeys().p8)} {
			if strings.Contains(page, secret) {
				t.Errorf("the page shows a key")
			}
		}

		// A key cut short, which does not parse, to see that a refused form does not echo it.
		badKey := strings.Replace(testKeys().p8, keyBody(testKeys().p8)+"\n", "", 1)
		for _, tc := range []struct {
			name, path string
			form       url.Values
			status     int
			says       string
		}{
			{"FCM creds not JSON", "/console/notifications/fcm", fcm("x", "{not json"), 400, "JSON key file"},
			{"FCM creds without a key", "/console/notifications/fcm", fcm("x", `{"project_id":"natter-push-2","client_email":"a@b.c"}`), 400, "private_key"},
			{"FCM without an id", "/console/notifications/fcm", fcm("", saJSON(testKeys().rsa)), 400, "providerId"},
			{"FCM id taken", "/console/notifications/fcm", fcm("android", saJSON(testKeys().rsa)), 400, "android"},
			{"FCM with an APNs key", "/console/notifications/fcm", fcm("x", saJSON(testKeys().p8)), 400, "RSA"},
			{"APNs bad key id", "/console/notifications/apns", apns("x", "abc", testKeys().p8), 400, "keyId"},
			{"APNs key not a key", "/console/notifications/apns", apns("x", "ABC123DEFG", badKey), 400, "p8Key"},
			{"APNs without a key", "/console/notifications/apns", apns("x", "ABC123DEFG", ""), 400, "p8Key"},
			{"a kind that is not one", "/console/notifications/gcm", fcm("x", saJSON(testKeys().rsa)), 404, "gcm"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := e.post(t, c, tc.path, tc.form, nil)
				b := body(res)
				if res.StatusCode != tc.status || !strings.Contains(b, tc.says) || !strings.Contains(b, `role="alert"`) || !strings.Contains(b, `id="fcm-providers"`) {
					t.Fatalf("got %d, want %d saying %q on the page:\n%s", res.StatusCode, tc.status, tc.says, b)
				}
				for _, secret := range []string{keyBody(testKeys().rsa), keyBody(testKeys().p8), strings.Split(badKey, "\n")[1]} {
					if strings.Contains(b, secret) {
						t.Fatalf("the refused form writes a key back into the page")
					}
				}
			})
		}
		if res := e.post(t, c, "/console/notifications/fcm", url.Values{"csrf": {"forged"}, "providerId": {"y"}, "serviceAccountCreds": {saJSON(testKeys().rsa)}}, nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("a forged add: %d", res.StatusCode)
		}
		f, _ := chat.FCM.List(context.Background(), e.svc, principal(t, e))
		a, _ := chat.APNs.List(context.Background(), e.svc, principal(t, e))
		if len(f) != 1 || len(a) != 1 {
			t.Errorf("refused adds wrote: %d FCM, %d APNs providers", len(f), len(a))
		}
	})
}
