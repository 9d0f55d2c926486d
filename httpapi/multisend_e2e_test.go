package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/realtime"
)

// multiSendWorld is the cast of the multi-send tests: alice sends; bob and carol may
// receive; dave has blocked alice and alice has blocked erin; gone is deactivated. alice
// is a member of team, not of others, and banned from banned.
func multiSendWorld(t *testing.T, e *env) {
	t.Helper()
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "gone"} {
		e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
	}
	if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.BlockUsers(e.ctx(), "dave", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.BlockUsers(e.ctx(), "alice", []string{"erin"}); err != nil {
		t.Fatal(err)
	}
	e.mustGroup("team", "alice", "bob")
	e.mustGroup("others", "bob")
	e.mustGroup("banned", "bob", "alice")
	if _, err := e.c.BanUser(e.ctx(), "banned", "alice"); err != nil {
		t.Fatal(err)
	}
}

// sendResults is a multi-send's answer, each entry kept raw.
type sendResults struct {
	Users, Groups map[string]json.RawMessage
}

func decodeSendResults(t *testing.T, r response) sendResults {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("multi-send: %d %s", r.status, r.body)
	}
	var out struct{ Data sendResults }
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("multi-send answer: %v\n%s", err, r.body)
	}
	return out.Data
}

// outcome is an entry's message receiver and conversation, or its error code.
func outcome(raw json.RawMessage) string {
	var v struct {
		Receiver, ConversationID string
		Error                    *struct{ Code string }
	}
	json.Unmarshal(raw, &v)
	if v.Error != nil {
		return v.Error.Code
	}
	return v.Receiver + " in " + v.ConversationID
}

func outcomes(m map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = outcome(v)
	}
	return out
}

