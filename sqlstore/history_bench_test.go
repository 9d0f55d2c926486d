package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// The read model's figures (docs/read-model.md), on both databases: a page of 100 messages
// from a conversation of 1,000,000 (the newest page and one in the middle), the first page
// of a 5,000-conversation list with unread counts, and mark read. Each runs 64 callers at
// once and reports p50 and p99 beside ns/op. Seeding writes the rows directly, in one
// statement per table, and takes a minute or so.
//
//	go test ./sqlstore -run XXX -bench ReadModel -benchtime 2000x

const (
	historySize   = 1_000_000
	conversations = 5_000
)

type historyFixture struct {
	db  *sqlstore.DB
	svc *chat.Service
}

// historyStore opens a store with app "a", a one-to-one
// conversation u00000_user_u00001 of historySize messages, and user u00000 in conversations
// one-to-one conversations with a few messages each.
func historyStore(b *testing.B, backend string) *historyFixture {
	ctx := context.Background()
	dir, err := filepathTemp(b)
	if err != nil {
		b.Fatal(err)
	}
	url := "sqlite:" + filepath.Join(dir, "h.db")
	if backend == "postgres" {
		url = pgtest.URL(b)
	}
	db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		b.Fatal(err)
	}
	driver, dsn := "sqlite", filepath.Join(dir, "h.db")
	series := `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d) SELECT i FROM s`
	concat := func(a, b string) string { return a + " || " + b }
	pad := func(e string) string { return `printf('%05d', ` + e + `)` }
	if backend == "postgres" {
		driver, dsn = "pgx", url
		series = `SELECT i FROM generate_series(1, %d) AS s(i)`
		pad = func(e string) string { return `lpad((` + e + `)::text, 5, '0')` }
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	steps := []string{
		`INSERT INTO users (app_id, uid, name, role, status, created_at) SELECT 'a', ` + concat("'u'", pad("i - 1")) + `, ` + concat("'User '", pad("i - 1")) +
			`, 'default', 'offline', 1 FROM (` + fmt.Sprintf(series, conversations+1) + `) AS n`,
		// The long conversation: u00000 and u00001 in turn, ids in order.
		`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', 'u00000_user_u00001', CASE WHEN i % 2 = 0 THEN 'u00000' ELSE 'u00001' END, 'user',
			CASE WHEN i % 2 = 0 THEN 'u00001' ELSE 'u00000' END, 'message', 'text', '{"text":"message"}', 1000000 + i, 1000000 + i, i
			FROM (` + fmt.Sprintf(series, historySize) + `) AS n`,
		`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
			SELECT 'a', 'u00000_user_u00001', 'user', 'u00000', 'u00001', MAX(id), COUNT(*), 1, 1 FROM messages`,
		// u00000's other conversations, one message each from the other side.
		`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', ` + concat("'u00000_user_u'", pad("i")) + `, ` + concat("'u'", pad("i")) + `, 'user', 'u00000', 'message', 'text',
			'{"text":"hi"}', 3000000 + i, 3000000 + i, 1 FROM (` + fmt.Sprintf(series, conversations) + `) AS n WHERE i > 1`,
		`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
			SELECT 'a', conversation_id, 'user', 'u00000', sender, id, 1, 1, 1 FROM messages WHERE data = '{"text":"hi"}'`,
	}
	for _, q := range steps {
		if _, err := raw.Exec(q); err != nil {
			b.Fatalf("seed: %v\n%s", err, q)
		}
	}
	if backend == "postgres" {
		if _, err := raw.Exec(`VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
	} else if _, err := raw.Exec(`ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := chat.New(db, chat.Config{})
	b.Cleanup(func() { svc.Close(context.Background()) }) // before db.Close: cleanups run last first
	return &historyFixture{db: db, svc: svc}
}

func filepathTemp(b *testing.B) (string, error) {
	return filepath.Abs(b.TempDir())
}

// parallel64 runs op from 64 goroutines b.N times in all and reports latency percentiles.
func parallel64(b *testing.B, op func(i int) error) {
	var mu sync.Mutex
	var lat []time.Duration
	var next int
	var wg sync.WaitGroup
	b.ResetTimer()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= b.N {
					break
				}
				t := time.Now()
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkReadModel: each figure under one fixture per database.
func BenchmarkReadModel(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			f := historyStore(b, backend)
			p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00000")
			for _, tc := range []struct{ name, affix, id string }{
				{"history-newest", "prepend", ""},
				{"history-middle", "append", fmt.Sprint(historySize / 2)},
			} {
				b.Run(tc.name, func(b *testing.B) {
					parallel64(b, func(int) error {
						l, err := f.svc.ListUserMessages(context.Background(), p, "u00001", chat.MessagePage{Affix: tc.affix, CursorID: tc.id, Limit: 100})
						if err == nil && len(l.Messages) != 100 {
							err = fmt.Errorf("%d messages", len(l.Messages))
						}
						return err
					})
				})
			}
			b.Run("conversation-list", func(b *testing.B) {
				parallel64(b, func(int) error {
					cs, total, err := f.svc.ListConversations(context.Background(), p, chat.ConversationQuery{Page: chat.Page{Number: 1, PerPage: 100}})
					if err == nil && (len(cs) != 100 || total != conversations) {
						err = fmt.Errorf("%d conversations of %d", len(cs), total)
					}
					return err
				})
			})
			b.Run("mark-read", func(b *testing.B) {
				parallel64(b, func(i int) error {
					// u00000 reads one of its conversations each time.
					other := fmt.Sprintf("u%05d", 2+i%(conversations-1))
					return f.svc.Mark(context.Background(), p, chat.ConversationUser, other, chat.MarkRead, 0)
				})
			})
		})
	}
}
