package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// pinState is a message's pin and save fields as an answer shows them.
func pinState(t *testing.T, r response) (pinnedAt float64, pinnedBy string, savedAt float64) {
	t.Helper()
	var m struct {
		Data struct {
			PinnedAt float64
			PinnedBy string
			SavedAt  float64
		}
	}
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatal(err)
	}
	return m.Data.PinnedAt, m.Data.PinnedBy, m.Data.SavedAt
}

func TestPinAndSaveMessages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob")
		one := e.send("ann", "bob", "user", "one")
		two := e.send("bob", "g", "group", "two")
		e.send("ann", "bob", "user", "three")

		// A party pins; pinning again changes nothing; the app pins as app_system.
		r := e.do(request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: obo("bob")})
		if at, by, _ := pinState(t, r); r.status != 200 || at == 0 || by != "bob" {
			t.Fatalf("pin: %d %s", r.status, r.body)
		}
		before := e.snapshot()
		if at, by, _ := pinState(t, e.do(request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: obo("ann")})); at == 0 || by != "bob" || e.snapshot() != before {
			t.Fatal("pinning a pinned message changed it")
		}
		if _, by, _ := pinState(t, e.do(request{method: "POST", path: "/v3/messages/" + two + "/pin"})); by != "app_system" {
			t.Fatal("the app's pin is not app_system's")
		}
		// Everyone sees pins; the pinned list.
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + one, headers: obo("ann")}); got["pinnedBy"] != "bob" || got["savedAt"] != nil {
			t.Fatalf("ann reads the pinned message: %v", got)
		}
		if l := e.messages(request{method: "GET", path: "/v3/users/bob/messages?pinned=true", headers: obo("ann")}); l.texts() != "one" {
			t.Fatalf("pinned list: %s", l.texts())
		}
		if l := e.messages(request{method: "GET", path: "/v3/messages?pinned=true&limit=100"}); l.texts() != "one,two" {
			t.Fatalf("app's pinned list: %s", l.texts())
		}

		// Saves are the user's own, idempotent, and keep their time.
		r = e.do(request{method: "POST", path: "/v3/messages/" + two + "/save", headers: obo("bob")})
		_, _, saved := pinState(t, r)
		if r.status != 200 || saved == 0 {
			t.Fatalf("save: %d %s", r.status, r.body)
		}
		before = e.snapshot()
		if _, _, again := pinState(t, e.do(request{method: "POST", path: "/v3/messages/" + two + "/save", headers: obo("bob")})); again != saved || e.snapshot() != before {
			t.Fatal("saving again changed the save")
		}
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + two, headers: obo("ann")}); got["savedAt"] != nil {
			t.Fatalf("ann sees bob's save: %v", got)
		}
		if l := e.messages(request{method: "GET", path: "/v3/messages?saved=true", headers: obo("bob")}); l.texts() != "two" || l.Data[0].SavedAt == 0 {
			t.Fatalf("bob's saved list: %s", l.texts())
		}
		if l := e.messages(request{method: "GET", path: "/v3/groups/g/messages?saved=true", headers: obo("ann")}); len(l.Data) != 0 {
			t.Fatalf("ann's saved list: %s", l.texts())
		}

		// Unpinning and unsaving what is not so change nothing.
		e.ok(request{method: "DELETE", path: "/v3/messages/" + two + "/pin", headers: obo("ann")})
		before = e.snapshot()
		if at, _, _ := pinState(t, e.do(request{method: "DELETE", path: "/v3/messages/" + two + "/pin", headers: obo("ann")})); at != 0 || e.snapshot() != before {
			t.Fatal("unpinning an unpinned message")
		}
		if _, _, s := pinState(t, e.do(request{method: "DELETE", path: "/v3/messages/" + one + "/save", headers: obo("ann")})); s != 0 || e.snapshot() != before {
			t.Fatal("unsaving an unsaved message")
		}
		// A user who left the group may still unsave what it saved there.
		e.ok(request{method: "DELETE", path: "/v3/groups/g/members", headers: obo("bob")})
		if _, _, s := pinState(t, e.do(request{method: "DELETE", path: "/v3/messages/" + two + "/save", headers: obo("bob")})); s != 0 || e.count(`SELECT COUNT(*) FROM saved_messages`) != 0 {
			t.Fatal("bob could not unsave after leaving")
		}

		_, otherKey := e.newApp("other", "us")
		deleted := e.send("ann", "bob", "user", "deleted")
		e.ok(request{method: "DELETE", path: "/v3/messages/" + deleted, headers: obo("ann")})
		before = e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"unknown message", request{method: "POST", path: "/v3/messages/999999/pin", headers: obo("ann")}, 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"not an id", request{method: "POST", path: "/v3/messages/abc/save", headers: obo("ann")}, 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"not a party pins", request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: obo("cat")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"not a member pins", request{method: "POST", path: "/v3/messages/" + two + "/pin", headers: obo("cat")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"not a party unpins", request{method: "DELETE", path: "/v3/messages/" + one + "/pin", headers: obo("cat")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"not a party saves", request{method: "POST", path: "/v3/messages/" + one + "/save", headers: obo("cat")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"save without onBehalfOf", request{method: "POST", path: "/v3/messages/" + one + "/save"}, 400, "ERR_BAD_REQUEST"},
			{"saved list without onBehalfOf", request{method: "GET", path: "/v3/messages?saved=true"}, 400, "ERR_BAD_REQUEST"},
			{"unknown user", request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: obo("ghost")}, 404, "ERR_UID_NOT_FOUND"},
			{"deleted message pinned", request{method: "POST", path: "/v3/messages/" + deleted + "/pin", headers: obo("ann")}, 409, "ERR_MESSAGE_ACTION_NOT_ALLOWED"},
			{"deleted message saved", request{method: "POST", path: "/v3/messages/" + deleted + "/save", headers: obo("ann")}, 409, "ERR_MESSAGE_ACTION_NOT_ALLOWED"},
			{"another app's message", request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: map[string]string{"apikey": otherKey}}, 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"authOnly key", request{method: "POST", path: "/v3/messages/" + one + "/pin", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
	})
}

