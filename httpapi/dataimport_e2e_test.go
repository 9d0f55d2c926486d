package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/dataimport"
)

// importItem is one item's answer of a data import.
type importItem struct {
	Success bool            `json:"success"`
	Skipped bool            `json:"skipped"`
	Data    json.RawMessage `json:"data"`
	Error   struct {
		Code    string              `json:"code"`
		Details map[string][]string `json:"details"`
	} `json:"error"`
}

// importPost posts an import body and returns each key's answer.
func (e *env) importPost(kind, body string) map[string]importItem {
	e.t.Helper()
	res := e.do(request{method: http.MethodPost, path: "/v3/data_import/" + kind, body: body})
	if res.status != http.StatusOK {
		e.t.Fatalf("import %s: %d %s", kind, res.status, res.body)
	}
	var out struct {
		Data map[string]importItem `json:"data"`
	}
	if err := json.Unmarshal(res.body, &out); err != nil {
		e.t.Fatalf("import %s: %v: %s", kind, err, res.body)
	}
	return out.Data
}

// importWorld imports two users, a group with both as members, and history in both
// conversations.
const (
	importUsersBody = `{"users": {
		"alice": {"uid": "alice", "name": "Alice", "createdAt": "1673421419", "metadata": {"k": "v"}, "tags": ["t1"], "lastActiveAt": 1673421425},
		"Bob": {"uid": "bob", "name": "Bob", "role": "default"}}}`
	importGroupsBody = `{"groups": {
		"hikers": {"guid": "hikers", "name": "Hikers", "type": "public", "owner": "alice", "createdAt": 1673421419,
			"groupOwnerDetails": {"uid": "alice", "name": "Alice"}}}}`
	importMembersBody = `{"members": {
		"hikers_member_alice": {"memberId": "hikers_member_alice", "guid": "hikers", "uid": "alice", "scope": "admin", "joinedAt": "1673421419"},
		"hikers_member_bob": {"guid": "hikers", "uid": "bob", "joinedAt": 1673421500}}}`
	importMessagesBody = `{"messages": {
		"m3": {"muid": "m3", "sender": "bob", "receiverType": "user", "receiver": "alice", "type": "text", "category": "message",
			"data": {"text": "third"}, "sentAt": 1674104350},
		"m1": {"muid": "m1", "sender": "alice", "receiverType": "user", "receiver": "bob", "type": "text", "category": "message",
			"data": {"text": "first"}, "sentAt": "1674104348", "deliveredAt": "1674224684", "readAt": "1674224684",
			"senderUserDetails": {"uid": "alice", "name": "Alice"}},
		"m2": {"muid": "m2", "sender": "bob", "receiverType": "user", "receiver": "alice", "type": "text", "category": "message",
			"data": {"text": "second <@uid:Alice> <@uid:nobody>"}, "sentAt": 1674104349},
		"g1": {"muid": "g1", "sender": "alice", "receiverType": "group", "receiver": "hikers", "category": "custom", "type": "location",
			"data": {"customData": {"lat": 1}}, "sentAt": 1674104300, "tags": ["x"]}}}`
)

func (e *env) importWorld() map[string]importItem {
	e.t.Helper()
	for kind, body := range map[string]string{"users": importUsersBody} {
		for k, it := range e.importPost(kind, body) {
			if !it.Success {
				e.t.Fatalf("%s %s: %+v", kind, k, it)
			}
		}
	}
	for _, kb := range [][2]string{{"groups", importGroupsBody}, {"members", importMembersBody}} {
		for k, it := range e.importPost(kb[0], kb[1]) {
			if !it.Success {
				e.t.Fatalf("%s %s: %+v", kb[0], k, it)
			}
		}
	}
	msgs := e.importPost("messages", importMessagesBody)
	for k, it := range msgs {
		if !it.Success {
			e.t.Fatalf("message %s: %+v", k, it)
		}
	}
	return msgs
}

