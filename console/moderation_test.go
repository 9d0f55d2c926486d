package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// moderated makes users alice and bob and a rule holding messages that say "forbidden".
func moderated(t *testing.T, e *env) chat.Principal {
	t.Helper()
	ctx := context.Background()
	p := principal(t, e)
	for _, uid := range []string{"alice", "bob"} {
		if _, err := e.svc.CreateUser(ctx, p, chat.UserCreate{UID: uid, Name: uid}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.Moderation().CreateRule(ctx, p, chat.RuleInput{ID: "no-forbidden", Name: "No forbidden words",
		Conditions: []chat.Condition{{Category: "word", Value: []string{"forbidden"}}}, Action: []string{chat.ActionBlockMessage}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Moderation().CreateKeywordList(ctx, p, chat.KeywordListInput{ID: "rude", Name: "Rude words", Terms: []string{"darn", "heck"}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestModerationPage: the queues show what waits for review; approving a held message sends
// it, rejecting one never does, and a flagged message disapproved is deleted; reviewing
// again, an unknown id or a forged form is refused with the page's error, never a 500.
func TestModerationPage(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		p := moderated(t, e)
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		send := func(text string) {
			t.Helper()
			res := e.post(t, c, "/console/messages", url.Values{"csrf": {csrf}, "sender": {"alice"}, "receiver": {"bob"},
				"receiverType": {"user"}, "text": {text}}, nil)
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("send %q: %d %s", text, res.StatusCode, body(res))
			}
		}
		send("hello bob")
		send("a forbidden one")
		send("another forbidden one")
		_, conv := e.get(t, c, "/console/messages?conversation=alice_user_bob")
		if !strings.Contains(conv, "hello bob") || strings.Contains(conv, "forbidden") {
			t.Fatalf("the conversation shows held messages or misses a sent one:\n%s", conv)
		}
		if got := e.sent(); len(got) != 1 || !strings.Contains(got[0], "hello bob") {
			t.Errorf("published to sockets: %q, want the sent message only (not the held ones)", got)
		}
		held, err := e.svc.Moderation().BlockedMessages(ctx, p, 0, 10)
		if err != nil || len(held) != 2 {
			t.Fatalf("held: %v %v", held, err)
		}
		approve, reject := held[1], held[0] // newest first
		m, err := e.svc.ListMessages(ctx, p, chat.MessagePage{ConversationID: "alice_user_bob", Limit: 10})
		if err != nil || len(m.Messages) != 1 {
			t.Fatalf("messages: %v %v", m, err)
		}
		hello := strconv.FormatInt(m.Messages[0].ID, 10)
		if err := e.svc.Moderation().FlagMessage(ctx, p.ActingAs("bob"), hello, chat.FlagInput{ReasonID: "spam", Remark: "too cheerful"}); err != nil {
			t.Fatal(err)
		}

		code, page := e.get(t, c, "/console/moderation")
		if code != http.StatusOK {
			t.Fatalf("moderation page: %d %s", code, page)
		}
		for _, want := range []string{"a forbidden one", "another forbidden one", "No forbidden words", "2 waiting for review",
			"hello bob", "too cheerful", "spam", "no-forbidden", "blockMessage", "Rude words", "hate_speech",
			`aria-current="page">Moderation`} {
			if !strings.Contains(page, want) {
				t.Errorf("the moderation page does not show %q", want)
			}
		}
		if !strings.Contains(between(page, `id="keyword-lists"`, "</table>"), "<td>2</td>") {
			t.Errorf("the keyword list's size is not shown:\n%s", between(page, `id="keyword-lists"`, "</table>"))
		}

		blocked := func(id int64) string { return "/console/moderation/blocked/" + strconv.FormatInt(id, 10) }
		if res := e.post(t, c, blocked(approve.MessageID), url.Values{"status": {"approved"}}, nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("approve without a CSRF token: %d", res.StatusCode)
		}
		if res := e.post(t, c, "/console/moderation/flagged/"+hello, url.Values{"status": {"disapproved"}}, nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("disapprove without a CSRF token: %d", res.StatusCode)
		}
		if res := e.post(t, c, blocked(reject.MessageID), url.Values{"csrf": {"forged"}, "status": {"rejected"}}, nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("reject with a forged CSRF token: %d", res.StatusCode)
		}
		if still, _ := e.svc.Moderation().BlockedMessages(ctx, p, 0, 10); still[0].Status != chat.ModPending || still[1].Status != chat.ModPending {
			t.Fatalf("a refused post reviewed a held message: %+v", still)
		}
		if res := e.post(t, c, blocked(approve.MessageID), url.Values{"csrf": {csrf}, "status": {"approved"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, blocked(reject.MessageID), url.Values{"csrf": {csrf}, "status": {"rejected"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("reject: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, "/console/moderation/flagged/"+hello, url.Values{"csrf": {csrf}, "status": {"disapproved"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("disapprove: %d %s", res.StatusCode, body(res))
		}
		// The approved message after the first, then the action message of the disapproved
		// flagged message's deletion.
		if got := e.sent(); len(got) != 3 || !strings.Contains(got[1], "a forbidden one") || !strings.Contains(got[2], `"deleted"`) {
			t.Errorf("published to sockets: %q, want the approved message after the first, then the deletion", got)
		}
		_, conv = e.get(t, c, "/console/messages?conversation=alice_user_bob")
		if !strings.Contains(conv, "a forbidden one") || strings.Contains(conv, "another forbidden one") || strings.Contains(conv, "hello bob") {
			t.Fatalf("after review the conversation should show the approved message only:\n%s", conv)
		}
		_, page = e.get(t, c, "/console/moderation")
		for _, want := range []string{"No held messages waiting.", "No flagged messages waiting."} {
			if !strings.Contains(page, want) {
				t.Errorf("after review the page does not say %q", want)
			}
		}

		for _, tc := range []struct {
			name, path string
			form       url.Values
			status     int
			says       string
		}{
			{"approve twice", blocked(approve.MessageID), url.Values{"status": {"approved"}}, 409, "already been reviewed"},
			{"reject an approved one", blocked(approve.MessageID), url.Values{"status": {"rejected"}}, 409, "already been reviewed"},
			{"review a flagged one twice", "/console/moderation/flagged/" + hello, url.Values{"status": {"approved"}}, 409, "already been reviewed"},
			{"no such held message", blocked(999999), url.Values{"status": {"approved"}}, 404, "does not exist"},
			{"a held message id that is no number", "/console/moderation/blocked/abc", url.Values{"status": {"approved"}}, 404, "does not exist"},
			{"held message of a bad status", blocked(reject.MessageID), url.Values{"status": {"maybe"}}, 400, "status"},
			{"no such flagged message", "/console/moderation/flagged/999999", url.Values{"status": {"approved"}}, 404, "not flagged"},
			{"flagged of a bad status", "/console/moderation/flagged/" + hello, url.Values{"status": {"rejected"}}, 400, "status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.form.Set("csrf", csrf)
				res := e.post(t, c, tc.path, tc.form, nil)
				b := body(res)
				if res.StatusCode != tc.status || !strings.Contains(b, tc.says) || !strings.Contains(b, `role="alert"`) {
					t.Fatalf("got %d, want %d saying %q:\n%s", res.StatusCode, tc.status, tc.says, b)
				}
				if !strings.Contains(b, `id="blocked-messages"`) {
					t.Errorf("the refusal is not shown on the moderation page")
				}
			})
		}
		// Another app's session sees none of this app's queues.
		oc := e.browser(t)
		e.signIn(t, oc, "other", e.other)
		if _, page := e.get(t, oc, "/console/moderation"); strings.Contains(page, "forbidden") || strings.Contains(page, "Rude words") {
			t.Errorf("another app's console shows this app's moderation:\n%s", page)
		}
	})
}

// between is the part of s from the first from up to the next to.
func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	before, _, _ := strings.Cut(after, to)
	return before
}

// TestModerationQueuePastReviewed: a held message older than a page of reviewed ones is
// still in the queue.
func TestModerationQueuePastReviewed(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		p := moderated(t, e)
		send := func(text string) {
			t.Helper()
			if _, err := e.svc.SendMessage(ctx, p.ActingAs("alice"), chat.MessageSend{Receiver: "bob", ReceiverType: "user", Category: "message",
				Type: "text", Data: []byte(`{"text":"` + text + `"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		send("the oldest forbidden one")
		for i := range chat.MaxModerationPage + 5 {
			send("forbidden " + strconv.Itoa(i))
		}
		held, err := e.svc.Moderation().BlockedMessages(ctx, p, 0, chat.MaxModerationPage+5)
		if err != nil || len(held) != chat.MaxModerationPage+5 {
			t.Fatalf("held: %d %v", len(held), err)
		}
		for _, b := range held {
			if _, err := e.svc.Moderation().ReviewBlocked(ctx, p, strconv.FormatInt(b.MessageID, 10), chat.ModRejected); err != nil {
				t.Fatal(err)
			}
		}
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		_, page := e.get(t, c, "/console/moderation")
		queue := between(page, `id="blocked-messages"`, "</table>")
		if !strings.Contains(queue, "1 waiting for review<") || !strings.Contains(queue, "the oldest forbidden one") || strings.Contains(queue, "forbidden 0") {
			t.Errorf("the queue:\n%s", queue)
		}
	})
}

// TestReactPublishes: a reaction added in the console reaches the message's sockets, as one
// through the API does; a refused one tells nobody.
func TestReactPublishes(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		p := moderated(t, e)
		m, err := e.svc.SendMessage(context.Background(), p.ActingAs("alice"), chat.MessageSend{Receiver: "bob", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"hi"}`)})
		if err != nil {
			t.Fatal(err)
		}
		c := e.browser(t)
		_, csrf := e.signIn(t, c, "demo", e.full)
		path := "/console/messages/" + strconv.FormatInt(m.ID, 10) + "/reactions"
		if res := e.post(t, c, path, url.Values{"csrf": {csrf}, "uid": {"bob"}, "reaction": {"👍"}}, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("react: %d %s", res.StatusCode, body(res))
		}
		if res := e.post(t, c, path, url.Values{"csrf": {csrf}, "uid": {"bob"}, "reaction": {""}}, nil); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("an empty reaction: %d", res.StatusCode)
		}
		e.pubMu.Lock()
		got := strings.Join(e.reactions, "|")
		e.pubMu.Unlock()
		if want := "bob 👍 " + strconv.FormatInt(m.ID, 10); got != want {
			t.Errorf("published reactions: %q, want %q", got, want)
		}
	})
}
