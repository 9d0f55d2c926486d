package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

const tokensPath = "/v3/notifications/push/v1/tokens"

// sdk is how CometChat's JavaScript SDK calls: the user's auth token and the app id in
// headers, no API key.
func sdk(token string) map[string]string {
	return map[string]string{"apikey": "", "authToken": token, "appId": "demo"}
}

// pushTokens lists what the database holds for an auth token: "platform:token" each.
func (e *env) pushTokensOf(authToken string) []string {
	e.t.Helper()
	rows, err := e.raw.Query(strings.NewReplacer("$1", e.placeholder(1)).Replace(`SELECT platform, token FROM push_tokens WHERE auth_hash = $1 ORDER BY token`), sha(authToken))
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, t string
		rows.Scan(&p, &t)
		out = append(out, p+":"+t)
	}
	return out
}

func (e *env) placeholder(n int) string {
	if e.backend == "sqlite" {
		return "?" + string(rune('0'+n))
	}
	return "$" + string(rune('0'+n))
}

func TestPushTokens(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustFCMProvider("fcm-a")
		e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-a")})
		tok1 := e.mustToken("alice")
		voip := strings.Repeat("5f1c0e7a", 8)

		// The SDK's registerPushToken: its body, its headers; it needs data.success.
		sdkBody := `{"providerId":"default","timezone":"Asia/Kolkata","fcmToken":"ftok-1","platform":"fcm_web"}`
		for i := 0; i < 2; i++ { // the SDK registers on every start: the second is the same
			r := e.okr(request{method: "POST", path: tokensPath, headers: sdk(tok1), body: sdkBody})
			if !strings.Contains(string(r.body), `"success":true`) {
				t.Fatalf("register: %s", r.body)
			}
		}
		if got := e.pushTokensOf(tok1); len(got) != 1 || got[0] != "fcm_web:ftok-1" {
			t.Fatalf("after registering twice: %v", got)
		}
		// A rotated FCM token replaces the auth token's previous one; a VoIP token, named by
		// a server with its API key, sits beside it.
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(tok1), body: strings.Replace(sdkBody, "ftok-1", "ftok-2", 1)})
		e.okr(request{method: "POST", path: tokensPath, body: `{"platform":"apns_ios_voip","providerId":"APNS-A","voipToken":"` + voip + `","authToken":"` + tok1 + `"}`})
		if got := e.pushTokensOf(tok1); len(got) != 2 || got[0] != "apns_ios_voip:"+voip || got[1] != "fcm_web:ftok-2" {
			t.Fatalf("after rotation and VoIP: %v", got)
		}

		// The list, with an API key naming the auth token: masked, ISO times.
		r := e.okr(request{method: "GET", path: tokensPath + "?authToken=" + tok1})
		var list struct {
			Data struct{ PushTokens []map[string]any }
		}
		json.Unmarshal(r.body, &list)
		if len(list.Data.PushTokens) != 2 || strings.Contains(string(r.body), tok1) {
			t.Fatalf("list: %s", r.body)
		}
		byType := map[string]map[string]any{}
		for _, pt := range list.Data.PushTokens {
			byType[pt["pushTokenType"].(string)] = pt
		}
		fcmTok, voipTok := byType["chat"], byType["voip"]
		if fcmTok["uid"] != "alice" || fcmTok["providerId"] != "default" || fcmTok["pushToken"] != "ftok-2" || fcmTok["createdAt"] != "2026-11-01T12:00:00.000Z" ||
			!strings.HasPrefix(fcmTok["authToken"].(string), "alice_"+tok1[6:10]+"****") || voipTok["providerId"] != "apns-a" || voipTok["platform"] != "apns_ios_voip" {
			t.Fatalf("list entries: %s", r.body)
		}

		// A second login on the same device: the device's token moves to the new auth token.
		tok2 := e.mustToken("alice")
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(tok2), body: strings.Replace(sdkBody, "ftok-1", "ftok-2", 1)})
		if got, got2 := e.pushTokensOf(tok1), e.pushTokensOf(tok2); len(got) != 1 || len(got2) != 1 || got2[0] != "fcm_web:ftok-2" {
			t.Fatalf("after the move: %v %v", got, got2)
		}
		r = e.okr(request{method: "GET", path: tokensPath + "?all=true", headers: sdk(tok2)})
		if strings.Count(string(r.body), `"pushToken"`) != 2 {
			t.Fatalf("all of alice's: %s", r.body)
		}
		ts, err := e.svc.Notifications().PushTokensOf(e.ctx(), e.app.ID, []string{"alice", "bob", "alice"})
		if err != nil || len(ts) != 2 || ts[0].Kind != chat.PushFCM && ts[0].Kind != chat.PushVoIP {
			t.Fatalf("slice 3's read: %+v %v", ts, err)
		}

		// A user deletes only its own tokens.
		bobTok := e.mustToken("bob")
		if r := e.do(request{method: "DELETE", path: tokensPath + "/ftok-2", headers: sdk(bobTok)}); r.status != 404 || r.code != "ERR_TOKEN_NOT_FOUND" {
			t.Fatalf("bob deletes alice's token: %d %s", r.status, r.body)
		}
		r = e.okr(request{method: "DELETE", path: tokensPath + "/" + voip, body: `{"authToken":"` + tok2 + `"}`})
		if !strings.Contains(string(r.body), voip) || len(e.pushTokensOf(tok1)) != 0 {
			t.Fatalf("delete one: %s", r.body)
		}

		// Logging out (DELETE /me) takes the session's push tokens along.
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(tok1), body: sdkBody})
		e.okr(request{method: "DELETE", path: "/v3/me", headers: sdk(tok1)})
		if n := e.count(`SELECT COUNT(*) FROM push_tokens WHERE auth_hash = $1`, sha(tok1)); n != 0 {
			t.Fatalf("%d push tokens outlive their logged-out auth token", n)
		}
		// So does deleting the auth token, and flushing a user's.
		if _, err := e.c.DeleteAuthToken(e.ctx(), "alice", tok2); err != nil {
			t.Fatal(err)
		}
		if len(e.pushTokensOf(tok2)) != 0 {
			t.Fatal("push tokens outlive their deleted auth token")
		}
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(bobTok), body: strings.Replace(sdkBody, "ftok-1", "bob-1", 1)})
		if _, err := e.c.FlushAuthTokens(e.ctx(), "bob"); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM push_tokens`); n != 0 {
			t.Fatalf("%d push tokens outlive their flushed auth tokens", n)
		}
		// And deleting the user.
		carolTok := func() string { e.mustUser("carol", "Carol"); return e.mustToken("carol") }()
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(carolTok), body: strings.Replace(sdkBody, "ftok-1", "carol-1", 1)})
		if _, err := e.c.DeleteUser(e.ctx(), "carol", false); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM push_tokens`); n != 0 {
			t.Fatal("push tokens outlive their deleted user")
		}

		// The SDK's unregisterPushToken: DELETE, no body; it needs data.success, with or
		// without a token to delete.
		dan := func() string { e.mustUser("dan", "Dan"); return e.mustToken("dan") }()
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(dan), body: strings.Replace(sdkBody, "ftok-1", "dan-1", 1)})
		for i := 0; i < 2; i++ {
			r := e.okr(request{method: "DELETE", path: tokensPath, headers: sdk(dan)})
			if !strings.Contains(string(r.body), `"success":true`) || (i == 0) != strings.Contains(string(r.body), "dan-1") {
				t.Fatalf("unregister %d: %s", i, r.body)
			}
		}
		// all=true with an API key: every token of the user.
		dan2 := e.mustToken("dan")
		for _, d := range []struct{ tok, v string }{{dan, "dan-1"}, {dan2, "dan-2"}} {
			e.okr(request{method: "POST", path: tokensPath, headers: sdk(d.tok), body: strings.Replace(sdkBody, "ftok-1", d.v, 1)})
		}
		var gone []client.PushToken
		if gone, err = e.c.UnregisterPushTokens(e.ctx(), dan, true); err != nil || len(gone) != 2 {
			t.Fatalf("unregister all: %v %v", gone, err)
		}
		// A provider reporting a token invalid drops it.
		e.okr(request{method: "POST", path: tokensPath, headers: sdk(dan), body: strings.Replace(sdkBody, "ftok-1", "dead-1", 1)})
		if err := e.svc.Notifications().DropPushToken(e.ctx(), e.app.ID, "dead-1"); err != nil || len(e.pushTokensOf(dan)) != 0 {
			t.Fatalf("drop: %v", err)
		}
		if err := e.svc.Notifications().DropPushToken(e.ctx(), e.app.ID, "dead-1"); err != nil {
			t.Fatalf("drop again: %v", err)
		}
	})
}

func TestPushTokenRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustFCMProvider("fcm-a")
		e.okr(request{method: "POST", path: apnsPath, body: apnsBody("apns-a")})
		tok, bobTok := e.mustToken("alice"), e.mustToken("bob")
		other, otherKey := e.newApp("other", "eu")
		if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "alice", Name: "Other Alice"}); err != nil {
			t.Fatal(err)
		}
		otherTok, err := other.CreateAuthToken(e.ctx(), "alice", client.CreateAuthTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		e.mustUser("gone", "Gone")
		goneTok := e.mustToken("gone")
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		apns := strings.Repeat("ab", 32)
		fcm := func(fields string) string { return `{"platform":"fcm_android","fcmToken":"f-1"` + fields + `}` }
		for _, tc := range []struct {
			name, method, path string
			headers            map[string]string
			body               string
			status             int
			code, field        string
		}{
			{"no platform", "POST", tokensPath, sdk(tok), `{"fcmToken":"f"}`, 400, "ERR_BAD_REQUEST", "platform"},
			{"unknown platform", "POST", tokensPath, sdk(tok), `{"platform":"hms_android","fcmToken":"f"}`, 400, "ERR_BAD_REQUEST", "platform"},
			{"platform in capitals", "POST", tokensPath, sdk(tok), `{"platform":"FCM_ANDROID","fcmToken":"f"}`, 400, "ERR_BAD_REQUEST", "platform"},
			{"no token", "POST", tokensPath, sdk(tok), `{"platform":"fcm_android"}`, 400, "ERR_BAD_REQUEST", "fcmToken"},
			{"another platform's field", "POST", tokensPath, sdk(tok), `{"platform":"apns_ios_device","fcmToken":"f"}`, 400, "ERR_BAD_REQUEST", "deviceToken"},
			{"APNs token not hexadecimal", "POST", tokensPath, sdk(tok), `{"platform":"apns_ios_device","deviceToken":"xyz-not-hex-000000"}`, 400, "ERR_BAD_REQUEST", "deviceToken"},
			{"token too long", "POST", tokensPath, sdk(tok), `{"platform":"fcm_android","fcmToken":"` + strings.Repeat("f", 4097) + `"}`, 400, "ERR_BAD_REQUEST", "fcmToken"},
			{"token not a string", "POST", tokensPath, sdk(tok), `{"platform":"fcm_android","fcmToken":7}`, 400, "ERR_BAD_REQUEST", "fcmToken"},
			{"bad time zone", "POST", tokensPath, sdk(tok), fcm(`,"timezone":"Mars/Olympus Mons"`), 400, "ERR_BAD_REQUEST", "timezone"},
			{"bad providerId", "POST", tokensPath, sdk(tok), fcm(`,"providerId":"a/b"`), 400, "ERR_BAD_REQUEST", "providerId"},
			{"unknown provider", "POST", tokensPath, sdk(tok), fcm(`,"providerId":"ghost"`), 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"an APNs provider for an FCM token", "POST", tokensPath, sdk(tok), fcm(`,"providerId":"apns-a"`), 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"an FCM provider for a VoIP token", "POST", tokensPath, sdk(tok), `{"platform":"apns_ios_voip","voipToken":"` + apns + `","providerId":"fcm-a"}`, 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"another auth token in the body", "POST", tokensPath, sdk(tok), fcm(`,"authToken":"` + bobTok + `"`), 403, "AUTH_ERR_NO_ACCESS", ""},
			{"an API key naming no auth token", "POST", tokensPath, nil, fcm(""), 400, "ERR_BAD_REQUEST", "authToken"},
			{"an API key naming an unknown auth token", "POST", tokensPath, nil, fcm(`,"authToken":"alice_` + strings.Repeat("0", 40) + `"`), 404, "ERR_AUTH_TOKEN_NOT_FOUND", ""},
			{"an API key naming not a token", "POST", tokensPath, nil, fcm(`,"authToken":"hello"`), 404, "ERR_AUTH_TOKEN_NOT_FOUND", ""},
			{"an API key naming another app's token", "POST", tokensPath, nil, fcm(`,"authToken":"` + otherTok.AuthToken + `"`), 404, "ERR_AUTH_TOKEN_NOT_FOUND", ""},
			{"a deactivated user's token", "POST", tokensPath, nil, fcm(`,"authToken":"` + goneTok + `"`), 404, "ERR_AUTH_TOKEN_NOT_FOUND", ""},
			{"an authOnly key", "POST", tokensPath, map[string]string{"apikey": e.authKey}, fcm(`,"authToken":"` + tok + `"`), 403, "AUTH_ERR_NO_ACCESS", ""},
			{"a provider in another app", "POST", tokensPath, map[string]string{"apikey": otherKey}, fcm(`,"authToken":"` + otherTok.AuthToken + `"`), 404, "ERR_PROVIDER_NOT_FOUND", ""},
			{"list without authToken", "GET", tokensPath, nil, "", 400, "ERR_BAD_REQUEST", "authToken"},
			{"list with all=maybe", "GET", tokensPath + "?all=maybe&authToken=" + tok, nil, "", 400, "ERR_BAD_REQUEST", "all"},
			{"list another user's", "GET", tokensPath + "?authToken=" + bobTok, sdk(tok), "", 403, "AUTH_ERR_NO_ACCESS", ""},
			{"unregister without authToken", "DELETE", tokensPath, nil, "", 400, "ERR_BAD_REQUEST", "authToken"},
			{"unregister another app's", "DELETE", tokensPath, nil, `{"authToken":"` + otherTok.AuthToken + `"}`, 404, "ERR_AUTH_TOKEN_NOT_FOUND", ""},
			{"delete an unknown token", "DELETE", tokensPath + "/nope", sdk(tok), "", 404, "ERR_TOKEN_NOT_FOUND", ""},
			{"delete without authToken", "DELETE", tokensPath + "/nope", nil, "", 400, "ERR_BAD_REQUEST", "authToken"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: tc.method, path: tc.path, headers: tc.headers, body: tc.body})
				if r.status != tc.status || r.code != tc.code || tc.field != "" && !strings.Contains(string(r.body), `"`+tc.field+`":`) {
					t.Fatalf("got %d %s", r.status, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused request wrote")
				}
			})
		}
		// An app with no provider has no default to register for.
		if _, err := other.RegisterPushToken(e.ctx(), client.PushTokenRequest{Platform: "apns_ios_device", DeviceToken: apns, AuthToken: otherTok.AuthToken}); err == nil {
			t.Fatal("registered without a provider")
		} else {
			apiErr(t, err, 404, "ERR_PROVIDER_NOT_FOUND")
		}
	})
}
