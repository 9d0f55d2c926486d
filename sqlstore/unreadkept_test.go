package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// keptCountsQuery compares every kept count with what the conversation list counted before
// issue 39 (the messages after the marker), for every (user, conversation) with a marker, a
// counted message it sent or a mention of it: the rows that differ, and how many rows and
// counts there were.
const keptCountsQuery = `SELECT p.uid, p.conversation_id, COALESCE(k.read_id, 0),
	COALESCE(k.unread_own, 0), (SELECT COUNT(*) FROM messages o WHERE o.app_id = 'a' AND o.sender = p.uid
		AND o.conversation_id = p.conversation_id AND o.id > COALESCE(k.read_id, 0) AND o.seq > 0),
	COALESCE(k.unread_mentions, 0), (SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
		WHERE mm.app_id = 'a' AND mm.uid = p.uid AND mm.conversation_id = p.conversation_id
		AND mm.message_id > COALESCE(k.read_id, 0) AND mg.seq > 0 AND mg.sender <> p.uid)
	FROM (SELECT uid, conversation_id FROM conversation_markers WHERE app_id = 'a'
		UNION SELECT sender, conversation_id FROM messages WHERE app_id = 'a' AND seq > 0
		UNION SELECT uid, conversation_id FROM message_mentions WHERE app_id = 'a') p
	LEFT JOIN conversation_markers k ON k.app_id = 'a' AND k.uid = p.uid AND k.conversation_id = p.conversation_id
	ORDER BY p.conversation_id, p.uid`

