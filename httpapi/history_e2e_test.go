package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// messageList decodes a message list.
type messageList struct {
	Data []struct {
		ID                 string
		Sender             string
		Category           string
		Type               string
		ParentID           string
		ReplyCount         int
		UnreadRepliesCount int
		SavedAt            int64
		ThreadSubscribed   bool
		Tags               []string
		Data               struct{ Text string }
	}
	Meta struct {
		Current struct{ Limit, Count int }
		Next    struct {
			Affix  string
			ID     string
			SentAt int64
		}
		Cursor struct {
			ID    int64
			Affix string
		}
	}
}

func (e *env) messages(r request) messageList {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	var l messageList
	if err := json.Unmarshal(res.body, &l); err != nil {
		e.t.Fatal(err)
	}
	return l
}

func (l messageList) texts() string {
	var out []string
	for _, m := range l.Data {
		out = append(out, m.Data.Text)
	}
	return strings.Join(out, ",")
}

func (e *env) send(from, to, receiverType, text string, extra ...string) string {
	e.t.Helper()
	body := `{"receiver":"` + to + `","receiverType":"` + receiverType + `","data":{"text":"` + text + `"}` + strings.Join(extra, "") + `}`
	var m struct{ Data struct{ ID string } }
	res := e.do(request{method: "POST", path: "/v3/messages", headers: obo(from), body: body})
	if res.status != 200 {
		e.t.Fatalf("send %s: %d %s", text, res.status, res.body)
	}
	json.Unmarshal(res.body, &m)
	return m.Data.ID
}

