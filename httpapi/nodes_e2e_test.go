package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/realtime"
	"github.com/natter-chat/natter/sqlstore"
)

// hubNode starts another natter node over e's PostgreSQL database, with sockets and
// following the change log as natter serve does, and returns an env that talks to it (the
// same app and keys) and the node's id on the change log.
func (e *env) hubNode(cfg chat.Config) (*env, string) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := sqlstore.Open(ctx, e.dbURL, sqlstore.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testClock }
	}
	svc := chat.New(db, cfg)
	bus := db.NewBus(nil)
	hub := realtime.NewHub(svc, bus, realtime.HubOptions{}, nil)
	followed := make(chan struct{})
	go func() { defer close(followed); svc.FollowChanges(ctx) }()
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Domain: testDomain, Hub: hub}))
	e.t.Cleanup(func() { // last registered, first run: the server and the follower before the database
		srv.Close()
		cancel()
		<-followed
		hub.Close()
		bus.Close()
		svc.Close(context.Background())
		db.Close()
	})
	n := *e
	n.srv, n.svc, n.hub = srv, svc, hub
	n.c = client.New(srv.URL, e.full, client.WithHTTPClient(e.http))
	n.auth = client.New(srv.URL, e.authKey, client.WithHTTPClient(e.http))
	return &n, db.Node()
}

// waitFor polls cond until it holds or loadedWait passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(loadedWait); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, loadedWait)
		}
	}
}

// loadedWait bounds a wait for something that will happen (a frame, a job done, a cache
// expired): long enough for a machine whose two cores run five other test suites (the
// suite's runs in docs/testing.md), and paid only by a test that fails.
const loadedWait = 30 * time.Second

// listenerCount counts a node's change-log listening connections.
func listenerCount(t *testing.T, raw *sql.DB, node string) int {
	t.Helper()
	var k int
	if err := raw.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, sqlstore.ChangesListenerName(node)).Scan(&k); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSocketsAcrossNodesMissNothing (issue 28): bob's socket is on node B; alice sends him
// messages through node A. While she does, B's connection listening for the change log is
// terminated twice (pg_terminate_backend, as a network failure or a restart would); bob's
// socket still gets every message, once, in id order.
func TestSocketsAcrossNodesMissNothing(t *testing.T) {
	t.Parallel()
	a := newEnvHub(t, "postgres", chat.Config{}, httpapi.Options{}, &realtime.HubOptions{})
	a.mustUser("alice", "Alice")
	a.mustUser("bob", "Bob")
	b, nodeB := a.hubNode(chat.Config{})
	waitFor(t, "node B listens to the change log", func() bool { return listenerCount(t, a.raw, nodeB) == 1 })
	bob := b.connect("bob", "")

	const n = 60
	var sent []string
	for i := range n {
		m := a.mustText("alice", "bob", fmt.Sprint("m", i))
		sent = append(sent, m.ID)
		if i == n/3 || i == 2*n/3 {
			waitFor(t, "B's listener back", func() bool { return listenerCount(t, a.raw, nodeB) == 1 })
			var k int
			if err := a.raw.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
				sqlstore.ChangesListenerName(nodeB)).Scan(&k); err != nil || k != 1 {
				t.Fatalf("terminate B's listener: %d, %v", k, err)
			}
		}
	}
	for i, id := range sent {
		f := bob.next("message")
		var body struct {
			ID     json.Number `json:"id"`
			Sender string      `json:"sender"`
		}
		if err := json.Unmarshal(f["body"], &body); err != nil {
			t.Fatal(err)
		}
		if body.ID.String() != id || body.Sender != "alice" {
			t.Fatalf("message %d on bob's socket: id %s from %s, want %s from alice", i, body.ID, body.Sender, id)
		}
	}
	bob.quiet("message", 300*time.Millisecond) // nothing twice
}

