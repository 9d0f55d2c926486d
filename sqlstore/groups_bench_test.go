package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkListMembers pages through a 10,000-member group, 100 members a page: the first
// page, one in the middle and the last. A page reads its 100 rows by the (group, joined)
// index and the total from the group's kept count; only the offset grows with the page.
func BenchmarkListMembers(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			db, svc, analyze := groupBenchStore(b, backend)
			seedGroupB(b, db, "big", 10_000)
			analyze()
			p := chat.Principal{App: chat.App{ID: "a"}}
			for _, page := range []int{1, 50, 100} {
				b.Run(fmt.Sprintf("page%d", page), func(b *testing.B) {
					for b.Loop() {
						ms, total, err := svc.ListMembers(context.Background(), p, "big", chat.MemberQuery{Page: chat.Page{Number: page, PerPage: 100}})
						if err != nil || len(ms) != 100 || total != 10_000 {
							b.Fatalf("page %d: %d members of %d, %v", page, len(ms), total, err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkSendToGroup sends a message to a 2-member and to a 10,000-member group: a group
// message is one row whatever the group's size, so the two should cost the same.
func BenchmarkSendToGroup(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			db, svc, analyze := groupBenchStore(b, backend)
			seedGroupB(b, db, "small", 2)
			seedGroupB(b, db, "big", 10_000)
			analyze()
			p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00000")
			for _, guid := range []string{"small", "big"} {
				b.Run(guid, func(b *testing.B) {
					for b.Loop() {
						if _, err := svc.SendMessage(context.Background(), p, chat.MessageSend{Receiver: guid, ReceiverType: chat.ReceiverGroup,
							Data: []byte(`{"text":"hello"}`)}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// groupBenchStore opens a store with app "a". On PostgreSQL, analyze runs the statistics
// and visibility-map pass autovacuum makes on a live server, after the seeding.
func groupBenchStore(b *testing.B, backend string) (db *sqlstore.DB, svc *chat.Service, analyze func()) {
	url := "sqlite:" + filepath.Join(b.TempDir(), "g.db")
	analyze = func() {}
	if backend == "postgres" {
		url = pgtest.URL(b)
		analyze = func() {
			raw, err := sql.Open("pgx", url)
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(`VACUUM ANALYZE`); err != nil {
				b.Fatal(err)
			}
		}
	}
	db, err := sqlstore.Open(context.Background(), url, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.CreateApp(context.Background(), chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		b.Fatal(err)
	}
	svc = chat.New(db, chat.Config{})
	b.Cleanup(func() { svc.Close(context.Background()) }) // before db.Close: cleanups run last first
	return db, svc, analyze
}

// seedGroupB creates users u00000… (those missing) and a group of the first n of them,
// written directly in one transaction.
func seedGroupB(b testing.TB, db *sqlstore.DB, guid string, n int) {
	ctx := context.Background()
	for i := range n {
		uid := fmt.Sprintf("u%05d", i)
		if _, err := db.User(ctx, "a", uid); err == nil {
			continue
		}
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: "default", Status: "offline", CreatedAt: 1}); err != nil {
			b.Fatal(err)
		}
	}
	err := db.Transact(ctx, func(tx chat.Tx) error {
		g := chat.Group{AppID: "a", GUID: guid, Name: guid, Type: chat.GroupPublic, Owner: "u00000", CreatedAt: 1}
		if err := tx.InsertGroup(g); err != nil {
			return err
		}
		for i := range n {
			if err := tx.InsertMember("a", guid, fmt.Sprintf("u%05d", i), chat.ScopeParticipant, int64(i)); err != nil {
				return err
			}
		}
		g.MembersCount = int64(n)
		return tx.SaveGroup(g, false)
	})
	if err != nil {
		b.Fatal(err)
	}
}
