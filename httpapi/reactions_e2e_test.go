package httpapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

// TestSeedReactionScenario rebuilds the hosted service's documented add-reaction response: two users, one text message, four
// reactions from the two users, every response compared with a golden file (key names,
// types, reactedByMe present or absent, ids as strings, times as integers, no other keys).
func TestSeedReactionScenario(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("cometchat-uid-1", "Andrew Joseph")
		e.mustUser("cometchat-uid-2", "George Alan")
		m := e.mustText("cometchat-uid-1", "cometchat-uid-2", "Hello")
		for i, step := range []struct{ uid, reaction string }{
			{"cometchat-uid-1", "😀"},
			{"cometchat-uid-2", "😀"},
			{"cometchat-uid-2", ":reaction"},
			{"cometchat-uid-1", "👍🏽"},
		} {
			r := e.do(request{method: "POST", path: "/v3/messages/" + m.ID + "/reactions/" + url.PathEscape(step.reaction),
				headers: map[string]string{"onBehalfOf": step.uid}})
			if r.status != 200 {
				t.Fatalf("step %d: %d %s", i, r.status, r.body)
			}
			golden(t, fmt.Sprintf("reaction_seed_%d", i+1), r.body)
		}
		golden(t, "reaction_seed_get_as_uid2", e.do(request{method: "GET", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": "cometchat-uid-2"}}).body)
		golden(t, "reaction_seed_list", e.do(request{method: "GET", path: "/v3/messages/" + m.ID + "/reactions"}).body)
	})
}

func summary(m *client.Message) string {
	var b strings.Builder
	for _, r := range m.Data.Reactions {
		fmt.Fprintf(&b, "%s=%d", r.Reaction, r.Count)
		if r.ReactedByMe {
			b.WriteString("*")
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func TestReactionRules(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "hi")
		alice, bob := e.c.OnBehalfOf("alice"), e.c.OnBehalfOf("bob")
		step := func(c *client.Client, add bool, reaction, want string) {
			t.Helper()
			var got *client.Message
			var err error
			if add {
				got, err = c.AddReaction(e.ctx(), m.ID, reaction)
			} else {
				got, err = c.RemoveReaction(e.ctx(), m.ID, reaction)
			}
			if err != nil {
				t.Fatalf("%v %q: %v", add, reaction, err)
			}
			if s := summary(got); s != want {
				t.Fatalf("after %v %q: got %q, want %q", add, reaction, s, want)
			}
			if got.UpdatedAt != m.UpdatedAt {
				t.Errorf("a reaction changed updatedAt")
			}
		}
		step(alice, true, "👍", "👍=1*")
		step(alice, true, "👍", "👍=1*") // idempotent
		step(bob, true, "❤️", "👍=1 ❤️=1*")
		step(bob, true, "👍", "👍=2* ❤️=1*")
		step(alice, false, "👍", "👍=1 ❤️=1") // order by first appearance stays put
		step(alice, false, "👍", "👍=1 ❤️=1") // removing what is not there is a no-op
		step(bob, false, "👍", "❤️=1*")
		step(bob, true, "👍", "❤️=1* 👍=1*") // re-added: a new appearance, last
		for _, r := range []string{"👩‍👩‍👧‍👦", "👋🏿", ":reaction", "+1", "a/b", "%", "a b", "🇫🇷", strings.Repeat("é", 64)} {
			got, err := alice.AddReaction(e.ctx(), m.ID, r)
			if err != nil {
				t.Fatalf("reaction %q: %v", r, err)
			}
			last := got.Data.Reactions[len(got.Data.Reactions)-1]
			if last.Reaction != r || last.Count != 1 || !last.ReactedByMe {
				t.Errorf("reaction %q came back as %+v", r, last)
			}
		}
		if n := e.count("SELECT COUNT(*) FROM reactions"); n != 11 {
			t.Errorf("%d reaction rows", n)
		}
	})
}

func TestReactionBadInput(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		other, _ := e.newApp("other", "us")
		for _, c := range []*client.Client{e.c, other} {
			for _, uid := range []string{"alice", "bob"} {
				if _, err := c.CreateUser(e.ctx(), client.CreateUserRequest{UID: uid, Name: uid}); err != nil {
					t.Fatal(err)
				}
			}
		}
		e.mustUser("eve", "Eve")
		e.mustUser("gone", "Gone")
		m := e.mustText("alice", "bob", "hi")
		if _, err := e.c.OnBehalfOf("alice").AddReaction(e.ctx(), m.ID, "👍"); err != nil {
			t.Fatal(err)
		}
		om, err := other.OnBehalfOf("alice").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "text", Data: map[string]any{"text": "other"}})
		if err != nil {
			t.Fatal(err)
		}
		deleted := e.mustText("alice", "bob", "to delete")
		if _, err := e.c.OnBehalfOf("alice").DeleteMessage(e.ctx(), deleted.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		path := func(id, reaction string) string { return "/v3/messages/" + id + "/reactions/" + reaction }
		for _, tc := range []struct {
			name, method, path, obo, key string
			status                       int
			code                         string
		}{
			{"missing onBehalfOf", "POST", path(m.ID, "x"), "", "", 400, "ERR_BAD_REQUEST"},
			{"unknown onBehalfOf", "POST", path(m.ID, "x"), "ghost", "", 404, "ERR_UID_NOT_FOUND"},
			{"invalid onBehalfOf", "POST", path(m.ID, "x"), "a b", "", 404, "ERR_UID_NOT_FOUND"},
			{"deactivated onBehalfOf", "POST", path(m.ID, "x"), "gone", "", 404, "ERR_UID_NOT_FOUND"},
			{"not a participant", "POST", path(m.ID, "x"), "eve", "", 403, "ERR_MESSAGE_NO_ACCESS"},
			{"unknown message", "POST", path("999999", "x"), "alice", "", 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"non-numeric message id", "POST", path("abc", "x"), "alice", "", 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"negative message id", "POST", path("-1", "x"), "alice", "", 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"huge message id", "POST", path("99999999999999999999999", "x"), "alice", "", 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"deleted message", "POST", path(deleted.ID, "x"), "alice", "", 409, "ERR_MESSAGE_ACTION_NOT_ALLOWED"},
			{"another app's message", "POST", path(om.ID, "x"), "alice", "", 404, "ERR_MESSAGE_ID_NOT_FOUND"},
			{"65 characters", "POST", path(m.ID, strings.Repeat("a", 65)), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"65 emoji", "POST", path(m.ID, url.PathEscape(strings.Repeat("😀", 65))), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"control character", "POST", path(m.ID, "a%00b"), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"newline", "POST", path(m.ID, "a%0Ab"), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"DEL character", "POST", path(m.ID, "%7F"), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"invalid UTF-8 after decoding", "POST", path(m.ID, "%FF%FE"), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"truncated UTF-8", "POST", path(m.ID, "%F0%9F%91"), "alice", "", 400, "ERR_BAD_REQUEST"},
			{"empty reaction", "POST", "/v3/messages/" + m.ID + "/reactions/", "alice", "", 400, "ERR_BAD_REQUEST"},
			{"authOnly key", "POST", path(m.ID, "x"), "alice", e.authKey, 403, "AUTH_ERR_NO_ACCESS"},
			{"remove: missing onBehalfOf", "DELETE", path(m.ID, "%F0%9F%91%8D"), "", "", 400, "ERR_BAD_REQUEST"},
			{"remove: not a participant", "DELETE", path(m.ID, "%F0%9F%91%8D"), "eve", "", 403, "ERR_MESSAGE_NO_ACCESS"},
			{"list: not a participant", "GET", "/v3/messages/" + m.ID + "/reactions", "eve", "", 403, "ERR_MESSAGE_NO_ACCESS"},
			{"list: limit over 100", "GET", "/v3/messages/" + m.ID + "/reactions?limit=101", "", "", 400, "ERR_BAD_REQUEST"},
			{"list: bad affix", "GET", "/v3/messages/" + m.ID + "/reactions?affix=sideways", "", "", 400, "ERR_BAD_REQUEST"},
			{"list: bad cursor", "GET", "/v3/messages/" + m.ID + "/reactions?id=x", "", "", 400, "ERR_BAD_REQUEST"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				h := map[string]string{"onBehalfOf": tc.obo}
				if tc.key != "" {
					h["apikey"] = tc.key
				}
				r := e.do(request{method: tc.method, path: tc.path, headers: h})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if e.snapshot() != before {
					t.Error("a failed request wrote")
				}
			})
		}
	})
}