func TestConversationHistory(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		var ids []string
		for i := range 12 {
			from, to := "ann", "bob"
			if i%3 == 2 {
				from, to = "bob", "ann"
			}
			ids = append(ids, e.send(from, to, "user", fmt.Sprintf("m%02d", i)))
		}
		e.send("ann", "cat", "user", "other conversation")
		u := func(q string) request {
			return request{method: "GET", path: "/v3/users/bob/messages" + q, headers: obo("ann")}
		}
		l := e.messages(u(""))
		if l.texts() != "m00,m01,m02,m03,m04,m05,m06,m07,m08,m09" || l.Meta.Current.Limit != 10 || l.Meta.Current.Count != 10 ||
			l.Meta.Next.Affix != "append" || l.Meta.Next.ID != ids[9] || l.Meta.Cursor.ID == 0 || l.Meta.Next.SentAt == 0 {
			t.Fatalf("first page: %s %+v", l.texts(), l.Meta)
		}
		l = e.messages(u("?id=" + l.Meta.Next.ID + "&affix=append"))
		if l.texts() != "m10,m11" || l.Meta.Next.ID != ids[11] {
			t.Fatalf("second page: %s %+v", l.texts(), l.Meta)
		}
		l = e.messages(u("?id=" + l.Meta.Next.ID + "&affix=append"))
		if l.texts() != "" || l.Meta.Next.ID != ids[11] {
			t.Fatalf("past the end: %s %+v", l.texts(), l.Meta)
		}
		// Backwards from the newest: pages in id order, the cursor before the first.
		l = e.messages(u("?affix=prepend&limit=5"))
		if l.texts() != "m07,m08,m09,m10,m11" || l.Meta.Next.Affix != "prepend" || l.Meta.Next.ID != ids[7] {
			t.Fatalf("newest page: %s %+v", l.texts(), l.Meta)
		}
		l = e.messages(u("?affix=prepend&limit=5&id=" + l.Meta.Next.ID))
		if l.texts() != "m02,m03,m04,m05,m06" {
			t.Fatalf("page before: %s", l.texts())
		}
		// The other side sees the same conversation.
		if got := e.messages(request{method: "GET", path: "/v3/users/ann/messages?limit=100", headers: obo("bob")}).texts(); !strings.HasPrefix(got, "m00,m01") || strings.Contains(got, "other") {
			t.Fatalf("bob's view: %s", got)
		}
		if got := e.messages(u("?sender=bob&limit=100")).texts(); got != "m02,m05,m08,m11" {
			t.Fatalf("sender: %s", got)
		}
		if got := e.messages(u("?searchKey=M1&limit=100")).texts(); got != "m10,m11" {
			t.Fatalf("searchKey: %s", got)
		}

		// App-wide, and as one user: only its conversations.
		if n := len(e.messages(request{method: "GET", path: "/v3/messages?limit=100"}).Data); n != 13 {
			t.Fatalf("app-wide: %d messages", n)
		}
		if got := e.messages(request{method: "GET", path: "/v3/messages?limit=100", headers: obo("cat")}).texts(); got != "other conversation" {
			t.Fatalf("cat's messages: %s", got)
		}
		if got := e.messages(request{method: "GET", path: "/v3/messages?conversationId=ann_user_cat"}).texts(); got != "other conversation" {
			t.Fatalf("conversationId: %s", got)
		}

		// Unread: bob has read nothing; count=true counts it.
		if got := e.messages(request{method: "GET", path: "/v3/users/ann/messages?unread=true&limit=100", headers: obo("bob")}); len(got.Data) != 8 {
			t.Fatalf("unread: %d", len(got.Data))
		}
		r := e.do(request{method: "GET", path: "/v3/users/ann/messages?unread=true&count=true", headers: obo("bob")})
		if r.status != 200 || string(r.body) != `{"data":[{"entityId":"ann","entityType":"user","count":8}]}`+"\n" {
			t.Fatalf("unread count: %d %s", r.status, r.body)
		}

		// What CometChat's SDK sends on every message list (MessagesRequestBuilder, as the
		// React UI Kit configures it): names natter does not read are ignored, per_page is the
		// page's size, and categories natter has never heard of (card, agentic) match nothing.
		sdk := "?per_page=30&affix=prepend&hideMessagesFromBlockedUsers=1&hideReplies=1&hideDeleted=1&withThreadSubscribed=true" +
			"&withParent=0&hideQuotedMessages=1&onlyInteractionGoalCompleted=0&mentionsWithTagInfo=1&mentionsWithBlockedInfo=1" +
			"&categories=message,custom,action,call,interactive,card,agentic&types=text,image,file,audio,video,groupMember,extension_poll&colour=red"
		if got := e.messages(u(sdk)).texts(); got != "m00,m01,m02,m03,m04,m05,m06,m07,m08,m09,m10,m11" {
			t.Fatalf("the SDK's parameters: %q", got)
		}
		if got := e.messages(u("?per_page=3&affix=prepend")); got.texts() != "m09,m10,m11" || got.Meta.Current.Limit != 3 {
			t.Fatalf("per_page: %q %+v", got.texts(), got.Meta)
		}
		for _, q := range []string{"?categories=card,agentic", "?attachmentTypes=hologram", "?types=card"} {
			if got := e.messages(u(q)).texts(); got != "" {
				t.Fatalf("%s matched %q", q, got)
			}
		}
		if got := e.messages(request{method: "GET", path: "/v3/messages?receiverType=room"}).texts(); got != "" {
			t.Fatalf("receiverType=room matched %q", got)
		}
		if got := e.messages(u("?receiverType=group&limit=100")).texts(); !strings.HasPrefix(got, "m00,m01") {
			t.Fatalf("a name this list does not read is ignored: %q", got)
		}
		if r := e.do(u("?per_page=0")); r.status != 400 || !strings.Contains(string(r.body), "per_page") {
			t.Fatalf("per_page=0 is refused naming per_page: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "GET", path: "/v3/conversations?conversationType=room&per_page=5", headers: obo("ann")}); r.status != 200 || !strings.HasPrefix(string(r.body), `{"data":[]`) {
			t.Fatalf("conversationType=room: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "GET", path: "/v3/conversations?per_page=1&page=2", headers: obo("ann")}); r.status != 200 || !strings.Contains(string(r.body), `"per_page":1`) ||
			!strings.Contains(string(r.body), `"current_page":2`) {
			t.Fatalf("conversations with per_page: %d %s", r.status, r.body)
		}

		before := e.snapshot()
		for _, tc := range []struct {
			name, path, obo, code string
			status                int
		}{
			{"limit 0", "/v3/users/bob/messages?limit=0", "ann", "ERR_BAD_REQUEST", 400},
			{"limit 1001", "/v3/users/bob/messages?limit=1001", "ann", "ERR_BAD_REQUEST", 400},
			{"per_page 0", "/v3/users/bob/messages?per_page=0", "ann", "ERR_BAD_REQUEST", 400},
			{"per_page not a number", "/v3/users/bob/messages?per_page=ten", "ann", "ERR_BAD_REQUEST", 400},
			{"bad boolean among the SDK's", "/v3/users/bob/messages?per_page=30&hideDeleted=maybe", "ann", "ERR_BAD_REQUEST", 400},
			{"a category too long", "/v3/users/bob/messages?categories=" + strings.Repeat("c", 101), "ann", "ERR_BAD_REQUEST", 400},
			{"malformed cursor", "/v3/users/bob/messages?id=abc", "ann", "ERR_BAD_REQUEST", 400},
			{"negative cursor", "/v3/users/bob/messages?id=-4", "ann", "ERR_BAD_REQUEST", 400},
			{"bad affix", "/v3/users/bob/messages?affix=sideways", "ann", "ERR_BAD_REQUEST", 400},
			{"from after to", "/v3/users/bob/messages?fromTimestamp=20&toTimestamp=10", "ann", "ERR_BAD_REQUEST", 400},
			{"count without unread", "/v3/users/bob/messages?count=true", "ann", "ERR_BAD_REQUEST", 400},
			{"no onBehalfOf", "/v3/users/bob/messages", "", "ERR_BAD_REQUEST", 400},
			{"unknown user", "/v3/users/ghost/messages", "ann", "ERR_UID_NOT_FOUND", 404},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var h map[string]string
				if tc.obo != "" {
					h = obo(tc.obo)
				}
				r := e.do(request{method: "GET", path: tc.path, headers: h})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused request changed the database")
				}
			})
		}
	})
}

