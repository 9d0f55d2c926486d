package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/notify"
)

// reply sends a reply into the thread of parent and answers its id.
func (e *env) reply(from, parent, text string) string {
	e.t.Helper()
	m, err := e.c.OnBehalfOf(from).SendThreadMessage(context.Background(), parent, client.SendMessageRequest{
		Data: map[string]any{"text": text}})
	if err != nil {
		e.t.Fatalf("reply %s: %v", text, err)
	}
	return m.ID
}

// threads lists uid's threads as "parent text:replies:unread:mentions:last reply text".
func (e *env) threads(uid string, p client.ThreadListParams) (string, *client.ThreadList) {
	e.t.Helper()
	l, err := e.c.OnBehalfOf(uid).ListThreads(context.Background(), p)
	if err != nil {
		e.t.Fatalf("threads of %s: %v", uid, err)
	}
	var out []string
	for _, th := range l.Data {
		last := "-"
		if th.LastReply != nil {
			last = th.LastReply.Data.Text
		}
		if !th.ThreadSubscribed || th.ParentMessageID != th.ID {
			e.t.Errorf("thread %s: subscribed %v, parentMessageId %s", th.ID, th.ThreadSubscribed, th.ParentMessageID)
		}
		out = append(out, fmt.Sprintf("%s:%d:%d:%d:%s", th.Data.Text, th.ReplyCount, th.UnreadReplyCount, th.UnreadMentionCount, last))
	}
	return strings.Join(out, " "), l
}

