package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestQuotedHistoryPageCost: a page of 50 whose every message quotes an older one, a tenth
// of them interactive forms the viewer interacted with, costs the same in a conversation of
// 200 messages and of 20,000: the quoted messages and the viewer's interactions are one
// query each for the page, never one per message. And no more than two statements over
// the page of plain messages (TestHistoryPageCost's), and none when nothing quotes.
func TestQuotedHistoryPageCost(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		page := func(n int, quoting, hide bool) cost {
			s := openCostStore(t, backend)
			// Rows as small as TestHistoryPageCost's: a row per result is read by id, and
			// larger rows would make the table a level deeper at the larger size only.
			category, data, quoted := `'message'`, `'{"text":"message"}'`, `0`
			if quoting {
				category = `CASE WHEN i % 10 = 0 THEN 'interactive' ELSE 'message' END`
				data = `CASE WHEN i % 10 = 0 THEN '{"x":{"elementId":"ok"}}' ELSE '{"text":"message"}' END`
				// Each quotes the message 50 before it: the page's quoted messages are the
				// page before it, lookups near the B-tree's end (readcost_test.go's note on
				// SQLite's counters), so what would grow is a walk, not a deeper descent.
				quoted = `CASE WHEN i > 50 THEN i - 50 ELSE 0 END`
			}
			s.exec(t,
				`INSERT INTO users (app_id, uid, name, role, status, created_at) VALUES ('a', 'u0', 'U0', 'default', 'offline', 1), ('a', 'u1', 'U1', 'default', 'offline', 1)`,
				`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq, quoted_id)
					SELECT 'a', 'u0_user_u1', CASE WHEN i % 2 = 0 THEN 'u0' ELSE 'u1' END, 'user', CASE WHEN i % 2 = 0 THEN 'u1' ELSE 'u0' END,
					`+category+`, 'text', `+data+`, i, i, i, `+quoted+` FROM (`+s.series(n)+`) AS n`,
				`INSERT INTO message_interactions (app_id, message_id, uid, element_id, interacted_at)
					SELECT 'a', id, 'u0', 'ok', 1 FROM messages WHERE category = 'interactive'`,
				`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
					SELECT 'a', 'u0_user_u1', 'user', 'u0', 'u1', MAX(id), COUNT(*), 1, 1 FROM messages`,
			)
			s.analyze(t)
			p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u0")
			return s.measure(t, func() error {
				l, err := s.svc.ListUserMessages(context.Background(), p, "u1", chat.MessagePage{Affix: "prepend", Limit: 50, HideQuoted: hide})
				if err != nil {
					return err
				}
				if len(l.Messages) != 50 {
					return fmt.Errorf("%d messages, want 50", len(l.Messages))
				}
				for _, m := range l.Messages {
					switch {
					case quoting && m.QuotedID != m.ID-50:
						return fmt.Errorf("message %d quotes %d", m.ID, m.QuotedID)
					case quoting && !hide && (m.Quoted == nil || m.Quoted.ID != m.QuotedID || m.Quoted.SenderEntity.Name == ""):
						return fmt.Errorf("message %d without its quoted message and its sender: %+v", m.ID, m.Quoted)
					case hide && m.Quoted != nil:
						return fmt.Errorf("message %d with its quoted message, hidden", m.ID)
					case quoting && m.Category == chat.CategoryInteractive && len(m.Interactions) != 1:
						return fmt.Errorf("interactive message %d with interactions %v", m.ID, m.Interactions)
					}
				}
				return nil
			})
		}
		small, large := page(200, true, false), page(20_000, true, false)
		sameCost(t, backend, "quoting history page", small, large, 40)
		plain := page(200, false, false)
		if small.Statements != plain.Statements+2 {
			t.Errorf("a quoting page of interactive messages runs %d statements, a plain one %d: want 2 more", small.Statements, plain.Statements)
		}
		if hidden := page(200, true, true); hidden.Statements != plain.Statements+1 {
			t.Errorf("hideQuotedMessages: %d statements, want the plain page's %d and the interactions' 1", hidden.Statements, plain.Statements)
		}
	})
}