// TestCacheCoherentAcrossNodes (issue 29 §3): what node B caches — a user, a membership, a
// role and a block — follows what node A changes, within the change log's latency: B
// answers the new state without a restart and without waiting out a TTL.
func TestCacheCoherentAcrossNodes(t *testing.T) {
	t.Parallel()
	a := newEnvHub(t, "postgres", chat.Config{}, httpapi.Options{}, &realtime.HubOptions{})
	// B keeps keys and tokens for a minute: what it drops sooner, the feed told it to.
	b, nodeB := a.hubNode(chat.Config{KeyCacheTTL: time.Minute})
	waitFor(t, "node B listens to the change log", func() bool { return listenerCount(t, a.raw, nodeB) == 1 })
	ctx := a.ctx()
	a.mustUser("alice", "Alice")
	a.mustUser("bob", "Bob")
	send := func(from, to string) error {
		_, err := b.c.OnBehalfOf(from).SendMessage(ctx, client.SendMessageRequest{Receiver: to, ReceiverType: "user",
			Category: "message", Type: "text", Data: map[string]any{"text": "hi"}})
		return err
	}
	// B reads (and caches) alice, and that neither blocked the other, by sending.
	if err := send("alice", "bob"); err != nil {
		t.Fatal(err)
	}
	// A user: renamed on A, B's message entities show the new name.
	if _, err := a.c.UpdateUser(ctx, "alice", client.UpdateUserRequest{Name: ptr("Alice Two")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B sees alice renamed", func() bool {
		m, err := b.c.OnBehalfOf("alice").SendMessage(ctx, client.SendMessageRequest{Receiver: "bob", ReceiverType: "user",
			Category: "message", Type: "text", Data: map[string]any{"text": "hi"}})
		return err == nil && m.Data.Entities.Sender != nil && m.Data.Entities.Sender.Entity.Name == "Alice Two"
	})
	// A block: bob blocks alice on A; B refuses her sends.
	if _, err := a.c.BlockUsers(ctx, "bob", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B refuses a blocked send", func() bool { return send("alice", "bob") != nil })
	if _, err := a.c.UnblockUsers(ctx, "bob", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B allows it again", func() bool { return send("alice", "bob") == nil })

	// A membership: alice is kicked from a group on A; B refuses her group sends.
	if _, err := a.c.CreateGroup(ctx, client.CreateGroupRequest{GUID: "g", Name: "G", Type: "public"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.AddMembers(ctx, "g", client.MemberLists{Participants: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	groupSend := func() error {
		_, err := b.c.OnBehalfOf("alice").SendMessage(ctx, client.SendMessageRequest{Receiver: "g", ReceiverType: "group",
			Category: "message", Type: "text", Data: map[string]any{"text": "hi"}})
		return err
	}
	waitFor(t, "B lets the member send", func() bool { return groupSend() == nil })
	if _, err := a.c.KickMember(ctx, "g", "alice"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B refuses the kicked member", func() bool { return groupSend() != nil })

	// A group: read (and cached) on B, renamed on A; B reads the new name, and the member
	// count the kick left.
	groupOnB := func() *client.Group {
		g, err := b.c.GetGroup(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if g := groupOnB(); g.Name != "G" || g.MembersCount != 0 {
		t.Fatalf("B reads group %q with %d members, want G with none (the app made it; alice was kicked)", g.Name, g.MembersCount)
	}
	if _, err := a.c.UpdateGroup(ctx, "g", client.UpdateGroupRequest{Name: ptr("G2")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B sees the group renamed", func() bool { return groupOnB().Name == "G2" })
	if _, err := a.c.AddMembers(ctx, "g", client.MemberLists{Participants: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B counts the new member", func() bool { return groupOnB().MembersCount == 1 })

	// A role: a new role read on B, then deleted on A; B no longer finds it.
	a.mustRole("editors")
	getRole := func() error { _, err := b.c.GetRole(ctx, "editors"); return err }
	waitFor(t, "B finds the role", func() bool { return getRole() == nil })
	if _, err := a.c.DeleteRole(ctx, "editors"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B no longer finds the deleted role", func() bool { return getRole() != nil })

	// An auth token: used on B, deleted on A; B refuses it long before its key cache's TTL.
	tok, err := a.auth.CreateAuthToken(ctx, "bob", client.CreateAuthTokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	asBob := client.New(b.srv.URL, "", client.WithHTTPClient(b.http), client.WithAuthToken(tok.AuthToken))
	if _, err := asBob.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.DeleteAuthToken(ctx, "bob", tok.AuthToken); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B refuses the deleted token", func() bool { _, err := asBob.Me(ctx); return err != nil })
}

// TestSocketsResyncWhenBehind (issue 28): a node that could not read the change log for
// longer than half its retention may have missed changes; its sockets are closed with 1013
// (try again later), and the client SDK reconnects and reads what it missed. Here the
// retention is shortened so that an idle poll stands for the outage. Not parallel: the
// retention is the package's.
func TestSocketsResyncWhenBehind(t *testing.T) {
	// Restored last, once node B's follower has stopped (cleanups run last first).
	retention := sqlstore.ChangeRetention
	t.Cleanup(func() { sqlstore.ChangeRetention = retention })
	sqlstore.ChangeRetention = time.Second // behind after 0.5 s without a read; the poll is 2 s
	a := newEnvHub(t, "postgres", chat.Config{}, httpapi.Options{}, &realtime.HubOptions{})
	a.mustUser("bob", "Bob")
	b, _ := a.hubNode(chat.Config{})
	bob := b.connect("bob", "")
	select {
	case <-time.After(10 * time.Second):
		t.Fatal("bob's socket still open 10 s after node B fell behind")
	case err := <-bob.err:
		if got := websocket.CloseStatus(err); got != websocket.StatusTryAgainLater {
			t.Fatalf("bob's socket closed with %v (%v), want 1013 try again later", got, err)
		}
	}
	// The client comes back on the same node and is served.
	again := b.connect("bob", "")
	again.sync()
}