func TestGroupHistoryAndThreads(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "pat", "eve"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "olga", "pat")
		root := e.send("olga", "g", "group", "root")
		e.send("pat", "g", "group", "second", `,"tags":["t1"]`)
		g := func(q, who string) request {
			return request{method: "GET", path: "/v3/groups/g/messages" + q, headers: obo(who)}
		}
		// History holds the membership action and the messages.
		l := e.messages(g("?limit=100", "pat"))
		if len(l.Data) != 3 || l.Data[0].Category != "action" || l.texts() != ",root,second" {
			t.Fatalf("group history: %+v", l.Data)
		}
		if got := e.messages(g("?categories=message&tags=t1&withTags=true", "pat")); len(got.Data) != 1 || got.Data[0].Tags[0] != "t1" {
			t.Fatalf("tags: %+v", got.Data)
		}
		if got := e.messages(g("?categories=message", "pat")); got.Data[1].Tags != nil {
			t.Fatalf("tags without withTags: %+v", got.Data)
		}
		r := e.do(g("", "eve"))
		if r.status != 403 || r.code != "ERR_CONVERSATION_NOT_ACCESSIBLE" {
			t.Fatalf("non-member reads history: %d %s", r.status, r.body)
		}

		// Replies go into the thread, count on the parent, and stay out of hideReplies.
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				who := []string{"olga", "pat"}[i%2]
				r := e.do(request{method: "POST", path: "/v3/messages/" + root + "/thread", headers: obo(who), body: fmt.Sprintf(`{"data":{"text":"reply %02d"}}`, i)})
				if r.status != 200 || !strings.Contains(string(r.body), `"parentId":"`+root+`"`) {
					t.Errorf("reply: %d %s", r.status, r.body)
				}
			}()
		}
		wg.Wait()
		thread := e.messages(request{method: "GET", path: "/v3/messages/" + root + "/thread?limit=100", headers: obo("pat")})
		if len(thread.Data) != 20 || thread.Data[0].ParentID != root {
			t.Fatalf("thread: %d replies", len(thread.Data))
		}
		// The SDK's thread builder is its message builder with a parent id: the same names.
		sdkThread := e.messages(request{method: "GET", path: "/v3/messages/" + root + "/thread?per_page=5&affix=prepend&withThreadSubscribed=true&categories=message,custom,card,agentic&hideDeleted=1", headers: obo("pat")})
		if len(sdkThread.Data) != 5 || sdkThread.Data[0].ParentID != root {
			t.Fatalf("thread with the SDK's parameters: %d replies", len(sdkThread.Data))
		}
		if n := len(e.messages(request{method: "GET", path: "/v3/messages/" + root + "/thread?categories=agentic", headers: obo("pat")}).Data); n != 0 {
			t.Fatalf("a thread filtered by an unknown category: %d replies", n)
		}
		main := e.messages(g("?hideReplies=true&limit=100", "pat"))
		if len(main.Data) != 3 || main.Data[1].ReplyCount != 20 || main.Data[1].UnreadRepliesCount != 10 {
			t.Fatalf("main list: %+v", main.Data)
		}
		var reply string
		json.Unmarshal([]byte(`"`+thread.Data[0].ID+`"`), &reply)
		for _, tc := range []struct {
			name string
			r    request
			code string
		}{
			{"reply to a reply", request{method: "POST", path: "/v3/messages/" + reply + "/thread", headers: obo("pat"), body: `{"data":{"text":"x"}}`}, "ERR_MESSAGE_THREAD_NESTING"},
			{"reply into another conversation", request{method: "POST", path: "/v3/messages/" + root + "/thread", headers: obo("pat"), body: `{"receiver":"olga","receiverType":"user","data":{"text":"x"}}`}, "ERR_WRONG_MESSAGE_THREAD"},
			{"reply by a non-member", request{method: "POST", path: "/v3/messages/" + root + "/thread", headers: obo("eve"), body: `{"data":{"text":"x"}}`}, "ERR_MESSAGE_NO_ACCESS"},
			{"reply without onBehalfOf", request{method: "POST", path: "/v3/messages/" + root + "/thread", body: `{"data":{"text":"x"}}`}, "ERR_BAD_REQUEST"},
			{"thread of an unknown message", request{method: "GET", path: "/v3/messages/999999/thread"}, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"thread page 2", request{method: "GET", path: "/v3/messages/" + root + "/thread?page=2"}, "ERR_BAD_REQUEST"},
		} {
			r := e.do(tc.r)
			if r.code != tc.code {
				t.Errorf("%s: %d %s, want %s", tc.name, r.status, r.body, tc.code)
			}
		}
	})
}