func TestSendToMultipleReceivers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		multiSendWorld(t, e)
		if _, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr("https://hooks.example.com/n"), Triggers: &[]string{"message_sent"}}); err != nil {
			t.Fatal(err)
		}
		sent := func() int { return e.count(`SELECT COUNT(*) FROM messages WHERE category = 'message'`) }
		events := func() int { return e.count(`SELECT COUNT(*) FROM webhook_events WHERE trigger = 'message_sent'`) }

		// The receiver and the lists together, duplicates and case collapsed: each receiver
		// gets its own message or its own refusal, and the refusals stop nothing else.
		r := e.do(request{method: "POST", path: "/v3/messages", headers: obo("alice"), body: `{"receiver":"bob","receiverType":"user",
			"data":{"text":"Stand-up in 5, <@uid:carol>"},"tags":["standup"],"muid":"m-7",
			"multipleReceivers":{"uids":["BOB","carol","dave","erin","ghost","gone","bad id","Carol"],"guids":["team","others","banned","nope","Team"]}}`})
		golden(t, "message_send_multiple", r.body)
		got := decodeSendResults(t, r)
		wantUsers := map[string]string{
			"bob":    "bob in alice_user_bob",
			"carol":  "carol in alice_user_carol",
			"dave":   "ERR_BLOCKED_SENDER",
			"erin":   "ERR_BLOCKED_RECEIVER",
			"ghost":  "ERR_UID_NOT_FOUND",
			"gone":   "ERR_UID_NOT_FOUND",
			"bad id": "ERR_UID_NOT_FOUND",
		}
		wantGroups := map[string]string{
			"team":   "team in group_team",
			"others": "ERR_NOT_A_MEMBER",
			"banned": "ERR_BANNED_GROUPMEMBER",
			"nope":   "ERR_GUID_NOT_FOUND",
		}
		if fmt.Sprint(outcomes(got.Users)) != fmt.Sprint(wantUsers) || fmt.Sprint(outcomes(got.Groups)) != fmt.Sprint(wantGroups) {
			t.Fatalf("results\nusers  %v\ngroups %v\nwant\nusers  %v\ngroups %v", outcomes(got.Users), outcomes(got.Groups), wantUsers, wantGroups)
		}
		// Keys in the order named, the receiver first.
		body := string(r.body)
		if order := []int{strings.Index(body, `"bob":`), strings.Index(body, `"carol":`), strings.Index(body, `"dave":`), strings.Index(body, `"bad id":`)}; !(order[0] < order[1] && order[1] < order[2] && order[2] < order[3]) {
			t.Errorf("users out of the order named: %s", body)
		}
		// Three messages written, each with its outbox event, and nothing for the refusals.
		if n := sent(); n != 3 {
			t.Fatalf("%d messages written, want 3", n)
		}
		if n := events(); n != 3 {
			t.Fatalf("%d message_sent events, want 3", n)
		}
		// Each is an ordinary message: its receiver reads it, with the muid, tags and mentions.
		var toCarol client.Message
		json.Unmarshal(got.Users["carol"], &toCarol)
		m, err := e.c.OnBehalfOf("carol").GetMessage(e.ctx(), toCarol.ID)
		if err != nil || m.Sender != "alice" || m.MUID != "m-7" || m.Data.Text != "Stand-up in 5, <@uid:carol>" || !m.MentionedMe || len(m.Tags) != 1 {
			t.Fatalf("carol's message: %+v %v", m, err)
		}
		var toTeam client.Message
		json.Unmarshal(got.Groups["team"], &toTeam)
		if l := e.messages(request{method: "GET", path: "/v3/groups/team/messages", headers: obo("bob")}); len(l.Data) == 0 || l.Data[len(l.Data)-1].ID != toTeam.ID {
			t.Errorf("team's history: %+v, want message %s last", l.Data, toTeam.ID)
		}

		// Refused everywhere is still the answer of a send: 200, and nothing written.
		before := e.snapshot()
		all := decodeSendResults(t, e.do(request{method: "POST", path: "/v3/messages", headers: obo("alice"),
			body: `{"data":{"text":"hi"},"multipleReceivers":{"uids":["dave","ghost"],"guids":["others"]}}`}))
		if fmt.Sprint(outcomes(all.Users), outcomes(all.Groups)) != "map[dave:ERR_BLOCKED_SENDER ghost:ERR_UID_NOT_FOUND] map[others:ERR_NOT_A_MEMBER]" {
			t.Errorf("all refused: %v %v", outcomes(all.Users), outcomes(all.Groups))
		}
		if e.snapshot() != before {
			t.Error("a multi-send refused for every receiver wrote")
		}

		// The Go client, and a bot, which sends as any user of the app.
		res, err := e.c.OnBehalfOf("bob").SendMessageToMany(e.ctx(), client.SendMessageRequest{Category: "custom", Type: "poll",
			Data: map[string]any{"customData": map[string]any{"q": "lunch?"}}}, client.Receivers{UIDs: []string{"carol", "dave"}, GUIDs: []string{"Others"}})
		if err != nil || res.Users["carol"].Message == nil || res.Users["carol"].Message.Type != "poll" || res.Users["dave"].Message == nil ||
			res.Groups["others"].Message == nil || res.Groups["others"].Message.ConversationID != "group_others" {
			t.Fatalf("client multi-send: %+v %v", res, err)
		}
		res, err = e.c.SendBotMessageToMany(e.ctx(), "carol", client.SendMessageRequest{Receiver: "alice", ReceiverType: "user", Data: map[string]any{"text": "beep"}},
			client.Receivers{GUIDs: []string{"team"}})
		if err != nil || res.Users["alice"].Message == nil || res.Users["alice"].Message.Sender != "carol" || res.Groups["team"].Error == nil ||
			res.Groups["team"].Error.Code != "ERR_NOT_A_MEMBER" || len(res.Users) != 1 || len(res.Groups) != 1 {
			t.Fatalf("bot multi-send: %+v %v", res, err)
		}
	})
}

func TestSendToMultipleReceiversRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		multiSendWorld(t, e)
		root := e.mustText("alice", "bob", "a thread")
		uids := func(n int) string {
			var ids []string
			for i := range n {
				ids = append(ids, fmt.Sprintf(`"u%d"`, i))
			}
			return strings.Join(ids, ",")
		}
		body := func(multiple string, extra ...string) string {
			return `{"data":{"text":"hi"}` + strings.Join(extra, "") + `,"multipleReceivers":` + multiple + `}`
		}
		var cases []refusal
		for _, path := range []string{"/v3/messages", "/v3/bots/alice/messages"} {
			for _, tc := range []struct {
				name, body   string
				status       int
				code, detail string
			}{
				{"an empty multipleReceivers", body(`{}`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"empty lists", body(`{"uids":[],"guids":[]}`, `,"receiver":"bob","receiverType":"user"`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"null lists", body(`{"uids":null}`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"lists under other names", body(`{"users":["bob"]}`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"26 receivers", body(`{"uids":[` + uids(20) + `],"guids":[` + strings.ReplaceAll(uids(6), "u", "g") + `]}`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"26 with the receiver", body(`{"uids":[`+uids(25)+`]}`, `,"receiver":"bob","receiverType":"user"`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"not an object", body(`["bob"]`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"a string", body(`"bob"`), 400, "ERR_BAD_REQUEST", "multipleReceivers"},
				{"uids not a list", body(`{"uids":"bob"}`), 400, "ERR_BAD_REQUEST", "multipleReceivers.uids"},
				{"guids of numbers", body(`{"guids":[1]}`), 400, "ERR_BAD_REQUEST", "multipleReceivers.guids"},
				{"a receiver of no known type", body(`{"uids":["carol"]}`, `,"receiver":"bob","receiverType":"room"`), 400, "ERR_INVALID_RECEIVER_TYPE", ""},
				{"a receiver without a type", body(`{"uids":["carol"]}`, `,"receiver":"bob"`), 400, "ERR_INVALID_RECEIVER_TYPE", ""},
				{"no text", `{"data":{},"multipleReceivers":{"uids":["bob"]}}`, 400, "ERR_EMPTY_MESSAGE_TEXT", ""},
				{"an action", body(`{"uids":["bob"]}`, `,"category":"action"`), 400, "ERR_INVALID_MESSAGE_CATEGORY", ""},
				{"custom without customData", body(`{"uids":["bob"]}`, `,"category":"custom","type":"poll"`), 400, "ERR_EMPTY_CUSTOM_DATA", ""},
				{"26 tags", body(`{"uids":["bob"]}`, `,"tags":[`+uids(26)+`]`), 400, "ERR_BAD_REQUEST", "tags"},
				{"muid over 100", body(`{"uids":["bob"]}`, `,"muid":"`+strings.Repeat("m", 101)+`"`), 400, "ERR_BAD_REQUEST", "muid"},
			} {
				cases = append(cases, refusal{name: path + ": " + tc.name, r: request{method: "POST", path: path, headers: obo("alice"), body: tc.body},
					status: tc.status, code: tc.code, detail: tc.detail})
			}
		}
		ok := body(`{"uids":["bob"]}`)
		cases = append(cases,
			refusal{name: "no onBehalfOf", r: request{method: "POST", path: "/v3/messages", body: ok}, status: 400, code: "ERR_BAD_REQUEST", detail: "onBehalfOf"},
			refusal{name: "an unknown sender", r: request{method: "POST", path: "/v3/messages", headers: obo("ghost"), body: ok}, status: 404, code: "ERR_UID_NOT_FOUND"},
			refusal{name: "a deactivated sender", r: request{method: "POST", path: "/v3/messages", headers: obo("gone"), body: ok}, status: 404, code: "ERR_UID_NOT_FOUND"},
			refusal{name: "an unknown bot", r: request{method: "POST", path: "/v3/bots/ghost/messages", body: ok}, status: 404, code: "ERR_UID_NOT_FOUND"},
			refusal{name: "a bot with an authOnly key", r: request{method: "POST", path: "/v3/bots/alice/messages", headers: map[string]string{"apikey": e.authKey}, body: ok},
				status: 403, code: "AUTH_ERR_NO_ACCESS"},
			// A thread reply goes to its thread's conversation only.
			refusal{name: "a thread reply", r: request{method: "POST", path: "/v3/messages/" + root.ID + "/thread", headers: obo("alice"), body: ok},
				status: 400, code: "ERR_BAD_REQUEST", detail: "multipleReceivers"},
			refusal{name: "a thread reply, empty", r: request{method: "POST", path: "/v3/messages/" + root.ID + "/thread", headers: obo("alice"), body: body(`{}`)},
				status: 400, code: "ERR_BAD_REQUEST", detail: "multipleReceivers"},
		)
		e.refused(t, cases)

		// 25 in all, once duplicates collapse, is within the limit; null is no multipleReceivers.
		dup := `"bob","BOB","carol","Carol"` + strings.Repeat(`,"bob"`, 30)
		res := decodeSendResults(t, e.do(request{method: "POST", path: "/v3/messages", headers: obo("alice"),
			body: body(`{"uids":[`+dup+`,`+uids(22)+`]}`, `,"receiver":"team","receiverType":"group"`)}))
		if len(res.Users) != 24 || len(res.Groups) != 1 || outcome(res.Users["u0"]) != "ERR_UID_NOT_FOUND" || outcome(res.Groups["team"]) != "team in group_team" {
			t.Errorf("25 receivers: %v %v", outcomes(res.Users), outcomes(res.Groups))
		}
		r := e.do(request{method: "POST", path: "/v3/messages", headers: obo("alice"), body: `{"receiver":"bob","receiverType":"user","data":{"text":"hi"},"multipleReceivers":null}`})
		var one struct{ Data client.Message }
		if json.Unmarshal(r.body, &one); r.status != 200 || one.Data.Receiver != "bob" {
			t.Errorf("multipleReceivers null: %d %s", r.status, r.body)
		}
	})
}

// A multi-send retried with its Idempotency-Key gets the first answer and sends nothing
// more, even though some receivers were refused the first time.
func TestSendToMultipleReceiversIdempotent(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		multiSendWorld(t, e)
		body := `{"data":{"text":"once"},"muid":"m-1","multipleReceivers":{"uids":["bob","carol","ghost"],"guids":["team"]}}`
		sent := func() int { return e.count(`SELECT COUNT(*) FROM messages WHERE category = 'message'`) }
		first := e.sendOnce("multi-1", "alice", body)
		if first.status != 200 || sent() != 3 {
			t.Fatalf("first: %d %s, %d messages", first.status, first.body, sent())
		}
		again := e.sendOnce("multi-1", "alice", body)
		if again.status != 200 || string(again.body) != string(first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry: %d %s, replayed %q", again.status, again.body, again.header.Get("Idempotent-Replayed"))
		}
		if n := sent(); n != 3 {
			t.Fatalf("%d messages after a retry, want 3", n)
		}
		// Another list under the same key is another request.
		if r := e.sendOnce("multi-1", "alice", strings.Replace(body, `"ghost"`, `"dave"`, 1)); r.status != 409 || r.code != "ERR_IDEMPOTENCY_KEY_REUSED" {
			t.Fatalf("reused key: %d %s", r.status, r.body)
		}
		// The client's copy with a key does the same.
		c := e.c.OnBehalfOf("alice").IdempotencyKey("multi-2")
		req := client.SendMessageRequest{Data: map[string]any{"text": "twice?"}}
		a, err := c.SendMessageToMany(e.ctx(), req, client.Receivers{UIDs: []string{"bob"}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.SendMessageToMany(e.ctx(), req, client.Receivers{UIDs: []string{"bob"}})
		if err != nil || b.Users["bob"].Message == nil || b.Users["bob"].Message.ID != a.Users["bob"].Message.ID || sent() != 4 {
			t.Fatalf("client retry: %+v %v, %d messages", b, err, sent())
		}
	})
}

// Every receiver's message reaches its audience in real time, as a send to it alone would.
func TestSendToMultipleReceiversRealTime(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{})
			for _, u := range []string{"alice", "bob", "carol"} {
				e.mustUser(u, strings.ToUpper(u))
			}
			e.mustGroup("team", "alice", "carol")
			bob, carol := e.connect("bob", ""), e.connect("carol", "")
			// The auth ack comes before the hub takes the socket in; the user is available
			// once it has.
			for _, uid := range []string{"bob", "carol"} {
				for deadline := time.Now().Add(loadedWait); ; time.Sleep(10 * time.Millisecond) {
					if u, err := e.c.GetUser(e.ctx(), uid); err == nil && u.Status == "available" {
						break
					} else if time.Now().After(deadline) {
						t.Fatalf("%s not available after connecting: %+v %v", uid, u, err)
					}
				}
			}
			res, err := e.c.OnBehalfOf("alice").SendMessageToMany(e.ctx(), client.SendMessageRequest{Data: map[string]any{"text": "hello all"}},
				client.Receivers{UIDs: []string{"bob", "carol", "ghost"}, GUIDs: []string{"team"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				w    *wsClient
				want []string // message ids, in the order sent
			}{
				{bob, []string{res.Users["bob"].Message.ID}},
				{carol, []string{res.Users["carol"].Message.ID, res.Groups["team"].Message.ID}},
			} {
				for _, id := range tc.want {
					f := tc.w.next("message")
					var m client.Message
					json.Unmarshal(f["body"], &m)
					// The group's creation (its "added" action) is published after its answer,
					// so on a loaded machine it may reach a socket opened since: it predates
					// the send and is not what this test is about.
					for m.Category == "action" && len(m.ID) <= len(id) && m.ID < id {
						f = tc.w.next("message")
						m = client.Message{}
						json.Unmarshal(f["body"], &m)
					}
					if m.ID != id || m.Sender != "alice" || m.Data.Text != "hello all" {
						t.Errorf("%s: frame %s, want message %s", tc.w.uid, f["body"], id)
					}
				}
				tc.w.quiet("message", 200*time.Millisecond)
			}
		})
	}
}