func TestThreads(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		for _, u := range []string{"ann", "bob", "cat", "dan"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		plan := e.send("ann", "g", "group", "plan")
		lunch := e.send("bob", "g", "group", "lunch")
		dm := e.send("ann", "bob", "user", "dm")

		// Nobody follows a thread without replies; the first reply makes its replier and the
		// parent's author follow it, a mention the user mentioned.
		if got, _ := e.threads("ann", client.ThreadListParams{}); got != "" {
			t.Fatalf("ann's threads before any reply: %q", got)
		}
		e.reply("bob", plan, "ok")
		e.reply("cat", plan, "me too <@uid:dan>") // dan is no member: not a follower of a group thread he cannot read
		e.reply("bob", plan, "and <@uid:cat>")
		if got, _ := e.threads("ann", client.ThreadListParams{}); got != "plan:3:3:0:and <@uid:cat>" {
			t.Fatalf("ann's threads: %q", got)
		}
		if got, _ := e.threads("cat", client.ThreadListParams{}); got != "plan:3:2:1:and <@uid:cat>" {
			t.Fatalf("cat's threads: %q", got)
		}
		if got, _ := e.threads("dan", client.ThreadListParams{}); got != "" {
			t.Fatalf("dan follows a thread of a group he is not in: %q", got)
		}

		// Reading the conversation reads its replies before the marker.
		e.send("cat", "g", "group", "later")
		e.ok(request{method: "POST", path: "/v3/groups/g/conversation/read", headers: obo("ann")})
		e.reply("bob", plan, "after the read")
		if got, _ := e.threads("ann", client.ThreadListParams{}); got != "plan:4:1:0:after the read" {
			t.Fatalf("ann's threads after reading: %q", got)
		}

		// Subscribing to a thread without replies lists it, newest first; again changes nothing.
		if a, err := e.c.OnBehalfOf("ann").SubscribeThread(ctx, lunch); err != nil || !a.Success {
			t.Fatalf("subscribe: %v %v", a, err)
		}
		before := e.snapshot()
		if _, err := e.c.OnBehalfOf("ann").SubscribeThread(ctx, lunch); err != nil || e.snapshot() != before {
			t.Fatalf("subscribing again: %v", err)
		}
		// Messages read on a user's behalf say whether it follows their threads.
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + lunch + "?withThreadSubscribed=true", headers: obo("ann")}); got["threadSubscribed"] != true {
			t.Fatalf("ann's lunch: %v", got)
		}
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + lunch, headers: obo("cat")}); got["threadSubscribed"] != nil {
			t.Fatalf("cat's lunch: %v", got)
		}
		var follows []string
		for _, m := range e.messages(request{method: "GET", path: "/v3/groups/g/messages?hideReplies=true&withThreadSubscribed=true", headers: obo("cat")}).Data {
			if m.ThreadSubscribed {
				follows = append(follows, m.Data.Text)
			}
		}
		if strings.Join(follows, ",") != "plan" {
			t.Fatalf("cat follows %v", follows)
		}
		e.reply("ann", dm, "in the dm")
		got, l := e.threads("ann", client.ThreadListParams{})
		if got != "dm:1:0:0:in the dm lunch:0:0:0:- plan:4:1:0:after the read" {
			t.Fatalf("ann's threads, three: %q", got)
		}
		// The SDK's setUid and setGuid: one conversation's threads.
		scoped := func(path string) string {
			t.Helper()
			var l struct{ Data []struct{ ID string } }
			r := e.do(request{method: "GET", path: path, headers: obo("ann")})
			if r.status != 200 || json.Unmarshal(r.body, &l) != nil {
				t.Fatalf("%s: %d %s", path, r.status, r.body)
			}
			var ids []string
			for _, d := range l.Data {
				ids = append(ids, d.ID)
			}
			return strings.Join(ids, ",")
		}
		if got := scoped("/v3/users/bob/threads?limit=30&participatedByMe=true"); got != dm {
			t.Fatalf("ann's threads with bob: %s, want %s", got, dm)
		}
		if got := scoped("/v3/groups/g/threads?limit=1&affix=prepend&updatedAt=99999999999&id=99999999"); got != lunch {
			t.Fatalf("ann's first thread in g: %s, want %s", got, lunch)
		}
		if got := scoped("/v3/users/cat/threads"); got != "" {
			t.Fatalf("ann's threads with cat: %s", got)
		}
		inG := client.ThreadListParams{GUID: "g", Limit: 1}
		firstG, pageG := e.threads("ann", inG)
		nextG, _ := e.threads("ann", inG.NextPage(pageG))
		if !strings.HasPrefix(firstG, "lunch:") || !strings.HasPrefix(nextG, "plan:") {
			t.Fatalf("the Go client's pages of g: %q then %q", firstG, nextG)
		}
		// Paging by meta.next, one at a time, walks the same list without repeats.
		var walked []string
		p := client.ThreadListParams{Limit: 1}
		for range 5 {
			s, page := e.threads("ann", p)
			if s == "" {
				break
			}
			walked = append(walked, strings.SplitN(s, ":", 2)[0])
			p = page.NextParams(1)
		}
		if strings.Join(walked, ",") != "dm,lunch,plan" || l.Meta.Current.Count != 3 {
			t.Fatalf("walked %v", walked)
		}
		// append walks back up from the oldest.
		if s, _ := e.threads("ann", client.ThreadListParams{Affix: "append", UpdatedAt: 1}); !strings.HasPrefix(s, "plan:") {
			t.Fatalf("append from the start: %q", s)
		}

		// Unsubscribing takes it off the list; replying follows it again.
		if _, err := e.c.OnBehalfOf("ann").UnsubscribeThread(ctx, plan); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.threads("ann", client.ThreadListParams{}); got != "dm:1:0:0:in the dm lunch:0:0:0:-" {
			t.Fatalf("after unsubscribing: %q", got)
		}
		before = e.snapshot()
		if _, err := e.c.OnBehalfOf("ann").UnsubscribeThread(ctx, plan); err != nil || e.snapshot() != before {
			t.Fatalf("unsubscribing again: %v", err)
		}
		e.reply("bob", plan, "ann left")
		if got, _ := e.threads("ann", client.ThreadListParams{}); strings.Contains(got, "plan") {
			t.Fatalf("a reply resubscribed ann: %q", got)
		}
		e.reply("ann", plan, "back")
		if got, _ := e.threads("ann", client.ThreadListParams{}); !strings.Contains(got, "plan:6:2:0:back") {
			t.Fatalf("replying did not resubscribe ann: %q", got)
		}
		// A thread's replies page by cursor (limit, affix, id from meta.next); page 1 is the first page.
		path := "/v3/messages/" + plan + "/thread"
		first := e.messages(request{method: "GET", path: path + "?limit=4&page=1", headers: obo("ann")})
		next := e.messages(request{method: "GET", path: path + "?limit=4&affix=" + first.Meta.Next.Affix + "&id=" + first.Meta.Next.ID, headers: obo("ann")})
		if first.texts() != "ok,me too <@uid:dan>,and <@uid:cat>,after the read" || next.texts() != "ann left,back" || next.Meta.Current.Count != 2 {
			t.Fatalf("thread pages: %q then %q", first.texts(), next.texts())
		}
		newest := e.messages(request{method: "GET", path: path + "?limit=2&affix=prepend", headers: obo("ann")})
		older := e.messages(request{method: "GET", path: path + "?limit=2&affix=prepend&id=" + newest.Meta.Next.ID, headers: obo("ann")})
		if newest.texts() != "ann left,back" || older.texts() != "and <@uid:cat>,after the read" {
			t.Fatalf("thread pages backwards: %q then %q", newest.texts(), older.texts())
		}
		if r := e.do(request{method: "GET", path: path + "?page=2", headers: obo("ann")}); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
			t.Fatalf("page 2: %d %s", r.status, r.body)
		}
		// A member who leaves the group no longer sees its threads.
		e.ok(request{method: "DELETE", path: "/v3/groups/g/members", headers: obo("cat")})
		if got, _ := e.threads("cat", client.ThreadListParams{}); got != "" {
			t.Fatalf("cat left the group: %q", got)
		}

		reply := e.reply("bob", lunch, "soup")
		action := e.ok(request{method: "PUT", path: "/v3/messages/" + dm, headers: obo("ann"), body: `{"data":{"text":"dm!"}}`})["id"].(string)
		deleted := e.send("ann", "bob", "user", "gone")
		e.ok(request{method: "DELETE", path: "/v3/messages/" + deleted, headers: obo("ann")})
		_, otherKey := e.newApp("other", "us")
		before = e.snapshot()
		sub := func(method, id, uid string) request {
			return request{method: method, path: "/v3/messages/" + id + "/thread/subscription", headers: obo(uid)}
		}
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"unknown message", sub("POST", "999999", "ann"), 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"not an id", sub("DELETE", "abc", "ann"), 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"not a party", sub("POST", dm, "cat"), 403, "ERR_MESSAGE_NO_ACCESS"},
			{"not a member", sub("POST", lunch, "dan"), 403, "ERR_MESSAGE_NO_ACCESS"},
			{"a reply has no thread", sub("POST", reply, "bob"), 400, "ERR_MESSAGE_THREAD_NESTING"},
			{"an action has no thread", sub("POST", action, "ann"), 400, "ERR_WRONG_MESSAGE_THREAD_CATEGORY"},
			{"a deleted message", sub("POST", deleted, "ann"), 409, "ERR_MESSAGE_ACTION_NOT_ALLOWED"},
			{"without onBehalfOf", request{method: "POST", path: "/v3/messages/" + dm + "/thread/subscription"}, 400, "ERR_BAD_REQUEST"},
			{"unknown user", sub("POST", dm, "ghost"), 404, "ERR_UID_NOT_FOUND"},
			{"another app's message", request{method: "POST", path: "/v3/messages/" + dm + "/thread/subscription", headers: map[string]string{"apikey": otherKey, "onBehalfOf": "ann"}}, 404, "ERR_UID_NOT_FOUND"},
			{"authOnly key", request{method: "POST", path: "/v3/messages/" + dm + "/thread/subscription", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
			{"list without onBehalfOf", request{method: "GET", path: "/v3/threads"}, 400, "ERR_BAD_REQUEST"},
			{"list, bad limit", request{method: "GET", path: "/v3/threads?limit=1001", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, bad affix", request{method: "GET", path: "/v3/threads?affix=sideways", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, bad cursor", request{method: "GET", path: "/v3/threads?updatedAt=soon", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, bad id", request{method: "GET", path: "/v3/threads?updatedAt=5&id=x", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, every thread", request{method: "GET", path: "/v3/threads?participatedByMe=false", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, bad flag", request{method: "GET", path: "/v3/threads?withMentionCount=maybe", headers: obo("ann")}, 400, "ERR_BAD_REQUEST"},
			{"list, unknown user", request{method: "GET", path: "/v3/threads", headers: obo("ghost")}, 404, "ERR_UID_NOT_FOUND"},
			{"a conversation's, unknown user", request{method: "GET", path: "/v3/users/ghost/threads", headers: obo("ann")}, 404, "ERR_UID_NOT_FOUND"},
			{"a group's, unknown group", request{method: "GET", path: "/v3/groups/nope/threads", headers: obo("ann")}, 404, "ERR_GUID_NOT_FOUND"},
			{"a group's without onBehalfOf", request{method: "GET", path: "/v3/groups/g/threads"}, 400, "ERR_BAD_REQUEST"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || e.snapshot() != before {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
		// A deleted message may be unsubscribed from; the SDK's request shape is served.
		if r := e.do(sub("DELETE", deleted, "ann")); r.status != 200 {
			t.Fatalf("unsubscribing from a deleted message: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "GET", path: "/v3/threads?participatedByMe=true&limit=30&affix=prepend&updatedAt=99999999999&id=99999999", headers: obo("bob")}); r.status != 200 ||
			!strings.Contains(string(r.body), `"unreadReplyCount"`) {
			t.Fatalf("the SDK's request: %d %s", r.status, r.body)
		}
		// Follows go with what they are about: a user deleted for good, a deleted group.
		e.ok(request{method: "DELETE", path: "/v3/users/dan", body: `{"permanent":true}`})
		e.ok(request{method: "DELETE", path: "/v3/users/bob", body: `{"permanent":true}`})
		if n := e.count(`SELECT COUNT(*) FROM thread_subscriptions WHERE uid = 'bob' OR parent_id = ` + dm); n != 0 {
			t.Fatalf("%d follows of bob's or of his conversations' threads left", n)
		}
		if e.count(`SELECT COUNT(*) FROM thread_subscriptions WHERE conversation_id = 'group_g'`) == 0 {
			t.Fatal("the group's follows went before the group")
		}
		e.ok(request{method: "DELETE", path: "/v3/groups/g"})
		if n := e.count(`SELECT COUNT(*) FROM thread_subscriptions`); n != 0 {
			t.Fatalf("%d follows left of a deleted group", n)
		}
	})
}

// TestThreadReplyNotifications: who a reply notifies, by the recipients' follows of its
// thread and their replies preference (docs/notifications.md, "thread replies").
func TestThreadReplyNotifications(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat", "dan", "eve"} {
				e.mustUser(u, u)
			}
			e.mustGroup("g", "ann", "bob", "cat", "dan", "eve")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// eve is told only of the replies in threads she follows.
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "eve", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupReplies: ptr(4)}}); err != nil {
				t.Fatal(err)
			}
			plan := e.send("ann", "g", "group", "plan")
			fake.received(t, 4)
			// cat leaves the thread before any reply.
			if _, err := e.c.OnBehalfOf("cat").UnsubscribeThread(e.ctx(), plan); err != nil {
				t.Fatal(err)
			}
			first := e.reply("bob", plan, "ok")
			fake.received(t, 6) // ann (the author, following now) and dan (a bystander)
			want := []string{
				"ann push custom attempt 0 triggered",
				"ann push custom attempt 1 sent",
				"cat push custom attempt 0 no: unsubscribed",
				"dan push custom attempt 0 triggered",
				"dan push custom attempt 1 sent",
				"eve push custom attempt 0 no: notSubscribed",
			}
			if got := decisions(e.logs(url.Values{"messageId": {first}})); !slices.Equal(got, want) {
				t.Errorf("the first reply:\n%q\nwant\n%q", got, want)
			}
			// A mention makes cat and eve follow the thread, and tells them.
			second := e.reply("bob", plan, "<@uid:cat> <@uid:eve> see")
			fake.received(t, 10)
			want = []string{
				"ann push custom attempt 0 triggered",
				"ann push custom attempt 1 sent",
				"cat push custom attempt 0 triggered",
				"cat push custom attempt 1 sent",
				"dan push custom attempt 0 triggered",
				"dan push custom attempt 1 sent",
				"eve push custom attempt 0 triggered",
				"eve push custom attempt 1 sent",
			}
			if got := decisions(e.logs(url.Values{"messageId": {second}})); !slices.Equal(got, want) {
				t.Errorf("the reply with mentions:\n%q\nwant\n%q", got, want)
			}
			// eve now follows it without a mention.
			third := e.reply("bob", plan, "again")
			fake.received(t, 14)
			if got := decisions(e.logs(url.Values{"messageId": {third}, "recipient": {"eve"}})); !slices.Equal(got, want[6:]) {
				t.Errorf("eve, following: %q", got)
			}
		})
	}
}

// TestThreadItemKeysOnce: a thread's keys are each written once, replyCount too, with
// replies or without (updatedAt four times: two threads, a last reply, meta.next).
func TestThreadItemKeysOnce(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		one := e.send("ann", "bob", "user", "one")
		two := e.send("ann", "bob", "user", "two")
		e.reply("bob", one, "re")
		if _, err := e.c.OnBehalfOf("ann").SubscribeThread(context.Background(), two); err != nil {
			t.Fatal(err)
		}
		r := e.do(request{method: "GET", path: "/v3/threads", headers: obo("ann")})
		body := string(r.body)
		if r.status != 200 || strings.Count(body, `"replyCount"`) != 2 || strings.Count(body, `"threadSubscribed"`) != 2 ||
			strings.Count(body, `"updatedAt"`) != 4 || !strings.Contains(body, `"replyCount":0`) || !strings.Contains(body, `"replyCount":1`) {
			t.Fatalf("threads: %d %s", r.status, body)
		}
	})
}
