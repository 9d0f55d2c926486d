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
