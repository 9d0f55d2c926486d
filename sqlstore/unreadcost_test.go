package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/racedetect"
)

// seedUnread is issue 39's workload: u00000 in 1,001 conversations (1,000 one-to-one, each
// with a message from the other party that u00000 read, and one group), and in the ten most
// recent one-to-one conversations own messages of u00000's own after its read marker and
// mentions messages from the other party that mention it, both spread evenly over the ten.
func seedUnread(tb testing.TB, s *costStore, own, mentions int) {
	tb.Helper()
	concat := func(a, b string) string { return a + " || " + b }
	top := func(e string) string { return concat("'u00000_user_u'", s.pad("991 + ("+e+") % 10")) } // one of the ten, by row
	s.exec(tb,
		`INSERT INTO users (app_id, uid, name, role, status, created_at) SELECT 'a', `+concat("'u'", s.pad("i - 1"))+`, 'User', 'default', 'offline', 1
			FROM (`+s.series(1001)+`) AS n`,
		// Each conversation's first message, from the other party: seq 1.
		`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', `+concat("'u00000_user_u'", s.pad("i"))+`, `+concat("'u'", s.pad("i"))+`, 'user', 'u00000', 'message', 'text', '{"text":"hi"}', i, i, 1
			FROM (`+s.series(1000)+`) AS n`,
	)
	if own > 0 {
		// u00000's own: the ten conversations' seqs 2, 3, … in id order.
		s.exec(tb, `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', `+top("i - 1")+`, 'u00000', 'user', `+concat("'u'", s.pad("991 + (i - 1) % 10"))+`, 'message', 'text', '{"text":"mine"}',
			1000 + i, 1000 + i, 2 + (i - 1) / 10 FROM (`+s.series(own)+`) AS n`)
	}
	if mentions > 0 {
		s.exec(tb, `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', `+top("i - 1")+`, `+concat("'u'", s.pad("991 + (i - 1) % 10"))+`, 'user', 'u00000', 'message', 'text', '{"text":"<@uid:u00000> hey"}',
			100000000 + i, 100000000 + i, 2 + `+fmt.Sprint(own/10)+` + (i - 1) / 10 FROM (`+s.series(mentions)+`) AS n`,
			`INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos)
				SELECT app_id, 'u00000', conversation_id, id, 0 FROM messages WHERE sent_at > 100000000`)
	}
	s.exec(tb,
		`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, last_message_id, last_seq, created_at, updated_at)
			SELECT 'a', conversation_id, 'user', 'u00000', MAX(CASE WHEN sender = 'u00000' THEN receiver ELSE sender END), MAX(id), MAX(seq), 1, 1
			FROM messages GROUP BY conversation_id`,
		`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, updated_at)
			SELECT 'a', 'u00000', conversation_id, MIN(id), 1, MIN(id), 1 FROM messages GROUP BY conversation_id`,
	)
	keepCounts(tb, s)
	seedGroupB(tb, s.db, "g1", 3)
	if _, err := s.svc.SendMessage(context.Background(), chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00001"),
		chat.MessageSend{Receiver: "g1", ReceiverType: chat.ReceiverGroup, Data: []byte(`{"text":"hello"}`)}); err != nil {
		tb.Fatal(err)
	}
	s.analyze(tb)
}