// checkKeptCounts fails the test for every kept count that is not the count, and returns
// the sums of the counts, so that a caller can tell a test that counted nothing.
func checkKeptCounts(t *testing.T, s *costStore) (own, mentions int64) {
	t.Helper()
	rows, err := s.raw.Query(keptCountsQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var uid, conv string
		var read, keptOwn, countedOwn, keptMentions, countedMentions int64
		if err := rows.Scan(&uid, &conv, &read, &keptOwn, &countedOwn, &keptMentions, &countedMentions); err != nil {
			t.Fatal(err)
		}
		if keptOwn != countedOwn || keptMentions != countedMentions {
			t.Errorf("%s in %s (read up to %d): kept %d own and %d mentions after the marker, counted %d and %d",
				uid, conv, read, keptOwn, keptMentions, countedOwn, countedMentions)
		}
		own += countedOwn
		mentions += countedMentions
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return own, mentions
}

var errRollBack = errors.New("rolled back on purpose")

// TestUnreadCountsKept (issue 39): after a mix of concurrent sends (some mentioning, some
// held by a moderation rule and approved later), marks read (up to the last message and to
// an earlier one), marks unread, edits that add and remove mentions, deletions, purges,
// a user deleted for good, imports, leaves and joins, resets (one user's and everyone's), and transactions that
// counted a message and rolled back, every kept count is what counting the messages gives:
// on SQLite, and on PostgreSQL with two nodes writing the same conversations.
func TestUnreadCountsKept(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		s := openCostStore(t, backend)
		app := chat.Principal{App: chat.App{ID: "a"}}
		users := []string{"u00000", "u00001", "u00002", "u00003", "u00004"}
		seedGroupB(t, s.db, "g", 4) // u00000…u00003
		if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: "u00004", Name: "u00004"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.Moderation().CreateRule(ctx, app, chat.RuleInput{ID: "hold", Name: "Hold", Action: []string{"blockMessage"},
			Conditions: []chat.Condition{{Category: "pattern", Value: []string{"held"}}}}); err != nil {
			t.Fatal(err)
		}
		nodes := []*chat.Service{s.svc}
		stores := []*sqlstore.DB{s.db}
		if backend == "postgres" {
			db2, err := sqlstore.Open(ctx, s.url, sqlstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db2.Close() })
			svc2 := chat.New(db2, chat.Config{})
			t.Cleanup(func() { svc2.Close(context.Background()) })
			nodes, stores = append(nodes, svc2), append(stores, db2)
		}

		var mu sync.Mutex
		sent := map[string][]int64{} // conversation → ids sent into it
		type target struct{ kind, key string }
		var failures []string
		done := map[string]int{}
		internal := func(what string, err error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil || errors.Is(err, errRollBack):
				done[what]++
			case chat.ErrorCode(err) == "":
				failures = append(failures, fmt.Sprintf("%s: %v", what, err))
			}
		}
		pick := func(r *rand.Rand, conv string) int64 {
			mu.Lock()
			defer mu.Unlock()
			ids := sent[conv]
			if len(ids) == 0 {
				return 0
			}
			return ids[r.IntN(len(ids))]
		}
		text := func(r *rand.Rand, held bool) []byte {
			var b strings.Builder
			for range r.IntN(3) {
				fmt.Fprintf(&b, "<@uid:%s> ", users[r.IntN(len(users))])
			}
			b.WriteString("hello")
			if held {
				b.WriteString(" held")
			}
			return []byte(strconv.Quote(b.String()))
		}
		var wg sync.WaitGroup
		// A member who mentions the others and is then deleted for good, its messages with it.
		if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: "u00005", Name: "u00005"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.Join(ctx, app.ActingAs("u00005"), "g", ""); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := nodes[len(nodes)-1]
			for i := range 10 {
				_, err := svc.SendMessage(ctx, app.ActingAs("u00005"), chat.MessageSend{Receiver: "g", ReceiverType: chat.ReceiverGroup,
					Category: chat.CategoryMessage, Type: "text", Data: []byte(fmt.Sprintf(`{"text":"<@uid:u0000%d> <@uid:u00002> hi"}`, i%4))})
				internal("send", err)
			}
		}()
		for w := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 39))
				svc, db := nodes[w%len(nodes)], stores[w%len(stores)]
				for range 60 {
					me := users[r.IntN(4)] // a member of g
					to := target{chat.ConversationGroup, "g"}
					conv := "group_g"
					if other := users[r.IntN(len(users))]; other != me && r.IntN(2) == 0 {
						to, conv = target{chat.ConversationUser, other}, chat.ConversationID(me, other)
					}
					p := app.ActingAs(me)
					switch op := r.IntN(14); op {
					case 0, 1, 2, 3:
						m, err := svc.SendMessage(ctx, p, chat.MessageSend{Receiver: to.key, ReceiverType: to.kind, Category: chat.CategoryMessage,
							Type: "text", Data: []byte(`{"text":` + string(text(r, r.IntN(6) == 0)) + `}`)})
						internal("send", err)
						if err == nil && m.ID > 0 {
							mu.Lock()
							sent[conv] = append(sent[conv], m.ID)
							mu.Unlock()
						}
					case 4:
						internal("mark read", svc.Mark(ctx, p, to.kind, to.key, chat.MarkRead, 0))
					case 5:
						internal("mark read earlier", svc.Mark(ctx, p, to.kind, to.key, chat.MarkRead, pick(r, conv)))
					case 6:
						if id := pick(r, conv); id > 0 {
							internal("mark unread", svc.Mark(ctx, p, to.kind, to.key, chat.MarkUnread, id))
						}
					case 7:
						if id := pick(r, conv); id > 0 {
							_, err := svc.EditMessage(ctx, app, strconv.FormatInt(id, 10), chat.MessageEdit{Data: []byte(`{"text":` + string(text(r, false)) + `}`)})
							internal("edit", err)
						}
					case 8:
						if id := pick(r, conv); id > 0 {
							_, err := svc.DeleteMessage(ctx, app, strconv.FormatInt(id, 10), r.IntN(2) == 0)
							internal("delete", err)
						}
					case 9:
						switch r.IntN(3) {
						case 0:
							_, err := svc.ResetConversation(ctx, p, to.kind, to.key)
							internal("reset", err)
						case 1:
							internal("delete for all", svc.DeleteConversationForAll(ctx, p, conv))
						default:
							internal("leave", svc.Leave(ctx, p, "g"))
							_, err := svc.Join(ctx, p, "g", "")
							internal("join", err)
						}
					case 10:
						bs, err := svc.Moderation().BlockedMessages(ctx, app, 0, 10)
						internal("blocked", err)
						for _, b := range bs {
							if b.Status == "pending" {
								_, err := svc.Moderation().ReviewBlocked(ctx, app, strconv.FormatInt(b.ID, 10), "approved")
								internal("approve", err)
							}
						}
					case 11:
						if to.kind == chat.ConversationUser {
							// Half of them read by their receiver, whose marker moves past its own
							// messages before them.
							var items []chat.MessageImport
							for i := range 2 {
								muid := fmt.Sprintf("imp-%d-%d", w, r.Int64())
								from, rcpt := me, to.key
								if i == 1 {
									from, rcpt = rcpt, from
								}
								items = append(items, chat.MessageImport{Key: muid, MUID: muid, Sender: from, ReceiverType: chat.ReceiverUser,
									Receiver: rcpt, Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":` + string(text(r, false)) + `}`),
									SentAt: 2_000_000_000 + int64(i), ReadAt: int64(r.IntN(2)) * 2_000_000_002})
							}
							_, err := svc.Import().ImportMessages(ctx, app, items)
							internal("import", err)
						}
					default:
						// A send whose transaction fails after counting: nothing of it stays.
						err := db.Transact(ctx, func(tx chat.Tx) error {
							m := &chat.Message{AppID: "a", ConversationID: "group_g", Sender: me, ReceiverType: chat.ReceiverGroup, Receiver: "g",
								Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"gone"}`),
								Mentions: []chat.Entity{{UID: users[(r.IntN(3)+1+slicesIndex(users, me))%len(users)]}}}
							if err := tx.InsertMessage(m); err != nil {
								return err
							}
							return errRollBack
						})
						if !errors.Is(err, errRollBack) {
							err = fmt.Errorf("%v, want the rollback's error", err)
						}
						internal("rolled back", err)
					}
				}
			}()
		}
		wg.Wait()
		for range 3 {
			_, err := s.svc.SendMessage(ctx, app.ActingAs("u00005"), chat.MessageSend{Receiver: "g", ReceiverType: chat.ReceiverGroup,
				Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"<@uid:u00000> <@uid:u00001> <@uid:u00002> <@uid:u00003> bye"}`)})
			internal("send", err)
		}
		internal("purge user", nodes[len(nodes)-1].DeleteUser(ctx, app, "u00005", true))
		for _, f := range failures {
			t.Error(f)
		}
		t.Logf("done: %v", done)
		for _, what := range []string{"send", "mark read", "mark read earlier", "mark unread", "edit", "delete", "reset",
			"delete for all", "join", "approve", "import", "rolled back", "purge user"} {
			if done[what] == 0 {
				t.Errorf("no %s went through: the mix does not test it", what)
			}
		}
		own, mentions := checkKeptCounts(t, s)
		t.Logf("own messages after markers %d, mentions %d", own, mentions)
		if own == 0 || mentions == 0 {
			t.Errorf("the mix left %d own messages and %d mentions after the markers: it tested nothing", own, mentions)
		}
	})
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestUnreadAfterPurge: a message deleted for good is no longer unread to those who had not
// read it, nor its mentions, in the conversation list and the unread count alike; nor are
// the group messages of a user deleted for good.
func TestUnreadAfterPurge(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		s := openCostStore(t, backend)
		app := chat.Principal{App: chat.App{ID: "a"}}
		seedGroupB(t, s.db, "g", 3) // u00000…u00002
		send := func(from, to, kind, text string) int64 {
			t.Helper()
			m, err := s.svc.SendMessage(ctx, app.ActingAs(from), chat.MessageSend{Receiver: to, ReceiverType: kind,
				Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"` + text + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		check := func(what, kind, key string, unread, mentions int64) {
			t.Helper()
			conv := chat.ConversationID("u00000", key)
			if kind == chat.ConversationGroup {
				conv = chat.GroupConversationID(key)
			}
			c, err := s.svc.GetConversation(ctx, app.ActingAs("u00000"), kind, key)
			if err != nil {
				t.Fatal(err)
			}
			var l chat.MessageList
			if kind == chat.ConversationGroup {
				l, err = s.svc.ListGroupMessages(ctx, app.ActingAs("u00000"), key, chat.MessagePage{Unread: true, Count: true})
			} else {
				l, err = s.svc.ListUserMessages(ctx, app.ActingAs("u00000"), key, chat.MessagePage{Unread: true, Count: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			cs, _, err := s.svc.ListConversations(ctx, app.ActingAs("u00000"), chat.ConversationQuery{Unread: true, Page: chat.Page{Number: 1, PerPage: 10}})
			if err != nil {
				t.Fatal(err)
			}
			listed := slices.ContainsFunc(cs, func(c chat.Conversation) bool { return c.ID == conv })
			var counted int64
			for _, n := range l.Counts {
				counted += n.Count
			}
			if c.Unread != unread || c.Mentions != mentions || counted != unread || listed != (unread > 0) {
				t.Errorf("%s: %s unread %d (counted %d, in the unread list %v), mentions %d; want %d and %d", what, conv,
					c.Unread, counted, listed, c.Mentions, unread, mentions)
			}
		}
		send("u00001", "u00000", chat.ReceiverUser, "one")
		second := send("u00001", "u00000", chat.ReceiverUser, "<@uid:u00000> two")
		send("u00001", "u00000", chat.ReceiverUser, "three")
		send("u00000", "u00001", chat.ReceiverUser, "mine")
		check("sent", chat.ConversationUser, "u00001", 3, 1)
		if _, err := s.svc.DeleteMessage(ctx, app, strconv.FormatInt(second, 10), true); err != nil {
			t.Fatal(err)
		}
		check("purged", chat.ConversationUser, "u00001", 2, 0)
		if err := s.svc.Mark(ctx, app.ActingAs("u00000"), chat.ConversationUser, "u00001", chat.MarkRead, second-1); err != nil {
			t.Fatal(err)
		}
		check("read up to the first", chat.ConversationUser, "u00001", 1, 0)
		if err := s.svc.Mark(ctx, app.ActingAs("u00000"), chat.ConversationUser, "u00001", chat.MarkRead, 0); err != nil {
			t.Fatal(err)
		}
		check("read", chat.ConversationUser, "u00001", 0, 0)

		send("u00002", "g", chat.ReceiverGroup, "<@uid:u00000> hey")
		send("u00001", "g", chat.ReceiverGroup, "<@uid:u00000> hi")
		send("u00002", "g", chat.ReceiverGroup, "<@uid:u00000> ho")
		check("group", chat.ConversationGroup, "g", 3, 3)
		if err := s.svc.DeleteUser(ctx, app, "u00002", true); err != nil {
			t.Fatal(err)
		}
		check("its sender deleted for good", chat.ConversationGroup, "g", 1, 1)
		checkKeptCounts(t, s)
	})
}

// TestKeptUnreadMigration: migration 0032 fills the kept counts of a database written
// before it: markers made for the senders and the mentioned who had none, every count as
// the list counted it, and a conversation missing a seq (a message purged) marked purged,
// so that its unread count still leaves the purged message out.
func TestKeptUnreadMigration(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		url, driver, dsn := "sqlite:"+filepath.Join(t.TempDir(), "old.db"), "sqlite", ""
		dsn = "file:" + strings.TrimPrefix(url, "sqlite:") + "?_pragma=busy_timeout(5000)"
		if backend == "postgres" {
			url = pgtest.URL(t)
			driver, dsn = "pgx", url
		}
		db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
			t.Fatal(err)
		}
		db.Close()
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		s := &costStore{backend: backend, raw: raw}
		// The schema before 0032, and rows as the stores before it wrote them: in u0 and
		// u1's conversation, u1's 1–3 (2 mentions u0), u0's 4–5 (5 mentions u1), u1's 6
		// purged, u1's 7; u0 has read up to 1. In g, u2 mentions u0 twice.
		s.exec(t,
			`DELETE FROM schema_migrations WHERE version = 32`,
			`ALTER TABLE conversation_markers DROP COLUMN unread_own`,
			`ALTER TABLE conversation_markers DROP COLUMN unread_mentions`,
			`ALTER TABLE conversations DROP COLUMN purged_seq`,
			`INSERT INTO users (app_id, uid, name, role, status, created_at) VALUES ('a', 'u0', 'u0', 'default', 'offline', 1),
				('a', 'u1', 'u1', 'default', 'offline', 1), ('a', 'u2', 'u2', 'default', 'offline', 1)`,
			`INSERT INTO messages (id, app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq) VALUES
				(1, 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"1"}', 1, 1, 1),
				(2, 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"<@uid:u0> 2"}', 2, 2, 2),
				(3, 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"3"}', 3, 3, 3),
				(4, 'a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{"text":"4"}', 4, 4, 4),
				(5, 'a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{"text":"<@uid:u1> 5"}', 5, 5, 5),
				(7, 'a', 'u0_user_u1', 'u1', 'user', 'u0', 'message', 'text', '{"text":"7"}', 7, 7, 7),
				(8, 'a', 'group_g', 'u2', 'group', 'g', 'message', 'text', '{"text":"<@uid:u0> 8"}', 8, 8, 1),
				(9, 'a', 'group_g', 'u2', 'group', 'g', 'message', 'text', '{"text":"<@uid:u0> 9"}', 9, 9, 2)`,
			`INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos) VALUES
				('a', 'u0', 'u0_user_u1', 2, 0), ('a', 'u1', 'u0_user_u1', 5, 0), ('a', 'u0', 'group_g', 8, 0), ('a', 'u0', 'group_g', 9, 0)`,
			`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_message_id, last_seq, created_at, updated_at) VALUES
				('a', 'u0_user_u1', 'user', 'u0', 'u1', '', 7, 7, 1, 7), ('a', 'group_g', 'group', '', '', 'g', 9, 2, 8, 9)`,
			`INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq, delivered_id, updated_at)
				VALUES ('a', 'u0', 'u0_user_u1', 1, 1, 1, 1)`,
		)
		if backend == "postgres" {
			s.exec(t, `SELECT setval(pg_get_serial_sequence('messages', 'id'), 9)`)
		}
		db, err = sqlstore.Open(ctx, url, sqlstore.Options{}) // migrates
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		own, mentions := checkKeptCounts(t, s)
		if own != 8 || mentions != 4 { // own: u0 4–5, u1 1–3 and 7, u2 8–9; mentions: u0 2, 8, 9; u1 5
			t.Errorf("%d own messages and %d mentions after the markers, want 8 and 4", own, mentions)
		}
		var purged, gPurged int64
		if err := raw.QueryRow(`SELECT (SELECT purged_seq FROM conversations WHERE conversation_id = 'u0_user_u1'),
			(SELECT purged_seq FROM conversations WHERE conversation_id = 'group_g')`).Scan(&purged, &gPurged); err != nil {
			t.Fatal(err)
		}
		if purged != 7 || gPurged != 0 {
			t.Errorf("purged_seq %d and %d in g, want 7 and 0", purged, gPurged)
		}
		r, err := db.ConversationRow(ctx, "a", "u0", "u0_user_u1")
		if err != nil {
			t.Fatal(err)
		}
		if unread := r.LastSeq - r.Marker.ReadSeq - r.Own; unread != 3 || r.Mentions != 1 {
			t.Errorf("u0's conversation with u1: %d unread, %d mentions; want 3 (2, 3 and 7) and 1", unread, r.Mentions)
		}
	})
}
