package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // registers "sqlite", to recount a SQLite node's file

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// unreadWait bounds every wait of TestUnreadCountsAfterFaults: long enough for the shared
// 2-core machine under the other sessions' builds, never a sleep that stands for an event.
const unreadWait = 60 * time.Second

// unreadRecountQuery recounts, from the messages and the read markers alone (not the kept
// unread_own and unread_mentions), each user's unread and mention counts of each
// conversation it is a party of: the others' counted messages after its read marker, and
// those of them that mention it. App "e2e", written in the SQL so that it runs on both
// databases without rebinding.
const unreadRecountQuery = `SELECT u.uid, c.conversation_id, COALESCE(k.read_id, 0),
	(SELECT COUNT(*) FROM messages m WHERE m.app_id = c.app_id AND m.conversation_id = c.conversation_id
		AND m.seq > 0 AND m.sender <> u.uid AND m.id > COALESCE(k.read_id, 0)),
	(SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
		WHERE mm.app_id = c.app_id AND mm.uid = u.uid AND mm.conversation_id = c.conversation_id
		AND mm.message_id > COALESCE(k.read_id, 0) AND mg.seq > 0 AND mg.sender <> u.uid)
	FROM conversations c JOIN users u ON u.app_id = c.app_id AND (c.kind = 'group' OR u.uid IN (c.uid_a, c.uid_b))
	LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = u.uid AND k.conversation_id = c.conversation_id
	WHERE c.app_id = 'e2e'`

// TestUnreadCountsAfterFaults (issue 39, "Bad input and faults"): the kept unread and
// mention counts that the conversation list serves equal a recount from the messages and
// read markers after
//
//   - sqlite-kill9: the real binary on SQLite killed (SIGKILL) in the middle of a burst of
//     sends (some mentioning) and marks, then restarted on the same file;
//   - postgres-kill9: the same on PostgreSQL;
//   - postgres-restart: PostgreSQL stopped and started under the burst, natter kept up;
//   - postgres-two-nodes: two natter processes on one PostgreSQL sending into the same
//     conversations while users mark read and unread on either.
//
// Every user's counts are read through the API (GET /conversations on its behalf) and
// compared with unreadRecountQuery run on the database.
func TestUnreadCountsAfterFaults(t *testing.T) {
	for _, fault := range []string{"sqlite-kill9", "postgres-kill9", "postgres-restart", "postgres-two-nodes"} {
		t.Run(fault, func(t *testing.T) {
			// Its own processes and databases: most of its time is waiting, which overlaps.
			t.Parallel()
			testUnreadAfterFault(t, fault)
		})
	}
}