func TestEditMessage(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "olga", "mo", "pat"} {
			e.mustUser(u, u)
		}
		id := e.send("ann", "bob", "user", "helo", `,"tags":["a"]`)
		e.do(request{method: "PUT", path: "/v3/messages/" + id, headers: obo("ann"), body: `{"data":{"metadata":{"k":1}}}`})
		r := e.do(request{method: "PUT", path: "/v3/messages/" + id, headers: obo("ann"), body: `{"data":{"text":"hello"},"tags":["b"]}`})
		if r.status != 200 {
			t.Fatalf("edit: %d %s", r.status, r.body)
		}
		golden(t, "message_edit", r.body)
		got := e.ok(request{method: "GET", path: "/v3/messages/" + id, headers: obo("bob")})
		if got["data"].(map[string]any)["text"] != "hello" || got["editedBy"] != "ann" || got["editedAt"] == nil || fmt.Sprint(got["tags"]) != "[b]" ||
			fmt.Sprint(got["data"].(map[string]any)["metadata"]) != "map[k:1]" {
			t.Fatalf("edited message: %v", got)
		}
		// The history carries the edited action.
		l := e.messages(request{method: "GET", path: "/v3/users/bob/messages?categories=action", headers: obo("ann")})
		if len(l.Data) != 2 || l.Data[1].Category != "action" {
			t.Fatalf("history: %+v", l.Data)
		}

		e.mustGroup("g", "olga", "pat")
		e.ok(request{method: "POST", path: "/v3/groups/g/members", body: `{"moderators":["mo"]}`})
		gid := e.send("pat", "g", "group", "in group")
		// A group's moderator may edit a member's message; another participant may not.
		if r := e.do(request{method: "PUT", path: "/v3/messages/" + gid, headers: obo("mo"), body: `{"data":{"text":"moderated"}}`}); r.status != 200 {
			t.Fatalf("moderator edits: %d %s", r.status, r.body)
		}
		custom := e.ok(request{method: "POST", path: "/v3/messages", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user","category":"custom","type":"poll","data":{"customData":{"q":"?"}}}`})
		e.ok(request{method: "DELETE", path: "/v3/messages/" + id, headers: obo("ann")})
		before := e.snapshot()
		for _, tc := range []struct {
			name, path, obo, body, code string
			status                      int
		}{
			{"someone else's message", "/v3/messages/" + gid, "olga", `{"data":{"text":"x"}}`, "", 200},
			{"a non-member edits", "/v3/messages/" + gid, "ann", `{"data":{"text":"x"}}`, "ERR_MESSAGE_NO_ACCESS", 403},
			{"the receiver edits", "/v3/messages/" + custom["id"].(string), "bob", `{"data":{"metadata":{}}}`, "ERR_MESSAGE_NOT_A_SENDER", 403},
			{"a deleted message", "/v3/messages/" + id, "ann", `{"data":{"text":"x"}}`, "ERR_MESSAGE_ACTION_NOT_ALLOWED", 409},
			{"an action message", "/v3/messages/2", "", `{"data":{"text":"x"}}`, "ERR_MESSAGE_ID_NOT_FOUND", 404},
			{"text of a custom message", "/v3/messages/" + custom["id"].(string), "ann", `{"data":{"text":"x"}}`, "ERR_INVALID_MESSAGE_DATA", 400},
			{"empty text", "/v3/messages/" + gid, "pat", `{"data":{"text":""}}`, "ERR_INVALID_MESSAGE_TEXT", 400},
			{"another data key", "/v3/messages/" + gid, "pat", `{"data":{"url":"x"}}`, "ERR_BAD_REQUEST", 400},
			{"nothing to change", "/v3/messages/" + gid, "pat", `{}`, "ERR_BAD_REQUEST", 400},
			{"26 tags", "/v3/messages/" + gid, "pat", `{"tags":[` + strings.Repeat(`"t",`, 25) + `"t"]}`, "ERR_BAD_REQUEST", 400},
			{"unknown message", "/v3/messages/999999", "", `{"data":{"text":"x"}}`, "ERR_MESSAGE_ID_NOT_FOUND", 404},
			{"another app's message", "/v3/messages/" + gid, "", `{"data":{"text":"x"}}`, "other", 404},
		} {
			if tc.status == 200 {
				continue // the owner is an admin: allowed, and would change the snapshot
			}
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.obo != "" {
					h["onBehalfOf"] = tc.obo
				}
				code := tc.code
				if code == "other" {
					_, k := e.newApp("other"+fmt.Sprint(len(tc.name)), "us")
					h["apikey"], code = k, "ERR_MESSAGE_ID_NOT_FOUND"
				}
				r := e.do(request{method: "PUT", path: tc.path, headers: h, body: tc.body})
				if r.status != tc.status || r.code != code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tc.status, code, r.body)
				}
				if tc.code != "other" && e.snapshot() != before {
					t.Fatal("a refused edit changed the database")
				}
			})
		}
	})
}

type conversationOutT struct {
	ConversationID      string
	ConversationType    string
	UnreadMessageCount  string
	UnreadMentionsCount int
	LastReadMessageID   string
	LastMessage         *struct {
		ID   string
		Data struct{ Text string }
	}
	ConversationWith map[string]any
	Tags             []string
}

