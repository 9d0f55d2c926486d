package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// TestChangeLogAcrossNodes: node B follows what node A commits through the change log.
// While A commits messages (by the pipelined send, by a transaction and as a reaction
// batch), B's listening connection is terminated; B still gets every change A committed,
// once and in order, and nothing of a transaction that rolled back. SQLite keeps no log.
func TestChangeLogAcrossNodes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lite, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if err := lite.FollowChanges(ctx, func([]chat.Change) {}, func() {}, func(bool) {}); err != nil || lite.Node() != "" {
		t.Fatalf("SQLite: FollowChanges = %v, node %q; want nil at once and no node", err, lite.Node())
	}

	url, nodes := openNodes(ctx, t, 2)
	a, b := nodes[0], nodes[1]
	seedMessage(t, a, 2)

	var mu sync.Mutex
	var got []chat.Change
	behind := 0
	var lives []bool // what B said of following the log
	followed := make(chan error, 1)
	go func() {
		followed <- b.FollowChanges(ctx, func(cs []chat.Change) {
			mu.Lock()
			got = append(got, cs...)
			mu.Unlock()
		}, func() { behind++ }, func(on bool) {
			mu.Lock()
			lives = append(lives, on)
			mu.Unlock()
		})
	}()
	listener := sqlstore.ChangesListenerName(b.Node())
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	waitListening(t, admin, listener)

	// What A commits: a message per write, every third by a transaction rather than the
	// pipelined send, each followed by a reaction; B's listener is cut twice on the way.
	const n = 60
	var want []int64
	for i := range n {
		m := &chat.Message{AppID: "a", ConversationID: chat.ConversationID("u0", "u1"), Sender: "u0", Receiver: "u1",
			ReceiverType: "user", Category: "message", Type: "text", Data: []byte(fmt.Sprintf(`{"text":"%d"}`, i))}
		cs := &chat.Changes{}
		cs.Add(&chat.Change{Kind: chat.ChangeMessage, App: "a", Message: m})
		wctx := chat.WithChanges(ctx, cs)
		if i%3 == 0 {
			err = a.Transact(wctx, func(tx chat.Tx) error { return tx.InsertMessage(m) })
		} else {
			err = a.CreateMessage(wctx, m)
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, m.ID)
		rs := &chat.Changes{}
		rs.Add(&chat.Change{Kind: chat.ChangeReaction, App: "a", MessageID: m.ID, Actor: "u1", Subject: "👍"})
		if _, err := a.ChangeReaction(chat.WithChanges(ctx, rs), chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: "u1", Reaction: "👍", Add: true, At: 1}); err != nil {
			t.Fatal(err)
		}
		if i == n/3 || i == 2*n/3 {
			waitListening(t, admin, listener) // back from the last cut
			terminate(t, admin, listener)
		}
	}
	// A transaction that rolls back logs nothing.
	ghost := &chat.Message{AppID: "a", ConversationID: chat.ConversationID("u0", "u1"), Sender: "u0", Receiver: "u1",
		ReceiverType: "user", Category: "message", Type: "text", Data: []byte(`{"text":"ghost"}`)}
	cs := &chat.Changes{}
	cs.Add(&chat.Change{Kind: chat.ChangeMessage, App: "a", Message: ghost})
	refused := errors.New("refused")
	if err := a.Transact(chat.WithChanges(ctx, cs), func(tx chat.Tx) error {
		if err := tx.InsertMessage(ghost); err != nil {
			return err
		}
		return refused
	}); !errors.Is(err, refused) {
		t.Fatalf("rolled back: %v", err)
	}

	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k >= 2*n || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// B follows the log again after the second cut before it stops.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		back := len(lives) >= 3 && lives[len(lives)-1] // live again after a cut
		mu.Unlock()
		if back {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // anything extra would show now
	cancel()
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2*n {
		t.Fatalf("B got %d changes, want %d", len(got), 2*n)
	}
	for i, id := range want {
		msg, react := got[2*i], got[2*i+1]
		if msg.Kind != chat.ChangeMessage || msg.MessageID != id || msg.App != "a" || msg.Conversation != chat.ConversationID("u0", "u1") {
			t.Fatalf("change %d: %+v, want message %d", 2*i, msg, id)
		}
		if react.Kind != chat.ChangeReaction || react.MessageID != id || react.Subject != "👍" || react.Actor != "u1" ||
			react.Effect != chat.ReactionAddFirst || react.ReactionID == 0 {
			t.Fatalf("change %d: %+v, want the reaction to %d", 2*i+1, react, id)
		}
	}
	// Live, then off and on again at each cut, and off when it stopped. A cut that lands
	// after the connection shows in pg_stat_activity but before its LISTEN ends a session
	// that never listened, so it may leave no off and on of its own: at least one cycle.
	ok := len(lives) >= 4 && len(lives)%2 == 0
	for i, on := range lives {
		ok = ok && on == (i%2 == 0)
	}
	if !ok {
		t.Errorf("B's live states %v, want true, then false and true at each cut (at least one), and false at the end", lives)
	}
	if behind != 0 {
		t.Errorf("behind called %d times; B never fell behind the retention", behind)
	}
}

