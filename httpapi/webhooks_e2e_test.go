package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

func TestWebhookManagement(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		// Without --webhook-allow-private (the default env), a loopback URL is refused.
		r := e.do(request{method: "POST", path: "/v3/webhooks", body: `{"webhookURL":"http://127.0.0.1:9/x","triggers":["message_sent"]}`})
		if r.status != 400 || r.code != "ERR_BAD_REQUEST" || !strings.Contains(string(r.body), "webhookURL") {
			t.Fatalf("private URL: %d %s", r.status, r.body)
		}
		r = e.do(request{method: "POST", path: "/v3/webhooks", body: `{"id":"Hook-1","webhookURL":"https://hooks.example.com/n","useBasicAuth":true,"username":"natter","password":"pa55word","triggers":["message_sent","message_sent","message_reaction_added"]}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		var created struct{ Data map[string]any }
		json.Unmarshal(r.body, &created)
		d := created.Data
		secret, _ := d["signingSecret"].(string)
		if d["id"] != "hook-1" || !strings.HasPrefix(secret, "whsec_") || d["useBasicAuth"] != true || len(d["triggers"].([]any)) != 2 {
			t.Fatalf("created: %s", r.body)
		}
		for _, leak := range []string{"pa55word", `"username"`, `"password"`} {
			if strings.Contains(string(r.body), leak) {
				t.Fatalf("create answered %s: %s", leak, r.body)
			}
		}
		// Nothing secret is stored in the clear.
		if n := e.count(`SELECT COUNT(*) FROM webhook_secrets WHERE secret LIKE '%whsec%'`); n != 0 {
			t.Fatal("a signing secret is stored in the clear")
		}
		if n := e.count(`SELECT COUNT(*) FROM webhooks WHERE basic_auth LIKE '%pa55word%'`); n != 0 {
			t.Fatal("a password is stored in the clear")
		}
		// Get and list never show a secret.
		for _, path := range []string{"/v3/webhooks/HOOK-1", "/v3/webhooks"} {
			r := e.okr(request{method: "GET", path: path})
			if strings.Contains(string(r.body), "whsec_") || strings.Contains(string(r.body), "pa55word") {
				t.Fatalf("GET %s shows a secret: %s", path, r.body)
			}
		}
		// Rotation: the new secret is shown once; two sign until the old one expires.
		r = e.okr(request{method: "POST", path: "/v3/webhooks/hook-1/secrets", body: `{"previousExpiresIn":3600}`})
		var rotated struct {
			Data struct {
				SigningSecret  string
				SigningSecrets []map[string]any
			}
		}
		json.Unmarshal(r.body, &rotated)
		if rotated.Data.SigningSecret == secret || !strings.HasPrefix(rotated.Data.SigningSecret, "whsec_") || len(rotated.Data.SigningSecrets) != 2 {
			t.Fatalf("rotated: %s", r.body)
		}
		w, err := e.svc.Webhooks().Webhook(e.ctx(), chat.Principal{App: e.app}, "hook-1")
		if err != nil {
			t.Fatal(err)
		}
		keys, err := e.svc.Webhooks().SigningSecrets(e.ctx(), w, testClock.Unix())
		if err != nil || len(keys) != 2 || string(keys[0]) != rotated.Data.SigningSecret || string(keys[1]) != secret {
			t.Fatalf("signing secrets: %q, %v", keys, err)
		}
		if creds, err := e.svc.Webhooks().BasicCredentials(e.ctx(), w); err != nil || creds != "natter:pa55word" {
			t.Fatalf("credentials: %q, %v", creds, err)
		}
		// Update: disable, change triggers; Basic auth off forgets the credentials.
		r = e.okr(request{method: "PUT", path: "/v3/webhooks/hook-1", body: `{"enabled":false,"useBasicAuth":false,"triggers":["message_edited"]}`})
		if !strings.Contains(string(r.body), `"enabled":false`) || !strings.Contains(string(r.body), `"triggers":["message_edited"]`) {
			t.Fatalf("updated: %s", r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM webhooks WHERE basic_auth IS NOT NULL`); n != 0 {
			t.Fatal("credentials kept with Basic auth off")
		}
		r = e.do(request{method: "PUT", path: "/v3/webhooks/hook-1", body: `{"useBasicAuth":true}`})
		if r.status != 400 {
			t.Fatalf("basic auth without credentials: %d %s", r.status, r.body)
		}
		r = e.okr(request{method: "DELETE", path: "/v3/webhooks/hook-1"})
		if r = e.do(request{method: "GET", path: "/v3/webhooks/hook-1"}); r.status != 404 || r.code != "ERR_WEBHOOK_NOT_FOUND" {
			t.Fatalf("after delete: %d %s", r.status, r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM webhook_secrets`); n != 0 {
			t.Fatal("secrets outlive their webhook")
		}
	})
}

func TestWebhookRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.okr(request{method: "POST", path: "/v3/webhooks", body: `{"id":"taken","webhookURL":"https://a.example/x","triggers":["message_sent"]}`})
		long := strings.Repeat("a", 300)
		for _, tc := range []struct {
			name, body string
			status     int
			code       string
		}{
			{"no URL", `{"triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"relative URL", `{"webhookURL":"/hook","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"ftp URL", `{"webhookURL":"ftp://a.example/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"credentials in URL", `{"webhookURL":"https://u:p@a.example/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"long URL", `{"webhookURL":"https://a.example/` + long + `","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"loopback", `{"webhookURL":"http://127.0.0.1/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"localhost", `{"webhookURL":"http://localhost:8080/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"private", `{"webhookURL":"http://10.1.2.3/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"link-local", `{"webhookURL":"http://169.254.169.254/latest","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"IPv6 loopback", `{"webhookURL":"http://[::1]/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"mapped IPv4", `{"webhookURL":"http://[::ffff:127.0.0.1]/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"IPv4-compatible IPv6", `{"webhookURL":"http://[::127.0.0.1]/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"short loopback", `{"webhookURL":"http://127.1/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"hex loopback", `{"webhookURL":"http://0x7f000001/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"decimal loopback", `{"webhookURL":"http://2130706433/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"octal loopback", `{"webhookURL":"http://0177.0.0.1/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"hex metadata address", `{"webhookURL":"http://0xa9fea9fe/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"no triggers", `{"webhookURL":"https://a.example/x","triggers":[]}`, 400, "ERR_BAD_REQUEST"},
			{"unknown trigger", `{"webhookURL":"https://a.example/x","triggers":["message_sent","after_lunch"]}`, 400, "ERR_TRIGGER_NOT_FOUND"},
			{"basic auth without password", `{"webhookURL":"https://a.example/x","triggers":["message_sent"],"useBasicAuth":true,"username":"u"}`, 400, "ERR_BAD_REQUEST"},
			{"long username", `{"webhookURL":"https://a.example/x","triggers":["message_sent"],"useBasicAuth":true,"username":"` + long[:51] + `","password":"p"}`, 400, "ERR_BAD_REQUEST"},
			{"long password", `{"webhookURL":"https://a.example/x","triggers":["message_sent"],"useBasicAuth":true,"username":"u","password":"` + long[:101] + `"}`, 400, "ERR_BAD_REQUEST"},
			{"long id", `{"id":"` + long[:51] + `","webhookURL":"https://a.example/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"bad id", `{"id":"a/b","webhookURL":"https://a.example/x","triggers":["message_sent"]}`, 400, "ERR_BAD_REQUEST"},
			{"taken id", `{"id":"TAKEN","webhookURL":"https://a.example/x","triggers":["message_sent"]}`, 400, "ERR_WEBHOOK_ALREADY_EXISTS"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: "POST", path: "/v3/webhooks", body: tc.body})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s", r.status, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused create wrote")
				}
			})
		}
		// An authOnly key may not manage webhooks; an unknown one is not found.
		if r := e.do(request{method: "GET", path: "/v3/webhooks", headers: map[string]string{"apikey": e.authKey}}); r.status != 403 {
			t.Fatalf("authOnly key: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "PUT", path: "/v3/webhooks/ghost", body: `{"enabled":false}`}); r.status != 404 || r.code != "ERR_WEBHOOK_NOT_FOUND" {
			t.Fatalf("update ghost: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "POST", path: "/v3/webhooks/taken/secrets", body: `{"previousExpiresIn":-1}`}); r.status != 400 {
			t.Fatalf("negative expiry: %d %s", r.status, r.body)
		}
	})
}

// okr is do that fails the test on anything but 200.
func (e *env) okr(r request) response {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	return res
}
