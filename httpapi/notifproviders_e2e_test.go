package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// Test credentials, made once: an RSA service-account key, an APNs P-256 key, and keys of
// the wrong sort.
var testKeys = sync.OnceValue(func() (k struct{ rsa, p8, p384, ec256 string }) {
	pemOf := func(key any) string {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			panic(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	k.rsa, k.p8, k.p384, k.ec256 = pemOf(rk), pemOf(p256), pemOf(p384), pemOf(p256)
	return k
})

// keyBody is the middle of a PEM key: what must never show in an answer, a log or a column.
func keyBody(pemText string) string {
	lines := strings.Split(strings.TrimSpace(pemText), "\n")
	return lines[len(lines)/2]
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func serviceAccount(privateKey string) string {
	return `{"type":"service_account","project_id":"natter-test-1","private_key_id":"k1d","private_key":` + jsonString(privateKey) +
		`,"client_email":"firebase-adminsdk-x@natter-test-1.iam.gserviceaccount.com","client_id":"1","token_uri":"https://oauth2.googleapis.com/token"}`
}

func fcmBody(id string) string {
	return `{"providerId":"` + id + `","serviceAccountFilename":"sa.json","serviceAccountCreds":` + serviceAccount(testKeys().rsa) + `}`
}

func apnsBody(id string) string {
	return `{"providerId":"` + id + `","keyId":"ABC123DEFG","teamId":"def123ghij","bundleId":"com.example.chat","p8Key":` + jsonString(testKeys().p8) + `}`
}

// mustFCMProvider adds an FCM provider with a valid service account.
func (e *env) mustFCMProvider(id string) {
	e.t.Helper()
	e.okr(request{method: "POST", path: "/v3/notifications/push/v1/providers/fcm", body: fcmBody(id)})
}

const (
	fcmPath      = "/v3/notifications/push/v1/providers/fcm"
	apnsPath     = "/v3/notifications/push/v1/providers/apns"
	twilioPath   = "/v3/notifications/sms/v1/providers/twilio"
	sendGridPath = "/v3/notifications/email/v1/providers/sendgrid"
	twilioToken  = "71c2301435733997e83db7a3445bc5f7"
	sendGridKey  = "SG.9ipFP4b17yT-Fff2GGrH8FF0GqdkBohXAEI4GnTSj9Q"
	customPass   = "s3cret-basic-pass"
)

// secretsEnv is an env whose log (access log and every level) is kept, and whose every
// answer is checked for the stored secrets.
type secretsEnv struct {
	*env
	logs *syncBuffer
}

func newSecretsEnv(t *testing.T, backend string, cfg chat.Config) secretsEnv {
	logs := &syncBuffer{}
	e := newEnvWith(t, backend, cfg, httpapi.Options{AccessLog: true,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	return secretsEnv{e, logs}
}

func secrets() []string {
	return []string{keyBody(testKeys().rsa), keyBody(testKeys().p8), twilioToken, sendGridKey, customPass}
}

// do is env.do that fails the test when an answer holds a stored secret.
func (e secretsEnv) do(r request) response {
	e.t.Helper()
	res := e.env.do(r)
	for _, s := range secrets() {
		if bytes.Contains(res.body, []byte(s)) || bytes.Contains(res.body, []byte(jsonString(s)[1:12])) {
			e.t.Fatalf("%s %s answered a secret: %s", r.method, r.path, res.body)
		}
	}
	return res
}

func (e secretsEnv) okr(r request) response {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	return res
}

// noSecretStored checks every stored provider: no secret in its settings or its hint, and
// none in the clear in its sealed credential.
func (e secretsEnv) noSecretStored() {
	e.t.Helper()
	rows, err := e.raw.Query(`SELECT settings, secret_hint, secret FROM notification_providers`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var settings, hint string
		var secret []byte
		if err := rows.Scan(&settings, &hint, &secret); err != nil {
			e.t.Fatal(err)
		}
		for _, s := range secrets() {
			if strings.Contains(settings, s) || strings.Contains(hint, s) || bytes.Contains(secret, []byte(s)) {
				e.t.Fatalf("a secret is stored in the clear: %s", settings)
			}
		}
	}
}

func (e secretsEnv) noSecretLogged() {
	e.t.Helper()
	logs := e.logs.String()
	if !strings.Contains(logs, "/notifications/") {
		e.t.Fatal("the access log saw no notification request: is it on?")
	}
	for _, s := range secrets() {
		if strings.Contains(logs, s) {
			e.t.Fatalf("a secret is in the log:\n%s", logs)
		}
	}
}

func TestPushProviders(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := newSecretsEnv(t, backend, chat.Config{})
			list := func(path string) []map[string]any {
				var out struct {
					Data struct{ PushProviders []map[string]any }
				}
				json.Unmarshal(e.okr(request{method: "GET", path: path}).body, &out)
				return out.Data.PushProviders
			}
			defaults := func(path string) string {
				var ids []string
				for _, p := range list(path) {
					if p["isDefault"] == true {
						ids = append(ids, p["providerId"].(string))
					}
				}
				return strings.Join(ids, ",")
			}
			if r := e.okr(request{method: "GET", path: fcmPath}); string(r.body) != `{"data":{"pushProviders":[]}}`+"\n" {
				t.Fatalf("no providers: %s", r.body)
			}

			// The first is the default; the second is not.
			r := e.okr(request{method: "POST", path: fcmPath, body: fcmBody("FCM-A")})
			if !strings.Contains(string(r.body), `"success":true`) {
				t.Fatalf("create: %s", r.body)
			}
			e.okr(request{method: "POST", path: fcmPath, body: fcmBody("fcm-b")})
			ps := list(fcmPath)
			if len(ps) != 2 || ps[0]["providerId"] != "fcm-a" || defaults(fcmPath) != "fcm-a" {
				t.Fatalf("providers: %v", ps)
			}
			sa := ps[0]["serviceAccountCreds"].(map[string]any)
			if sa["project_id"] != "natter-test-1" || sa["private_key_id"] != "k1d" || sa["private_key"] != nil || ps[0]["serviceAccountFilename"] != "sa.json" {
				t.Fatalf("service account shown: %v", sa)
			}

			// The default moves; the default is deleted only when it is the last.
			e.okr(request{method: "PUT", path: fcmPath + "/default/FCM-B"})
			if d := defaults(fcmPath); d != "fcm-b" {
				t.Fatalf("default after the move: %s", d)
			}
			if r := e.do(request{method: "DELETE", path: fcmPath + "/fcm-b"}); r.status != 400 || r.code != "ERR_BAD_REQUEST" || !strings.Contains(string(r.body), "providerId") {
				t.Fatalf("deleting the default among others: %d %s", r.status, r.body)
			}
			e.okr(request{method: "DELETE", path: fcmPath + "/fcm-a"})
			if d := defaults(fcmPath); d != "fcm-b" {
				t.Fatalf("default after deleting another: %s", d)
			}

			// Update: the filename and the payload flags; the key stays.
			e.okr(request{method: "PUT", path: fcmPath, body: `{"providerId":"fcm-b","serviceAccountFilename":"new.json","notificationInPayload":{"ios":{"chat":true}}}`})
			ps = list(fcmPath)
			if ps[0]["serviceAccountFilename"] != "new.json" || ps[0]["notificationInPayload"].(map[string]any)["ios"].(map[string]any)["chat"] != true {
				t.Fatalf("updated: %v", ps[0])
			}
			prov, creds, err := chat.FCM.Credentials(e.ctx(), e.svc, e.app.ID, "default")
			if err != nil || prov.ID != "fcm-b" || creds.PrivateKey == nil || creds.ClientEmail != "firebase-adminsdk-x@natter-test-1.iam.gserviceaccount.com" || creds.ProjectID != "natter-test-1" {
				t.Fatalf("slice 3's read: %+v %v", prov, err)
			}
			want, _ := chat.ParseRSAPrivateKey(testKeys().rsa)
			if !creds.PrivateKey.Equal(want) {
				t.Fatal("the opened key is not the stored one")
			}
			e.okr(request{method: "DELETE", path: fcmPath + "/fcm-b"})
			if len(list(fcmPath)) != 0 {
				t.Fatal("the last provider was not deleted")
			}
			if _, _, err := chat.FCM.Credentials(e.ctx(), e.svc, e.app.ID, ""); chat.ErrorCode(err) != chat.CodeProviderNotFound {
				t.Fatalf("no default: %v", err)
			}

			// APNs, the same rules.
			e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-a")})
			e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-b")})
			e.okr(request{method: "PUT", path: apnsPath, body: `{"providerId":"apns-b","productionMode":true,"includeMutableContent":true}`})
			as := list(apnsPath)
			if len(as) != 2 || as[0]["isDefault"] != true || as[0]["teamId"] != "DEF123GHIJ" || as[1]["productionMode"] != true || as[1]["p8Key"] != nil {
				t.Fatalf("APNs providers: %v", as)
			}
			e.okr(request{method: "PUT", path: apnsPath + "/default/apns-b"})
			ap, ac, err := chat.APNs.Credentials(e.ctx(), e.svc, e.app.ID, "default")
			if err != nil || ap.ID != "apns-b" || !ac.Production || ac.Key == nil || ac.KeyID != "ABC123DEFG" || ac.BundleID != "com.example.chat" {
				t.Fatalf("slice 3's APNs read: %+v %+v %v", ap, ac, err)
			}
			if _, _, err := chat.APNs.Credentials(e.ctx(), e.svc, e.app.ID, "APNS-A"); err != nil {
				t.Fatalf("a named provider: %v", err)
			}

			// Another app sees none of them and cannot touch them.
			_, otherKey := e.newApp("other", "eu")
			for _, r := range []request{
				{method: "DELETE", path: apnsPath + "/apns-a"},
				{method: "PUT", path: apnsPath + "/default/apns-a"},
				{method: "PUT", path: apnsPath, body: `{"providerId":"apns-a","productionMode":false}`},
			} {
				r.headers = map[string]string{"apikey": otherKey}
				if res := e.do(r); res.status != 404 || res.code != "ERR_PROVIDER_NOT_FOUND" {
					t.Fatalf("another app's %s %s: %d %s", r.method, r.path, res.status, res.body)
				}
			}
			if r := e.okr(request{method: "GET", path: apnsPath, headers: map[string]string{"apikey": otherKey}}); strings.Contains(string(r.body), "apns-a") {
				t.Fatalf("another app lists them: %s", r.body)
			}
			e.noSecretStored()
			e.noSecretLogged()
		})
	}
}

func TestPushProviderRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustFCMProvider("taken")
		e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-taken")})
		k := testKeys()
		sa := func(repl ...string) string { return strings.NewReplacer(repl...).Replace(serviceAccount(k.rsa)) }
		long := strings.Repeat("a", 51)
		for _, tc := range []struct {
			name, method, path, body string
			status                   int
			code, field              string
		}{
			{"no providerId", "POST", fcmPath, `{"serviceAccountCreds":` + serviceAccount(k.rsa) + `}`, 400, "ERR_BAD_REQUEST", "providerId"},
			{"providerId default", "POST", fcmPath, fcmBody("Default"), 400, "ERR_BAD_REQUEST", "providerId"},
			{"providerId with a slash", "POST", fcmPath, fcmBody("a/b"), 400, "ERR_BAD_REQUEST", "providerId"},
			{"providerId too long", "POST", fcmPath, fcmBody(long), 400, "ERR_BAD_REQUEST", "providerId"},
			{"no service account", "POST", fcmPath, `{"providerId":"x"}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds"},
			{"service account as a string", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":"{}"}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds"},
			{"another type of account", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":` + sa(`"service_account"`, `"authorized_user"`) + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.type"},
			{"no project", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":` + sa(`"project_id":"natter-test-1",`, "") + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.project_id"},
			{"malformed private key", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":` + sa("MII", "XYZ") + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.private_key"},
			{"private key not PEM", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":` + strings.Replace(serviceAccount("x"), `"private_key":"x"`, `"private_key":"MIIEvQ"`, 1) + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.private_key"},
			{"an EC key for FCM", "POST", fcmPath, `{"providerId":"x","serviceAccountCreds":` + serviceAccount(k.ec256) + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.private_key"},
			{"taken id", "POST", fcmPath, fcmBody("TAKEN"), 400, "ERR_PROVIDER_ALREADY_EXISTS", ""},
			{"update an unknown one", "PUT", fcmPath, `{"providerId":"ghost","serviceAccountFilename":"a"}`, 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"update without providerId", "PUT", fcmPath, `{"serviceAccountFilename":"a"}`, 400, "ERR_BAD_REQUEST", "providerId"},
			{"update with nothing", "PUT", fcmPath, `{"providerId":"taken"}`, 400, "ERR_BAD_REQUEST", ""},
			{"update with a malformed key", "PUT", fcmPath, `{"providerId":"taken","serviceAccountCreds":` + sa("MII", "XYZ") + `}`, 400, "ERR_BAD_REQUEST", "serviceAccountCreds.private_key"},
			{"delete an unknown one", "DELETE", fcmPath + "/ghost", "", 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"default an unknown one", "PUT", fcmPath + "/default/ghost", "", 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"default an APNs one as FCM", "PUT", fcmPath + "/default/apns-taken", "", 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"APNs without keyId", "POST", apnsPath, strings.Replace(apnsBody("x"), `"keyId":"ABC123DEFG",`, "", 1), 400, "ERR_BAD_REQUEST", "keyId"},
			{"APNs short keyId", "POST", apnsPath, strings.Replace(apnsBody("x"), "ABC123DEFG", "ABC", 1), 400, "ERR_BAD_REQUEST", "keyId"},
			{"APNs bad teamId", "POST", apnsPath, strings.Replace(apnsBody("x"), "def123ghij", "def-123-gh", 1), 400, "ERR_BAD_REQUEST", "teamId"},
			{"APNs bad bundleId", "POST", apnsPath, strings.Replace(apnsBody("x"), "com.example.chat", "nodots", 1), 400, "ERR_BAD_REQUEST", "bundleId"},
			{"APNs without key", "POST", apnsPath, `{"providerId":"x","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","bundleId":"com.x.y"}`, 400, "ERR_BAD_REQUEST", "p8Key"},
			{"APNs with an RSA key", "POST", apnsPath, strings.Replace(apnsBody("x"), jsonString(k.p8), jsonString(k.rsa), 1), 400, "ERR_BAD_REQUEST", "p8Key"},
			{"APNs with a P-384 key", "POST", apnsPath, strings.Replace(apnsBody("x"), jsonString(k.p8), jsonString(k.p384), 1), 400, "ERR_BAD_REQUEST", "p8Key"},
			{"APNs productionMode as a string", "POST", apnsPath, strings.Replace(apnsBody("x"), `"keyId"`, `"productionMode":"yes","keyId"`, 1), 400, "ERR_BAD_REQUEST", "productionMode"},
			{"APNs update, empty key", "PUT", apnsPath, `{"providerId":"apns-taken","p8Key":""}`, 400, "ERR_BAD_REQUEST", "p8Key"},
			{"APNs taken id", "POST", apnsPath, apnsBody("apns-taken"), 400, "ERR_PROVIDER_ALREADY_EXISTS", ""},
			{"a body over the limit", "POST", fcmPath, `{"providerId":"x","serviceAccountFilename":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "ERR_BAD_REQUEST", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: tc.method, path: tc.path, body: tc.body})
				if r.status != tc.status || r.code != tc.code || tc.field != "" && !strings.Contains(string(r.body), `"`+tc.field+`":`) {
					t.Fatalf("got %d %s", r.status, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused request wrote")
				}
			})
		}
		// An authOnly key may not manage providers.
		if r := e.do(request{method: "GET", path: fcmPath, headers: map[string]string{"apikey": e.authKey}}); r.status != 403 || r.code != "AUTH_ERR_NO_ACCESS" {
			t.Fatalf("authOnly key: %d %s", r.status, r.body)
		}
		// The delivery log is served under both version prefixes; nothing sent yet.
		for _, p := range []string{"/v3/notifications/v1/logs", "/v3.0/notifications/v1/logs"} {
			if r := e.do(request{method: "GET", path: p}); r.status != 200 || !strings.Contains(string(r.body), `"data":[]`) {
				t.Errorf("GET %s: %d %s", p, r.status, r.body)
			}
		}
	})
}

func TestChannelProviders(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := newSecretsEnv(t, backend, chat.Config{})
			// Twilio: none yet, stored once, masked, changed, deleted.
			if r := e.do(request{method: "GET", path: twilioPath}); r.status != 404 || r.code != "ERR_PROVIDER_NOT_FOUND" {
				t.Fatalf("no Twilio: %d %s", r.status, r.body)
			}
			twilio := `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"` + twilioToken + `","twilioSenderPhoneNumber":"+13611364718"}`
			r := e.okr(request{method: "POST", path: twilioPath, body: twilio})
			if string(r.body) != `{"data":{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"********c5f7","twilioSenderPhoneNumber":"+13611364718","isEnabled":true}}`+"\n" {
				t.Fatalf("Twilio saved: %s", r.body)
			}
			if r := e.do(request{method: "POST", path: twilioPath, body: twilio}); r.status != 400 || r.code != "ERR_PROVIDER_ALREADY_EXISTS" {
				t.Fatalf("Twilio twice: %d %s", r.status, r.body)
			}
			r = e.okr(request{method: "PUT", path: twilioPath, body: `{"isEnabled":false,"twilioSenderPhoneNumber":"+14155550100"}`})
			if !strings.Contains(string(r.body), `"isEnabled":false`) || !strings.Contains(string(r.body), "+14155550100") || !strings.Contains(string(r.body), "********c5f7") {
				t.Fatalf("Twilio updated: %s", r.body)
			}
			tp, tc, err := chat.Twilio.Credentials(e.ctx(), e.svc, e.app.ID, "")
			if err != nil || tp.Enabled || tc.AuthToken != twilioToken || tc.From != "+14155550100" || tc.AccountSID != "AC91e67951ff7e5e7be8122184e76ae0e6" {
				t.Fatalf("slice 3's Twilio read: %+v %v", tc.From, err)
			}

			// SendGrid.
			sendGrid := `{"sendGridApiKey":"` + sendGridKey + `","sendGridTemplateID":"d-8284bb9646a040499d5cfa28d272a094","sendGridUnsubscribeGroupID":"33832","senderName":"Emailer","senderEmail":"noreply@em123.example.com","allowEmailReplies":true,"senderEmailForReplies":"reply@em123.example.com"}`
			r = e.okr(request{method: "POST", path: sendGridPath, body: sendGrid})
			if !strings.Contains(string(r.body), `"sendGridApiKey":"********Sj9Q"`) || !strings.Contains(string(r.body), `"senderEmailForReplies":"reply@em123.example.com"`) {
				t.Fatalf("SendGrid saved: %s", r.body)
			}
			r = e.okr(request{method: "PUT", path: sendGridPath, body: `{"senderEmailForReplies":"","allowEmailReplies":false}`})
			if strings.Contains(string(r.body), "senderEmailForReplies") {
				t.Fatalf("SendGrid reply address kept: %s", r.body)
			}
			if _, gc, err := chat.SendGrid.Credentials(e.ctx(), e.svc, e.app.ID, ""); err != nil || gc.APIKey != sendGridKey {
				t.Fatalf("slice 3's SendGrid read: %v", err)
			}

			// Custom providers: push answers a list, the others an object.
			if r := e.okr(request{method: "GET", path: "/v3/notifications/push/v1/providers/custom"}); string(r.body) != `{"data":{"pushProviders":[]}}`+"\n" {
				t.Fatalf("no custom push provider: %s", r.body)
			}
			if r := e.do(request{method: "GET", path: "/v3/notifications/sms/v1/providers/custom"}); r.status != 404 || r.code != "ERR_PROVIDER_NOT_FOUND" {
				t.Fatalf("no custom SMS provider: %d %s", r.status, r.body)
			}
			r = e.okr(request{method: "POST", path: "/v3/notifications/push/v1/providers/custom",
				body: `{"isEnabled":true,"webhookURL":"https://trigger-push.example.com/cometchat","useBasicAuth":true,"basicAuthUsername":"user123","basicAuthPassword":"` + customPass + `"}`})
			if string(r.body) != `{"data":{"pushProviders":[{"basicAuthUsername":"user123","basicAuthPassword":"********","isEnabled":true,"useBasicAuth":true,"webhookURL":"https://trigger-push.example.com/cometchat"}]}}`+"\n" {
				t.Fatalf("custom push saved: %s", r.body)
			}
			cp, cc, err := chat.Custom(chat.ChannelPush).Credentials(e.ctx(), e.svc, e.app.ID, "")
			if err != nil || !cp.Enabled || cc.Username != "user123" || cc.Password != customPass {
				t.Fatalf("slice 3's custom read: %+v %v", cp, err)
			}
			// A new username keeps the password; Basic auth off forgets both.
			e.okr(request{method: "PUT", path: "/v3/notifications/push/v1/providers/custom", body: `{"basicAuthUsername":"user456"}`})
			if _, cc, _ := chat.Custom(chat.ChannelPush).Credentials(e.ctx(), e.svc, e.app.ID, ""); cc.Username != "user456" || cc.Password != customPass {
				t.Fatalf("password lost with a new username: %+v", cc.Username)
			}
			r = e.okr(request{method: "PUT", path: "/v3/notifications/push/v1/providers/custom", body: `{"useBasicAuth":false}`})
			if strings.Contains(string(r.body), "basicAuth") {
				t.Fatalf("credentials shown without Basic auth: %s", r.body)
			}
			if n := e.count(`SELECT COUNT(*) FROM notification_providers WHERE kind = 'custom_push' AND secret IS NULL`); n != 1 {
				t.Fatal("the password is kept with Basic auth off")
			}
			if r := e.do(request{method: "PUT", path: "/v3/notifications/push/v1/providers/custom", body: `{"useBasicAuth":true}`}); r.status != 400 {
				t.Fatalf("Basic auth on without credentials: %d %s", r.status, r.body)
			}
			r = e.okr(request{method: "POST", path: "/v3/notifications/sms/v1/providers/custom",
				body: `{"isEnabled":false,"useStoredPhNo":true,"webhookURL":"https://trigger-sms.example.com/x","useBasicAuth":false,"basicAuthUsername":"","basicAuthPassword":""}`})
			if string(r.body) != `{"data":{"isEnabled":false,"useBasicAuth":false,"useStoredPhNo":true,"webhookURL":"https://trigger-sms.example.com/x"}}`+"\n" {
				t.Fatalf("custom SMS saved: %s", r.body)
			}
			r = e.okr(request{method: "POST", path: "/v3/notifications/email/v1/providers/custom",
				body: `{"isEnabled":true,"useStoredEmailID":false,"webhookURL":"https://trigger-email.example.com/x","useBasicAuth":true,"basicAuthUsername":"u","basicAuthPassword":"` + customPass + `"}`})
			if !strings.Contains(string(r.body), `"useStoredEmailID":false`) || strings.Contains(string(r.body), "useStoredPhNo") {
				t.Fatalf("custom email saved: %s", r.body)
			}
			e.noSecretStored()

			// Deletes, then nothing left to delete.
			for _, p := range []string{twilioPath, sendGridPath, "/v3/notifications/push/v1/providers/custom", "/v3/notifications/sms/v1/providers/custom", "/v3/notifications/email/v1/providers/custom"} {
				e.okr(request{method: "DELETE", path: p})
				if r := e.do(request{method: "DELETE", path: p}); r.status != 404 || r.code != "ERR_PROVIDER_NOT_FOUND" {
					t.Fatalf("DELETE %s twice: %d %s", p, r.status, r.body)
				}
			}
			if n := e.count(`SELECT COUNT(*) FROM notification_providers`); n != 0 {
				t.Fatalf("%d providers left", n)
			}
			e.noSecretLogged()
		})
	}
}

func TestChannelProviderRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		custom := func(channel, fields string) string {
			extra := map[string]string{"push": "", "sms": `"useStoredPhNo":false,`, "email": `"useStoredEmailID":false,`}[channel]
			return `{` + extra + fields + `}`
		}
		ok := `"isEnabled":true,"useBasicAuth":false,"webhookURL":`
		long := strings.Repeat("a", 300)
		type refusal struct {
			name, method, path, body string
			status                   int
			code, field              string
		}
		cases := []refusal{
			{"Twilio without SID", "POST", twilioPath, `{"twilioAuthToken":"t","twilioSenderPhoneNumber":"+13611364718"}`, 400, "ERR_BAD_REQUEST", "twilioAccountSID"},
			{"Twilio SID not AC…", "POST", twilioPath, `{"twilioAccountSID":"XX91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"t","twilioSenderPhoneNumber":"+13611364718"}`, 400, "ERR_BAD_REQUEST", "twilioAccountSID"},
			{"Twilio without token", "POST", twilioPath, `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioSenderPhoneNumber":"+13611364718"}`, 400, "ERR_BAD_REQUEST", "twilioAuthToken"},
			{"Twilio token with a space", "POST", twilioPath, `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"a b","twilioSenderPhoneNumber":"+13611364718"}`, 400, "ERR_BAD_REQUEST", "twilioAuthToken"},
			{"Twilio token too long", "POST", twilioPath, `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"` + long + `","twilioSenderPhoneNumber":"+13611364718"}`, 400, "ERR_BAD_REQUEST", "twilioAuthToken"},
			{"Twilio number not E.164", "POST", twilioPath, `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"t","twilioSenderPhoneNumber":"3611364718"}`, 400, "ERR_BAD_REQUEST", "twilioSenderPhoneNumber"},
			{"Twilio isEnabled as a string", "POST", twilioPath, `{"isEnabled":"true"}`, 400, "ERR_BAD_REQUEST", "isEnabled"},
			{"Twilio update when there is none", "PUT", twilioPath, `{"isEnabled":false}`, 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"Twilio delete when there is none", "DELETE", twilioPath, "", 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"SendGrid without key", "POST", sendGridPath, `{"sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"n","senderEmail":"a@b.example"}`, 400, "ERR_BAD_REQUEST", "sendGridApiKey"},
			{"SendGrid bad sender", "POST", sendGridPath, `{"sendGridApiKey":"SG.x","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"n","senderEmail":"Name <a@b.example>"}`, 400, "ERR_BAD_REQUEST", "senderEmail"},
			{"SendGrid group not a number", "POST", sendGridPath, `{"sendGridApiKey":"SG.x","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"abc","senderName":"n","senderEmail":"a@b.example"}`, 400, "ERR_BAD_REQUEST", "sendGridUnsubscribeGroupID"},
			{"SendGrid long name", "POST", sendGridPath, `{"sendGridApiKey":"SG.x","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"` + long + `","senderEmail":"a@b.example"}`, 400, "ERR_BAD_REQUEST", "senderName"},
			{"SendGrid bad reply address", "POST", sendGridPath, `{"sendGridApiKey":"SG.x","sendGridTemplateID":"d-1","sendGridUnsubscribeGroupID":"1","senderName":"n","senderEmail":"a@b.example","senderEmailForReplies":"nope"}`, 400, "ERR_BAD_REQUEST", "senderEmailForReplies"},
			{"SendGrid update with nothing", "PUT", sendGridPath, `{}`, 400, "ERR_BAD_REQUEST", "sendGridApiKey"},
		}
		for _, ch := range []string{"push", "sms", "email"} {
			p := "/v3/notifications/" + ch + "/v1/providers/custom"
			cases = append(cases,
				refusal{ch + " custom without URL", "POST", p, custom(ch, `"isEnabled":true,"useBasicAuth":false`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom without isEnabled", "POST", p, custom(ch, `"useBasicAuth":false,"webhookURL":"https://a.example/x"`), 400, "ERR_BAD_REQUEST", "isEnabled"},
				refusal{ch + " custom to loopback", "POST", p, custom(ch, ok+`"http://127.0.0.1:9/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to localhost", "POST", p, custom(ch, ok+`"http://localhost/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to a private address", "POST", p, custom(ch, ok+`"http://10.1.2.3/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to link-local", "POST", p, custom(ch, ok+`"http://169.254.169.254/latest"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to IPv6 loopback", "POST", p, custom(ch, ok+`"http://[::1]/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to IPv4-compatible loopback", "POST", p, custom(ch, ok+`"http://[::127.0.0.1]/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to short loopback", "POST", p, custom(ch, ok+`"http://127.1/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to hex loopback", "POST", p, custom(ch, ok+`"http://0x7f000001/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to decimal loopback", "POST", p, custom(ch, ok+`"http://2130706433/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom to octal loopback", "POST", p, custom(ch, ok+`"http://0177.0.0.1/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom with credentials in the URL", "POST", p, custom(ch, ok+`"https://u:p@a.example/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom ftp URL", "POST", p, custom(ch, ok+`"ftp://a.example/x"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom long URL", "POST", p, custom(ch, ok+`"https://a.example/`+long+`"`), 400, "ERR_BAD_REQUEST", "webhookURL"},
				refusal{ch + " custom Basic auth without password", "POST", p, custom(ch, `"isEnabled":true,"useBasicAuth":true,"basicAuthUsername":"u","webhookURL":"https://a.example/x"`), 400, "ERR_BAD_REQUEST", "basicAuthPassword"},
				refusal{ch + " custom username with a colon", "POST", p, custom(ch, `"isEnabled":true,"useBasicAuth":true,"basicAuthUsername":"a:b","basicAuthPassword":"p","webhookURL":"https://a.example/x"`), 400, "ERR_BAD_REQUEST", "basicAuthUsername"},
				refusal{ch + " custom long password", "POST", p, custom(ch, `"isEnabled":true,"useBasicAuth":true,"basicAuthUsername":"u","basicAuthPassword":"`+long+`","webhookURL":"https://a.example/x"`), 400, "ERR_BAD_REQUEST", "basicAuthPassword"},
				refusal{ch + " custom update when there is none", "PUT", p, `{"isEnabled":false}`, 404, "ERR_PROVIDER_NOT_FOUND", ""},
			)
		}
		cases = append(cases,
			refusal{"sms custom without useStoredPhNo", "POST", "/v3/notifications/sms/v1/providers/custom", `{` + ok + `"https://a.example/x"}`, 400, "ERR_BAD_REQUEST", "useStoredPhNo"},
			refusal{"email custom without useStoredEmailID", "POST", "/v3/notifications/email/v1/providers/custom", `{` + ok + `"https://a.example/x"}`, 400, "ERR_BAD_REQUEST", "useStoredEmailID"},
		)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: tc.method, path: tc.path, body: tc.body})
				if r.status != tc.status || r.code != tc.code || tc.field != "" && !strings.Contains(string(r.body), `"`+tc.field+`":`) {
					t.Fatalf("got %d %s", r.status, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused request wrote")
				}
			})
		}
		// Another app's providers are not this app's.
		e.okr(request{method: "POST", path: twilioPath, body: `{"twilioAccountSID":"AC91e67951ff7e5e7be8122184e76ae0e6","twilioAuthToken":"t","twilioSenderPhoneNumber":"+13611364718"}`})
		_, otherKey := e.newApp("other", "eu")
		for _, m := range []string{"GET", "DELETE"} {
			if r := e.do(request{method: m, path: twilioPath, headers: map[string]string{"apikey": otherKey}}); r.status != 404 || r.code != "ERR_PROVIDER_NOT_FOUND" {
				t.Fatalf("%s another app's Twilio: %d %s", m, r.status, r.body)
			}
		}
	})
}

// TestCustomProviderPrivateURLAllowed: the operator's --webhook-allow-private lets a custom
// provider's URL name a private address, as it does a webhook's.
func TestCustomProviderPrivateURLAllowed(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{WebhookAllowPrivate: true})
	e.okr(request{method: "POST", path: "/v3/notifications/push/v1/providers/custom", body: `{"isEnabled":true,"useBasicAuth":false,"webhookURL":"http://127.0.0.1:9/push"}`})
	if _, _, err := chat.Custom(chat.ChannelPush).Credentials(context.Background(), e.svc, e.app.ID, ""); err != nil {
		t.Fatal(err)
	}
}