// waitListening waits until the listener named name is connected.
func waitListening(t *testing.T, db *sql.DB, name string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var k int
		if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("listener %s never connected", name)
		}
	}
}

// terminate ends the listener's backend, as a network failure or an operator would.
func terminate(t *testing.T, db *sql.DB, name string) {
	t.Helper()
	var k int
	if err := db.QueryRowContext(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&k); err != nil {
		t.Fatal(err)
	}
	if k != 1 {
		t.Fatalf("terminated %d listeners named %s, want 1", k, name)
	}
}

// TestChangeLogOrderUnderConcurrency: writers on two nodes send into one conversation at
// once; a third node gets every message once, in id order, although the transactions
// commit in another order than they took their log positions.
func TestChangeLogOrderUnderConcurrency(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, nodes := openNodes(ctx, t, 3)
	seedMessage(t, nodes[0], 2)
	var mu sync.Mutex
	var got []int64
	go nodes[2].FollowChanges(ctx, func(cs []chat.Change) {
		mu.Lock()
		for _, c := range cs {
			got = append(got, c.MessageID)
		}
		mu.Unlock()
	}, func() {}, func(bool) {})
	time.Sleep(300 * time.Millisecond) // its floor placed

	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m := &chat.Message{AppID: "a", ConversationID: chat.ConversationID("u0", "u1"), Sender: "u0", Receiver: "u1",
					ReceiverType: "user", Category: "message", Type: "text", Data: []byte(fmt.Sprintf(`{"text":"%d.%d"}`, w, i))}
				cs := &chat.Changes{}
				cs.Add(&chat.Change{Kind: chat.ChangeMessage, App: "a", Message: m})
				db, wctx := nodes[w%2], chat.WithChanges(ctx, cs)
				var err error
				if i%4 == 0 {
					err = db.Transact(wctx, func(tx chat.Tx) error { return tx.InsertMessage(m) })
				} else {
					err = db.CreateMessage(wctx, m)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k >= writers*each {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != writers*each {
		t.Fatalf("got %d messages, want %d", len(got), writers*each)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("message %d after %d: out of order (%d of %d)", got[i], got[i-1], i, len(got))
		}
	}
}

// TestChangeLogBehind: a node that could not read the log for longer than half the
// retention (here, shortened, an idle wait between polls stands for it) tells its listeners
// to resync, and reads on: what is still in the log still arrives.
func TestChangeLogBehind(t *testing.T) {
	defer func(r time.Duration) { sqlstore.ChangeRetention = r }(sqlstore.ChangeRetention)
	sqlstore.ChangeRetention = time.Second // behind after 0.5 s without a read; the poll is 2 s
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, nodes := openNodes(ctx, t, 2)
	a, b := nodes[0], nodes[1]
	seedMessage(t, a, 2)
	var mu sync.Mutex
	var got []chat.Change
	behind := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.FollowChanges(ctx, func(cs []chat.Change) {
			mu.Lock()
			got = append(got, cs...)
			mu.Unlock()
		}, func() { mu.Lock(); behind++; mu.Unlock() }, func(bool) {})
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s", what)
			}
		}
	}
	waitFor("B behind after an idle poll", func() bool { return behind > 0 })
	m := &chat.Message{AppID: "a", ConversationID: chat.ConversationID("u0", "u1"), Sender: "u0", Receiver: "u1",
		ReceiverType: "user", Category: "message", Type: "text", Data: []byte(`{"text":"after"}`)}
	cs := &chat.Changes{}
	cs.Add(&chat.Change{Kind: chat.ChangeMessage, App: "a", Message: m})
	if err := a.CreateMessage(chat.WithChanges(ctx, cs), m); err != nil {
		t.Fatal(err)
	}
	waitFor("the change after it", func() bool { return len(got) == 1 && got[0].MessageID == m.ID })
	cancel()
	<-done
}

// openNodes opens n nodes on one PostgreSQL database (a fresh one of pgtest's, at url),
// closed when the test ends.
func openNodes(ctx context.Context, t *testing.T, n int) (url string, nodes []*sqlstore.DB) {
	t.Helper()
	url = pgtest.URL(t)
	nodes = make([]*sqlstore.DB, n)
	for i := range nodes {
		db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		nodes[i] = db
	}
	return url, nodes
}