func TestListReactionsPaging(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "hi")
		for i := 0; i < 7; i++ {
			who := []string{"alice", "bob"}[i%2]
			if _, err := e.c.OnBehalfOf(who).AddReaction(e.ctx(), m.ID, fmt.Sprint("r", i%3)); err != nil {
				t.Fatal(err)
			}
		}
		var seen []string
		p := client.ListReactionsParams{Limit: 3}
		for page := 0; ; page++ {
			l, err := e.c.ListReactions(e.ctx(), m.ID, p)
			if err != nil {
				t.Fatal(err)
			}
			if l.Limit != 3 || l.Count != len(l.Reactions) {
				t.Fatalf("meta: %+v", l)
			}
			for _, r := range l.Reactions {
				seen = append(seen, r.ID+":"+r.UID+":"+r.Reaction)
				if r.ReactedBy.UID != r.UID || r.MessageID != m.ID {
					t.Errorf("record: %+v", r)
				}
			}
			if l.Next == nil {
				t.Fatalf("page %d has no next: %+v", page, l)
			}
			if !l.More() {
				break
			}
			p.ID, p.Affix = l.Next.ID, l.Next.Affix
			if page > 5 {
				t.Fatal("paging does not end")
			}
		}
		// 7 adds, of which (alice r0, bob r1, alice r2, bob r0, alice r1, bob r2, alice r0) one repeats.
		if len(seen) != 6 {
			t.Fatalf("paged %d records: %v", len(seen), seen)
		}
		l, err := e.c.ListReactions(e.ctx(), m.ID, client.ListReactionsParams{Reaction: "r0"})
		if err != nil || len(l.Reactions) != 2 || l.Next == nil || l.Next.ID != l.Reactions[1].ID || l.More() {
			t.Fatalf("filtered: %+v %v", l, err)
		}
		// A first page that is empty points at 0, which pages from the start.
		bare, err := e.c.OnBehalfOf("alice").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user",
			Category: "message", Type: "text", Data: map[string]any{"text": "none yet"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"", "0"} {
			empty, err := e.c.ListReactions(e.ctx(), bare.ID, client.ListReactionsParams{ID: id})
			if err != nil || len(empty.Reactions) != 0 || empty.Next == nil || *empty.Next != (client.ReactionCursor{Affix: "append", ID: "0"}) {
				t.Fatalf("empty first page from %q: %+v %v", id, empty, err)
			}
		}
		// Past the end: an empty page whose next stays where it was asked from.
		end, err := e.c.ListReactions(e.ctx(), m.ID, client.ListReactionsParams{Affix: "append", ID: "999999"})
		if err != nil || len(end.Reactions) != 0 || end.Next == nil || *end.Next != (client.ReactionCursor{Affix: "append", ID: "999999"}) {
			t.Fatalf("past the end: %+v %v", end, err)
		}
		back, err := e.c.ListReactions(e.ctx(), m.ID, client.ListReactionsParams{Affix: "prepend", ID: "5", Limit: 2})
		if err != nil || len(back.Reactions) != 2 || back.Reactions[0].ID != "3" || back.Reactions[1].ID != "4" || back.Next == nil || back.Next.ID != "3" {
			t.Fatalf("prepend: %+v %v", back, err)
		}
	})
}

