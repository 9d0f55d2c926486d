package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// request is what the fake server saw.
type request struct {
	Pattern string // route pattern without the version prefix, as in httpapi.Routes
	Prefix  string
	Path    string // escaped, as sent
	Query   string
	Values  map[string]string
	Header  http.Header
	Body    string
}

// fake is a server with the routes of httpapi on a Go 1.22 ServeMux, so path values are
// decoded exactly as the real server decodes them. It records each request and answers
// with the canned reply.
type fake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []request
	status int
	reply  string
	header http.Header
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{status: http.StatusOK, reply: `{"data":null}`}
	mux := http.NewServeMux()
	for _, rt := range httpapi.Routes() {
		method, path, _ := strings.Cut(rt, " ")
		for _, prefix := range []string{"/v3", "/v3.0"} {
			mux.HandleFunc(method+" "+prefix+path, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				vals := map[string]string{}
				for _, k := range []string{"uid", "apiKey", "id", "reaction", "authToken", "role", "scope", "permission", "providerId", "pushToken", "ruleId", "keywordId", "sessionId"} {
					if v := r.PathValue(k); v != "" {
						vals[k] = v
					}
				}
				f.mu.Lock()
				f.got = append(f.got, request{Pattern: rt, Prefix: prefix, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
					Values: vals, Header: r.Header.Clone(), Body: string(body)})
				status, reply, hdr := f.status, f.reply, f.header
				f.mu.Unlock()
				for k, v := range hdr {
					w.Header()[k] = v
				}
				w.WriteHeader(status)
				io.WriteString(w, reply)
			})
		}
	}
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) client(opts ...client.Option) *client.Client {
	return client.New(f.srv.URL, "key-1", append([]client.Option{client.WithHTTPClient(f.srv.Client())}, opts...)...)
}

func (f *fake) respond(status int, reply string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.reply = status, reply
}

// last returns the one request since the previous call, failing if there was not exactly one.
func (f *fake) last(t *testing.T) request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 1 {
		t.Fatalf("server saw %d requests, want 1: %+v", len(f.got), f.got)
	}
	r := f.got[0]
	f.got = nil
	return r
}

func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q is not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body = %s, want %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

