package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestChangedMessagesPageCost: a page of the app's edited messages (editedAt[from]), or of
// its updated ones (updatedAt[from]), costs the same whether the 60 edited messages follow
// 100 others or 20,000: the few a range keeps are found by their index, not by walking the
// app's messages by id to them (migration 0031).
func TestChangedMessagesPageCost(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		page := func(n int, p chat.MessagePage) cost {
			s := openCostStore(t, backend)
			s.exec(t,
				`INSERT INTO users (app_id, uid, name, role, status, created_at) VALUES ('a', 'u0', 'U0', 'default', 'offline', 1), ('a', 'u1', 'U1', 'default', 'offline', 1)`,
				// n messages never changed, then 60 edited, the newest.
				`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq, edited_at, edited_by)
					SELECT 'a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{"text":"message"}', i, CASE WHEN i > `+fmt.Sprint(n)+` THEN i + 1 ELSE i END, i,
					CASE WHEN i > `+fmt.Sprint(n)+` THEN i + 1 ELSE 0 END, CASE WHEN i > `+fmt.Sprint(n)+` THEN 'u0' ELSE '' END
					FROM (`+s.series(n+60)+`) AS n`,
				`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
					SELECT 'a', 'u0_user_u1', 'user', 'u0', 'u1', MAX(id), COUNT(*), 1, 1 FROM messages`,
			)
			s.analyze(t)
			app := chat.Principal{App: chat.App{ID: "a"}}
			return s.measure(t, func() error {
				l, err := s.svc.ListMessages(context.Background(), app, p)
				if err == nil && len(l.Messages) != 50 {
					err = fmt.Errorf("%d messages, want 50", len(l.Messages))
				}
				return err
			})
		}
		zero := int64(0)
		for _, tc := range []struct {
			what string
			p    chat.MessagePage
		}{
			{"edited page", chat.MessagePage{Limit: 50, EditedRange: chat.Range{From: &zero}}},
			{"updated page", chat.MessagePage{Limit: 50, UpdatedRange: chat.Range{From: &zero}}},
		} {
			sameCost(t, backend, tc.what, page(100, tc.p), page(20_000, tc.p), 40)
		}
	})
}

// TestBlockedConversationPageCost: the first page of 50 of u00000's conversations, which
// leaves out those with the 10 users it blocked (the newest), costs the same whether it has
// 400 one-to-one conversations or 4,000: its blocks are probed and counted, a probe each, as
// its resets are. (Not 60: there SQLite's indexes are a level shallower, so each of the
// page's ~60 probes reads a page less, 118 pages against 183 at 4,000, which is the depth
// of a B-tree and not a read that walks the data; at 400 and 4,000 both read 212.)
func TestBlockedConversationPageCost(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		page := func(n int) cost {
			s := openCostStore(t, backend)
			concat := func(a, b string) string { return a + " || " + b }
			s.exec(t,
				`INSERT INTO users (app_id, uid, name, role, status, created_at) SELECT 'a', `+concat("'u'", s.pad("i - 1"))+`, 'User', 'default', 'offline', 1
					FROM (`+s.series(n+1)+`) AS n`,
				`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
					SELECT 'a', `+concat("'u00000_user_u'", s.pad("i"))+`, 'u00000', 'user', `+concat("'u'", s.pad("i"))+`, 'message', 'text', '{"text":"hi"}', i, i, 1
					FROM (`+s.series(n)+`) AS n`,
				`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
					SELECT 'a', conversation_id, 'user', sender, receiver, MAX(id), 1, 1, 1 FROM messages GROUP BY conversation_id, sender, receiver`,
				// The ten newest: in the way of the first page.
				`INSERT INTO blocks (app_id, uid, blocked_uid, blocked_at) SELECT 'a', 'u00000', `+concat("'u'", s.pad("i"))+`, 1
					FROM (`+s.series(n)+`) AS n WHERE i > `+fmt.Sprint(n-10),
			)
			s.analyze(t)
			p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00000")
			return s.measure(t, func() error {
				cs, total, err := s.svc.ListConversations(context.Background(), p, chat.ConversationQuery{Page: chat.Page{Number: 1, PerPage: 50}})
				if err == nil && (len(cs) != 50 || total != n-10 || cs[0].ID != fmt.Sprintf("u00000_user_u%05d", n-10)) {
					err = fmt.Errorf("%d conversations of %d, first %s; want 50 of %d, the newest not blocked first", len(cs), total, cs[0].ID, n-10)
				}
				return err
			})
		}
		small, large := page(400), page(4000)
		sameCost(t, backend, "conversation page without the blocked", small, large, 40)
		sameGenericCost(t, backend, "conversation page without the blocked", small, large, 40)
	})
}
