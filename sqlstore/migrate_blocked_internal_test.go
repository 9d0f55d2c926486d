package sqlstore

import (
	"context"
	"strconv"
	"testing"
)

// TestMigrateNumbersHeldMessages: migration 0030 gives every held message without a message
// id (held before ids were reserved, or rejected then, which dropped it) its own from the
// messages' sequence — past every message's, and the next message's past them — since
// reviews and the blocked list know held messages by that id (issue 36).
func TestMigrateNumbersHeldMessages(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			q := func(s string) string {
				if dialect == "sqlite" {
					return dollarToQuestion(s)
				}
				return s
			}
			msg := `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at)
				VALUES ('a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{}', 0, 0)`
			held := func(status string, messageID int) string {
				return `INSERT INTO moderation_blocked (app_id, sender, rule_id, rule_name, revision, condition, action, message, status, message_id, created_at, updated_at)
					VALUES ('a', 'u0', 'r', 'R', 1, '{}', '["blockMessage"]', '{"sender":"u0"}', '` + status + `', ` + strconv.Itoa(messageID) + `, 0, 0)`
			}
			url, old := migratedBefore(t, dialect, 30, `INSERT INTO apps (id, region, name, created_at) VALUES ('a', 'us', 'a', 0)`, msg, msg, msg,
				held("pending", 0), held("rejected", 0), held("pending", 0))
			var maxMessage int64
			if err := old.QueryRowContext(ctx, `SELECT max(id) FROM messages`).Scan(&maxMessage); err != nil {
				t.Fatal(err)
			}

			db, err := Open(ctx, url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			bs, err := db.BlockedMessages(ctx, "a", 0, 10)
			if err != nil || len(bs) != 3 {
				t.Fatalf("blocked list after migrating: %+v, %v", bs, err)
			}
			seen := map[int64]bool{}
			for i, b := range bs {
				if b.MessageID <= maxMessage || seen[b.MessageID] || b.Message.ID != b.MessageID {
					t.Fatalf("entry %d has message id %d (message.id %d); the messages reach %d, seen %v", b.ID, b.MessageID, b.Message.ID, maxMessage, seen)
				}
				if i > 0 && b.MessageID >= bs[i-1].MessageID {
					t.Fatalf("the list is not newest first by message id: %+v", bs)
				}
				seen[b.MessageID] = true
				got, err := db.BlockedByMessage(ctx, "a", b.MessageID)
				if err != nil || got.ID != b.ID {
					t.Fatalf("BlockedByMessage(%d) = entry %d, %v; want entry %d", b.MessageID, got.ID, err, b.ID)
				}
			}
			if _, err := old.ExecContext(ctx, msg); err != nil {
				t.Fatal(err)
			}
			var next int64
			if err := old.QueryRowContext(ctx, q(`SELECT max(id) FROM messages WHERE app_id = $1`), "a").Scan(&next); err != nil {
				t.Fatal(err)
			}
			if next <= bs[0].MessageID {
				t.Fatalf("the next message took id %d, not past the held messages' %d", next, bs[0].MessageID)
			}
		})
	}
}
