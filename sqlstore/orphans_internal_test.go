package sqlstore

import (
	"context"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestDeletesLeaveNoOrphans: no foreign key cascades reactions on PostgreSQL, so deleting a
// message for good, or purging a user, must remove the reactions and counts of the messages
// that go, and keep the other messages' counts equal to their rows.
func TestDeletesLeaveNoOrphans(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := openWithApp(t, backend)
			for _, uid := range []string{"u0", "u1", "u2"} {
				if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: "default", Status: "offline"}); err != nil {
					t.Fatal(err)
				}
			}
			send := func(from, to string) int64 {
				m := &chat.Message{AppID: "a", ConversationID: "c", Sender: from, Receiver: to, ReceiverType: "user",
					Category: "message", Type: "text", Data: []byte(`{}`)}
				if err := db.CreateMessage(ctx, m); err != nil {
					t.Fatal(err)
				}
				return m.ID
			}
			react := func(id int64, uid, r string) {
				if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: id, UID: uid, Reaction: r, Add: true, At: 1}); err != nil {
					t.Fatal(err)
				}
			}
			gone := send("u0", "u1")   // deleted for good
			purged := send("u2", "u0") // goes with u2
			kept := send("u0", "u1")   // keeps u0's and u1's reactions, loses u2's
			toU2 := send("u0", "u2")   // goes with u2, as does its reaction from u0
			for _, id := range []int64{gone, kept} {
				react(id, "u0", "a")
				react(id, "u1", "a")
			}
			react(purged, "u2", "b")
			react(purged, "u0", "a")
			react(toU2, "u0", "b")
			react(toU2, "u2", "b")
			action := &chat.Message{AppID: "a", ConversationID: "c", Sender: "u0", Receiver: "u1", ReceiverType: "user",
				Category: "action", Type: "message", Data: []byte(`{}`), TargetID: gone}
			if err := db.Transact(ctx, func(tx chat.Tx) error {
				if _, err := tx.MessageForChange("a", gone); err != nil {
					return err
				}
				if err := tx.PurgeMessage("a", gone); err != nil {
					return err
				}
				return tx.InsertMessage(action)
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.PurgeUser(ctx, "a", "u2"); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				`SELECT COUNT(*) FROM reactions WHERE message_id NOT IN (SELECT id FROM messages)`,
				`SELECT COUNT(*) FROM reaction_counts WHERE message_id NOT IN (SELECT id FROM messages)`,
				`SELECT COUNT(*) FROM reactions WHERE uid = 'u2'`,
				`SELECT COUNT(*) FROM reaction_counts c WHERE count <> (SELECT COUNT(*) FROM reactions r
					WHERE r.message_id = c.message_id AND r.reaction = c.reaction)`,
			} {
				var n int
				if err := db.r.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 0 {
					t.Errorf("%s: %d, %v", q, n, err)
				}
			}
			m, err := db.Message(ctx, "a", kept, "")
			if err != nil || len(m.Reactions) != 1 || m.Reactions[0] != (chat.ReactionSummary{Reaction: "a", Count: 2}) {
				t.Fatalf("kept message: %+v, %v", m.Reactions, err)
			}
		})
	}
}