// TestEndpoints calls every method once and checks the request the server saw. It also
// checks that together they cover every route of httpapi.
func TestEndpoints(t *testing.T) {
	ctx := context.Background()
	tests := []endpointCase{
		{"CreateUser", "", func(c *client.Client) error {
			_, err := c.CreateUser(ctx, client.CreateUserRequest{UID: "u1", Name: "U One", Tags: []string{"t"}, Metadata: map[string]any{"a": 1.0}})
			return err
		}, "POST /users", "/v3/users", "", nil, `{"uid":"u1","name":"U One","metadata":{"a":1},"tags":["t"]}`},
		{"CreateUser required fields always sent", "", func(c *client.Client) error {
			_, err := c.CreateUser(ctx, client.CreateUserRequest{})
			return err
		}, "POST /users", "/v3/users", "", nil, `{"uid":"","name":""}`},
		{"GetUser", "", func(c *client.Client) error {
			_, err := c.GetUser(ctx, "a/b c")
			return err
		}, "GET /users/{uid}", "/v3/users/a%2Fb%20c", "", map[string]string{"uid": "a/b c"}, ""},
		{"UpdateUser", "", func(c *client.Client) error {
			_, err := c.UpdateUser(ctx, "u1", client.UpdateUserRequest{Name: ptr("N"), Tags: &[]string{}, Unset: []string{"avatar"}})
			return err
		}, "PUT /users/{uid}", "/v3/users/u1", "", map[string]string{"uid": "u1"}, `{"name":"N","tags":[],"unset":["avatar"]}`},
		{"DeleteUser", "", func(c *client.Client) error {
			_, err := c.DeleteUser(ctx, "u1", false)
			return err
		}, "DELETE /users/{uid}", "/v3/users/u1", "", map[string]string{"uid": "u1"}, ""},
		{"DeleteUser permanent", "", func(c *client.Client) error {
			_, err := c.DeleteUser(ctx, "u1", true)
			return err
		}, "DELETE /users/{uid}", "/v3/users/u1", "", map[string]string{"uid": "u1"}, `{"permanent":true}`},
		{"ListUsers zero", "", func(c *client.Client) error {
			_, err := c.ListUsers(ctx, client.ListUsersParams{})
			return err
		}, "GET /users", "/v3/users", "", nil, ""},
		{"ListUsers all", "", func(c *client.Client) error {
			_, err := c.ListUsers(ctx, client.ListUsersParams{SearchKey: "a b", SearchIn: []string{"uid", "name"}, Status: "online",
				Roles: []string{"r1", "r2"}, Tags: []string{"x"}, WithTags: true, OnlyDeactivated: true, WithDeactivated: true, PerPage: 10, Page: 2})
			return err
		}, "GET /users", "/v3/users",
			"onlyDeactivated=true&page=2&perPage=10&roles=r1%2Cr2&searchIn=uid%2Cname&searchKey=a+b&status=online&tags=x&withDeactivated=true&withTags=true",
			nil, ""},
		{"ListUsers ranges", "", func(c *client.Client) error {
			_, err := c.ListUsers(ctx, client.ListUsersParams{Status: "available,offline", CreatedAt: client.Between(1, 2),
				UpdatedAtRange: client.TimeRange{To: ptr(int64(3))}})
			return err
		}, "GET /users", "/v3/users", "createdAt%5Bfrom%5D=1&createdAt%5Bto%5D=2&status=available%2Coffline&updatedAt%5Bto%5D=3", nil, ""},
		{"DeactivateUsers", "", func(c *client.Client) error {
			_, err := c.DeactivateUsers(ctx, []string{"u1", "u2"})
			return err
		}, "DELETE /users", "/v3/users", "", nil, `{"uidsToDeactivate":["u1","u2"]}`},
		{"ReactivateUsers", "", func(c *client.Client) error {
			_, err := c.ReactivateUsers(ctx, []string{"u1"})
			return err
		}, "PUT /users", "/v3/users", "", nil, `{"uidsToActivate":["u1"]}`},

		{"CreateUser with a token", "", func(c *client.Client) error {
			_, err := c.CreateUser(ctx, client.CreateUserRequest{UID: "u1", Name: "U", WithAuthToken: true})
			return err
		}, "POST /users", "/v3/users", "", nil, `{"uid":"u1","name":"U","withAuthToken":true}`},

		{"CreateAuthToken", "", func(c *client.Client) error {
			_, err := c.CreateAuthToken(ctx, "u 1", client.CreateAuthTokenRequest{Force: true, Platform: "WEB", AppInfo: map[string]any{"v": "1"}})
			return err
		}, "POST /users/{uid}/auth_tokens", "/v3/users/u%201/auth_tokens", "", map[string]string{"uid": "u 1"}, `{"force":true,"platform":"WEB","appInfo":{"v":"1"}}`},
		{"CreateAuthToken empty", "", func(c *client.Client) error {
			_, err := c.CreateAuthToken(ctx, "u1", client.CreateAuthTokenRequest{})
			return err
		}, "POST /users/{uid}/auth_tokens", "/v3/users/u1/auth_tokens", "", map[string]string{"uid": "u1"}, `{}`},
		{"ListAuthTokens", "", func(c *client.Client) error {
			_, err := c.ListAuthTokens(ctx, "u1", 5, 2)
			return err
		}, "GET /users/{uid}/auth_tokens", "/v3/users/u1/auth_tokens", "page=2&perPage=5", map[string]string{"uid": "u1"}, ""},
		{"FlushAuthTokens", "", func(c *client.Client) error {
			_, err := c.FlushAuthTokens(ctx, "u1")
			return err
		}, "DELETE /users/{uid}/auth_tokens", "/v3/users/u1/auth_tokens", "", map[string]string{"uid": "u1"}, ""},
		{"GetAuthToken", "", func(c *client.Client) error {
			_, err := c.GetAuthToken(ctx, "u1", "u1_t/x")
			return err
		}, "GET /users/{uid}/auth_tokens/{authToken}", "/v3/users/u1/auth_tokens/u1_t%2Fx", "", map[string]string{"uid": "u1", "authToken": "u1_t/x"}, ""},
		{"UpdateAuthToken", "", func(c *client.Client) error {
			_, err := c.UpdateAuthToken(ctx, "u1", "u1_t", client.UpdateAuthTokenRequest{Platform: ptr("ios")})
			return err
		}, "PUT /users/{uid}/auth_tokens/{authToken}", "/v3/users/u1/auth_tokens/u1_t", "", map[string]string{"uid": "u1", "authToken": "u1_t"}, `{"platform":"ios"}`},
		{"DeleteAuthToken", "", func(c *client.Client) error {
			_, err := c.DeleteAuthToken(ctx, "u1", "u1_t")
			return err
		}, "DELETE /users/{uid}/auth_tokens/{authToken}", "/v3/users/u1/auth_tokens/u1_t", "", map[string]string{"uid": "u1", "authToken": "u1_t"}, ""},

		{"AddFriends", "", func(c *client.Client) error {
			_, err := c.AddFriends(ctx, "u1", []string{"u2", "u3"})
			return err
		}, "POST /users/{uid}/friends", "/v3/users/u1/friends", "", map[string]string{"uid": "u1"}, `{"accepted":["u2","u3"]}`},
		{"ListFriends", "", func(c *client.Client) error {
			_, err := c.ListFriends(ctx, "u1", client.ListFriendsParams{SearchKey: "a", PerPage: 10, Page: 2})
			return err
		}, "GET /users/{uid}/friends", "/v3/users/u1/friends", "page=2&perPage=10&searchKey=a", map[string]string{"uid": "u1"}, ""},
		{"RemoveFriends", "", func(c *client.Client) error {
			_, err := c.RemoveFriends(ctx, "u1", []string{"u2"})
			return err
		}, "DELETE /users/{uid}/friends", "/v3/users/u1/friends", "", map[string]string{"uid": "u1"}, `{"friends":["u2"]}`},

		{"CreateAPIKey", "", func(c *client.Client) error {
			_, err := c.CreateAPIKey(ctx, "k", "")
			return err
		}, "POST /apikeys", "/v3/apikeys", "", nil, `{"name":"k"}`},
		{"CreateAPIKey scope", "", func(c *client.Client) error {
			_, err := c.CreateAPIKey(ctx, "k", "authOnly")
			return err
		}, "POST /apikeys", "/v3/apikeys", "", nil, `{"name":"k","scope":"authOnly"}`},
		{"ListAPIKeys", "", func(c *client.Client) error {
			_, err := c.ListAPIKeys(ctx, client.ListAPIKeysParams{Scope: "fullAccess", SearchKey: "k", PerPage: 5, Page: 1})
			return err
		}, "GET /apikeys", "/v3/apikeys", "page=1&perPage=5&scope=fullAccess&searchKey=k", nil, ""},
		{"GetAPIKey", "", func(c *client.Client) error {
			_, err := c.GetAPIKey(ctx, "abc/def")
			return err
		}, "GET /apikeys/{apiKey}", "/v3/apikeys/abc%2Fdef", "", map[string]string{"apiKey": "abc/def"}, ""},
		{"UpdateAPIKey", "", func(c *client.Client) error {
			_, err := c.UpdateAPIKey(ctx, "abc", ptr("n"), nil)
			return err
		}, "PUT /apikeys/{apiKey}", "/v3/apikeys/abc", "", map[string]string{"apiKey": "abc"}, `{"name":"n"}`},
		{"DeleteAPIKey", "", func(c *client.Client) error {
			_, err := c.DeleteAPIKey(ctx, "abc")
			return err
		}, "DELETE /apikeys/{apiKey}", "/v3/apikeys/abc", "", map[string]string{"apiKey": "abc"}, ""},

		{"CreateWebhook", "", func(c *client.Client) error {
			_, err := c.CreateWebhook(ctx, client.WebhookRequest{WebhookURL: ptr("https://h.example/x"), UseBasicAuth: ptr(true), Username: ptr("u"), Password: ptr("p"), Triggers: &[]string{"message_sent"}})
			return err
		}, "POST /webhooks", "/v3/webhooks", "", nil, `{"webhookURL":"https://h.example/x","useBasicAuth":true,"username":"u","password":"p","triggers":["message_sent"]}`},
		{"ListWebhooks", "", func(c *client.Client) error {
			_, err := c.ListWebhooks(ctx)
			return err
		}, "GET /webhooks", "/v3/webhooks", "", nil, ""},
		{"GetWebhook", "", func(c *client.Client) error {
			_, err := c.GetWebhook(ctx, "wh 1")
			return err
		}, "GET /webhooks/{id}", "/v3/webhooks/wh%201", "", map[string]string{"id": "wh 1"}, ""},
		{"UpdateWebhook", "", func(c *client.Client) error {
			_, err := c.UpdateWebhook(ctx, "wh1", client.WebhookRequest{Enabled: ptr(false)})
			return err
		}, "PUT /webhooks/{id}", "/v3/webhooks/wh1", "", map[string]string{"id": "wh1"}, `{"enabled":false}`},
		{"DeleteWebhook", "", func(c *client.Client) error {
			_, err := c.DeleteWebhook(ctx, "wh1")
			return err
		}, "DELETE /webhooks/{id}", "/v3/webhooks/wh1", "", map[string]string{"id": "wh1"}, ""},
		{"CreateAgent", "", func(c *client.Client) error {
			_, err := c.CreateAgent(ctx, client.AgentRequest{UID: ptr("bot"), Name: ptr("Bot"), IntegrationMeta: &client.AgentMeta{URL: "https://a.example/x"}})
			return err
		}, "POST /ai-agents/agents", "/v3/ai-agents/agents", "", nil, `{"uid":"bot","name":"Bot","integrationMeta":{"url":"https://a.example/x"}}`},
		{"ListAgents", "", func(c *client.Client) error {
			_, err := c.ListAgents(ctx)
			return err
		}, "GET /ai-agents/agents", "/v3/ai-agents/agents", "", nil, ""},
		{"GetAgent", "", func(c *client.Client) error {
			_, err := c.GetAgent(ctx, "bot")
			return err
		}, "GET /ai-agents/agents/{uid}", "/v3/ai-agents/agents/bot", "", map[string]string{"uid": "bot"}, ""},
		{"UpdateAgent", "", func(c *client.Client) error {
			_, err := c.UpdateAgent(ctx, "bot", client.AgentRequest{IsActive: ptr(false)})
			return err
		}, "PUT /ai-agents/agents/{uid}", "/v3/ai-agents/agents/bot", "", map[string]string{"uid": "bot"}, `{"isActive":false}`},
		{"PatchAgent", "", func(c *client.Client) error {
			_, err := c.PatchAgent(ctx, "bot", client.AgentRequest{Name: ptr("B")})
			return err
		}, "PATCH /ai-agents/agents/{uid}", "/v3/ai-agents/agents/bot", "", map[string]string{"uid": "bot"}, `{"name":"B"}`},
		{"DeleteAgent", "", func(c *client.Client) error {
			_, err := c.DeleteAgent(ctx, "bot")
			return err
		}, "DELETE /ai-agents/agents/{uid}", "/v3/ai-agents/agents/bot", "", map[string]string{"uid": "bot"}, ""},
		{"RotateWebhookSecret", "", func(c *client.Client) error {
			keep := int64(60)
			_, err := c.RotateWebhookSecret(ctx, "wh1", &keep)
			return err
		}, "POST /webhooks/{id}/secrets", "/v3/webhooks/wh1/secrets", "", map[string]string{"id": "wh1"}, `{"previousExpiresIn":60}`},
		{"ListDeliveries", "", func(c *client.Client) error {
			_, err := c.ListDeliveries(ctx, "wh1", client.DeliveriesParams{State: "dead", Before: "9", Limit: 5})
			return err
		}, "GET /webhooks/{id}/deliveries", "/v3/webhooks/wh1/deliveries", "before=9&limit=5&state=dead", map[string]string{"id": "wh1"}, ""},
		{"Replay", "", func(c *client.Client) error {
			_, err := c.Replay(ctx, "wh1", client.ReplayRequest{EventID: "evt_3"})
			return err
		}, "POST /webhooks/{id}/replay", "/v3/webhooks/wh1/replay", "", map[string]string{"id": "wh1"}, `{"eventId":"evt_3"}`},

		// Notification providers and push tokens.
		{"ListFCMProviders", "", func(c *client.Client) error {
			_, err := c.ListFCMProviders(ctx)
			return err
		}, "GET /notifications/push/v1/providers/fcm", "/v3/notifications/push/v1/providers/fcm", "", nil, ""},
		{"CreateFCMProvider", "", func(c *client.Client) error {
			_, err := c.CreateFCMProvider(ctx, client.FCMProviderRequest{ProviderID: "f1", ServiceAccountCreds: &client.ServiceAccount{ProjectID: "p", ClientEmail: "e", PrivateKey: "k"}})
			return err
		}, "POST /notifications/push/v1/providers/fcm", "/v3/notifications/push/v1/providers/fcm", "", nil,
			`{"providerId":"f1","serviceAccountCreds":{"project_id":"p","client_email":"e","private_key":"k"}}`},
		{"UpdateFCMProvider", "", func(c *client.Client) error {
			_, err := c.UpdateFCMProvider(ctx, client.FCMProviderRequest{ProviderID: "f1", ServiceAccountFilename: ptr("a.json")})
			return err
		}, "PUT /notifications/push/v1/providers/fcm", "/v3/notifications/push/v1/providers/fcm", "", nil, `{"providerId":"f1","serviceAccountFilename":"a.json"}`},
		{"DeleteFCMProvider", "", func(c *client.Client) error {
			_, err := c.DeleteFCMProvider(ctx, "f 1")
			return err
		}, "DELETE /notifications/push/v1/providers/fcm/{providerId}", "/v3/notifications/push/v1/providers/fcm/f%201", "", map[string]string{"providerId": "f 1"}, ""},
		{"SetDefaultFCMProvider", "", func(c *client.Client) error {
			_, err := c.SetDefaultFCMProvider(ctx, "f1")
			return err
		}, "PUT /notifications/push/v1/providers/fcm/default/{providerId}", "/v3/notifications/push/v1/providers/fcm/default/f1", "", map[string]string{"providerId": "f1"}, ""},
		{"ListAPNsProviders", "", func(c *client.Client) error {
			_, err := c.ListAPNsProviders(ctx)
			return err
		}, "GET /notifications/push/v1/providers/apns", "/v3/notifications/push/v1/providers/apns", "", nil, ""},
		{"CreateAPNsProvider", "", func(c *client.Client) error {
			_, err := c.CreateAPNsProvider(ctx, client.APNsProviderRequest{ProviderID: "a1", KeyID: ptr("K"), ProductionMode: ptr(true)})
			return err
		}, "POST /notifications/push/v1/providers/apns", "/v3/notifications/push/v1/providers/apns", "", nil, `{"providerId":"a1","keyId":"K","productionMode":true}`},
		{"UpdateAPNsProvider", "", func(c *client.Client) error {
			_, err := c.UpdateAPNsProvider(ctx, client.APNsProviderRequest{ProviderID: "a1", BundleID: ptr("com.x")})
			return err
		}, "PUT /notifications/push/v1/providers/apns", "/v3/notifications/push/v1/providers/apns", "", nil, `{"providerId":"a1","bundleId":"com.x"}`},
		{"DeleteAPNsProvider", "", func(c *client.Client) error {
			_, err := c.DeleteAPNsProvider(ctx, "a1")
			return err
		}, "DELETE /notifications/push/v1/providers/apns/{providerId}", "/v3/notifications/push/v1/providers/apns/a1", "", map[string]string{"providerId": "a1"}, ""},
		{"SetDefaultAPNsProvider", "", func(c *client.Client) error {
			_, err := c.SetDefaultAPNsProvider(ctx, "a1")
			return err
		}, "PUT /notifications/push/v1/providers/apns/default/{providerId}", "/v3/notifications/push/v1/providers/apns/default/a1", "", map[string]string{"providerId": "a1"}, ""},
		{"ListNotificationLogs", "", func(c *client.Client) error {
			_, _, err := c.ListNotificationLogs(ctx, url.Values{"channel": {"push"}, "logId": {"9"}, "affix": {"prepend"}})
			return err
		}, "GET /notifications/v1/logs", "/v3/notifications/v1/logs", "affix=prepend&channel=push&logId=9", nil, ""},
		{"GetTwilioProvider", "", func(c *client.Client) error {
			_, err := c.GetTwilioProvider(ctx)
			return err
		}, "GET /notifications/sms/v1/providers/twilio", "/v3/notifications/sms/v1/providers/twilio", "", nil, ""},
		{"CreateTwilioProvider", "", func(c *client.Client) error {
			_, err := c.CreateTwilioProvider(ctx, client.TwilioRequest{TwilioAccountSID: ptr("AC1"), TwilioAuthToken: ptr("t"), TwilioSenderPhoneNumber: ptr("+1")})
			return err
		}, "POST /notifications/sms/v1/providers/twilio", "/v3/notifications/sms/v1/providers/twilio", "", nil,
			`{"twilioAccountSID":"AC1","twilioAuthToken":"t","twilioSenderPhoneNumber":"+1"}`},
		{"UpdateTwilioProvider", "", func(c *client.Client) error {
			_, err := c.UpdateTwilioProvider(ctx, client.TwilioRequest{IsEnabled: ptr(false)})
			return err
		}, "PUT /notifications/sms/v1/providers/twilio", "/v3/notifications/sms/v1/providers/twilio", "", nil, `{"isEnabled":false}`},
		{"DeleteTwilioProvider", "", func(c *client.Client) error {
			_, err := c.DeleteTwilioProvider(ctx)
			return err
		}, "DELETE /notifications/sms/v1/providers/twilio", "/v3/notifications/sms/v1/providers/twilio", "", nil, ""},
		{"GetSendGridProvider", "", func(c *client.Client) error {
			_, err := c.GetSendGridProvider(ctx)
			return err
		}, "GET /notifications/email/v1/providers/sendgrid", "/v3/notifications/email/v1/providers/sendgrid", "", nil, ""},
		{"CreateSendGridProvider", "", func(c *client.Client) error {
			_, err := c.CreateSendGridProvider(ctx, client.SendGridRequest{SendGridAPIKey: ptr("SG.x"), SenderEmail: ptr("a@b.c")})
			return err
		}, "POST /notifications/email/v1/providers/sendgrid", "/v3/notifications/email/v1/providers/sendgrid", "", nil, `{"sendGridApiKey":"SG.x","senderEmail":"a@b.c"}`},
		{"UpdateSendGridProvider", "", func(c *client.Client) error {
			_, err := c.UpdateSendGridProvider(ctx, client.SendGridRequest{AllowEmailReplies: ptr(true)})
			return err
		}, "PUT /notifications/email/v1/providers/sendgrid", "/v3/notifications/email/v1/providers/sendgrid", "", nil, `{"allowEmailReplies":true}`},
		{"DeleteSendGridProvider", "", func(c *client.Client) error {
			_, err := c.DeleteSendGridProvider(ctx)
			return err
		}, "DELETE /notifications/email/v1/providers/sendgrid", "/v3/notifications/email/v1/providers/sendgrid", "", nil, ""},
		{"GetCustomProvider push", "", func(c *client.Client) error {
			_, err := c.GetCustomProvider(ctx, client.ChannelPush)
			return err
		}, "GET /notifications/push/v1/providers/custom", "/v3/notifications/push/v1/providers/custom", "", nil, ""},
		{"CreateCustomProvider push", "", func(c *client.Client) error {
			_, err := c.CreateCustomProvider(ctx, client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true), WebhookURL: ptr("https://h.example/p"), UseBasicAuth: ptr(false)})
			return err
		}, "POST /notifications/push/v1/providers/custom", "/v3/notifications/push/v1/providers/custom", "", nil, `{"isEnabled":true,"webhookURL":"https://h.example/p","useBasicAuth":false}`},
		{"UpdateCustomProvider push", "", func(c *client.Client) error {
			_, err := c.UpdateCustomProvider(ctx, client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(false)})
			return err
		}, "PUT /notifications/push/v1/providers/custom", "/v3/notifications/push/v1/providers/custom", "", nil, `{"isEnabled":false}`},
		{"DeleteCustomProvider push", "", func(c *client.Client) error {
			_, err := c.DeleteCustomProvider(ctx, client.ChannelPush)
			return err
		}, "DELETE /notifications/push/v1/providers/custom", "/v3/notifications/push/v1/providers/custom", "", nil, ""},
		{"GetCustomProvider sms", "", func(c *client.Client) error {
			_, err := c.GetCustomProvider(ctx, client.ChannelSMS)
			return err
		}, "GET /notifications/sms/v1/providers/custom", "/v3/notifications/sms/v1/providers/custom", "", nil, ""},
		{"CreateCustomProvider sms", "", func(c *client.Client) error {
			_, err := c.CreateCustomProvider(ctx, client.ChannelSMS, client.CustomProviderRequest{UseStoredPhNo: ptr(true)})
			return err
		}, "POST /notifications/sms/v1/providers/custom", "/v3/notifications/sms/v1/providers/custom", "", nil, `{"useStoredPhNo":true}`},
		{"UpdateCustomProvider sms", "", func(c *client.Client) error {
			_, err := c.UpdateCustomProvider(ctx, client.ChannelSMS, client.CustomProviderRequest{BasicAuthPassword: ptr("p")})
			return err
		}, "PUT /notifications/sms/v1/providers/custom", "/v3/notifications/sms/v1/providers/custom", "", nil, `{"basicAuthPassword":"p"}`},
		{"DeleteCustomProvider sms", "", func(c *client.Client) error {
			_, err := c.DeleteCustomProvider(ctx, client.ChannelSMS)
			return err
		}, "DELETE /notifications/sms/v1/providers/custom", "/v3/notifications/sms/v1/providers/custom", "", nil, ""},
		{"GetCustomProvider email", "", func(c *client.Client) error {
			_, err := c.GetCustomProvider(ctx, client.ChannelEmail)
			return err
		}, "GET /notifications/email/v1/providers/custom", "/v3/notifications/email/v1/providers/custom", "", nil, ""},
		{"CreateCustomProvider email", "", func(c *client.Client) error {
			_, err := c.CreateCustomProvider(ctx, client.ChannelEmail, client.CustomProviderRequest{UseStoredEmailID: ptr(false)})
			return err
		}, "POST /notifications/email/v1/providers/custom", "/v3/notifications/email/v1/providers/custom", "", nil, `{"useStoredEmailID":false}`},
		{"UpdateCustomProvider email", "", func(c *client.Client) error {
			_, err := c.UpdateCustomProvider(ctx, client.ChannelEmail, client.CustomProviderRequest{WebhookURL: ptr("https://h.example/e")})
			return err
		}, "PUT /notifications/email/v1/providers/custom", "/v3/notifications/email/v1/providers/custom", "", nil, `{"webhookURL":"https://h.example/e"}`},
		{"DeleteCustomProvider email", "", func(c *client.Client) error {
			_, err := c.DeleteCustomProvider(ctx, client.ChannelEmail)
			return err
		}, "DELETE /notifications/email/v1/providers/custom", "/v3/notifications/email/v1/providers/custom", "", nil, ""},
		{"RegisterPushToken", "", func(c *client.Client) error {
			_, err := c.RegisterPushToken(ctx, client.PushTokenRequest{Platform: "fcm_web", FCMToken: "t1", Timezone: "Asia/Kolkata"})
			return err
		}, "POST /notifications/push/v1/tokens", "/v3/notifications/push/v1/tokens", "", nil, `{"platform":"fcm_web","fcmToken":"t1","timezone":"Asia/Kolkata"}`},
		{"ListPushTokens", "", func(c *client.Client) error {
			_, err := c.ListPushTokens(ctx, "u1_tok", true)
			return err
		}, "GET /notifications/push/v1/tokens", "/v3/notifications/push/v1/tokens", "all=true&authToken=u1_tok", nil, ""},
		{"UnregisterPushTokens", "", func(c *client.Client) error {
			_, err := c.UnregisterPushTokens(ctx, "u1_tok", false)
			return err
		}, "DELETE /notifications/push/v1/tokens", "/v3/notifications/push/v1/tokens", "", nil, `{"authToken":"u1_tok"}`},
		{"UnregisterPushTokens all, no body", "", func(c *client.Client) error {
			_, err := c.UnregisterPushTokens(ctx, "", true)
			return err
		}, "DELETE /notifications/push/v1/tokens", "/v3/notifications/push/v1/tokens", "all=true", nil, ""},
		{"DeletePushToken", "", func(c *client.Client) error {
			_, err := c.DeletePushToken(ctx, "a:b/c", "u1_tok")
			return err
		}, "DELETE /notifications/push/v1/tokens/{pushToken}", "/v3/notifications/push/v1/tokens/a:b%2Fc", "", map[string]string{"pushToken": "a:b/c"}, `{"authToken":"u1_tok"}`},

		{"SendMessage", "", func(c *client.Client) error {
			_, err := c.SendMessage(ctx, client.SendMessageRequest{Receiver: "u2", ReceiverType: "user", Category: "message", Type: "text",
				Data: map[string]any{"text": "<hi>"}})
			return err
		}, "POST /messages", "/v3/messages", "", nil, `{"receiver":"u2","receiverType":"user","category":"message","type":"text","data":{"text":"<hi>"}}`},
		{"CreateUploadURLs", "", func(c *client.Client) error {
			_, err := c.CreateUploadURLs(ctx, client.UploadURLRequest{Files: map[string]client.UploadFileInfo{"f1": {FileID: "f1", Name: "a.png", Size: 3, MimeType: "image/png"}},
				Receiver: "u2", ReceiverType: "user"})
			return err
		}, "POST /files/upload-url", "/v3/files/upload-url", "", nil,
			`{"files":{"f1":{"fileId":"f1","name":"a.png","size":3,"mimeType":"image/png"}},"receiver":"u2","receiverType":"user"}`},
		{"SendMessageToMany", "", func(c *client.Client) error {
			_, err := c.SendMessageToMany(ctx, client.SendMessageRequest{Data: map[string]any{"text": "hi"}},
				client.Receivers{UIDs: []string{"u2", "u3"}, GUIDs: []string{"g1"}})
			return err
		}, "POST /messages", "/v3/messages", "", nil,
			`{"receiver":"","receiverType":"","category":"","type":"","data":{"text":"hi"},"multipleReceivers":{"uids":["u2","u3"],"guids":["g1"]}}`},
		{"SendBotMessageToMany", "", func(c *client.Client) error {
			_, err := c.SendBotMessageToMany(ctx, "bot 1", client.SendMessageRequest{Receiver: "u2", ReceiverType: "user", Data: map[string]any{"text": "hi"}},
				client.Receivers{GUIDs: []string{"g1"}})
			return err
		}, "POST /bots/{uid}/messages", "/v3/bots/bot%201/messages", "", map[string]string{"uid": "bot 1"},
			`{"receiver":"u2","receiverType":"user","category":"","type":"","data":{"text":"hi"},"multipleReceivers":{"guids":["g1"]}}`},
		{"GetMessage", "", func(c *client.Client) error {
			_, err := c.GetMessage(ctx, "7")
			return err
		}, "GET /messages/{id}", "/v3/messages/7", "", map[string]string{"id": "7"}, ""},
		{"DeleteMessage", "", func(c *client.Client) error {
			_, err := c.DeleteMessage(ctx, "7", false)
			return err
		}, "DELETE /messages/{id}", "/v3/messages/7", "", map[string]string{"id": "7"}, ""},
		{"DeleteMessage permanent", "", func(c *client.Client) error {
			_, err := c.DeleteMessage(ctx, "7", true)
			return err
		}, "DELETE /messages/{id}", "/v3/messages/7", "", map[string]string{"id": "7"}, `{"permanent":true}`},
		{"ListReactions", "", func(c *client.Client) error {
			_, err := c.ListReactions(ctx, "7", client.ListReactionsParams{Limit: 3, Affix: "prepend", ID: "9"})
			return err
		}, "GET /messages/{id}/reactions", "/v3/messages/7/reactions", "affix=prepend&id=9&limit=3", map[string]string{"id": "7"}, ""},
		{"ListReactions one", "", func(c *client.Client) error {
			_, err := c.ListReactions(ctx, "7", client.ListReactionsParams{Reaction: "a/b"})
			return err
		}, "GET /messages/{id}/reactions/{reaction}", "/v3/messages/7/reactions/a%2Fb", "", map[string]string{"id": "7", "reaction": "a/b"}, ""},
		{"AddReaction", "", func(c *client.Client) error {
			_, err := c.AddReaction(ctx, "7", "👍")
			return err
		}, "POST /messages/{id}/reactions/{reaction}", "/v3/messages/7/reactions/%F0%9F%91%8D", "", map[string]string{"id": "7", "reaction": "👍"}, ""},
		{"RemoveReaction", "", func(c *client.Client) error {
			_, err := c.RemoveReaction(ctx, "7", "👍")
			return err
		}, "DELETE /messages/{id}/reactions/{reaction}", "/v3/messages/7/reactions/%F0%9F%91%8D", "", map[string]string{"id": "7", "reaction": "👍"}, ""},
		{"PinMessage", "", func(c *client.Client) error {
			_, err := c.PinMessage(ctx, "7")
			return err
		}, "POST /messages/{id}/pin", "/v3/messages/7/pin", "", map[string]string{"id": "7"}, ""},
		{"UnpinMessage", "", func(c *client.Client) error {
			_, err := c.UnpinMessage(ctx, "7")
			return err
		}, "DELETE /messages/{id}/pin", "/v3/messages/7/pin", "", map[string]string{"id": "7"}, ""},
		{"SaveMessage", "", func(c *client.Client) error {
			_, err := c.SaveMessage(ctx, "7")
			return err
		}, "POST /messages/{id}/save", "/v3/messages/7/save", "", map[string]string{"id": "7"}, ""},
		{"SubscribeThread", "", func(c *client.Client) error {
			_, err := c.SubscribeThread(ctx, "7")
			return err
		}, "POST /messages/{id}/thread/subscription", "/v3/messages/7/thread/subscription", "", map[string]string{"id": "7"}, ""},
		{"UnsubscribeThread", "", func(c *client.Client) error {
			_, err := c.UnsubscribeThread(ctx, "7")
			return err
		}, "DELETE /messages/{id}/thread/subscription", "/v3/messages/7/thread/subscription", "", map[string]string{"id": "7"}, ""},
		{"ListThreads", "", func(c *client.Client) error {
			_, err := c.ListThreads(ctx, client.ThreadListParams{})
			return err
		}, "GET /threads", "/v3/threads", "", nil, ""},
		{"ListThreads with a user, paged", "", func(c *client.Client) error {
			_, err := c.ListThreads(ctx, client.ThreadListParams{UID: "u/1", Affix: "append", UpdatedAt: 5, ID: "9", Limit: 2})
			return err
		}, "GET /users/{uid}/threads", "/v3/users/u%2F1/threads", "affix=append&id=9&limit=2&updatedAt=5", map[string]string{"uid": "u/1"}, ""},
		{"UnsaveMessage", "", func(c *client.Client) error {
			_, err := c.UnsaveMessage(ctx, "7")
			return err
		}, "DELETE /messages/{id}/save", "/v3/messages/7/save", "", map[string]string{"id": "7"}, ""},
		{"Me", "", func(c *client.Client) error {
			_, err := c.Me(ctx)
			return err
		}, "PUT /me", "/v3/me", "", nil, `{}`},
		{"CurrentUser", "", func(c *client.Client) error {
			_, err := c.CurrentUser(ctx)
			return err
		}, "GET /me", "/v3/me", "", nil, ""},
		{"Logout", "", func(c *client.Client) error {
			_, err := c.Logout(ctx)
			return err
		}, "DELETE /me", "/v3/me", "", nil, ""},
		{"Settings", "", func(c *client.Client) error {
			_, err := c.Settings(ctx)
			return err
		}, "GET /settings", "/v3/settings", "", nil, ""},
		{"RecordSession", "", func(c *client.Client) error {
			_, err := c.RecordSession(ctx)
			return err
		}, "POST /user_sessions", "/v3/user_sessions", "", nil, ""},
		{"OnlineMembers", "", func(c *client.Client) error {
			_, err := c.OnlineMembers(ctx, "crew", "club")
			return err
		}, "POST /online-members", "/v3/online-members", "", nil, `{"groups":["crew","club"]}`},
		{"OnlineMembers without groups", "", func(c *client.Client) error {
			_, err := c.OnlineMembers(ctx)
			return err
		}, "POST /online-members", "/v3/online-members", "", nil, `{}`},
		{"ImportUsers", "", func(c *client.Client) error {
			_, err := c.ImportUsers(ctx, []client.ImportItem{{Key: "u2", Item: json.RawMessage(`{"name":"B"}`)}, {Key: "u1", Item: json.RawMessage(`{"name":"A"}`)}})
			return err
		}, "POST /data_import/users", "/v3/data_import/users", "", nil, `{"users":{"u2":{"name":"B"},"u1":{"name":"A"}}}`},
		{"ImportGroups", "", func(c *client.Client) error {
			_, err := c.ImportGroups(ctx, []client.ImportItem{{Key: "g1", Item: json.RawMessage(`{"name":"G","type":"public"}`)}})
			return err
		}, "POST /data_import/groups", "/v3/data_import/groups", "", nil, `{"groups":{"g1":{"name":"G","type":"public"}}}`},
		{"ImportMembers", "", func(c *client.Client) error {
			_, err := c.ImportMembers(ctx, []client.ImportItem{{Key: "g1_member_u1", Item: json.RawMessage(`{"guid":"g1","uid":"u1"}`)}})
			return err
		}, "POST /data_import/members", "/v3/data_import/members", "", nil, `{"members":{"g1_member_u1":{"guid":"g1","uid":"u1"}}}`},
		{"ImportMessages", "", func(c *client.Client) error {
			_, err := c.ImportMessages(ctx, []client.ImportItem{{Key: "m1", Item: json.RawMessage(`{"sender":"u1","receiverType":"user","receiver":"u2","sentAt":1}`)}})
			return err
		}, "POST /data_import/messages", "/v3/data_import/messages", "", nil, `{"messages":{"m1":{"sender":"u1","receiverType":"user","receiver":"u2","sentAt":1}}}`},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	for _, rt := range httpapi.Routes() {
		// TestGroupEndpoints covers the group routes.
		if _, path, _ := strings.Cut(rt, " "); !covered[rt] && !strings.HasPrefix(path, "/groups") && !historyRoutes[rt] {
			t.Errorf("no client call tested for %s", rt)
		}
	}
}

