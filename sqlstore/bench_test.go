package sqlstore_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkStoreAddReaction is the reaction transaction alone, read-back included, one at a
// time (so each is its own group commit) on SQLite.
func BenchmarkStoreAddReaction(b *testing.B) {
	ctx := context.Background()
	db, ids := seedB(b, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: id, UID: "u0", Reaction: fmt.Sprint("r", i/len(ids)), Add: true, At: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreAddReactionConcurrent is the reaction transaction with 64 callers at once,
// as under bench/run.sh: new rows spread over 6000 messages, sharing group commits. Its
// ns/op is the single writer's cost per reaction.
func BenchmarkStoreAddReactionConcurrent(b *testing.B) {
	ctx := context.Background()
	const messages = 6000
	db, ids := seedB(b, messages)
	var next atomic.Int64
	b.SetParallelism(64 / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1) * 7919 // scattered over the messages
			c := chat.ReactionChange{AppID: "a", MessageID: ids[i%messages], UID: []string{"u0", "u1"}[i/messages%2],
				Reaction: fmt.Sprint("r", i/messages/2), Add: true, At: 1}
			if _, err := db.ChangeReaction(ctx, c); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// seedB opens a SQLite store with app "a", users u0 and u1, and n messages from u0 to u1.
func seedB(b *testing.B, n int) (*sqlstore.DB, []int64) {
	ctx := context.Background()
	db := openB(b)
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		b.Fatal(err)
	}
	for _, u := range []string{"u0", "u1"} {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: u, Name: u, Role: "default", Status: "offline"}); err != nil {
			b.Fatal(err)
		}
	}
	ids := make([]int64, 0, n)
	for range n {
		m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: "u0", Receiver: "u1", ReceiverType: "user",
			Category: "message", Type: "text", Data: []byte(`{"text":"x"}`)}
		if err := db.CreateMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return db, ids
}

// BenchmarkMessageRead is a get of one message with two reactions on SQLite, as the app reads
// it (no viewer: the statement without the viewer's three probes) and as one of its users
// does.
func BenchmarkMessageRead(b *testing.B) {
	ctx := context.Background()
	db, ids := seedB(b, 1000)
	id := ids[len(ids)/2]
	for _, r := range []string{"+1", "ok"} {
		if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: id, UID: "u1", Reaction: r, Add: true, At: 1}); err != nil {
			b.Fatal(err)
		}
	}
	for _, viewer := range []string{"", "u0"} {
		b.Run(map[string]string{"": "app", "u0": "user"}[viewer], func(b *testing.B) {
			for b.Loop() {
				if m, err := db.Message(ctx, "a", id, viewer); err != nil || len(m.Reactions) != 2 {
					b.Fatal(m.Reactions, err)
				}
			}
		})
	}
}