func (e *env) conversations(r request) []conversationOutT {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	var out struct{ Data []conversationOutT }
	if err := json.Unmarshal(res.body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out.Data
}

func (e *env) conversation(r request) conversationOutT {
	e.t.Helper()
	res := e.do(r)
	if res.status != 200 {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	var out struct{ Data conversationOutT }
	if err := json.Unmarshal(res.body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out.Data
}

func TestConversations(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat", "dan"} {
			e.mustUser(u, u)
		}
		e.send("ann", "bob", "user", "a1")
		b1 := e.send("bob", "ann", "user", "b1")
		e.send("bob", "ann", "user", "b2")
		c1 := e.send("cat", "ann", "user", "c1")
		e.mustGroup("g", "ann", "bob")
		e.send("bob", "g", "group", "g1")
		e.send("ann", "g", "group", "g2")
		e.send("bob", "g", "group", "g3")
		// dan joins late: the history before it is not unread to it.
		e.ok(request{method: "POST", path: "/v3/groups/g/members", body: `{"participants":["dan"]}`})

		list := e.conversations(request{method: "GET", path: "/v3/conversations", headers: obo("ann")})
		got := []string{}
		for _, c := range list {
			got = append(got, c.ConversationID+"="+c.UnreadMessageCount)
		}
		if strings.Join(got, ",") != "group_g=2,ann_user_cat=1,ann_user_bob=2" {
			t.Fatalf("ann's conversations: %v", got)
		}
		if list[0].ConversationWith["guid"] != "g" || list[0].ConversationWith["hasJoined"] != true || list[0].LastMessage == nil {
			t.Fatalf("group conversation: %+v", list[0])
		}
		if list[2].ConversationWith["uid"] != "bob" || list[2].LastMessage.Data.Text != "b2" {
			t.Fatalf("bob's conversation: %+v", list[2])
		}
		if c := e.conversation(request{method: "GET", path: "/v3/groups/g/conversation", headers: obo("dan")}); c.UnreadMessageCount != "0" {
			t.Fatalf("dan's unread: %+v", c)
		}

		// Mark read up to b1: b2 stays unread; the sender sees readAt on b1.
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":` + b1 + `}`})
		c := e.conversation(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")})
		if c.UnreadMessageCount != "1" || c.LastReadMessageID != b1 {
			t.Fatalf("after read: %+v", c)
		}
		m := e.ok(request{method: "GET", path: "/v3/messages/" + b1, headers: obo("bob")})
		if m["readAt"] == nil || m["deliveredAt"] == nil {
			t.Fatalf("b1 not stamped: %v", m)
		}
		// Marking read without a messageId reads everything; unread moves back.
		e.ok(request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("ann")})
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann")})
		if got := e.conversations(request{method: "GET", path: "/v3/conversations?unread=true", headers: obo("ann")}); len(got) != 1 || got[0].ConversationID != "ann_user_cat" {
			t.Fatalf("unread conversations: %+v", got)
		}
		e.ok(request{method: "DELETE", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":` + b1 + `}`})
		if c := e.conversation(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")}); c.UnreadMessageCount != "1" {
			t.Fatalf("after unread: %+v", c)
		}
		// Tags, and reset: the history before it is gone for ann only.
		c = e.conversation(request{method: "PUT", path: "/v3/users/bob/conversation", headers: obo("ann"), body: `{"tags":["work"]}`})
		if fmt.Sprint(c.Tags) != "[work]" {
			t.Fatalf("tags: %+v", c)
		}
		if got := e.conversations(request{method: "GET", path: "/v3/conversations?tags=work", headers: obo("ann")}); len(got) != 1 {
			t.Fatalf("by tag: %+v", got)
		}
		// preserveOrder (the newest hosted file's) changes nothing: the conversation leaves the
		// list until its next message all the same (docs/api-decisions.md).
		e.ok(request{method: "DELETE", path: "/v3/users/bob/conversation", headers: obo("ann"), body: `{"preserveOrder":true}`})
		if got := e.messages(request{method: "GET", path: "/v3/users/bob/messages", headers: obo("ann")}); len(got.Data) != 0 {
			t.Fatalf("history after reset: %s", got.texts())
		}
		if got := e.messages(request{method: "GET", path: "/v3/users/ann/messages", headers: obo("bob")}); len(got.Data) != 3 {
			t.Fatalf("bob's history after ann's reset: %s", got.texts())
		}
		r := e.do(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")})
		if r.status != 404 || r.code != "ERR_CONVERSATION_NOT_FOUND" {
			t.Fatalf("reset conversation: %d %s", r.status, r.body)
		}
		res := e.do(request{method: "GET", path: "/v3/conversations?perPage=1", headers: obo("ann")})
		if !strings.Contains(string(res.body), `"total":2,`) || strings.Contains(string(res.body), "ann_user_bob") {
			t.Fatalf("ann's list after the reset: %s", res.body)
		}
		e.send("bob", "ann", "user", "after reset")
		if c := e.conversation(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")}); c.UnreadMessageCount != "1" {
			t.Fatalf("after a new message: %+v", c)
		}

		before := e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"read a message of another conversation", request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":` + c1 + `}`}, 400, "ERR_BAD_REQUEST"},
			{"read an unknown message", request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":999999}`}, 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"read with a bad messageId", request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":"x"}`}, 400, "ERR_BAD_REQUEST"},
			{"unread without messageId", request{method: "DELETE", path: "/v3/users/bob/conversation/read", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"reset with preserveOrder not a boolean", request{method: "DELETE", path: "/v3/users/bob/conversation", headers: obo("ann"), body: `{"preserveOrder":"yes"}`}, 400, "ERR_BAD_REQUEST"},
			{"a conversation with no messages", request{method: "GET", path: "/v3/users/dan/conversation", headers: obo("ann")}, 404, "ERR_CONVERSATION_NOT_FOUND"},
			{"a group the user is not in", request{method: "GET", path: "/v3/groups/g/conversation", headers: obo("cat")}, 403, "ERR_CONVERSATION_NOT_ACCESSIBLE"},
			{"mark read in a group the user is not in", request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("cat")}, 403, "ERR_CONVERSATION_NOT_ACCESSIBLE"},
			{"without onBehalfOf", request{method: "GET", path: "/v3/users/bob/conversation"}, 400, "ERR_BAD_REQUEST"},
			{"deprecated get, not a party", request{method: "GET", path: "/v3/conversations/ann_user_bob", headers: obo("cat")}, 403, "ERR_CONVERSATION_NOT_ACCESSIBLE"},
			{"deprecated get, unknown", request{method: "GET", path: "/v3/conversations/nope", headers: obo("cat")}, 404, "ERR_CONVERSATION_NOT_FOUND"},
			{"conversationType too long", request{method: "GET", path: "/v3/conversations?conversationType=" + strings.Repeat("r", 101), headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"per_page 0", request{method: "GET", path: "/v3/conversations?per_page=0", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"update without tags", request{method: "PUT", path: "/v3/users/bob/conversation", headers: obo("ann"), body: `{}`}, 400, "ERR_BAD_REQUEST"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.r)
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if e.snapshot() != before {
					t.Fatal("a refused request changed the database")
				}
			})
		}
		if c := e.conversation(request{method: "GET", path: "/v3/conversations/group_g", headers: obo("bob")}); c.ConversationType != "group" {
			t.Fatalf("deprecated get: %+v", c)
		}
		// The deprecated delete hides the history from every party, until the next message.
		e.ok(request{method: "DELETE", path: "/v3/conversations/group_g", headers: obo("bob")})
		for _, who := range []string{"ann", "bob", "dan"} {
			for _, c := range e.conversations(request{method: "GET", path: "/v3/conversations", headers: obo(who)}) {
				if c.ConversationID == "group_g" {
					t.Fatalf("%s still lists group_g", who)
				}
			}
		}
		if got := e.messages(request{method: "GET", path: "/v3/groups/g/messages", headers: obo("dan")}); len(got.Data) != 0 {
			t.Fatalf("dan's group history after the delete: %s", got.texts())
		}
		e.send("bob", "g", "group", "fresh")
		if c := e.conversation(request{method: "GET", path: "/v3/groups/g/conversation", headers: obo("ann")}); c.UnreadMessageCount != "1" {
			t.Fatalf("after the delete and a new message: %+v", c)
		}
	})
}

// TestUnreadCountsUnderConcurrency: counts stay exact while messages are sent and read at once.
func TestUnreadCountsUnderConcurrency(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				from := []string{"ann", "bob"}[i%2]
				e.send(from, "g", "group", fmt.Sprint("m", i))
				if i%10 == 0 {
					r := e.do(request{method: "POST", path: "/v3/groups/g/conversation/delivered", headers: obo("cat")})
					if r.status != 200 {
						t.Errorf("delivered: %d %s", r.status, r.body)
					}
				}
			}()
		}
		wg.Wait()
		for who, want := range map[string]string{"cat": "60", "ann": "30", "bob": "30"} {
			if c := e.conversation(request{method: "GET", path: "/v3/groups/g/conversation", headers: obo(who)}); c.UnreadMessageCount != want {
				t.Errorf("%s: unread %s, want %s", who, c.UnreadMessageCount, want)
			}
		}
		if n := e.count(`SELECT last_seq FROM conversations WHERE conversation_id = 'group_g'`); n != 60 {
			t.Fatalf("last_seq %d", n)
		}
		if n := e.count(`SELECT COUNT(DISTINCT seq) FROM messages WHERE conversation_id = 'group_g' AND seq > 0`); n != 60 {
			t.Fatalf("%d distinct seqs", n)
		}
	})
}

// TestConversationEdges: what the contract review found.
func TestConversationEdges(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "PUT", path: "/v3/users/bob", body: `{"tags":["vip"]}`})
		first := e.send("bob", "ann", "user", "one")
		e.send("bob", "ann", "user", "two")
		e.mustGroup("g", "ann")
		e.ok(request{method: "POST", path: "/v3/groups/g/members", body: `{"participants":["bob"]}`})
		e.ok(request{method: "PUT", path: "/v3/groups/g", body: `{"tags":["team"]}`})
		e.send("bob", "g", "group", "hi")
		// userTags and groupTags together: either matches.
		if got := e.conversations(request{method: "GET", path: "/v3/conversations?userTags=vip&groupTags=team", headers: obo("ann")}); len(got) != 2 {
			t.Fatalf("userTags or groupTags: %d conversations", len(got))
		}
		// Tags of the other side only with withUserAndGroupTags.
		got := e.conversations(request{method: "GET", path: "/v3/conversations", headers: obo("ann")})
		for _, c := range got {
			if c.ConversationWith["tags"] != nil {
				t.Fatalf("tags without withUserAndGroupTags: %+v", c)
			}
		}
		got = e.conversations(request{method: "GET", path: "/v3/conversations?withUserAndGroupTags=true", headers: obo("ann")})
		for _, c := range got {
			if c.ConversationWith["tags"] == nil {
				t.Fatalf("no tags with withUserAndGroupTags: %+v", c)
			}
		}
		// A reset conversation refuses tags (and writes none), and unread stays behind the reset.
		e.ok(request{method: "DELETE", path: "/v3/users/bob/conversation", headers: obo("ann")})
		before := e.snapshot()
		r := e.do(request{method: "PUT", path: "/v3/users/bob/conversation", headers: obo("ann"), body: `{"tags":["x"]}`})
		if r.status != 404 || e.snapshot() != before {
			t.Fatalf("tags on a reset conversation: %d %s", r.status, r.body)
		}
		e.send("bob", "ann", "user", "three")
		e.ok(request{method: "DELETE", path: "/v3/users/bob/conversation/read", headers: obo("ann"), body: `{"messageId":` + first + `}`})
		c := e.conversation(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")})
		res := e.do(request{method: "GET", path: "/v3/users/bob/messages?unread=true&count=true", headers: obo("ann")})
		if c.UnreadMessageCount != "1" || string(res.body) != `{"data":[{"entityId":"bob","entityType":"user","count":1}]}`+"\n" {
			t.Fatalf("unread after a reset: %s and %s", c.UnreadMessageCount, res.body)
		}
	})
}

func TestMentions(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		r := e.do(request{method: "POST", path: "/v3/messages", headers: obo("ann"),
			body: `{"receiver":"g","receiverType":"group","data":{"text":"hi <@uid:BOB> and <@uid:cat>, <@uid:bob> again, <@uid:ghost>"}}`})
		if r.status != 200 {
			t.Fatalf("send: %d %s", r.status, r.body)
		}
		golden(t, "message_mentions", r.body)
		var m struct {
			Data struct {
				ID   string
				Data struct {
					Mentions map[string]struct{ UID, Name string }
				}
				MentionedUsers []struct{ UID string }
			}
		}
		json.Unmarshal(r.body, &m)
		if len(m.Data.Data.Mentions) != 2 || m.Data.Data.Mentions["bob"].Name != "bob" || len(m.Data.MentionedUsers) != 2 || m.Data.MentionedUsers[0].UID != "bob" {
			t.Fatalf("mentions: %+v", m.Data)
		}
		e.send("bob", "g", "group", "no mention here")
		got := e.ok(request{method: "GET", path: "/v3/messages/" + m.Data.ID, headers: obo("cat")})
		if got["mentionedMe"] != true {
			t.Fatalf("cat is mentioned: %v", got)
		}
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + m.Data.ID, headers: obo("ann")}); got["mentionedMe"] != nil {
			t.Fatalf("ann is not mentioned: %v", got)
		}
		// Reacting answers with the mentions too.
		if got := e.ok(request{method: "POST", path: "/v3/messages/" + m.Data.ID + "/reactions/x", headers: obo("bob")}); got["mentionedMe"] != true {
			t.Fatalf("reaction answer: %v", got)
		}
		// The filters, and the unread mention counts.
		for q, want := range map[string]int{"?hasMentions=true": 1, "?mentionedUids=cat": 1, "?mentionedUids=ann": 0, "?myMentionsOnly=true": 1} {
			if l := e.messages(request{method: "GET", path: "/v3/groups/g/messages" + q + "&categories=message", headers: obo("bob")}); len(l.Data) != want {
				t.Errorf("%s: %d messages, want %d", q, len(l.Data), want)
			}
		}
		for who, want := range map[string]int{"bob": 1, "cat": 1, "ann": 0} {
			if c := e.conversation(request{method: "GET", path: "/v3/groups/g/conversation", headers: obo(who)}); c.UnreadMentionsCount != want {
				t.Errorf("%s: %d unread mentions, want %d", who, c.UnreadMentionsCount, want)
			}
		}
		e.ok(request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("bob")})
		if c := e.conversation(request{method: "GET", path: "/v3/groups/g/conversation", headers: obo("bob")}); c.UnreadMentionsCount != 0 {
			t.Errorf("bob after reading: %d", c.UnreadMentionsCount)
		}
		// An edit re-reads the mentions.
		e.ok(request{method: "PUT", path: "/v3/messages/" + m.Data.ID, headers: obo("ann"), body: `{"data":{"text":"only <@uid:cat>"}}`})
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + m.Data.ID, headers: obo("bob")}); got["mentionedMe"] != nil || len(got["mentionedUsers"].([]any)) != 1 {
			t.Fatalf("after the edit: %v", got)
		}
		r = e.do(request{method: "GET", path: "/v3/messages?myMentionsOnly=true"})
		if r.status != 400 {
			t.Fatalf("myMentionsOnly without onBehalfOf: %d", r.status)
		}
	})
}

func TestBotMessages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("helper-bot", "Helper")
		e.mustUser("ann", "Ann")
		m := e.ok(request{method: "POST", path: "/v3/bots/helper-bot/messages", body: `{"receiver":"ann","receiverType":"user","data":{"text":"how can I help?"}}`})
		if m["sender"] != "helper-bot" || m["conversationId"] != "ann_user_helper-bot" {
			t.Fatalf("bot message: %v", m)
		}
		before := e.snapshot()
		for _, tc := range []struct {
			name, path, key, code string
			status                int
		}{
			{"unknown bot", "/v3/bots/ghost/messages", "", "ERR_UID_NOT_FOUND", 404},
			{"bad bot uid", "/v3/bots/a%20b/messages", "", "ERR_UID_NOT_FOUND", 404},
			{"authOnly key", "/v3/bots/helper-bot/messages", e.authKey, "AUTH_ERR_NO_ACCESS", 403},
		} {
			h := map[string]string{}
			if tc.key != "" {
				h["apikey"] = tc.key
			}
			r := e.do(request{method: "POST", path: tc.path, headers: h, body: `{"receiver":"ann","receiverType":"user","data":{"text":"x"}}`})
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
	})
}

// TestMentionEdges: own messages and replies do not count as unread mentions; the mention
// filters narrow each other; the sender sees its own mention.
func TestMentionEdges(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob"} {
			e.mustUser(u, u)
		}
		r := e.do(request{method: "POST", path: "/v3/messages", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user","data":{"text":"note to <@uid:ann>"}}`})
		if !strings.Contains(string(r.body), `"mentionedMe":true`) {
			t.Fatalf("own mention: %s", r.body)
		}
		var m struct{ Data struct{ ID string } }
		json.Unmarshal(r.body, &m)
		e.ok(request{method: "POST", path: "/v3/messages/" + m.Data.ID + "/thread", headers: obo("ann"), body: `{"data":{"text":"hey <@uid:bob>"}}`})
		if c := e.conversation(request{method: "GET", path: "/v3/users/bob/conversation", headers: obo("ann")}); c.UnreadMentionsCount != 0 {
			t.Fatalf("ann's own mention counted: %+v", c)
		}
		if c := e.conversation(request{method: "GET", path: "/v3/users/ann/conversation", headers: obo("bob")}); c.UnreadMentionsCount != 0 {
			t.Fatalf("a reply's mention counted: %+v", c)
		}
		if l := e.messages(request{method: "GET", path: "/v3/users/bob/messages?myMentionsOnly=true&mentionedUids=bob", headers: obo("ann")}); len(l.Data) != 0 {
			t.Fatalf("myMentionsOnly and mentionedUids together: %d", len(l.Data))
		}
	})
}

// TestEscapedMention: a mention written with JSON escapes is still one when read back.
func TestEscapedMention(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		id := e.send("ann", "bob", "user", `hi \u003c@uid:bob\u003e`)
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + id, headers: obo("bob")}); got["mentionedMe"] != true {
			t.Fatalf("escaped mention: %v", got)
		}
	})
}