func TestDataImport(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		msgs := e.importWorld()
		ids := map[string]int64{}
		for k, it := range msgs {
			var m struct {
				ID     string `json:"id"`
				SentAt int64  `json:"sentAt"`
			}
			json.Unmarshal(it.Data, &m)
			ids[k], _ = strconv.ParseInt(m.ID, 10, 64)
		}
		// Ids follow sentAt, whatever the request's order.
		if !(ids["g1"] < ids["m1"] && ids["m1"] < ids["m2"] && ids["m2"] < ids["m3"]) {
			t.Errorf("ids not in sentAt order: %v", ids)
		}
		// What was imported reads back through the regular API.
		u, err := e.c.GetUser(e.ctx(), "alice")
		if err != nil || u.CreatedAt != 1673421419 || u.LastActiveAt != 1673421425 || u.Name != "Alice" {
			t.Errorf("alice = %+v, %v", u, err)
		}
		g, err := e.c.GetGroup(e.ctx(), "hikers")
		if err != nil || g.MembersCount != 2 || g.Owner != "alice" || g.CreatedAt != 1673421419 {
			t.Errorf("hikers = %+v, %v", g, err)
		}
		res := e.do(request{method: http.MethodGet, path: "/v3/users/alice/messages", headers: map[string]string{"onBehalfOf": "bob"}})
		if res.status != 200 || !strings.Contains(string(res.body), `"text":"third"`) || !strings.Contains(string(res.body), `"muid":"m1"`) {
			t.Errorf("history: %d %s", res.status, res.body)
		}
		var hist struct {
			Data []struct {
				ID     string `json:"id"`
				SentAt int64  `json:"sentAt"`
			} `json:"data"`
		}
		json.Unmarshal(res.body, &hist)
		for i := 1; i < len(hist.Data); i++ {
			if hist.Data[i].SentAt < hist.Data[i-1].SentAt {
				t.Errorf("history out of order: %+v", hist.Data)
			}
		}
		conv := e.do(request{method: http.MethodGet, path: "/v3/users/alice/conversation", headers: map[string]string{"onBehalfOf": "bob"}})
		if conv.status != 200 || !strings.Contains(string(conv.body), `"text":"third"`) {
			t.Errorf("conversation lastMessage: %d %s", conv.status, conv.body)
		}
		// bob read m1 (readAt), so of the conversation's three only alice's unread count
		// has bob's two.
		convs := e.do(request{method: http.MethodGet, path: "/v3/conversations", headers: map[string]string{"onBehalfOf": "alice"}})
		if convs.status != 200 || !strings.Contains(string(convs.body), `"unreadMessageCount":"2"`) {
			t.Errorf("alice's conversations: %d %s", convs.status, convs.body)
		}
		// Mentions of users that exist are indexed as a sent message's.
		if convs.status == 200 && !strings.Contains(string(convs.body), `"unreadMentionsCount":1`) {
			t.Errorf("alice's mention of m2 is not counted: %s", convs.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM message_mentions`); n != 1 {
			t.Errorf("%d mentions, want alice's one", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM webhook_events`); n != 0 {
			t.Errorf("imported history made %d webhook events", n)
		}

		// Idempotent: importing it all again changes nothing and answers skipped.
		before := e.snapshot() + e.importState()
		for _, kb := range [][2]string{{"users", importUsersBody}, {"groups", importGroupsBody}, {"members", importMembersBody}, {"messages", importMessagesBody}} {
			for k, it := range e.importPost(kb[0], kb[1]) {
				if !it.Success || !it.Skipped {
					t.Errorf("re-import %s %s: %+v", kb[0], k, it)
				}
			}
		}
		if after := e.snapshot() + e.importState(); after != before {
			t.Errorf("re-import changed the database:\n%s\n---\n%s", before, after)
		}
	})
}

