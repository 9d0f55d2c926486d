package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

// seedMessage creates app "a", users u0…u(n-1) and a message from u0 to u1.
func seedMessage(t *testing.T, db *sqlstore.DB, n int) *chat.Message {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: fmt.Sprint("u", i), Name: "u", Role: "default", Status: "offline"}); err != nil {
			t.Fatal(err)
		}
	}
	return sendMessage(t, db, "u0", "u1")
}

// sendMessage stores a text message of app "a" from one user to another.
func sendMessage(t *testing.T, db *sqlstore.DB, from, to string) *chat.Message {
	t.Helper()
	m := &chat.Message{AppID: "a", ConversationID: chat.ConversationID(from, to), Sender: from, Receiver: to, ReceiverType: "user",
		Category: "message", Type: "text", Data: []byte(`{"text":"x"}`)}
	if err := db.CreateMessage(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReactionAnswerMatchesDatabase: every add or remove answers with the summary the
// database holds afterwards, as a fresh read shows it to the same viewer. On SQLite the
// answer comes from the writer's cache, so this is the cache against the tables: counts,
// first-appearance order, reactedByMe, the cap and idempotent repeats, with enough rows on
// one message (two users, up to 24 kinds each) to pass the cache's per-message row limit
// and come back under it.
func TestReactionAnswerMatchesDatabase(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 2)
			reactions := []string{"👍", "❤️", "😂", "🎉", "+1", "ok"}
			for i := range 20 {
				reactions = append(reactions, fmt.Sprint("r", i))
			}
			const max = 24
			rnd := rand.New(rand.NewPCG(1, 2))
			for step := 0; step < 600; step++ {
				c := chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: fmt.Sprint("u", rnd.IntN(2)),
					Reaction: reactions[rnd.IntN(len(reactions))], Add: step < 200 || rnd.IntN(3) > 0, At: int64(step), Max: max}
				got, err := db.ChangeReaction(ctx, c)
				if chat.ErrorCode(err) == chat.CodeReactionLimitExceeded {
					continue
				}
				if err != nil {
					t.Fatalf("step %d %+v: %v", step, c, err)
				}
				want, err := db.Message(ctx, "a", m.ID, c.UID)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Reactions) > max || !reflect.DeepEqual(got.Reactions, want.Reactions) {
					t.Fatalf("step %d %+v:\nanswered %+v\ndatabase %+v", step, c, got.Reactions, want.Reactions)
				}
			}
		})
	}
}

// TestReactionSeesOtherWrites: what other writes change — a user deactivated or deleted, a
// message deleted, a reactor purged with its rows — holds for the next reaction at once,
// however recently that message was reacted to.
func TestReactionSeesOtherWrites(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 3)
			m2 := sendMessage(t, db, "u0", "u2")
			reactOn := func(id int64, uid, reaction string) (chat.Message, error) {
				return db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: id, UID: uid, Reaction: reaction, Add: true, At: 1})
			}
			react := func(uid, reaction string) (chat.Message, error) { return reactOn(m.ID, uid, reaction) }
			for _, uid := range []string{"u0", "u1"} {
				if _, err := react(uid, "👍"); err != nil {
					t.Fatal(err)
				}
			}
			got, err := react("u0", "👍")
			if err != nil || len(got.Reactions) != 1 || got.Reactions[0].Count != 2 {
				t.Fatalf("a repeat: %+v, %v", got.Reactions, err)
			}
			// u2 is purged with its messages: the one it reacted on is gone at once.
			if _, err := reactOn(m2.ID, "u2", "👍"); err != nil {
				t.Fatal(err)
			}
			if err := db.PurgeUser(ctx, "a", "u2"); err != nil {
				t.Fatal(err)
			}
			if _, err := reactOn(m2.ID, "u0", "👍"); chat.ErrorCode(err) != chat.CodeMessageNotFound {
				t.Fatalf("message purged with its receiver: %v, want %s", err, chat.CodeMessageNotFound)
			}
			// u1, a participant, is deactivated: its state came with the message.
			if _, err := db.SetDeactivated(ctx, "a", []string{"u1"}, 5); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u1", "🎉"); chat.ErrorCode(err) != chat.CodeUIDNotFound {
				t.Fatalf("deactivated participant: %v, want %s", err, chat.CodeUIDNotFound)
			}
			if _, err := db.SetDeactivated(ctx, "a", []string{"u1"}, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u1", "🎉"); err != nil {
				t.Fatalf("reactivated participant: %v", err)
			}
			if err := db.SoftDeleteUser(ctx, "a", "u1", 6); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u1", "😂"); chat.ErrorCode(err) != chat.CodeUIDNotFound {
				t.Fatalf("deleted participant: %v, want %s", err, chat.CodeUIDNotFound)
			}
			// The message is deleted: no more reactions.
			action := &chat.Message{AppID: "a", ConversationID: m.ConversationID, Sender: "u0", Receiver: "u1", ReceiverType: "user",
				Category: "action", Type: "message", Data: []byte(`{"action":"deleted"}`), TargetID: m.ID}
			if err := db.Transact(ctx, func(tx chat.Tx) error {
				if _, err := tx.MessageForChange("a", m.ID); err != nil {
					return err
				}
				if err := tx.MarkMessageDeleted("a", m.ID, "u0", 7); err != nil {
					return err
				}
				return tx.InsertMessage(action)
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u0", "😂"); chat.ErrorCode(err) != chat.CodeMessageActionDenied {
				t.Fatalf("deleted message: %v, want %s", err, chat.CodeMessageActionDenied)
			}
		})
	}
}
