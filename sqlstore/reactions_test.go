package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
			const n = 100
			m := seedMessage(t, db, n)
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

// TestConcurrentChurn: many users add and remove reactions on a few messages at once, so
// that changes to one message share transactions (group commits) and follow each other
// inside them. Every answer must show the caller's own change, and afterwards every count
// must equal its rows.
func TestConcurrentChurn(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 20)
			m2 := &chat.Message{AppID: "a", ConversationID: "u0_user_u2", Sender: "u0", Receiver: "u2", ReceiverType: "user",
				Category: "message", Type: "text", Data: []byte(`{}`)}
			if err := db.CreateMessage(ctx, m2); err != nil {
				t.Fatal(err)
			}
			ids := []int64{m.ID, m2.ID}
			reactions := []string{"a", "b", "c", "d"}
			var wg sync.WaitGroup
			for g := 0; g < 40; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rnd := rand.New(rand.NewPCG(uint64(g), 7))
					for i := 0; i < 60; i++ {
						c := chat.ReactionChange{AppID: "a", MessageID: ids[rnd.IntN(2)], UID: fmt.Sprint("u", g%20),
							Reaction: reactions[rnd.IntN(4)], Add: rnd.IntN(2) == 0, At: int64(i)}
						got, err := db.ChangeReaction(ctx, c, rules)
						if err != nil {
							t.Error(err)
							return
						}
						mine := false
						for _, r := range got.Reactions {
							if r.Count <= 0 {
								t.Errorf("%+v answered a count of %d", c, r.Count)
							}
							if r.Reaction == c.Reaction {
								mine = r.ReactedByMe
							}
						}
						if mine != c.Add {
							t.Errorf("%+v answered reactedByMe=%v for its own change: %+v", c, mine, got.Reactions)
							return
						}
					}
				}()
			}
			wg.Wait()
			for _, id := range ids {
				got, err := db.Message(ctx, "a", id, "")
				if err != nil {
					t.Fatal(err)
				}
				rows, err := db.ListReactions(ctx, "a", id, chat.ReactionQuery{Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				byReaction := map[string]int64{}
				for _, r := range rows {
					byReaction[r.Reaction]++
				}
				if len(got.Reactions) != len(byReaction) {
					t.Fatalf("message %d: summary %+v, rows %v", id, got.Reactions, byReaction)
				}
				for _, s := range got.Reactions {
					if byReaction[s.Reaction] != s.Count {
						t.Fatalf("message %d: summary %+v, rows %v", id, got.Reactions, byReaction)
					}
				}
			}
		})
	}
}