// importState is what the snapshot does not hold of an import: conversations, markers,
// messages' numbering and mentions.
func (e *env) importState() string {
	var b strings.Builder
	for _, q := range []string{
		"SELECT app_id, conversation_id, kind, uid_a, uid_b, guid, last_message_id, last_seq, created_at, updated_at FROM conversations ORDER BY conversation_id",
		"SELECT uid, conversation_id, read_id, read_seq, delivered_id FROM conversation_markers ORDER BY uid, conversation_id",
		"SELECT id, muid, seq, sent_at, delivered_at, read_at FROM messages ORDER BY id",
		"SELECT app_id, uid, conversation_id, message_id, pos FROM message_mentions ORDER BY message_id, pos",
	} {
		rows, err := e.raw.Query(q)
		if err != nil {
			e.t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			rows.Scan(ptrs...)
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.String()
}

func TestDataImportRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.importWorld()
		// carol is made through the API, and joins hikers through it.
		e.mustUser("carol", "Carol")
		if r := e.do(request{method: http.MethodPost, path: "/v3/groups/hikers/members", body: `{"participants": ["carol"]}`}); r.status != 200 {
			t.Fatalf("add carol: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: http.MethodPost, path: "/v3/groups", body: `{"guid": "club", "name": "Club", "type": "public"}`}); r.status != 200 {
			t.Fatalf("create club: %d %s", r.status, r.body)
		}
		items := func(n int) string {
			var b strings.Builder
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"u%d": {"name": "n"}`, i)
			}
			return b.String()
		}
		// Whole requests refused, nothing written.
		for _, tc := range []struct {
			name, kind, body string
			key              string
			status           int
			code             string
		}{
			{"not JSON", "users", `{"users":`, "", 400, "ERR_BAD_REQUEST"},
			{"no wrapper", "users", `{}`, "", 400, "ERR_BAD_REQUEST"},
			{"wrapper not an object", "messages", `{"messages": []}`, "", 400, "ERR_BAD_REQUEST"},
			{"empty", "groups", `{"groups": {}}`, "", 400, "ERR_BAD_REQUEST"},
			{"oversized batch", "users", `{"users": {` + items(chat.MaxImportItems+1) + `}}`, "", 400, "ERR_BAD_REQUEST"},
			{"oversized body", "users", `{"users": {"a": {"name": "` + strings.Repeat("x", dataimport.MaxBodyBytes) + `"}}}`, "", 413, "ERR_BAD_REQUEST"},
			{"authOnly key", "users", `{"users": {"zed": {"name": "Zed"}}}`, e.authKey, 403, "AUTH_ERR_NO_ACCESS"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot() + e.importState()
				h := map[string]string{}
				if tc.key != "" {
					h["apikey"] = tc.key
				}
				res := e.do(request{method: http.MethodPost, path: "/v3/data_import/" + tc.kind, body: tc.body, headers: h})
				if res.status != tc.status || res.code != tc.code {
					t.Errorf("got %d %s, want %d %s: %.300s", res.status, res.code, tc.status, tc.code, res.body)
				}
				if after := e.snapshot() + e.importState(); after != before {
					t.Error("a refused request wrote")
				}
			})
		}

		// Items refused one by one; the rest of their request is imported.
		for _, tc := range []struct {
			name, kind, body string
			want             map[string]string // key → code ("" success)
		}{
			{"duplicate uid", "users", `{"users": {"dup": {"name": "A"}, "DUP": {"uid": "dup", "name": "B"}, "ok1": {"name": "ok"}}}`,
				map[string]string{"dup": "ERR_IMPORT_DUPLICATE_KEY", "DUP": "ERR_IMPORT_DUPLICATE_KEY", "ok1": ""}},
			{"repeated JSON key", "users", `{"users": {"rep": {"name": "A"}, "rep": {"name": "A"}}}`,
				map[string]string{"rep": "ERR_IMPORT_DUPLICATE_KEY"}},
			{"user made through the API", "users", `{"users": {"carol": {"name": "Carol"}}}`, map[string]string{"carol": "ERR_UID_ALREADY_EXISTS"}},
			{"group made through the API", "groups", `{"groups": {"club": {"name": "Club", "type": "public"}}}`, map[string]string{"club": "ERR_GUID_ALREADY_EXISTS"}},
			{"member added through the API", "members", `{"members": {"hikers_member_carol": {"guid": "hikers", "uid": "carol"}}}`,
				map[string]string{"hikers_member_carol": "ERR_ALREADY_JOINED"}},
			{"conflicting user", "users", `{"users": {"alice": {"name": "Not Alice"}}}`, map[string]string{"alice": "ERR_IMPORT_CONFLICT"}},
			{"key mismatch", "users", `{"users": {"k1": {"uid": "k2", "name": "x"}}}`, map[string]string{"k1": "ERR_BAD_REQUEST"}},
			{"malformed item", "users", `{"users": {"m1": "text", "m2": {"name": 5}, "m3": {"name": "x", "createdAt": "soon"}}}`,
				map[string]string{"m1": "ERR_BAD_REQUEST", "m2": "ERR_BAD_REQUEST", "m3": "ERR_BAD_REQUEST"}},
			{"millisecond time", "users", `{"users": {"ms": {"name": "x", "createdAt": 1673421419000}}}`, map[string]string{"ms": "ERR_BAD_REQUEST"}},
			{"unknown role", "users", `{"users": {"r1": {"name": "x", "role": "nope"}}}`, map[string]string{"r1": "ERR_ROLE_NOT_FOUND"}},
			{"bad uid", "users", `{"users": {"a b": {"name": "x"}}}`, map[string]string{"a b": "ERR_BAD_REQUEST"}},
			{"group without type", "groups", `{"groups": {"g9": {"name": "x"}}}`, map[string]string{"g9": "ERR_BAD_REQUEST"}},
			{"group of unknown owner", "groups", `{"groups": {"g8": {"name": "x", "type": "public", "owner": "nobody"}}}`, map[string]string{"g8": "ERR_UID_NOT_FOUND"}},
			{"member of unknown group", "members", `{"members": {"nogroup_member_alice": {"guid": "nogroup", "uid": "alice"}}}`,
				map[string]string{"nogroup_member_alice": "ERR_GUID_NOT_FOUND"}},
			{"unknown member", "members", `{"members": {"hikers_member_nobody": {"guid": "hikers", "uid": "nobody"}}}`,
				map[string]string{"hikers_member_nobody": "ERR_UID_NOT_FOUND"}},
			{"member key mismatch", "members", `{"members": {"hikers_member_bob": {"memberId": "x", "guid": "hikers", "uid": "bob"}}}`,
				map[string]string{"hikers_member_bob": "ERR_BAD_REQUEST"}},
			{"conflicting member", "members", `{"members": {"hikers_member_bob": {"guid": "hikers", "uid": "bob", "scope": "admin", "joinedAt": 1673421500}}}`,
				map[string]string{"hikers_member_bob": "ERR_IMPORT_CONFLICT"}},
			{"out-of-order sentAt", "messages", `{"messages": {"old": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "x"}, "sentAt": 1600000000},
				"new": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "y"}, "sentAt": 1700000000}}}`,
				map[string]string{"old": "ERR_IMPORT_OUT_OF_ORDER", "new": ""}},
			{"conflicting message", "messages", `{"messages": {"m1": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "changed"}, "sentAt": 1674104348}}}`,
				map[string]string{"m1": "ERR_IMPORT_CONFLICT"}},
			{"duplicate muid", "messages", `{"messages": {"d1": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "x"}, "sentAt": 1800000000},
				"d1": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "x"}, "sentAt": 1800000000}}}`,
				map[string]string{"d1": "ERR_IMPORT_DUPLICATE_KEY"}},
			{"message to unknown group", "messages", `{"messages": {"x1": {"sender": "alice", "receiverType": "group", "receiver": "nope", "data": {"text": "x"}, "sentAt": 1800000001}}}`,
				map[string]string{"x1": "ERR_GUID_NOT_FOUND"}},
			{"message from unknown user", "messages", `{"messages": {"x2": {"sender": "nobody", "receiverType": "user", "receiver": "bob", "data": {"text": "x"}, "sentAt": 1800000001}}}`,
				map[string]string{"x2": "ERR_UID_NOT_FOUND"}},
			{"sender made from its details", "messages", `{"messages": {"dv1": {"sender": "dave", "receiverType": "group", "receiver": "hikers", "data": {"text": "x"}, "sentAt": 1800000002,
				"senderUserDetails": {"uid": "dave", "name": "Dave", "createdAt": "1673421419"}}}}`, map[string]string{"dv1": ""}},
			{"the same user imported after its details", "users", `{"users": {"dave": {"name": "Dave", "createdAt": 1673421419}}}`, map[string]string{"dave": ""}},
			{"invalid details", "messages", `{"messages": {"dv2": {"sender": "zoe", "receiverType": "group", "receiver": "hikers", "data": {"text": "x"}, "sentAt": 1800000003,
				"senderUserDetails": {"uid": "zoe"}}}}`, map[string]string{"dv2": "ERR_BAD_REQUEST"}},
			{"member made from its details", "members", `{"members": {"hikers_member_erin": {"guid": "hikers", "uid": "erin", "userDetails": {"uid": "erin", "name": "Erin"}}}}`,
				map[string]string{"hikers_member_erin": ""}},
			{"message without sentAt", "messages", `{"messages": {"x3": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "x"}}}}`,
				map[string]string{"x3": "ERR_BAD_REQUEST"}},
			{"empty text", "messages", `{"messages": {"x4": {"sender": "alice", "receiverType": "user", "receiver": "bob", "data": {}, "sentAt": 1800000001}}}`,
				map[string]string{"x4": "ERR_EMPTY_MESSAGE_TEXT"}},
			{"message to self", "messages", `{"messages": {"x5": {"sender": "alice", "receiverType": "user", "receiver": "alice", "data": {"text": "x"}, "sentAt": 1800000001}}}`,
				map[string]string{"x5": "ERR_BAD_REQUEST"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := e.importPost(tc.kind, tc.body)
				if len(got) != len(tc.want) {
					t.Errorf("answered %d keys, want %d: %+v", len(got), len(tc.want), got)
				}
				for k, code := range tc.want {
					it, ok := got[k]
					switch {
					case !ok:
						t.Errorf("%s: no answer", k)
					case code == "" && !it.Success:
						t.Errorf("%s: refused with %s %v", k, it.Error.Code, it.Error.Details)
					case code != "" && (it.Success || it.Error.Code != code):
						t.Errorf("%s: got success=%v %s, want %s", k, it.Success, it.Error.Code, code)
					}
				}
			})
		}
		// Nothing refused was written.
		for _, q := range []string{
			`SELECT COUNT(*) FROM users WHERE uid IN ('dup', 'rep', 'k1', 'k2', 'm2', 'ms', 'r1')`,
			`SELECT COUNT(*) FROM messages WHERE muid IN ('old', 'd1', 'x1', 'x2')`,
		} {
			if n := e.count(q); n != 0 {
				t.Errorf("%s = %d", q, n)
			}
		}
		if n := e.count(`SELECT COUNT(*) FROM users WHERE uid IN ('dave', 'erin')`); n != 2 {
			t.Errorf("users made from details: %d, want 2", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM users WHERE uid = 'zoe'`); n != 0 {
			t.Errorf("a user made from invalid details")
		}
		if n := e.count(`SELECT COUNT(*) FROM users WHERE uid = 'ok1'`); n != 1 {
			t.Errorf("the valid item beside refused ones was not imported")
		}
	})
}

