package sqlstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openB(b *testing.B) *sqlstore.DB {
	db, err := sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(b.TempDir(), "b.db"), sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func open(t *testing.T, backend string) *sqlstore.DB {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	if backend == "postgres" {
		url = pgtest.URL(t)
	}
	db, err := sqlstore.Open(context.Background(), url, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestManyUsersOneReaction: 100 distinct users add the same reaction to one message at
// once. Over HTTP a one-to-one message has only two participants who may react, so until
// group messages exist this drives the store's transaction directly (with an access check
// that admits everyone) against the real database.
func TestManyUsersOneReaction(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			const n = 100
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
			anyone := func(chat.User, chat.MessageHead) error { return nil }
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for _, uid := range []string{fmt.Sprint("u", i), fmt.Sprint("u", (i+1)%n)} { // each row twice
						if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: uid, Reaction: "🎉", Add: true, At: 1, Max: 50}, anyone); err != nil {
							t.Error(err)
						}
					}
				}()
			}
			close(start)
			wg.Wait()
			got, err := db.Message(ctx, "a", m.ID, "u7")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Reactions) != 1 || got.Reactions[0].Count != n || !got.Reactions[0].ReactedByMe {
				t.Fatalf("100 users, one reaction: %+v", got.Reactions)
			}
			// The same users remove it at once: nothing is left, not even the summary row.
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: fmt.Sprint("u", i), Reaction: "🎉"}, anyone); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if got, _ := db.Message(ctx, "a", m.ID, ""); len(got.Reactions) != 0 {
				t.Fatalf("after removal: %+v", got.Reactions)
			}
		})
	}
}