// TestPinAndSaveLimits: 100 pins per conversation and 100 saves per user hold exactly under
// concurrent requests.
func TestPinAndSaveLimits(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		var ids []string
		for i := range 110 {
			ids = append(ids, e.send("ann", "bob", "user", fmt.Sprint("m", i)))
		}
		if _, err := e.raw.Exec(`UPDATE messages SET pinned_at = 1, pinned_by = 'ann' WHERE id <= ` + ids[94]); err != nil {
			t.Fatal(err)
		}
		if _, err := e.raw.Exec(`INSERT INTO saved_messages (app_id, uid, message_id, saved_at) SELECT app_id, 'bob', id, 1 FROM messages WHERE id <= ` + ids[94]); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		codes := map[string]int{}
		var wg sync.WaitGroup
		for _, id := range ids[95:] {
			for _, what := range []string{"pin", "save"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.do(request{method: "POST", path: "/v3/messages/" + id + "/" + what, headers: obo("bob")})
					mu.Lock()
					codes[what+" "+fmt.Sprint(r.status)+" "+r.code]++
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		want := map[string]int{"pin 200 ": 5, "pin 400 ERR_PINNED_MESSAGES_LIMIT_EXCEEDED": 10, "save 200 ": 5, "save 400 ERR_SAVED_MESSAGES_LIMIT_EXCEEDED": 10}
		if fmt.Sprint(codes) != fmt.Sprint(want) {
			t.Fatalf("answers %v, want %v", codes, want)
		}
		if n := e.count(`SELECT COUNT(*) FROM messages WHERE pinned_at > 0`); n != 100 {
			t.Fatalf("%d pins", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM saved_messages`); n != 100 {
			t.Fatalf("%d saves", n)
		}
		// Pins are per conversation: another has room.
		e.mustUser("cat", "cat")
		other := e.send("cat", "ann", "user", "elsewhere")
		if r := e.do(request{method: "POST", path: "/v3/messages/" + other + "/pin", headers: obo("cat")}); r.status != 200 || !strings.Contains(string(r.body), `"pinnedBy":"cat"`) {
			t.Fatalf("pin in another conversation: %d %s", r.status, r.body)
		}
	})
}

func TestPinConversations(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat", "dan", "eve", "fay", "gus"} {
			e.mustUser(u, u)
		}
		for _, u := range []string{"bob", "cat", "dan", "eve", "fay", "gus"} {
			e.send("ann", u, "user", "hi "+u)
		}
		e.mustGroup("g", "bob", "ann")
		e.send("bob", "g", "group", "hi group")

		// A user's pin is its own; pinning twice changes nothing.
		got := e.ok(request{method: "POST", path: "/v3/users/bob/conversation/pin", headers: obo("ann")})
		if got["pinnedBy"] != "ann" || got["pinnedAt"] == nil || got["conversationId"] != "ann_user_bob" {
			t.Fatalf("pin: %v", got)
		}
		before := e.snapshot()
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/pin", headers: obo("ann")})
		if e.snapshot() != before {
			t.Fatal("pinning twice wrote")
		}
		if got := e.ok(request{method: "GET", path: "/v3/users/ann/conversation", headers: obo("bob")}); got["pinnedAt"] != nil {
			t.Fatalf("bob sees ann's pin: %v", got)
		}
		e.ok(request{method: "POST", path: "/v3/groups/g/conversation/pin", headers: obo("ann")})
		l, _ := e.list(request{method: "GET", path: "/v3/conversations?pinnedBy=me", headers: obo("ann")})
		if len(l) != 2 {
			t.Fatalf("ann's pinned: %v", l)
		}
		// Five at most.
		for _, u := range []string{"cat", "dan", "eve"} {
			e.ok(request{method: "POST", path: "/v3/users/" + u + "/conversation/pin", headers: obo("ann")})
		}
		before = e.snapshot()
		if r := e.do(request{method: "POST", path: "/v3/users/fay/conversation/pin", headers: obo("ann")}); r.status != 400 || r.code != "ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED" || e.snapshot() != before {
			t.Fatalf("sixth pin: %d %s", r.status, r.body)
		}
		got = e.ok(request{method: "DELETE", path: "/v3/users/eve/conversation/pin", headers: obo("ann")})
		if got["pinnedAt"] != nil {
			t.Fatalf("unpinned: %v", got)
		}
		before = e.snapshot()
		e.ok(request{method: "DELETE", path: "/v3/users/eve/conversation/pin", headers: obo("ann")})
		if e.snapshot() != before {
			t.Fatal("unpinning what is not pinned wrote")
		}

		// The app's list: full replacement, at most five, kept times, shown to every user.
		r := e.do(request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[{"guid":"G"},{"uid":"gus"}]}`})
		if r.status != 200 || !strings.Contains(string(r.body), `{"guid":"g","conversationType":"group"`) {
			t.Fatalf("replace: %d %s", r.status, r.body)
		}
		got = e.ok(request{method: "GET", path: "/v3/users/gus/conversation", headers: obo("ann")})
		if got["pinnedBy"] != "app_system" {
			t.Fatalf("system pin on ann's conversation with gus: %v", got)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/conversations?pinnedBy=system", headers: obo("bob")}); len(l) != 1 || l[0]["conversationId"] != "group_g" {
			t.Fatalf("bob's system-pinned: %v", l)
		}
		if r := e.do(request{method: "DELETE", path: "/v3/users/gus/conversation/pin", headers: obo("ann")}); r.status != 403 || r.code != "ERR_SYSTEM_PINNED_CONVERSATION" {
			t.Fatalf("unpin a system pin: %d %s", r.status, r.body)
		}
		// ann's own group pin stays hers to remove, though the app pinned it too.
		e.ok(request{method: "DELETE", path: "/v3/groups/g/conversation/pin", headers: obo("ann")})
		got = e.ok(request{method: "GET", path: "/v3/conversations/pinned"})
		if pcs := got["pinnedConversations"].([]any); len(pcs) != 2 || pcs[1].(map[string]any)["uid"] != "gus" {
			t.Fatalf("app's pinned list: %v", got)
		}

		before = e.snapshot()
		six := `{"pinnedConversations":[{"uid":"bob"},{"uid":"cat"},{"uid":"dan"},{"uid":"eve"},{"uid":"fay"},{"uid":"gus"}]}`
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"six system pins", request{method: "PUT", path: "/v3/conversations/pinned", body: six}, 400, "ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED"},
			{"uid and guid", request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[{"uid":"bob","guid":"g"}]}`}, 400, "ERR_BAD_REQUEST"},
			{"twice", request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[{"uid":"bob"},{"uid":"BOB"}]}`}, 400, "ERR_BAD_REQUEST"},
			{"no list", request{method: "PUT", path: "/v3/conversations/pinned", body: `{}`}, 400, "ERR_BAD_REQUEST"},
			{"unknown user", request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[{"uid":"ghost"}]}`}, 404, "ERR_UID_NOT_FOUND"},
			{"unknown group", request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[{"guid":"nope"}]}`}, 404, "ERR_GUID_NOT_FOUND"},
			{"not a member", request{method: "POST", path: "/v3/groups/g/conversation/pin", headers: obo("cat")}, 403, "ERR_CONVERSATION_NOT_ACCESSIBLE"},
			{"no messages yet", request{method: "POST", path: "/v3/users/gus/conversation/pin", headers: obo("bob")}, 404, "ERR_CONVERSATION_NOT_FOUND"},
			{"without onBehalfOf", request{method: "POST", path: "/v3/users/bob/conversation/pin"}, 400, "ERR_BAD_REQUEST"},
			{"unknown uid", request{method: "POST", path: "/v3/users/ghost/conversation/pin", headers: obo("ann")}, 404, "ERR_UID_NOT_FOUND"},
			{"pinnedBy me without onBehalfOf", request{method: "GET", path: "/v3/conversations?pinnedBy=me"}, 400, "ERR_BAD_REQUEST"},
			{"authOnly key", request{method: "GET", path: "/v3/conversations/pinned", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
		e.ok(request{method: "PUT", path: "/v3/conversations/pinned", body: `{"pinnedConversations":[]}`})
		if n := e.count(`SELECT COUNT(*) FROM system_pinned_conversations`); n != 0 {
			t.Fatalf("%d system pins after an empty replace", n)
		}
	})
}