// TestReactionSegment checks that awkward reactions and ids reach r.PathValue intact. A
// reaction of exactly "/" is left out: the client sends it as %2F, but ServeMux reads a
// segment that decodes to "/" as a trailing slash and answers 404.
func TestReactionSegment(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()
	for _, reaction := range []string{"a/b", "👍🏽", ":heart", "+1", "%", "a b", "%2F", "?x", "#", ";", ".", "..", "a\\b", "//", "a%"} {
		t.Run(reaction, func(t *testing.T) {
			calls := map[string]func() error{
				"POST /messages/{id}/reactions/{reaction}": func() error { _, err := c.AddReaction(ctx, "m/1", reaction); return err },
				"DELETE /messages/{id}/reactions/{reaction}": func() error {
					_, err := c.RemoveReaction(ctx, "m/1", reaction)
					return err
				},
				"GET /messages/{id}/reactions/{reaction}": func() error {
					_, err := c.ListReactions(ctx, "m/1", client.ListReactionsParams{Reaction: reaction})
					return err
				},
			}
			for pattern, call := range calls {
				if err := call(); err != nil {
					t.Fatalf("%s: %v", pattern, err)
				}
				got := f.last(t)
				if got.Pattern != pattern || got.Values["reaction"] != reaction || got.Values["id"] != "m/1" {
					t.Errorf("%s: server saw %s with %q", pattern, got.Pattern, got.Values)
				}
			}
			if _, err := c.GetUser(ctx, reaction); err != nil {
				t.Fatal(err)
			}
			if got := f.last(t); got.Values["uid"] != reaction {
				t.Errorf("uid = %q, want %q", got.Values["uid"], reaction)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	base := f.client(client.WithHeader("appId", "app1"))
	alice := base.OnBehalfOf("alice")
	if _, err := alice.GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	got := f.last(t)
	if got.Header.Get("onBehalfOf") != "alice" || got.Header.Get("appId") != "app1" || got.Header.Get("apikey") != "key-1" {
		t.Errorf("headers = %v", got.Header)
	}
	// OnBehalfOf must leave the client it copied alone.
	if _, err := base.GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("onBehalfOf") != "" || got.Header.Get("appId") != "app1" {
		t.Errorf("base client headers = %v", got.Header)
	}
	if _, err := alice.OnBehalfOf("").GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("onBehalfOf") != "" {
		t.Errorf("OnBehalfOf(\"\") sent onBehalfOf %q", got.Header.Get("onBehalfOf"))
	}
	// An empty key sends no apikey header at all.
	noKey := client.New(f.srv.URL, "")
	if _, err := noKey.GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Values("apikey") != nil {
		t.Errorf("apikey = %q, want absent", got.Header.Values("apikey"))
	}
	// A token client sends authToken instead of apikey, and no onBehalfOf; alice is untouched.
	tok := alice.WithAuthToken("alice_tok")
	if _, err := tok.GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("authToken") != "alice_tok" || got.Header.Values("apikey") != nil ||
		got.Header.Get("onBehalfOf") != "" || got.Header.Get("appId") != "app1" {
		t.Errorf("token client headers = %v", got.Header)
	}
	if _, err := alice.GetMessage(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("authToken") != "" || got.Header.Get("apikey") != "key-1" || got.Header.Get("onBehalfOf") != "alice" {
		t.Errorf("WithAuthToken changed the client it copied: %v", got.Header)
	}
}

func TestVersionPrefix(t *testing.T) {
	f := newFake(t)
	for _, tt := range []struct{ opt, want string }{{"/v3.0", "/v3.0"}, {"/v3/", "/v3"}} {
		c := client.New(f.srv.URL+"/", "k", client.WithVersionPrefix(tt.opt))
		if _, err := c.GetUser(context.Background(), "u"); err != nil {
			t.Fatal(err)
		}
		if got := f.last(t); got.Prefix != tt.want || got.Path != tt.want+"/users/u" {
			t.Errorf("WithVersionPrefix(%q): path %s", tt.opt, got.Path)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()

	f.respond(http.StatusBadRequest, `{"error":{"message":"m","devMessage":"d","source":"chat-api","details":{"uid":["bad"]},"code":"ERR_BAD_REQUEST"}}`)
	f.mu.Lock()
	f.header = http.Header{"X-Request-Id": {"r1"}}
	f.mu.Unlock()
	_, err := c.CreateUser(ctx, client.CreateUserRequest{})
	f.last(t)
	var got *client.Error
	if !errors.As(err, &got) {
		t.Fatalf("err = %T %v, want *client.Error", err, err)
	}
	want := &client.Error{Status: 400, Code: "ERR_BAD_REQUEST", Message: "m", DevMessage: "d", Source: "chat-api",
		Details: map[string][]string{"uid": {"bad"}}}
	if got.Header.Get("X-Request-Id") != "r1" {
		t.Errorf("Header = %v", got.Header)
	}
	got.Header = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("err = %+v, want %+v", got, want)
	}
	if s := got.Error(); !strings.Contains(s, "400") || !strings.Contains(s, "ERR_BAD_REQUEST") || !strings.Contains(s, "m") {
		t.Errorf("Error() = %q", s)
	}

	// A body that is not the envelope: status kept, message is the start of the body.
	long := "<html>" + strings.Repeat("é", 200) + "</html>"
	for _, body := range []string{long, `{"data":{}}`, ""} {
		f.respond(http.StatusBadGateway, body)
		err := c.Do(ctx, http.MethodGet, "/users", nil, nil)
		f.last(t)
		var e *client.Error
		if !errors.As(err, &e) || e.Status != http.StatusBadGateway || e.Code != "" {
			t.Fatalf("body %.20q: err = %#v", body, err)
		}
		if len(e.Message) > 200 || !strings.HasPrefix(body, e.Message) {
			t.Errorf("body %.20q: Message = %q (%d bytes)", body, e.Message, len(e.Message))
		}
	}

	// A success body that is not JSON is an error, but not an API error.
	f.respond(http.StatusOK, "nope")
	err = c.Do(ctx, http.MethodGet, "/users", nil, nil)
	f.last(t)
	if err == nil || errors.As(err, new(*client.Error)) {
		t.Errorf("err = %v, want a decode error", err)
	}
}

func TestResponseLimit(t *testing.T) {
	f := newFake(t)
	f.respond(http.StatusOK, `{"data":"`+strings.Repeat("x", 16<<20)+`"}`)
	err := f.client().Do(context.Background(), http.MethodGet, "/users", nil, nil)
	f.last(t)
	if err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("err = %v, want a size error", err)
	}
}

func TestDo(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()
	f.respond(http.StatusOK, `{"data":{"x":1}}`)
	for _, body := range []any{json.RawMessage(`{"a": [1, 2]}`), []byte(`not json`)} {
		var out struct{ X int }
		if err := c.Do(ctx, http.MethodPost, "/users?x=1", body, &out); err != nil {
			t.Fatal(err)
		}
		got := f.last(t)
		if want := reflect.ValueOf(body).Bytes(); got.Body != string(want) || got.Query != "x=1" {
			t.Errorf("body %q query %q, want %q sent verbatim", got.Body, got.Query, want)
		}
		if out.X != 1 {
			t.Errorf("out = %+v", out)
		}
	}
	if err := c.Do(ctx, http.MethodGet, "/users", nil, nil); err != nil {
		t.Fatal(err)
	}
	f.last(t)
}

func TestDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()

	f.respond(http.StatusOK, `{"data":[{"uid":"u1","name":"U","status":"offline","role":"default","createdAt":5,"tags":["t"],"metadata":{"k":"v"}}],
		"meta":{"pagination":{"total":21,"count":1,"per_page":1,"current_page":2,"total_pages":21}}}`)
	users, err := c.ListUsers(ctx, client.ListUsersParams{})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	wantUsers := &client.UserList{
		Users: []client.User{{UID: "u1", Name: "U", Status: "offline", Role: "default", CreatedAt: 5, Tags: []string{"t"},
			Metadata: map[string]any{"k": "v"}}},
		Pagination: client.Pagination{Total: 21, Count: 1, PerPage: 1, CurrentPage: 2, TotalPages: 21},
	}
	if !reflect.DeepEqual(users, wantUsers) {
		t.Errorf("ListUsers = %+v, want %+v", users, wantUsers)
	}

	f.respond(http.StatusOK, `{"data":{"deactivatedUids":["a","b"]}}`)
	uids, err := c.DeactivateUsers(ctx, []string{"a", "b"})
	f.last(t)
	if err != nil || !slices.Equal(uids, []string{"a", "b"}) {
		t.Errorf("DeactivateUsers = %v, %v", uids, err)
	}
	f.respond(http.StatusOK, `{"data":{"nonDeactivatedUids":["a"]}}`)
	uids, err = c.ReactivateUsers(ctx, []string{"a"})
	f.last(t)
	if err != nil || !slices.Equal(uids, []string{"a"}) {
		t.Errorf("ReactivateUsers = %v, %v", uids, err)
	}

	f.respond(http.StatusOK, `{"data":{"success":true,"message":"gone"}}`)
	ack, err := c.DeleteAPIKey(ctx, "k")
	f.last(t)
	if err != nil || *ack != (client.Ack{Success: true, Message: "gone"}) {
		t.Errorf("DeleteAPIKey = %+v, %v", ack, err)
	}

	f.respond(http.StatusOK, `{"data":[{"id":"3","messageId":"7","reaction":"👍","uid":"u1","reactedAt":9,
		"reactedBy":{"uid":"u1","name":"U","status":"online","role":"default","createdAt":1}}],
		"meta":{"current":{"limit":1,"count":1},"next":{"affix":"append","id":"3"}}}`)
	rs, err := c.ListReactions(ctx, "7", client.ListReactionsParams{})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	wantRs := &client.ReactionList{
		Reactions: []client.Reaction{{ID: "3", MessageID: "7", Reaction: "👍", UID: "u1", ReactedAt: 9,
			ReactedBy: client.User{UID: "u1", Name: "U", Status: "online", Role: "default", CreatedAt: 1}}},
		Limit: 1, Count: 1, Next: &client.ReactionCursor{Affix: "append", ID: "3"},
	}
	if !reflect.DeepEqual(rs, wantRs) {
		t.Errorf("ListReactions = %+v, want %+v", rs, wantRs)
	}
	if !rs.More() {
		t.Errorf("a full page says it is the last")
	}
	f.respond(http.StatusOK, `{"data":[],"meta":{"current":{"limit":10,"count":0},"next":{"affix":"append","id":"3"}}}`)
	rs, err = c.ListReactions(ctx, "7", client.ListReactionsParams{})
	f.last(t)
	if err != nil || rs.More() || rs.Next == nil || rs.Limit != 10 {
		t.Errorf("last page = %+v, %v", rs, err)
	}
}

func TestMessageData(t *testing.T) {
	f := newFake(t)
	c := f.client()
	data := `{"action":"deleted","custom":{"x":[1]},"entities":{"by":{"entity":{"uid":"u1","name":"U","role":"default","status":"online"},"entityType":"user"},
		"for":{"entity":{"uid":"u2","name":"V","role":"default","status":"offline","conversationId":"u1_user_u2"},"entityType":"user"},
		"on":{"entity":{"id":"7","conversationId":"u1_user_u2","sender":"u1","receiverType":"user","receiver":"u2","category":"message","type":"text",
			"data":{"text":"hi","entities":{"sender":{"entity":{"uid":"u1","name":"U","role":"default","status":"online"},"entityType":"user"}},
			"reactions":[{"reaction":"👍","count":2,"reactedByMe":true}]},"sentAt":1,"updatedAt":2,"deletedAt":3,"deletedBy":"u1"},"entityType":"message"}}}`
	f.respond(http.StatusOK, `{"data":{"id":"8","conversationId":"u1_user_u2","sender":"u1","receiverType":"user","receiver":"u2",
		"category":"action","type":"message","data":`+data+`,"sentAt":3,"updatedAt":3}}`)
	m, err := c.DeleteMessage(context.Background(), "7", false)
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Data.Raw, []byte(data)) {
		t.Errorf("Raw = %s, want the data object as sent", m.Data.Raw)
	}
	e := m.Data.Entities
	if m.Data.Action != "deleted" || e.By == nil || e.By.Entity.UID != "u1" || e.For == nil || e.For.Entity.ConversationID != "u1_user_u2" || e.On == nil {
		t.Fatalf("action data = %+v", m.Data)
	}
	on := e.On.Entity
	if on.ID != "7" || on.Data.Text != "hi" || on.DeletedAt != 3 || on.Data.Entities.Sender.Entity.UID != "u1" ||
		!reflect.DeepEqual(on.Data.Reactions, []client.ReactionSummary{{Reaction: "👍", Count: 2, ReactedByMe: true}}) {
		t.Errorf("on = %+v", on)
	}
	if len(on.Data.Raw) == 0 {
		t.Error("nested Raw not set")
	}
}
