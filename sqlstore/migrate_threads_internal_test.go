package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestMigrateThreads: migration 0040 numbers the replies sent before it in their threads,
// gives each parent its last reply, and makes each thread's author and repliers follow it,
// as replies sent after it do.
func TestMigrateThreads(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			msg := func(sender, to, typ string, parent, sentAt int) string {
				conv := "g_group"
				if typ == "user" {
					conv = "u0_user_u1"
				}
				return `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, parent_id)
					VALUES ('a', '` + conv + `', '` + sender + `', '` + typ + `', '` + to + `', 'message', 'text', '{}', ` + strconv.Itoa(sentAt) + `, 0, ` + strconv.Itoa(parent) + `)`
			}
			url, old := migratedBefore(t, dialect, 40, `INSERT INTO apps (id, region, name, created_at) VALUES ('a', 'us', 'a', 0)`,
				msg("u0", "u1", "user", 0, 1), // 1: a parent
				msg("u1", "u0", "user", 1, 2), // 2
				msg("u2", "g", "group", 0, 3), // 3: a group parent
				msg("u1", "u0", "user", 1, 4), // 4
				msg("u3", "g", "group", 3, 5), // 5
				msg("u0", "u1", "user", 0, 6), // 6: no replies
				`UPDATE messages SET reply_count = 2 WHERE id = 1`, `UPDATE messages SET reply_count = 1 WHERE id = 3`)
			db, err := Open(ctx, url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			got := func(query string) string {
				rows, err := old.QueryContext(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var out []string
				for rows.Next() {
					var a, b, c string
					if err := rows.Scan(&a, &b, &c); err != nil {
						t.Fatal(err)
					}
					out = append(out, a+" "+b+" "+c)
				}
				return strings.Join(out, ", ")
			}
			if s := got(`SELECT id, thread_seq, last_reply_id FROM messages ORDER BY id`); s != "1 0 4, 2 1 0, 3 0 5, 4 2 0, 5 1 0, 6 0 0" {
				t.Errorf("messages (id, thread_seq, last_reply_id): %s", s)
			}
			if s := got(`SELECT parent_id, uid, guid || ':' || subscribed || ':' || updated_at FROM thread_subscriptions ORDER BY parent_id, uid`); s !=
				"1 u0 :1:4, 1 u1 :1:4, 3 u2 g:1:5, 3 u3 g:1:5" {
				t.Errorf("thread_subscriptions: %s", s)
			}
		})
	}
}
