package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
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

// TestConcurrentSameRows: both parties of a message add the same 25 reactions at once,
// each row from several goroutines, then remove them all at once: every row is written
// once, every count is exact, and nothing is left afterwards, not even a summary row.
func TestConcurrentSameRows(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 2)
			const kinds = 25
			change := func(add bool) {
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := 0; i < 100; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						c := chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: fmt.Sprint("u", i%2),
							Reaction: fmt.Sprint("r", (i/2)%kinds), Add: add, At: 1, Max: 50}
						if _, err := db.ChangeReaction(ctx, c); err != nil {
							t.Error(err)
						}
					}()
				}
				close(start)
				wg.Wait()
			}
			change(true)
			got, err := db.Message(ctx, "a", m.ID, "u1")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Reactions) != kinds {
				t.Fatalf("%d kinds, want %d: %+v", len(got.Reactions), kinds, got.Reactions)
			}
			for _, r := range got.Reactions {
				if r.Count != 2 || !r.ReactedByMe {
					t.Fatalf("two users, one reaction each: %+v", got.Reactions)
				}
			}
			change(false)
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
			m := seedMessage(t, db, 3)
			m2 := sendMessage(t, db, "u0", "u2")
			ids := []int64{m.ID, m2.ID}
			parties := [][2]string{{"u0", "u1"}, {"u0", "u2"}}
			reactions := []string{"a", "b", "c", "d"}
			var wg sync.WaitGroup
			for g := 0; g < 40; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rnd := rand.New(rand.NewPCG(uint64(g), 7))
					for i := 0; i < 60; i++ {
						k := rnd.IntN(2)
						c := chat.ReactionChange{AppID: "a", MessageID: ids[k], UID: parties[k][g%2],
							Reaction: reactions[rnd.IntN(4)], Add: rnd.IntN(2) == 0, At: int64(i)}
						got, err := db.ChangeReaction(ctx, c)
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

// TestAppReadsNobodysReactions: the app reads a message (no viewer) with the same counts, in
// the same order, as a user does, and none of them marked as its own, which a user's read
// marks (the app's read leaves the viewer's columns out of its statement).
func TestAppReadsNobodysReactions(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := open(t, backend)
			m := seedMessage(t, db, 2)
			for i, c := range []struct{ uid, reaction string }{{"u1", "b"}, {"u0", "a"}, {"u1", "a"}} {
				if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: c.uid, Reaction: c.reaction, Add: true, At: int64(i)}); err != nil {
					t.Fatal(err)
				}
			}
			type seen struct {
				Reaction string
				Count    int64
				Mine     bool
			}
			read := func(viewer string) []seen {
				got, err := db.Message(ctx, "a", m.ID, viewer)
				if err != nil {
					t.Fatal(err)
				}
				var out []seen
				for _, r := range got.Reactions {
					out = append(out, seen{r.Reaction, r.Count, r.ReactedByMe})
				}
				return out
			}
			if got, want := read("u0"), []seen{{"b", 1, false}, {"a", 2, true}}; !reflect.DeepEqual(got, want) {
				t.Errorf("u0 reads %+v, want %+v", got, want)
			}
			if got, want := read(""), []seen{{"b", 1, false}, {"a", 2, false}}; !reflect.DeepEqual(got, want) {
				t.Errorf("the app reads %+v, want %+v", got, want)
			}
		})
	}
}
