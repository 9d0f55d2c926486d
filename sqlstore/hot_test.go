package sqlstore_test

import (
	"context"
	"errors"
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
	m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: "u0", Receiver: "u1", ReceiverType: "user",
		Category: "message", Type: "text", Data: []byte(`{"text":"x"}`)}
	if err := db.CreateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	return m
}

var errInactive, errDeleted = errors.New("actor inactive"), errors.New("message deleted")

// rules is the part of the service's check that the cache could get wrong: the actor's
// state and the message's.
func rules(u chat.User, h chat.MessageHead) error {
	if !u.Active() {
		return errInactive
	}
	if h.DeletedAt != 0 {
		return errDeleted
	}
	return nil
}

// TestReactionAnswerMatchesDatabase: every add or remove answers with the summary the
// database holds afterwards, as a fresh read shows it to the same viewer. On SQLite the
// answer comes from the writer's cache, so this is the cache against the tables: counts,
// first-appearance order, reactedByMe, the cap and idempotent repeats, with enough rows on
// one message (40 users) to pass the cache's per-message row limit and come back under it.
func TestReactionAnswerMatchesDatabase(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 40)
			reactions := []string{"👍", "❤️", "😂", "🎉", "+1", "ok"}
			rnd := rand.New(rand.NewPCG(1, 2))
			for step := 0; step < 600; step++ {
				c := chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: fmt.Sprint("u", rnd.IntN(40)),
					Reaction: reactions[rnd.IntN(len(reactions))], Add: step < 200 || rnd.IntN(3) > 0, At: int64(step), Max: 5}
				got, err := db.ChangeReaction(ctx, c, rules)
				if errors.Is(err, chat.ErrLimitReached) {
					continue
				}
				if err != nil {
					t.Fatalf("step %d %+v: %v", step, c, err)
				}
				want, err := db.Message(ctx, "a", m.ID, c.UID)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Reactions) > 5 || !reflect.DeepEqual(got.Reactions, want.Reactions) {
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
			react := func(uid, reaction string) (chat.Message, error) {
				return db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: uid, Reaction: reaction, Add: true, At: 1}, rules)
			}
			for _, uid := range []string{"u0", "u1", "u2"} {
				if _, err := react(uid, "👍"); err != nil {
					t.Fatal(err)
				}
			}
			// u2 is purged with its row: the next answer counts two.
			if err := db.PurgeUser(ctx, "a", "u2"); err != nil {
				t.Fatal(err)
			}
			got, err := react("u0", "👍")
			if err != nil || len(got.Reactions) != 1 || got.Reactions[0].Count != 2 {
				t.Fatalf("after purging a reactor: %+v, %v", got.Reactions, err)
			}
			// u1, a participant, is deactivated: its state came with the message.
			if _, err := db.SetDeactivated(ctx, "a", []string{"u1"}, 5); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u1", "🎉"); !errors.Is(err, errInactive) {
				t.Fatalf("deactivated participant: %v, want %v", err, errInactive)
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
			if _, err := react("u1", "😂"); !errors.Is(err, errInactive) {
				t.Fatalf("deleted participant: %v, want %v", err, errInactive)
			}
			// The message is deleted: no more reactions.
			action := &chat.Message{AppID: "a", ConversationID: m.ConversationID, Sender: "u0", Receiver: "u1", ReceiverType: "user",
				Category: "action", Type: "message", Data: []byte(`{"action":"deleted"}`), TargetID: m.ID}
			if _, err := db.DeleteMessage(ctx, "a", m.ID, chat.MessageDeletion{By: "u0", At: 7, Action: action},
				func(chat.MessageHead) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := react("u0", "😂"); !errors.Is(err, errDeleted) {
				t.Fatalf("deleted message: %v, want %v", err, errDeleted)
			}
		})
	}
}
