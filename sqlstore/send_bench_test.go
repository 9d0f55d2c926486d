package sqlstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkStoreSend is a one-to-one send through the store alone, one at a time: on
// PostgreSQL the pipelined statement, on SQLite the writer's transaction. mentions=2
// mentions two users besides the receiver.
func BenchmarkStoreSend(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, mentions := range []int{0, 2} {
			b.Run(fmt.Sprintf("%s/mentions=%d", backend, mentions), func(b *testing.B) {
				ctx := context.Background()
				url := "sqlite:" + filepath.Join(b.TempDir(), "send.db")
				if backend == "postgres" {
					url = pgtest.URL(b)
				}
				db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { db.Close() })
				if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
					b.Fatal(err)
				}
				var ms []chat.Entity
				for i := range mentions {
					ms = append(ms, chat.Entity{UID: fmt.Sprint("m", i)})
				}
				b.ResetTimer()
				for i := range b.N {
					from, to := "u0", "u1"
					if i%2 == 1 {
						from, to = to, from
					}
					m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: from, Receiver: to, ReceiverType: "user",
						Category: "message", Type: "text", Data: []byte(`{"text":"x"}`), Mentions: ms}
					if err := db.CreateMessage(ctx, m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