// TestMessageListTotalPages: a message list's meta.pagination.total_pages tells the SDK's
// MessagesRequest whether to ask again (at 1 it stops without asking): 2 after a full page,
// 1 after a short one, in both directions.
func TestMessageListTotalPages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		var ids []string
		for i := 0; i < 3; i++ {
			ids = append(ids, e.send("ann", "bob", "user", "m"+strconv.Itoa(i)))
		}
		type meta struct {
			Meta struct {
				Pagination struct {
					Total      int `json:"total"`
					Count      int `json:"count"`
					TotalPages int `json:"total_pages"`
				}
			}
		}
		for _, tc := range []struct {
			query       string
			count, want int
		}{
			{"per_page=2&affix=prepend", 2, 2},              // the newest two: more before them
			{"per_page=2&affix=prepend&id=" + ids[1], 1, 1}, // the oldest, alone: the end
			{"per_page=3&affix=prepend", 3, 2},              // full, though the last: asked once more
			{"per_page=2&affix=prepend&id=" + ids[0], 0, 1}, // nothing before the first
			{"per_page=2&affix=append&id=" + ids[0], 2, 2},  // forward
			{"limit=5&affix=append&id=" + ids[0], 2, 1},
		} {
			r := e.do(request{method: "GET", path: "/v3/users/bob/messages?" + tc.query, headers: obo("ann")})
			var m meta
			json.Unmarshal(r.body, &m)
			p := m.Meta.Pagination
			if r.status != 200 || p.Count != tc.count || p.Total != tc.count || p.TotalPages != tc.want {
				t.Errorf("%s: %d %+v, want %d messages, total_pages %d", tc.query, r.status, p, tc.count, tc.want)
			}
		}
	})
}