func testUnreadAfterFault(t *testing.T, fault string) {
	ctx := context.Background()
	var dbURL, driver, dsn string
	var pg *pgtest.Instance
	switch {
	case fault == "sqlite-kill9":
		path := filepath.Join(t.TempDir(), "natter.db")
		dbURL, driver, dsn = "sqlite:"+path, "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"
	case fault == "postgres-restart":
		pg = pgtest.NewServer(t)
		dbURL = pg.URL()
		driver, dsn = "pgx", dbURL
	default:
		dbURL = pgtest.URL(t)
		driver, dsn = "pgx", dbURL
	}
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--database", dbURL, "--access-log=false"}
	nodes := []*natterProc{startNatter(t, "node", env, args...)}
	if fault == "postgres-two-nodes" {
		nodes = append(nodes, startNatter(t, "node 2", env, args...))
	}
	hc, _ := newHTTPClient(t)
	hc.Timeout = 10 * time.Second // a request caught by the fault fails rather than hangs
	clientOf := func(i int) *client.Client {
		return client.New(nodes[i%len(nodes)].base(), key, client.WithHTTPClient(hc))
	}

	users := []string{"u0", "u1", "u2", "u3", "u4"}
	c := clientOf(0)
	for _, u := range users {
		if _, err := c.CreateUser(ctx, client.CreateUserRequest{UID: u, Name: u}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.OnBehalfOf("u0").CreateGroup(ctx, client.CreateGroupRequest{GUID: "g", Name: "g", Type: "public"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMembers(ctx, "g", client.MemberLists{Participants: users[1:]}); err != nil {
		t.Fatal(err)
	}

	// The burst: workers send into the group and into one-to-one conversations among the five
	// users, with up to two mentions each, and mark read (up to the last message) and unread
	// (back to a message sent earlier), until stopped. Errors are expected while the fault
	// lasts; a worker goes on.
	var stop atomic.Bool
	var sent, failed atomic.Int64
	var mu sync.Mutex
	ids := map[string][]string{} // conversation key ("g" or the two uids) → ids sent there
	errs := map[string]int{}     // the requests that failed, by status and code
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 39))
			for n := 0; !stop.Load(); n++ {
				me := users[r.IntN(len(users))]
				cl := clientOf(w + n).OnBehalfOf(me)
				to, kind := "g", "group"
				if other := users[r.IntN(len(users))]; other != me && r.IntN(2) == 0 {
					to, kind = other, "user"
				}
				convKey := to
				if kind == "user" {
					convKey = strings.Join([]string{min(me, to), max(me, to)}, "/")
				}
				var err error
				switch op := r.IntN(10); {
				case op < 7:
					var b strings.Builder
					for range r.IntN(3) {
						fmt.Fprintf(&b, "<@uid:%s> ", users[r.IntN(len(users))])
					}
					b.WriteString("burst")
					var m *client.Message
					m, err = cl.SendMessage(ctx, client.SendMessageRequest{Receiver: to, ReceiverType: kind, Category: "message",
						Type: "text", Data: map[string]any{"text": b.String()}})
					if err == nil {
						sent.Add(1)
						mu.Lock()
						ids[convKey] = append(ids[convKey], m.ID)
						mu.Unlock()
					}
				case op < 9:
					if kind == "group" {
						_, err = cl.MarkGroupConversation(ctx, to, client.MarkRead, "")
					} else {
						_, err = cl.MarkUserConversation(ctx, to, client.MarkRead, "")
					}
				default:
					mu.Lock()
					var id string
					if l := ids[convKey]; len(l) > 0 {
						id = l[r.IntN(len(l))]
					}
					mu.Unlock()
					if id == "" {
						continue
					}
					if kind == "group" {
						_, err = cl.MarkGroupConversation(ctx, to, client.MarkUnread, id)
					} else {
						_, err = cl.MarkUserConversation(ctx, to, client.MarkUnread, id)
					}
				}
				if err != nil {
					failed.Add(1)
					status, code := apiErr(err)
					if status == 0 {
						code = "no response" // the transport's error names a port and an address
					}
					mu.Lock()
					errs[fmt.Sprintf("%d %s", status, code)]++
					mu.Unlock()
				}
			}
		}()
	}
	stopBurst := func() {
		stop.Store(true)
		wg.Wait()
	}
	defer stopBurst()
	waitSent := func(n int64, what string) {
		t.Helper()
		for deadline := time.Now().Add(unreadWait); sent.Load() < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d sends of %d within %v %s (%d requests failed)", sent.Load(), n, unreadWait, what, failed.Load())
			}
		}
	}

	waitSent(150, "before the fault")
	switch fault {
	case "sqlite-kill9", "postgres-kill9":
		// Killed mid-burst: requests in flight, SQLite's group commit or PostgreSQL's
		// transactions half done. Then the same database under a new process.
		nodes[0].kill()
		stopBurst()
		nodes[0] = startNatter(t, "node (restarted)", env, args...)
	case "postgres-restart":
		pg.Stop()
		pg.Start()
		// The pool reconnects; the burst goes on over the restart.
		waitSent(sent.Load()+100, "after PostgreSQL's restart")
		stopBurst()
	default:
		waitSent(400, "on two nodes")
		stopBurst()
	}
	t.Logf("%s: %d sends, %d requests failed: %v", fault, sent.Load(), failed.Load(), errs)
	if fault == "postgres-two-nodes" {
		// No fault here: a 500 would be a deadlock or a lost race between the nodes.
		for e, n := range errs {
			if status, _, _ := strings.Cut(e, " "); status == "0" || status >= "500" {
				t.Errorf("%d requests failed with %s on two healthy nodes", n, e)
			}
		}
	}

	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type counts struct{ unread, mentions int64 }
	want := map[[2]string]counts{}
	rows, err := db.QueryContext(ctx, unreadRecountQuery)
	if err != nil {
		t.Fatal(err)
	}
	var totalUnread, totalMentions int64
	for rows.Next() {
		var uid, conv string
		var read int64
		var n counts
		if err := rows.Scan(&uid, &conv, &read, &n.unread, &n.mentions); err != nil {
			t.Fatal(err)
		}
		want[[2]string{uid, conv}] = n
		totalUnread, totalMentions = totalUnread+n.unread, totalMentions+n.mentions
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if totalUnread == 0 || totalMentions == 0 {
		t.Fatalf("the burst left %d unread messages and %d mentions: it tested nothing", totalUnread, totalMentions)
	}

	// Each user's list from every node (on two nodes, each must serve the same counts).
	for i := range nodes {
		for _, u := range users {
			list, err := clientOf(i).OnBehalfOf(u).ListConversations(ctx, client.ListConversationsParams{PerPage: 100})
			if err != nil {
				t.Fatalf("%s's conversations on node %d: %v", u, i, err)
			}
			seen := map[string]bool{}
			for _, cv := range list.Conversations {
				seen[cv.ConversationID] = true
				got := counts{cv.UnreadMessageCount, cv.UnreadMentionsCount}
				if w := want[[2]string{u, cv.ConversationID}]; got != w {
					t.Errorf("node %d: %s in %s: %d unread and %d mentions served, recounted %d and %d",
						i, u, cv.ConversationID, got.unread, got.mentions, w.unread, w.mentions)
				}
			}
			for k, w := range want {
				if k[0] == u && !seen[k[1]] && w != (counts{}) {
					t.Errorf("node %d: %s's list has no %s, which it has %d unread messages in", i, u, k[1], w.unread)
				}
			}
		}
	}
	t.Logf("%s: recounted %d unread messages and %d mentions over %d (user, conversation) pairs",
		fault, totalUnread, totalMentions, len(want))
}
