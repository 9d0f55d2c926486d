package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestRefusals: bad input on every page is refused with the service's message and the status
// of its kind, never a 500, and changes nothing.
func TestRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		if res := e.post(t, c, "/console/users", url.Values{"csrf": {csrf}, "uid": {"alice"}, "name": {"Alice"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("create alice: %d", res.StatusCode)
		}
		if res := e.post(t, c, "/console/webhooks", url.Values{"csrf": {csrf}, "id": {"hook"}, "url": {"https://hooks.example.com/x"},
			"enabled": {"1"}, "triggers": {"message_sent"}}, nil); res.StatusCode != http.StatusOK {
			t.Fatalf("create webhook: %d %s", res.StatusCode, body(res))
		}
		for _, v := range []url.Values{{"uid": {"bob"}, "name": {"Bob"}}} {
			v.Set("csrf", csrf)
			if res := e.post(t, c, "/console/users", v, nil); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("create bob: %d", res.StatusCode)
			}
		}
		if res := e.post(t, c, "/console/groups", url.Values{"csrf": {csrf}, "guid": {"team"}, "name": {"Team"}, "type": {"public"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("create group: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, "/console/groups/team/members", url.Values{"csrf": {csrf}, "uids": {"bob"}}, nil); res.StatusCode != http.StatusOK {
			t.Fatalf("add bob: %d %s", res.StatusCode, body(res))
		}
		own := chat.HashKey(e.full)
		for _, tc := range []struct {
			name, method, path string
			form               url.Values
			status             int
			says               string
		}{
			{"user without uid", "POST", "/console/users", url.Values{"name": {"X"}}, 400, "uid"},
			{"user without name", "POST", "/console/users", url.Values{"uid": {"x"}}, 400, "name"},
			{"uid too long", "POST", "/console/users", url.Values{"uid": {strings.Repeat("u", 101)}, "name": {"X"}}, 400, "uid"},
			{"uid taken", "POST", "/console/users", url.Values{"uid": {"alice"}, "name": {"X"}}, 400, "alice"},
			{"role that does not exist", "POST", "/console/users", url.Values{"uid": {"r"}, "name": {"R"}, "role": {"nosuch"}}, 0, ""},
			{"no such user", "GET", "/console/users/nosuch", nil, 404, "nosuch"},
			{"rename no such user", "POST", "/console/users/nosuch", url.Values{"name": {"N"}, "role": {"default"}}, 404, "nosuch"},
			{"empty name", "POST", "/console/users/alice", url.Values{"name": {""}, "role": {"default"}}, 400, "name"},
			{"deactivate no such user", "POST", "/console/users/nosuch/deactivate", nil, 404, "nosuch"},
			{"token of no such user", "POST", "/console/users/nosuch/tokens", nil, 404, "nosuch"},
			{"delete a token that is not a hash", "POST", "/console/users/alice/tokens/delete", url.Values{"token": {"zzz"}}, 404, ""},
			{"delete a token that does not exist", "POST", "/console/users/alice/tokens/delete", url.Values{"token": {strings.Repeat("ab", 32)}}, 404, ""},
			{"search too long", "GET", "/console/users?q=" + strings.Repeat("q", 300), nil, 400, "searchKey"},
			{"page out of range", "GET", "/console/users?page=-5", nil, 200, ""},
			{"key without name", "POST", "/console/keys", url.Values{"scope": {"authOnly"}}, 400, "name"},
			{"key with a bad scope", "POST", "/console/keys", url.Values{"name": {"k"}, "scope": {"root"}}, 400, "scope"},
			{"delete own key", "POST", "/console/keys/delete", url.Values{"key": {own}}, 0, "itself"},
			{"delete a key that is not a hash", "POST", "/console/keys/delete", url.Values{"key": {"nope"}}, 404, ""},
			{"delete a key that does not exist", "POST", "/console/keys/delete", url.Values{"key": {strings.Repeat("cd", 32)}}, 404, ""},
			{"no such webhook", "GET", "/console/webhooks/nosuch", nil, 404, "nosuch"},
			{"webhook with a bad URL", "POST", "/console/webhooks", url.Values{"url": {"ftp://x"}, "triggers": {"message_sent"}}, 400, "webhookURL"},
			{"webhook without triggers", "POST", "/console/webhooks", url.Values{"url": {"https://hooks.example.com/y"}}, 400, "triggers"},
			{"webhook id taken", "POST", "/console/webhooks", url.Values{"id": {"hook"}, "url": {"https://hooks.example.com/y"}, "triggers": {"message_sent"}}, 400, "hook"},
			{"replay a bad event", "POST", "/console/webhooks/hook/replay", url.Values{"event": {"evt_x"}}, 400, "eventId"},
			{"log of a bad state", "GET", "/console/webhooks/hook?state=lost", nil, 400, "state"},
			{"rotate no such webhook", "POST", "/console/webhooks/nosuch/secret", nil, 404, "nosuch"},
			{"group without guid", "POST", "/console/groups", url.Values{"name": {"G"}, "type": {"public"}}, 400, "guid"},
			{"group of a bad type", "POST", "/console/groups", url.Values{"guid": {"g"}, "name": {"G"}, "type": {"secret"}}, 400, "type"},
			{"password group without password", "POST", "/console/groups", url.Values{"guid": {"g"}, "name": {"G"}, "type": {"password"}}, 400, "password"},
			{"no such group", "GET", "/console/groups/nosuch", nil, 404, "nosuch"},
			{"rename no such group", "POST", "/console/groups/nosuch", url.Values{"name": {"N"}}, 404, "nosuch"},
			{"rename to nothing", "POST", "/console/groups/team", url.Values{"name": {""}}, 400, "name"},
			{"add to no such group", "POST", "/console/groups/nosuch/members", url.Values{"uids": {"alice"}}, 404, "nosuch"},
			{"add nobody", "POST", "/console/groups/team/members", url.Values{"uids": {" , "}}, 400, "uids"},
			{"scope of a non-member", "POST", "/console/groups/team/members/alice/scope", url.Values{"scope": {"admin"}}, 0, ""},
			{"bad scope", "POST", "/console/groups/team/members/bob/scope", url.Values{"scope": {"king"}}, 400, "scope"},
			{"kick from no such group", "POST", "/console/groups/nosuch/members/alice/kick", nil, 404, "nosuch"},
			{"delete no such group", "POST", "/console/groups/nosuch/delete", nil, 404, "nosuch"},
			{"send without sender", "POST", "/console/messages", url.Values{"receiver": {"alice"}, "receiverType": {"user"}, "text": {"hi"}}, 400, "sender"},
			{"send as no such user", "POST", "/console/messages", url.Values{"sender": {"nosuch"}, "receiver": {"alice"}, "receiverType": {"user"}, "text": {"hi"}}, 404, "nosuch"},
			{"send to no such user", "POST", "/console/messages", url.Values{"sender": {"alice"}, "receiver": {"nosuch"}, "receiverType": {"user"}, "text": {"hi"}}, 404, "nosuch"},
			{"send a bad receiver type", "POST", "/console/messages", url.Values{"sender": {"alice"}, "receiver": {"bob"}, "receiverType": {"robot"}, "text": {"hi"}}, 400, "receiverType"},
			{"send to a group as a non-member", "POST", "/console/messages", url.Values{"sender": {"alice"}, "receiver": {"team"}, "receiverType": {"group"}, "text": {"hi"}}, 0, ""},
			{"reply to no such message", "POST", "/console/messages", url.Values{"sender": {"alice"}, "parent": {"999999"}, "text": {"hi"}}, 404, ""},
			{"thread of a bad id", "GET", "/console/messages?parent=abc", nil, 0, ""},
			{"older than a bad cursor", "GET", "/console/messages?before=abc", nil, 400, ""},
			{"role without id", "POST", "/console/roles", url.Values{"name": {"R"}}, 400, "role"},
			{"role taken", "POST", "/console/roles", url.Values{"role": {"default"}, "name": {"R"}}, 0, "default"},
			{"delete the default role", "POST", "/console/roles/default/delete", nil, 0, ""},
			{"delete no such role", "POST", "/console/roles/nosuch/delete", nil, 404, "nosuch"},
			{"react without uid", "POST", "/console/messages/1/reactions", url.Values{"reaction": {"x"}}, 400, "uid"},
			{"react to no such message", "POST", "/console/messages/999999/reactions", url.Values{"uid": {"alice"}, "reaction": {"x"}}, 404, ""},
			{"react to a bad id", "POST", "/console/messages/abc/reactions", url.Values{"uid": {"alice"}, "reaction": {"x"}}, 0, ""},
			{"react as no such user", "POST", "/console/messages/1/reactions", url.Values{"uid": {"nosuch"}, "reaction": {"x"}}, 0, ""},
			{"react with nothing", "POST", "/console/messages/1/reactions", url.Values{"uid": {"alice"}, "reaction": {""}}, 400, ""},
			{"no such page", "GET", "/console/nosuch", nil, 404, ""},
			{"body over the cap", "POST", "/console/users", url.Values{"uid": {"big"}, "name": {strings.Repeat("n", 70<<10)}}, 0, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var res *http.Response
				if tc.method == "GET" {
					r, err := c.Get(e.srv.URL + tc.path)
					if err != nil {
						t.Fatal(err)
					}
					res = r
				} else {
					form := url.Values{"csrf": {csrf}}
					for k, v := range tc.form {
						form[k] = v
					}
					res = e.post(t, c, tc.path, form, nil)
				}
				b := body(res)
				res.Body.Close()
				if res.StatusCode >= 500 || tc.status != 0 && res.StatusCode != tc.status || tc.status == 0 && res.StatusCode < 400 {
					t.Fatalf("got %d, want %d (0: any 4xx):\n%s", res.StatusCode, tc.status, b)
				}
				if tc.says != "" && !strings.Contains(b, tc.says) {
					t.Errorf("the page does not say %q:\n%s", tc.says, b)
				}
			})
		}
	})
}
