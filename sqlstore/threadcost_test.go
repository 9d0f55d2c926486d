package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestThreadListCost: u0's thread list, with its thread's reply count, last reply and unread
// reply and mention counts, costs the same whether the thread has 10 replies or 10,000: the
// counts come from the replies' numbers in the thread (thread_seq), not from walking them.
func TestThreadListCost(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		page := func(n int) cost {
			s := openCostStore(t, backend)
			cols := `app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq, parent_id, thread_seq`
			s.exec(t,
				`INSERT INTO users (app_id, uid, name, role, status, created_at) VALUES ('a', 'u0', 'U0', 'default', 'offline', 1), ('a', 'u1', 'U1', 'default', 'offline', 1)`,
				// The parent, id 1; a top-level message u0 reads up to, id 2; then n replies
				// from u1 and five more, the last two mentioning u0: all unread.
				`INSERT INTO messages (`+cols+`) VALUES ('a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{"text":"parent"}', 1, 1, 1, 0, 0)`,
				`INSERT INTO messages (`+cols+`) VALUES ('a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"read to here"}', 1, 1, 2, 0, 0)`,
				`INSERT INTO messages (`+cols+`) SELECT 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"reply"}', 2, 2, 0, 1, i
					FROM (`+s.series(n)+`) AS n`,
				fmt.Sprintf(`INSERT INTO messages (`+cols+`) SELECT 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text',
					CASE WHEN i > 3 THEN '{"text":"<@uid:u0> look"}' ELSE '{"text":"later"}' END, 4, 4, 0, 1, %d + i FROM (`+s.series(5)+`) AS n`, n),
				fmt.Sprintf(`INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos) SELECT 'a', 'u0', 'u0_user_u1', id, 0
					FROM messages WHERE id > %d`, n+5),
				fmt.Sprintf(`UPDATE messages SET reply_count = %d, last_reply_id = %d WHERE id = 1`, n+5, n+7),
				`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
					VALUES ('a', 'u0_user_u1', 'user', 'u0', 'u1', 1, 2, 1, 1)`,
				`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, updated_at)
					VALUES ('a', 'u0', 'u0_user_u1', 2, 2, 2, 1)`,
				`INSERT INTO thread_subscriptions (app_id, parent_id, uid, conversation_id, guid, subscribed, updated_at, created_at)
					VALUES ('a', 1, 'u0', 'u0_user_u1', '', 1, 4, 1), ('a', 1, 'u1', 'u0_user_u1', '', 1, 4, 1)`,
			)
			s.analyze(t)
			p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u0")
			return s.measure(t, func() error {
				l, err := s.svc.ListThreads(context.Background(), p, chat.ThreadPage{Limit: 30})
				if err != nil {
					return err
				}
				if len(l.Threads) != 1 {
					return fmt.Errorf("%d threads, want 1", len(l.Threads))
				}
				th := l.Threads[0]
				if th.Parent.ReplyCount != int64(n+5) || th.UnreadReplies != int64(n+5) || th.UnreadMentions != 2 || th.LastReply == nil || th.LastReply.ID != int64(n+7) {
					return fmt.Errorf("replies %d, unread %d, mentions %d, last %v; want %d, %d, 2, %d",
						th.Parent.ReplyCount, th.UnreadReplies, th.UnreadMentions, th.LastReply, n+5, n+5, n+7)
				}
				return nil
			})
		}
		small, large := page(10), page(10_000)
		sameCost(t, backend, "thread list", small, large, 40)
		t.Logf("%s: thread list read %d (rows on PostgreSQL, pages on SQLite) at 10 replies, %d at 10,000 (generic plans: %d and %d)",
			backend, small.Work, large.Work, small.GenericWork, large.GenericWork)
		// Issue 39: the own-reply count walked every message of the app after the marker
		// under its generic plan (10,005 rows here), once a connection's plan went generic.
		sameGenericCost(t, backend, "thread list", small, large, 40)
	})
}
