package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Answers CometChat's client SDKs (4.2.0 and 3.0.13) parse rather than pass through: unread
// counts (docs/api-decisions.md, Message lists).

// unreadCounts decodes an unread-count answer, sorted by entityId.
func unreadCounts(t *testing.T, r response) []map[string]any {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("unread counts: %d %s", r.status, r.body)
	}
	var out struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || out.Data == nil {
		t.Fatalf("unread counts: not a list: %v %s", err, r.body)
	}
	slices.SortFunc(out.Data, func(a, b map[string]any) int { return strings.Compare(a["entityId"].(string), b["entityId"].(string)) })
	return out.Data
}

func countsString(cs []map[string]any) string {
	var parts []string
	for _, c := range cs {
		b, _ := json.Marshal(c)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, " ")
}

// TestUnreadCountShapes: every unread count the SDKs ask for answers a list of
// {entityId, entityType, count}, scoped to the acting user, with the conversation list's
// counts; refused filters are 400 naming the parameter.
func TestUnreadCountShapes(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		for _, s := range []string{"b1", "b2", "b3"} {
			e.send("bob", "ann", "user", s)
		}
		e.send("cat", "g", "group", "c1")
		e.send("cat", "g", "group", "c2")
		e.send("ann", "bob", "user", "mine") // ann's own: never hers to read
		const sdk = "unread=1&count=1&hideMessagesFromBlockedUsers=0"
		get := func(as, path string) response {
			return e.do(request{method: "GET", path: path, headers: obo(as)})
		}
		for _, tc := range []struct{ name, as, path, want string }{
			{"ForUser", "ann", "/v3/users/bob/messages?" + sdk + "&uid=bob", `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"ForGroup", "ann", "/v3/groups/g/messages?" + sdk + "&guid=g", `{"count":2,"entityId":"g","entityType":"group"}`},
			{"ForUser, nothing unread", "ann", "/v3/users/cat/messages?" + sdk + "&uid=cat", ``},
			{"ForUser, the uid's case", "ann", "/v3/users/BOB/messages?" + sdk, `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"all", "ann", "/v3/messages?" + sdk, `{"count":3,"entityId":"bob","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"all users", "ann", "/v3/messages?" + sdk + "&receiverType=user", `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"all groups", "ann", "/v3/messages?" + sdk + "&receiverType=group", `{"count":2,"entityId":"g","entityType":"group"}`},
			{"an unknown receiverType", "ann", "/v3/messages?" + sdk + "&receiverType=room", ``},
			{"paging is ignored", "ann", "/v3/messages?" + sdk + "&per_page=1&affix=prepend&hideReplies=1", `{"count":3,"entityId":"bob","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"bob's own", "bob", "/v3/messages?" + sdk, `{"count":1,"entityId":"ann","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"cat's own", "cat", "/v3/messages?" + sdk, ``},
		} {
			if got := countsString(unreadCounts(t, get(tc.as, tc.path))); got != tc.want {
				t.Errorf("%s: %s\n got %s\nwant %s", tc.name, tc.path, got, tc.want)
			}
		}
		// The counts are the conversation list's.
		for _, c := range e.conversations(request{method: "GET", path: "/v3/conversations", headers: obo("ann")}) {
			want := map[string]string{"ann_user_bob": "3", "group_g": "2"}[c.ConversationID]
			if c.UnreadMessageCount != want {
				t.Errorf("conversation %s lists %s unread, the counts say %s", c.ConversationID, c.UnreadMessageCount, want)
			}
		}
		// Read up to date, a conversation leaves the counts; a block hides its user's messages.
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann")})
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?"+sdk))); got != `{"count":2,"entityId":"g","entityType":"group"}` {
			t.Errorf("after reading bob's: %s", got)
		}
		e.ok(request{method: "POST", path: "/v3/blockedusers", headers: obo("ann"), body: `{"blockedUids":["cat"]}`})
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?unread=1&count=1&hideMessagesFromBlockedUsers=1"))); got != `` {
			t.Errorf("hiding blocked users: %s", got)
		}
		if got := countsString(unreadCounts(t, get("ann", "/v3/groups/g/messages?unread=1&count=1&hideMessagesFromBlockedUsers=1"))); got != `` {
			t.Errorf("ForGroup hiding blocked users: %s", got)
		}
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?"+sdk))); got != `{"count":2,"entityId":"g","entityType":"group"}` {
			t.Errorf("not hiding blocked users: %s", got)
		}
		// unread alone is not read on /messages: the list as before.
		if l := e.messages(request{method: "GET", path: "/v3/messages?unread=1&limit=100", headers: obo("ann")}); len(l.Data) < 6 {
			t.Errorf("unread alone on /messages: %d messages", len(l.Data))
		}

		before := e.snapshot()
		for _, tc := range []struct{ name, as, path, field string }{
			{"count without unread", "ann", "/v3/messages?count=1", "count"},
			{"count without unread, one conversation", "ann", "/v3/users/bob/messages?count=1", "count"},
			{"a filter that narrows the count", "ann", "/v3/messages?" + sdk + "&categories=message", "categories"},
			{"a sender", "ann", "/v3/messages?" + sdk + "&sender=bob", "sender"},
			{"one conversation by id", "ann", "/v3/messages?" + sdk + "&conversationId=ann_user_bob", "conversationId"},
			{"a bad boolean", "ann", "/v3/messages?unread=1&count=maybe", "count"},
			{"the app has no unread messages", "", "/v3/messages?" + sdk, "onBehalfOf"},
			{"nor in a group", "", "/v3/groups/g/messages?" + sdk, "onBehalfOf"},
		} {
			var h map[string]string
			if tc.as != "" {
				h = obo(tc.as)
			}
			r := e.do(request{method: "GET", path: tc.path, headers: h})
			var env struct {
				Error struct {
					Details map[string][]string `json:"details"`
				} `json:"error"`
			}
			json.Unmarshal(r.body, &env)
			if r.status != 400 || r.code != "ERR_BAD_REQUEST" || env.Error.Details[tc.field] == nil {
				t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.status, r.body, tc.field)
			}
		}
		if e.snapshot() != before {
			t.Error("a refused count wrote something")
		}
	})
}