// keepCounts makes the seeded rows' kept counts what a store that wrote them would keep,
// by migration 0032's backfill: the statements after its ALTERs.
func keepCounts(tb testing.TB, s *costStore) {
	tb.Helper()
	body, err := os.ReadFile(filepath.Join("migrations", s.backend, "0032_kept_unread.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	_, backfill, ok := strings.Cut(string(body), "purged_seq "+map[string]string{"sqlite": "INTEGER", "postgres": "BIGINT"}[s.backend]+" NOT NULL DEFAULT 0;")
	if !ok {
		tb.Fatal("0032_kept_unread.sql: no ALTER adding purged_seq")
	}
	s.exec(tb, backfill)
}

// unreadPage lists u00000's first page of 50 and checks the ten conversations' counts.
func unreadPage(s *costStore, own, mentions int) func() error {
	p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00000")
	return func() error {
		cs, total, err := s.svc.ListConversations(context.Background(), p, chat.ConversationQuery{Page: chat.Page{Number: 1, PerPage: 50}})
		if err != nil {
			return err
		}
		if len(cs) != 50 || total != 1001 {
			return fmt.Errorf("%d conversations of %d, want 50 of 1001", len(cs), total)
		}
		for _, c := range cs {
			if c.Kind != chat.ConversationUser || c.With.UID < "u00991" {
				continue
			}
			if c.Unread != int64(mentions/10) || c.Mentions != int64(mentions/10) {
				return fmt.Errorf("%s: %d unread, %d mentions; want %d and %d (own %d)", c.ID, c.Unread, c.Mentions, mentions/10, mentions/10, own/10)
			}
		}
		return nil
	}
}

// unreadCount is u00000's unread count of its most recent conversation, as the unread count
// endpoint (GET /users/u01000/messages?unread=true&count=true) asks it.
func unreadCount(s *costStore, mentions int) func() error {
	p := chat.Principal{App: chat.App{ID: "a"}}.ActingAs("u00000")
	return func() error {
		l, err := s.svc.ListUserMessages(context.Background(), p, "u01000", chat.MessagePage{Unread: true, Count: true})
		if err == nil {
			var n int64
			for _, c := range l.Counts {
				n += c.Count
			}
			if n != int64(mentions/10) {
				err = fmt.Errorf("unread count %d (%+v), want %d", n, l.Counts, mentions/10)
			}
		}
		return err
	}
}

// TestConversationPageCostOwnUnread (issue 39): the first page of u00000's conversation
// list, and the unread count of one conversation, cost the same when its ten most recent
// conversations hold 10 of its own messages after its read marker and 10 mentions of it,
// and when they hold 100,000 and 20,000 (conversations of 10,000 messages and more).
func TestConversationPageCostOwnUnread(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		costs := func(own, mentions int) (page, count cost) {
			s := openCostStore(t, backend)
			seedUnread(t, s, own, mentions)
			checkKeptCounts(t, s) // migration 0032's backfill, for every party
			return s.measure(t, unreadPage(s, own, mentions)), s.measure(t, unreadCount(s, mentions))
		}
		smallPage, smallCount := costs(10, 10)
		// Under -race a fifth (SQLite seeds some thirty times slower): still 2,000 times the
		// small size, and a read that grows with them fails by far more than the slack.
		own, mentions := 100_000, 20_000
		if racedetect.Enabled {
			own, mentions = own/5, mentions/5
		}
		largePage, largeCount := costs(own, mentions)
		sameCost(t, backend, "conversation page", smallPage, largePage, 40)
		sameGenericCost(t, backend, "conversation page", smallPage, largePage, 40)
		sameCost(t, backend, "unread count", smallCount, largeCount, 10)
		sameGenericCost(t, backend, "unread count", smallCount, largeCount, 10)
	})
}

// BenchmarkConversationPageOwnUnread is TestConversationPageCostOwnUnread's page timed: none
// of u00000's own messages after its read marker, or 20,000 (2,000 in each of ten
// conversations), with 100 mentions of it either way. rows/op is what the database read
// (rows scanned on PostgreSQL, pages touched on SQLite), as the cost tests count it.
func BenchmarkConversationPageOwnUnread(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, own := range []int{0, 20_000} {
			b.Run(fmt.Sprintf("%s/own=%d", backend, own), func(b *testing.B) {
				s := openCostStore(b, backend)
				seedUnread(b, s, own, 100)
				op := unreadPage(s, own, 100)
				c := s.measure(b, op)
				b.ResetTimer()
				for range b.N {
					if err := op(); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(c.Work), "read/op")
				b.ReportMetric(float64(c.Statements), "stmts/op")
			})
		}
	}
}
