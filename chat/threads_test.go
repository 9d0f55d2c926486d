package chat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplySubscribers(t *testing.T) {
	parent := func(sender string, replies int64) *Message {
		return &Message{ID: 4, Sender: sender, ReplyCount: replies}
	}
	reply := func(sender string, mentioned ...string) *Message {
		m := &Message{Sender: sender, ParentID: 4}
		for _, u := range mentioned {
			m.Mentions = append(m.Mentions, Entity{UID: u})
		}
		return m
	}
	for _, tc := range []struct {
		name          string
		parent, reply *Message
		always, ifNew []string
	}{
		{"the first reply: the replier, and the author unless it chose", parent("ann", 0), reply("bob"), []string{"bob"}, []string{"ann"}},
		{"a later reply: only the replier", parent("ann", 3), reply("bob"), []string{"bob"}, nil},
		{"the author replying first follows for sure", parent("ann", 0), reply("ann"), []string{"ann"}, nil},
		{"mentioned users follow, once each", parent("ann", 2), reply("bob", "cat", "dan", "cat"), []string{"bob", "cat", "dan"}, nil},
		{"a mention of the author on the first reply makes it follow for sure", parent("ann", 0), reply("bob", "ann"), []string{"bob", "ann"}, nil},
		{"the app follows nothing", parent(SystemUID, 0), reply(SystemUID, "bob"), []string{"bob"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			always, ifNew := replySubscribers(tc.parent, tc.reply)
			if diff := cmp.Diff(tc.always, always); diff != "" {
				t.Errorf("always (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ifNew, ifNew); diff != "" {
				t.Errorf("ifNew (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThreadPage(t *testing.T) {
	no := false
	yes := true
	for _, tc := range []struct {
		name    string
		page    ThreadPage
		want    ThreadQuery
		invalid string
	}{
		{"defaults: newest first, 100", ThreadPage{}, ThreadQuery{Limit: DefaultThreadLimit}, ""},
		{"the SDK's next page", ThreadPage{Affix: "prepend", UpdatedAt: 1700, CursorID: "42", Limit: 30, ParticipatedByMe: &yes},
			ThreadQuery{UpdatedAt: 1700, ID: 42, Limit: 30}, ""},
		{"append", ThreadPage{Affix: "append", UpdatedAt: 1700}, ThreadQuery{Append: true, UpdatedAt: 1700, Limit: DefaultThreadLimit}, ""},
		{"a bad affix", ThreadPage{Affix: "sideways"}, ThreadQuery{}, "affix"},
		{"a bad id", ThreadPage{CursorID: "x"}, ThreadQuery{}, "id"},
		{"every thread of the user's conversations is not served", ThreadPage{ParticipatedByMe: &no}, ThreadQuery{}, "participatedByMe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.page.query()
			if tc.invalid != "" {
				e, ok := err.(*Error)
				if !ok || len(e.Details[tc.invalid]) == 0 {
					t.Fatalf("want a refusal naming %s, got %v", tc.invalid, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, q); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}
