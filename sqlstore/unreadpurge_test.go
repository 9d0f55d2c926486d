package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

// purgeRaceWait bounds the waits of TestPurgeUserWhileSending on a loaded machine.
const purgeRaceWait = 60 * time.Second

// TestPurgeUserWhileSending (issue 39, the risk noted with the kept counts): a user deleted
// for good while the others send into the group it was in (mentioning it and each other),
// it sends there and to them, and the others' messages go for good (every fifth), on two
// nodes on PostgreSQL. No write fails but for the user being gone; PostgreSQL detects no
// deadlock (pg_stat_database, read once every backend of the run has exited and flushed
// its statistics: the store retries a deadlock's victim, so only the database tells); and
// every kept count, and every count the list serves (the walk of a reader behind a purged
// message included), equals a recount. The purge changes others' markers (their mentions
// in its messages), its groups' conversations (purged_seq), its markers and one-to-one
// conversations; sends lock their conversation and then its markers, a message's purge
// its conversation and then the message: the user's purge must lock those conversations
// before any message or marker. On SQLite (one writer) the counts alone are checked.
func TestPurgeUserWhileSending(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		ctx := context.Background()
		s := openCostStore(t, backend)
		app := chat.Principal{App: chat.App{ID: "a"}}
		members := []string{"u00000", "u00001", "u00002", "u00003"}
		seedGroupB(t, s.db, "g", len(members))

		// The run's own nodes, named so that their backends can be told apart.
		url := s.url
		if backend == "postgres" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			url += sep + "application_name=purgerace"
		}
		nodes := []*chat.Service{s.svc} // one process owns a SQLite file
		var stores []*sqlstore.DB
		if backend == "postgres" {
			nodes = nil
			for range 2 {
				db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				stores = append(stores, db)
				nodes = append(nodes, chat.New(db, chat.Config{}))
			}
		}
		closed := false
		closeNodes := func() {
			if closed {
				return
			}
			closed = true
			for i := range stores {
				nodes[i].Close(context.Background())
				stores[i].Close()
			}
		}
		defer closeNodes()
		deadlocks := func() int64 {
			var n int64
			if err := s.raw.QueryRow(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		var before int64
		if backend == "postgres" {
			before = deadlocks()
		}

		var failures []string
		var mu sync.Mutex
		fail := func(what string, err error) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, fmt.Sprintf("%s: %v", what, err))
		}
		var purged atomic.Int64
		const rounds = 8
		for round := range rounds {
			victim := fmt.Sprintf("v%02d", round)
			if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: victim, Name: victim}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.svc.Join(ctx, app.ActingAs(victim), "g", ""); err != nil {
				t.Fatal(err)
			}
			var sent atomic.Int64
			var stop atomic.Bool
			var wg sync.WaitGroup
			for w, me := range append([]string{victim}, members...) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					svc := nodes[w%len(nodes)]
					for i := 0; !stop.Load(); i++ {
						to, kind := "g", chat.ReceiverGroup
						if i%3 == 2 { // one-to-one: the victim's with a member, a member's with the victim
							to, kind = members[(w+i)%len(members)], chat.ReceiverUser
							if me != victim {
								to = victim
							}
						}
						text := fmt.Sprintf(`{"text":"<@uid:%s> <@uid:%s> hi"}`, victim, members[(w+i+1)%len(members)])
						m, err := svc.SendMessage(ctx, app.ActingAs(me), chat.MessageSend{Receiver: to, ReceiverType: kind,
							Category: chat.CategoryMessage, Type: "text", Data: []byte(text)})
						switch {
						case err == nil:
							// Every fifth message of the others' goes for good while the
							// senders go on: readers behind it have their unread count walked
							// (purged_seq), its sender's and mentioned users' counted down.
							if n := sent.Add(1); n%5 == 0 && me != victim {
								_, err := svc.DeleteMessage(ctx, app, strconv.FormatInt(m.ID, 10), true)
								if err != nil && (to != victim || chat.ErrorCode(err) != "ERR_MESSAGE_ID_NOT_FOUND") { // gone with the victim
									fail("purge message", err)
								} else {
									purged.Add(1)
								}
							}
						case errors.Is(err, chat.ErrUnavailable) || chat.ErrorCode(err) == "":
							fail("send", err) // a deadlock that outlived its retries, or worse
							return
						case me == victim || to == victim:
							// The victim, or its conversation, is gone: the purge went first.
						default:
							fail("send", err)
							return
						}
						if i%4 == 3 {
							if err := svc.Mark(ctx, app.ActingAs(me), chat.ConversationGroup, "g", chat.MarkRead, 0); err != nil &&
								me != victim {
								fail("mark", err)
							}
						}
					}
				}()
			}
			// The purge comes while every sender is mid-burst.
			for deadline := time.Now().Add(purgeRaceWait); sent.Load() < 20; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: %d sends within %v", round, sent.Load(), purgeRaceWait)
				}
			}
			if err := nodes[round%len(nodes)].DeleteUser(ctx, app, victim, true); err != nil {
				fail("purge "+victim, err)
			}
			// Sends after the purge go on a little, then stop.
			for target, deadline := sent.Load()+20, time.Now().Add(purgeRaceWait); sent.Load() < target; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: the sends stopped after the purge", round)
				}
			}
			stop.Store(true)
			wg.Wait()
		}
		for _, f := range failures {
			t.Error(f)
		}
		own, mentions := checkKeptCounts(t, s)
		t.Logf("%s: after %d users and %d messages purged, own messages after markers %d, mentions %d",
			backend, rounds, purged.Load(), own, mentions)
		checkServedCounts(t, s, members)
		if own == 0 || mentions == 0 {
			t.Errorf("the run left %d own messages and %d mentions after the markers: it tested nothing", own, mentions)
		}
		if backend != "postgres" {
			return
		}
		// A backend flushes its statistics, deadlocks included, when it exits: close the
		// nodes and wait until their backends are gone.
		closeNodes()
		for deadline := time.Now().Add(purgeRaceWait); ; time.Sleep(10 * time.Millisecond) {
			var n int
			if err := s.raw.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()
				AND application_name = 'purgerace'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d backends of the run still there after %v", n, purgeRaceWait)
			}
		}
		if _, err := s.raw.Exec(`SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
		if n := deadlocks() - before; n != 0 {
			t.Errorf("PostgreSQL detected %d deadlocks during the run", n)
		}
	})
}

// servedRecountQuery recounts, from the messages and read markers alone, each user's unread
// and mention counts of each conversation it is a party of (app "a").
const servedRecountQuery = `SELECT u.uid, c.conversation_id,
	(SELECT COUNT(*) FROM messages m WHERE m.app_id = c.app_id AND m.conversation_id = c.conversation_id
		AND m.seq > 0 AND m.sender <> u.uid AND m.id > COALESCE(k.read_id, 0)),
	(SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
		WHERE mm.app_id = c.app_id AND mm.uid = u.uid AND mm.conversation_id = c.conversation_id
		AND mm.message_id > COALESCE(k.read_id, 0) AND mg.seq > 0 AND mg.sender <> u.uid)
	FROM conversations c JOIN users u ON u.app_id = c.app_id AND (c.kind = 'group' OR u.uid IN (c.uid_a, c.uid_b))
	LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = u.uid AND k.conversation_id = c.conversation_id
	WHERE c.app_id = 'a'`

// checkServedCounts fails the test for every conversation of the users whose unread or
// mention count, as the conversation list serves it (kept counts, and the walk of a reader
// behind a purged message), is not the recount.
func checkServedCounts(t *testing.T, s *costStore, users []string) {
	t.Helper()
	type counts struct{ unread, mentions int64 }
	want := map[[2]string]counts{}
	rows, err := s.raw.Query(servedRecountQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var uid, conv string
		var n counts
		if err := rows.Scan(&uid, &conv, &n.unread, &n.mentions); err != nil {
			t.Fatal(err)
		}
		want[[2]string{uid, conv}] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	app := chat.Principal{App: chat.App{ID: "a"}}
	for _, u := range users {
		cs, _, err := s.svc.ListConversations(context.Background(), app.ActingAs(u), chat.ConversationQuery{Page: chat.Page{Number: 1, PerPage: 100}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if got, w := (counts{c.Unread, c.Mentions}), want[[2]string{u, c.ID}]; got != w {
				t.Errorf("%s in %s: %d unread and %d mentions served, recounted %d and %d", u, c.ID, got.unread, got.mentions, w.unread, w.mentions)
			}
		}
	}
}

// TestPurgeUserRacesNewConversation (PostgreSQL): a send that creates a one-to-one
// conversation with a user while the user's purge runs, committing after the purge deleted
// the user's messages and before it deleted their markers (held there by a trigger that
// waits on an advisory lock the test holds), leaves no kept count off: the purge's last
// pass (sweepOneToOnes) takes the message with its markers. Without that pass the message
// stayed with its sender's marker gone, unread_own one short of a recount.
func TestPurgeUserRacesNewConversation(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		if backend != "postgres" {
			t.Skip("SQLite's one writer lets no send into a purge")
		}
		ctx := context.Background()
		s := openCostStore(t, backend)
		app := chat.Principal{App: chat.App{ID: "a"}}
		seedGroupB(t, s.db, "g", 2) // u00000, u00001
		if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: "v", Name: "v"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.SendMessage(ctx, app.ActingAs("v"), chat.MessageSend{Receiver: "u00001", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"hi"}`)}); err != nil {
			t.Fatal(err)
		}
		// s.raw is one connection: the advisory lock is its session's until unlocked.
		s.exec(t,
			`CREATE FUNCTION natter_test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(39); RETURN NULL; END $$`,
			`CREATE TRIGGER natter_test_hold BEFORE DELETE ON messages FOR EACH STATEMENT EXECUTE FUNCTION natter_test_hold()`,
			`SELECT pg_advisory_lock(39)`)
		purged := make(chan error, 1)
		go func() { purged <- s.svc.DeleteUser(ctx, app, "v", true) }()
		for deadline := time.Now().Add(purgeRaceWait); ; time.Sleep(5 * time.Millisecond) {
			var n int
			if err := s.raw.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()
				AND wait_event_type = 'Lock' AND wait_event = 'advisory'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break // the purge's deletion of v's messages has its snapshot and waits
			}
			if time.Now().After(deadline) {
				t.Fatalf("the purge did not reach its deletion of messages within %v", purgeRaceWait)
			}
		}
		if _, err := s.svc.SendMessage(ctx, app.ActingAs("u00000"), chat.MessageSend{Receiver: "v", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"<@uid:v> new"}`)}); err != nil {
			t.Fatal(err)
		}
		s.exec(t, `SELECT pg_advisory_unlock(39)`)
		select {
		case err := <-purged:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(purgeRaceWait):
			t.Fatalf("the purge did not end within %v", purgeRaceWait)
		}
		checkKeptCounts(t, s)
	})
}