func TestDataImportRateLimit(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, backend, chat.Config{RateLimits: chat.RateLimits{Import: 60}})
			for i := range 60 {
				res := e.do(request{method: http.MethodPost, path: "/v3/data_import/users", body: fmt.Sprintf(`{"users": {"u%d": {"name": "n"}}}`, i)})
				if res.status != 200 {
					t.Fatalf("request %d: %d %s", i+1, res.status, res.body)
				}
			}
			res := e.do(request{method: http.MethodPost, path: "/v3/data_import/messages", body: `{"messages": {"x": {}}}`})
			if res.status != 429 || res.code != "ERR_TOO_MANY_REQUESTS" || res.header.Get("Retry-After") == "" {
				t.Errorf("61st: %d %s Retry-After %q", res.status, res.code, res.header.Get("Retry-After"))
			}
			// Other operations are not counted against it.
			if _, err := e.c.GetUser(e.ctx(), "u1"); err != nil {
				t.Errorf("standard request after the import limit: %v", err)
			}
		})
	}
}

// TestDataImportQuotesAndInteractive: an imported message quotes by the quoted message's
// muid (earlier in the request, or imported before), within its conversation; a quote of
// another conversation's message, of an action-less unknown muid or of a later message is
// refused for that item alone. Interactive messages import with their data, are found by
// their visible text, and a re-import of it all is skipped.
func TestDataImportQuotesAndInteractive(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.importWorld() // alice and bob; m1–m3 between them, g1 in hikers
		body := `{"messages": {
			"q1": {"muid": "q1", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "re: third"}, "sentAt": 1674104360, "quotedMessageId": "m3"},
			"f1": {"muid": "f1", "sender": "bob", "receiverType": "user", "receiver": "alice", "category": "interactive", "type": "form",
				"data": {"interactiveData": {"title": "Trip form", "formFields": [{"elementType": "textInput", "elementId": "when", "label": "Which day"}],
					"submitElement": {"elementType": "button", "elementId": "go", "buttonText": "Book"}},
					"interactionGoal": {"type": "anyOf", "elementIds": ["go"]}}, "sentAt": 1674104361},
			"q2": {"muid": "q2", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "booked"}, "sentAt": 1674104362, "quotedMessageId": "f1"},
			"x1": {"muid": "x1", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "other conversation"}, "sentAt": 1674104363, "quotedMessageId": "g1"},
			"x2": {"muid": "x2", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "unknown"}, "sentAt": 1674104364, "quotedMessageId": "nope"},
			"x3": {"muid": "x3", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "later"}, "sentAt": 1674104365, "quotedMessageId": "z9"},
			"z9": {"muid": "z9", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "after"}, "sentAt": 1674104366},
			"x4": {"muid": "x4", "sender": "alice", "receiverType": "user", "receiver": "bob", "category": "message", "type": "text",
				"data": {"text": "bad"}, "sentAt": 1674104367, "quotedMessageId": {"a": 1}},
			"x5": {"muid": "x5", "sender": "bob", "receiverType": "user", "receiver": "alice", "category": "interactive", "type": "form",
				"data": {"interactiveData": {"title": "t"}, "interactionGoal": {"type": "anyOf", "elementIds": ["undeclared"]}}, "sentAt": 1674104368}}}`
		got := e.importPost("messages", body)
		status := map[string]string{}
		for k, it := range got {
			status[k] = "ok"
			if !it.Success {
				status[k] = it.Error.Code + " " + strings.Join(slices.Sorted(maps.Keys(it.Error.Details)), ",")
			}
		}
		want := map[string]string{"q1": "ok", "f1": "ok", "q2": "ok", "z9": "ok",
			"x1": "ERR_MESSAGE_ID_NOT_FOUND quotedMessageId", "x2": "ERR_MESSAGE_ID_NOT_FOUND quotedMessageId",
			"x3": "ERR_MESSAGE_ID_NOT_FOUND quotedMessageId", "x4": "ERR_BAD_REQUEST quotedMessageId",
			"x5": "ERR_BAD_REQUEST data.interactionGoal.elementIds"}
		if !maps.Equal(status, want) {
			t.Fatalf("import answers %v, want %v", status, want)
		}
		id := func(k string) string {
			var m struct{ ID, QuotedMessageID string }
			json.Unmarshal(got[k].Data, &m)
			return m.ID
		}
		if !strings.Contains(string(got["q1"].Data), `"quotedMessageId":"`) {
			t.Errorf("q1's answer has no quotedMessageId: %s", got["q1"].Data)
		}
		// Reads carry the quotes, as a sent quoted reply's do.
		for k, quoted := range map[string]string{"q1": "third", "q2": ""} {
			m := e.ok(request{method: "GET", path: "/v3/messages/" + id(k), headers: obo("bob")})
			qm, _ := m["quotedMessage"].(map[string]any)
			if qm == nil {
				t.Fatalf("%s read without quotedMessage: %v", k, m)
			}
			if d, _ := qm["data"].(map[string]any); quoted != "" && d["text"] != quoted {
				t.Errorf("%s quotes %v, want %q", k, qm, quoted)
			}
			if k == "q2" && qm["id"] != id("f1") {
				t.Errorf("q2 quotes %v, want f1 %s", qm["id"], id("f1"))
			}
		}
		// The interactive message is one, found by its visible text.
		l := e.messages(request{method: "GET", path: "/v3/users/bob/messages?searchKey=which+day", headers: obo("alice")})
		if len(l.Data) != 1 || l.Data[0].ID != id("f1") || l.Data[0].Category != "interactive" {
			t.Errorf("search for the imported form: %+v", l.Data)
		}
		// Again: every item that was imported is skipped, the refused ones refused again.
		for k, it := range e.importPost("messages", body) {
			if want[k] == "ok" && (!it.Success || !it.Skipped) || want[k] != "ok" && it.Success {
				t.Errorf("re-import %s: %+v", k, it)
			}
		}
	})
}