// TestConcurrentReactions races requests against the real database through real HTTP.
func TestConcurrentReactions(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		race := func(n int, f func(i int) error) {
			t.Helper()
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs <- f(i)
				}()
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					if ce, ok := err.(*client.Error); !ok || ce.Code != "ERR_REACTION_LIMIT_EXCEEDED" {
						t.Fatalf("unexpected error: %v", err)
					}
				}
			}
		}
		countsMatchRows := func(msgID string) {
			t.Helper()
			if n := e.count(`SELECT COUNT(*) FROM reaction_counts c WHERE c.count <> (SELECT COUNT(*) FROM reactions r
				WHERE r.message_id = c.message_id AND r.reaction = c.reaction)`); n != 0 {
				t.Fatalf("%d counts drifted from their rows", n)
			}
			if n := e.count(`SELECT COUNT(*) FROM reactions r WHERE NOT EXISTS (SELECT 1 FROM reaction_counts c
				WHERE c.message_id = r.message_id AND c.reaction = r.reaction)`); n != 0 {
				t.Fatalf("%d reactions have no count", n)
			}
		}

		// One user adds the same reaction 50 times at once: one row, count 1.
		m1 := e.mustText("alice", "bob", "same")
		race(50, func(int) error { _, err := e.c.OnBehalfOf("bob").AddReaction(e.ctx(), m1.ID, "🔥"); return err })
		got, _ := e.c.GetMessage(e.ctx(), m1.ID)
		if summary(got) != "🔥=1" {
			t.Fatalf("50 identical adds: %s", summary(got))
		}

		// 60 different reactions race against a cap of 50: exactly 50 are kept.
		m2 := e.mustText("alice", "bob", "cap")
		race(60, func(i int) error {
			_, err := e.c.OnBehalfOf([]string{"alice", "bob"}[i%2]).AddReaction(e.ctx(), m2.ID, fmt.Sprint("r", i))
			return err
		})
		got, _ = e.c.GetMessage(e.ctx(), m2.ID)
		if len(got.Data.Reactions) != 50 || e.count("SELECT COUNT(*) FROM reactions WHERE message_id = $1", got.ID) != 50 {
			t.Fatalf("cap of 50 under a race: %d summaries", len(got.Data.Reactions))
		}

		// Add/remove churn from both users on a few reactions: every count equals its rows.
		m3 := e.mustText("alice", "bob", "churn")
		race(200, func(i int) error {
			c := e.c.OnBehalfOf([]string{"alice", "bob"}[i%2])
			r := fmt.Sprint("c", i%4)
			if i%3 == 0 {
				_, err := c.RemoveReaction(e.ctx(), m3.ID, r)
				return err
			}
			_, err := c.AddReaction(e.ctx(), m3.ID, r)
			return err
		})
		countsMatchRows(m3.ID)
		got, _ = e.c.GetMessage(e.ctx(), m3.ID)
		var total int64
		for _, r := range got.Data.Reactions {
			total += r.Count
		}
		if int(total) != e.count("SELECT COUNT(*) FROM reactions WHERE message_id = $1", got.ID) {
			t.Fatalf("summary total %d does not match rows", total)
		}
	})
}

func TestReactionCapConfig(t *testing.T) {
	for _, tc := range []struct {
		max, adds, want int
	}{{3, 5, 3}, {-1, 60, 60}} { // -1 stands for "0 lifts the cap" in newEnv
		e := newEnv(t, "sqlite", chat.Config{MaxReactions: tc.max})
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "cap")
		for i := 0; i < tc.adds; i++ {
			_, err := e.c.OnBehalfOf("alice").AddReaction(e.ctx(), m.ID, fmt.Sprint("r", i))
			if i >= tc.want {
				apiErr(t, err, 400, "ERR_REACTION_LIMIT_EXCEEDED")
			} else if err != nil {
				t.Fatal(err)
			}
		}
		// An existing reaction can still be added by the other user at the cap.
		got, err := e.c.OnBehalfOf("bob").AddReaction(e.ctx(), m.ID, "r0")
		if err != nil || len(got.Data.Reactions) != tc.want || got.Data.Reactions[0].Count != 2 {
			t.Fatalf("cap %d: %v %v", tc.max, got, err)
		}
	}
}
