package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

// statsClock is a test server's clock that a test moves.
type statsClock struct{ t atomic.Int64 }

func newStatsClock(t time.Time) *statsClock {
	c := &statsClock{}
	c.set(t)
	return c
}

func (c *statsClock) now() time.Time      { return time.Unix(0, c.t.Load()).UTC() }
func (c *statsClock) set(t time.Time)     { c.t.Store(t.UnixNano()) }
func (c *statsClock) at(unix int64)       { c.set(time.Unix(unix, 0)) }
func (c *statsClock) unix() int64         { return c.now().Unix() }
func (c *statsClock) add(d time.Duration) { c.set(c.now().Add(d)) }

func statsEnv(t *testing.T, backend string, clk *statsClock) *env {
	return newEnv(t, backend, chat.Config{Now: clk.now, StatsFlushInterval: -1})
}

// messageTotals adds up the points of GET /stats/messages over a window.
func messageTotals(t *testing.T, c *client.Client, from, to int64) (sent, read, delivered int64) {
	t.Helper()
	m, err := c.MessageMetrics(context.Background(), time.Unix(from, 0), time.Unix(to, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.DataPoints {
		sent, read, delivered = sent+p.MessagesSent, read+p.ReadReceipts, delivered+p.DeliveryReceipts
	}
	return
}

func activeUsers(t *testing.T, c *client.Client, from, to int64) int64 {
	t.Helper()
	m, err := c.UsageMetrics(context.Background(), time.Unix(from, 0), time.Unix(to, 0))
	if err != nil {
		t.Fatal(err)
	}
	return m.Metrics.ActiveUsers
}

// TestStatsTotals: the figures are exactly what the test did. Messages users send count
// (one-to-one, group, thread replies, bot messages), natter's action messages do not; every
// receipt accepted counts; the users active are those who did something on their own
// behalf, and no one else.
func TestStatsTotals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		ctx := e.ctx()
		for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "bot"} {
			e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
		}
		alice, bob, carol, dave := e.c.OnBehalfOf("alice"), e.c.OnBehalfOf("bob"), e.c.OnBehalfOf("carol"), e.c.OnBehalfOf("dave")
		if _, err := alice.CreateGroup(ctx, client.CreateGroupRequest{GUID: "team", Name: "Team", Type: "public",
			Members: &client.MemberLists{Participants: []string{"carol"}}}); err != nil {
			t.Fatal(err)
		}
		first := e.mustText("alice", "bob", "one")
		e.mustText("alice", "bob", "two")
		e.mustText("bob", "alice", "three")
		group := client.SendMessageRequest{Receiver: "team", ReceiverType: "group", Data: map[string]any{"text": "hi team"}}
		g, err := carol.SendMessage(ctx, group)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.SendThreadMessage(ctx, g.ID, client.SendMessageRequest{Data: map[string]any{"text": "a reply"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.SendBotMessage(ctx, "bot", client.SendMessageRequest{Receiver: "erin", ReceiverType: "user", Data: map[string]any{"text": "beep"}}); err != nil {
			t.Fatal(err)
		}
		const sent = 6
		// Actions natter writes are not messages sent: an edit, a deletion (by the app).
		if _, err := alice.EditMessage(ctx, first.ID, client.EditMessageRequest{Data: map[string]any{"text": "one!"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeleteMessage(ctx, first.ID, false); err != nil {
			t.Fatal(err)
		}
		// Receipts: every one accepted, also one that moves no marker; marking unread is not one.
		for _, m := range []struct {
			c    *client.Client
			kind string
		}{{bob, client.MarkDelivered}, {bob, client.MarkRead}, {bob, client.MarkRead}, {alice, client.MarkRead}} {
			other := "alice"
			if m.c == alice {
				other = "bob"
			}
			if _, err := m.c.MarkUserConversation(ctx, other, m.kind, ""); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := carol.MarkGroupConversation(ctx, "team", client.MarkDelivered, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := bob.MarkUserConversation(ctx, "alice", client.MarkUnread, first.ID); err != nil {
			t.Fatal(err)
		}
		const read, delivered = 3, 2
		// A refused receipt is not one: dave is not in the group.
		if _, err := dave.MarkGroupConversation(ctx, "team", client.MarkRead, ""); err == nil {
			t.Fatal("dave marked a group he is not in")
		}
		// dave is active by reacting; erin only received; a key without onBehalfOf is nobody;
		// an onBehalfOf that names no user is never counted, whatever it was sent to.
		if _, err := bob.AddReaction(ctx, g.ID, "👍"); err == nil {
			t.Fatal("bob reacted to a group he is not in")
		}
		if _, err := dave.ListMessages(ctx, client.MessageListParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.ListUsers(ctx, client.ListUsersParams{}); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/v3/users", "/v3/users/alice", "/v3/groups", "/v3/groups/team", "/v3/messages/" + g.ID, "/v3/conversations"} {
			e.do(request{method: "GET", path: path, headers: map[string]string{"onBehalfOf": "ghost"}})
		}

		now := testClock.Unix()
		gotSent, gotRead, gotDelivered := messageTotals(t, e.c, now-3600, now+3600)
		if gotSent != sent || gotRead != read || gotDelivered != delivered {
			t.Errorf("messages sent %d, read receipts %d, delivery receipts %d; want %d, %d, %d",
				gotSent, gotRead, gotDelivered, sent, read, delivered)
		}
		// alice, bob, carol, dave and bot (its messages); not erin, not ghost.
		if got := activeUsers(t, e.c, now-3600, now+3600); got != 5 {
			t.Errorf("active users %d, want 5", got)
		}
		if n := e.count("SELECT COUNT(*) FROM usage_active_days WHERE uid = 'ghost' OR uid = 'erin'"); n != 0 {
			t.Errorf("%d activity rows for users who did nothing", n)
		}

		// The default window is the hour ending with the bucket under way, as the hosted
		// service's example: 12 points, the last one holding everything.
		res := e.do(request{method: "GET", path: "/v3/stats/messages"})
		if res.status != http.StatusOK {
			t.Fatalf("GET /stats/messages: %d %s", res.status, res.body)
		}
		golden(t, "stats_messages_default", res.body)
	})
}

// TestStatsWindows: a window holds the buckets from the one holding fromDate up to the one
// holding the last millisecond before toDate, exactly, for messages and for active users,
// across days and months.
func TestStatsWindows(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			clk := newStatsClock(testClock)
			e := statsEnv(t, b, clk)
			for i := range 8 {
				e.mustUser(fmt.Sprint("u", i), "U")
			}
			B := testClock.Unix() // 2026-11-01 12:00:00 UTC, a bucket's start
			// u0 sends at B-1, u1 at B, u2 at B+299, u3 at B+300: one message each.
			for i, at := range []int64{B - 1, B, B + 299, B + 300} {
				clk.at(at)
				e.mustText(fmt.Sprint("u", i), "u7", "hi")
			}
			for _, tc := range []struct {
				name          string
				from, to      string
				sent, actives int64
				points        int
			}{
				{"one bucket, seconds", s(B), s(B + 300), 2, 2, 1},
				{"one bucket, milliseconds", ms(B * 1000), ms((B + 300) * 1000), 2, 2, 1},
				{"a millisecond into the next bucket", ms(B * 1000), ms((B+300)*1000 + 1), 3, 3, 2},
				{"a millisecond before it", ms(B*1000 - 1), ms((B + 300) * 1000), 3, 3, 2},
				{"three buckets", s(B - 300), s(B + 600), 4, 4, 3},
				{"the bucket before only", s(B - 300), s(B), 1, 1, 1},
			} {
				t.Run(tc.name, func(t *testing.T) {
					m := e.do(request{method: "GET", path: "/v3/stats/messages?fromDate=" + tc.from + "&toDate=" + tc.to})
					var sum int64
					var mm client.MessageMetrics
					decodeData(t, m.body, &mm)
					for _, p := range mm.DataPoints {
						sum += p.MessagesSent
					}
					if sum != tc.sent || len(mm.DataPoints) != tc.points {
						t.Errorf("messages %d in %d points, want %d in %d: %s", sum, len(mm.DataPoints), tc.sent, tc.points, m.body)
					}
					u := e.do(request{method: "GET", path: "/v3/stats?fromDate=" + tc.from + "&toDate=" + tc.to})
					var um client.UsageMetrics
					decodeData(t, u.body, &um)
					// u7 receives only: the senders are the active ones.
					if um.Metrics.ActiveUsers != tc.actives {
						t.Errorf("active users %d, want %d", um.Metrics.ActiveUsers, tc.actives)
					}
				})
			}

			// Days and months: u4 acts on 2026-10-31 at 23:59:59 and on 2026-11-01 at 00:00;
			// u5 on 2026-01-10 and 2026-06-30; u6 on 2025-12-31 at 23:55 only.
			midnight := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Unix()
			for _, act := range []struct {
				uid string
				at  int64
			}{{"u4", midnight - 1}, {"u4", midnight}, {"u5", dayAt(2026, 1, 10, 9)}, {"u5", dayAt(2026, 6, 30, 23)},
				{"u6", time.Date(2025, 12, 31, 23, 55, 0, 0, time.UTC).Unix()}} {
				clk.at(act.at)
				if _, err := e.c.OnBehalfOf(act.uid).ListMessages(e.ctx(), client.MessageListParams{}); err != nil {
					t.Fatal(err)
				}
			}
			clk.set(testClock)
			for _, tc := range []struct {
				name     string
				from, to int64
				want     int64
			}{
				{"the day before ends at midnight", midnight - 86400, midnight, 1},      // u4
				{"the day starts at midnight", midnight, midnight + 86400, 5},           // u4, u0–u3
				{"the last bucket of the day only", midnight - 300, midnight, 1},        // u4
				{"2026 up to October", dayAt(2026, 1, 1, 0), dayAt(2026, 10, 31, 0), 1}, // u5, once
				{"2026 to now", dayAt(2026, 1, 1, 0), B + 3600, 6},                      // u0–u5
				{"a year, from the last bucket of 2025", dayAt(2025, 12, 31, 23) + 3300, dayAt(2026, 12, 31, 23) + 3300, 7},
				{"a year, from the bucket after it", dayAt(2026, 1, 1, 0), dayAt(2026, 12, 31, 0), 6},
				{"months without anyone", dayAt(2026, 2, 1, 0), dayAt(2026, 6, 1, 0), 0},
			} {
				if got := activeUsers(t, e.c, tc.from, tc.to); got != tc.want {
					t.Errorf("%s: active users %d, want %d", tc.name, got, tc.want)
				}
			}
		})
	}
}

// decodeData decodes a success body's data member into out.
func decodeData(t *testing.T, body []byte, out any) {
	t.Helper()
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil || json.Unmarshal(env.Data, out) != nil {
		t.Fatalf("not a success body: %s", body)
	}
}

func s(unix int64) string   { return fmt.Sprint(unix) }
func ms(milli int64) string { return fmt.Sprint(milli) }

func dayAt(y int, m time.Month, d, h int) int64 {
	return time.Date(y, m, d, h, 0, 0, 0, time.UTC).Unix()
}

// TestStatsConcurrentUsers: the socket hub's hook. The bucket under way shows this node's
// peak at once; a bucket that ended keeps its peak, and the level that held through the
// buckets after it.
func TestStatsConcurrentUsers(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			clk := newStatsClock(testClock)
			e := statsEnv(t, b, clk)
			B := testClock.Unix()
			concurrent := func(from, to int64) int64 {
				t.Helper()
				m, err := e.c.UsageMetrics(e.ctx(), time.Unix(from, 0), time.Unix(to, 0))
				if err != nil {
					t.Fatal(err)
				}
				return m.Metrics.ConcurrentUsers
			}
			if got := concurrent(B, B+300); got != 0 {
				t.Fatalf("concurrent users before any socket: %d", got)
			}
			closeA := e.svc.Usage().SocketConnected("demo", "alice")
			closeB := e.svc.Usage().SocketConnected("demo", "bob")
			closeB2 := e.svc.Usage().SocketConnected("demo", "bob")
			other := e.svc.Usage().SocketConnected("other", "zed") // another app's
			defer other()
			if got := concurrent(B, B+300); got != 2 {
				t.Errorf("concurrent users now: %d, want 2", got)
			}
			closeB()
			closeB2()
			clk.add(20 * time.Minute) // alice alone for three buckets more
			if got := concurrent(B, B+300); got != 2 {
				t.Errorf("the bucket that ended: %d, want 2", got)
			}
			if got := concurrent(B+300, B+1200); got != 1 {
				t.Errorf("the buckets after it: %d, want 1", got)
			}
			// Over days: the whole day's peak, and the buckets at the window's ends.
			if got := concurrent(B-2*86400, B+86400); got != 2 {
				t.Errorf("three days around it: %d, want 2", got)
			}
			if got := concurrent(B-12*3600, B-12*3600+86400); got != 2 {
				t.Errorf("its whole day: %d, want 2", got)
			}
			if got := concurrent(B+300, B+2*86400); got != 1 {
				t.Errorf("from the bucket after it over two days: %d, want 1", got)
			}
			closeA()
			if got := concurrent(B-300, B); got != 0 {
				t.Errorf("the bucket before any: %d, want 0", got)
			}
		})
	}
}

// TestStatsRefusals: bad windows are 400 in the error envelope, never 500; the operations
// are an admin's (fullAccess key only); each app sees its own figures.
func TestStatsRefusals(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustText("alice", "bob", "hi")
		for _, tc := range []struct {
			path   string
			fields []string
		}{
			{"/v3/stats", []string{"fromDate", "toDate"}},
			{"/v3/stats?fromDate=1700000000", []string{"toDate"}},
			{"/v3/stats?fromDate=abc&toDate=1700000000", []string{"fromDate"}},
			{"/v3/stats?fromDate=1.5&toDate=1700000000", []string{"fromDate"}},
			{"/v3/stats?fromDate=-300&toDate=1700000000", []string{"fromDate"}},
			{"/v3/stats?fromDate=1700000000&toDate=1699999700", []string{"toDate"}},
			{"/v3/stats?fromDate=1700000000&toDate=1700000000000", []string{"toDate"}},
			{"/v3/stats?fromDate=0&toDate=9223372036854775807", []string{"toDate"}},
			{"/v3/stats?fromDate=0&toDate=99999999999999999999999", []string{"toDate"}},
			{"/v3/stats?fromDate=1600000000&toDate=1700000000", []string{"toDate"}}, // three years
			{"/v3/stats/messages?fromDate=1700000000", []string{"toDate"}},
			{"/v3/stats/messages?toDate=1700000000", []string{"fromDate"}},
			{"/v3/stats/messages?fromDate=1700000000&toDate=1701000000", []string{"toDate"}}, // 11 days
			{"/v3/stats/messages?fromDate=1700000000&toDate=1600000000", []string{"toDate"}},
		} {
			res := e.do(request{method: "GET", path: tc.path})
			if res.status != http.StatusBadRequest || res.code != "ERR_BAD_REQUEST" {
				t.Errorf("%s: %d %s, want 400 ERR_BAD_REQUEST: %s", tc.path, res.status, res.code, res.body)
				continue
			}
			for _, f := range tc.fields {
				if !strings.Contains(string(res.body), `"`+f+`":[`) {
					t.Errorf("%s: details do not name %s: %s", tc.path, f, res.body)
				}
			}
		}
		golden(t, "stats_bad_window", e.do(request{method: "GET", path: "/v3/stats?fromDate=abc"}).body)

		window := "?fromDate=1700000000&toDate=1800000000"
		tok, err := e.c.CreateAuthToken(e.ctx(), "alice", client.CreateAuthTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/v3/stats" + window, "/v3/stats/messages"} {
			if res := e.do(request{method: "GET", path: path, headers: map[string]string{"apikey": e.authKey}}); res.status != http.StatusForbidden || res.code != "AUTH_ERR_NO_ACCESS" {
				t.Errorf("%s with an authOnly key: %d %s", path, res.status, res.code)
			}
			if res := e.do(request{method: "GET", path: path, headers: map[string]string{"apikey": "", "authToken": tok.AuthToken, "appId": "demo"}}); res.status != http.StatusForbidden || res.code != "AUTH_ERR_NO_ACCESS" {
				t.Errorf("%s with an auth token: %d %s", path, res.status, res.code)
			}
			if res := e.do(request{method: "GET", path: path, headers: map[string]string{"apikey": ""}}); res.status != http.StatusUnauthorized {
				t.Errorf("%s without a key: %d %s", path, res.status, res.code)
			}
		}

		// Another app on the same server sees nothing of demo's.
		other, _ := e.newApp("other", "us")
		now := testClock.Unix()
		if sent, _, _ := messageTotals(t, other, now-3600, now+3600); sent != 0 {
			t.Errorf("another app sees %d messages", sent)
		}
		if got := activeUsers(t, other, now-3600, now+3600); got != 0 {
			t.Errorf("another app sees %d active users", got)
		}
		if sent, _, _ := messageTotals(t, e.c, now-3600, now+3600); sent != 1 {
			t.Errorf("demo sees %d messages, want 1", sent)
		}
	})
}

// TestStatsCloseSavesAll: a node that stops cleanly saves everything it counted, with no
// timer and no stats request: Service.Close, which natter serve calls after draining.
func TestStatsCloseSavesAll(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		for range 3 {
			e.mustText("alice", "bob", "hi")
		}
		if _, err := e.c.OnBehalfOf("bob").MarkUserConversation(e.ctx(), "alice", client.MarkRead, ""); err != nil {
			t.Fatal(err)
		}
		hangUp := e.svc.Usage().SocketConnected("demo", "bob")
		defer hangUp()
		if err := e.svc.Close(e.ctx()); err != nil {
			t.Fatal(err)
		}
		if n := e.count("SELECT COALESCE(SUM(messages_sent), 0) + 10 * COALESCE(SUM(read_receipts), 0) + 100 * COALESCE(MAX(concurrent_users), 0) FROM usage_buckets WHERE app_id = 'demo'"); n != 113 {
			t.Errorf("saved 3 messages, 1 read receipt and 1 concurrent user as %d, want 113", n)
		}
		if n := e.count("SELECT COUNT(*) FROM usage_active_days WHERE app_id = 'demo'"); n != 2 {
			t.Errorf("%d users saved active, want 2", n)
		}
	})
}

// TestStatsNodes: nodes on one PostgreSQL count apart and add up exactly, under concurrent
// sends on both; each node's figures show on the others once saved (here: when that node
// answers a stats request, or by its timer).
func TestStatsNodes(t *testing.T) {
	e := newEnv(t, "postgres", chat.Config{StatsFlushInterval: -1})
	second := e.secondNode(chat.Config{StatsFlushInterval: 50 * time.Millisecond})
	c2 := client.New(second, e.full, client.WithHTTPClient(e.http))
	const users, perNode = 10, 40
	for i := range users {
		e.mustUser(fmt.Sprint("u", i), "U")
	}
	var wg sync.WaitGroup
	for n, c := range []*client.Client{e.c, c2} {
		for i := range perNode {
			wg.Add(1)
			go func() {
				defer wg.Done()
				from, to := fmt.Sprint("u", (i+n)%users), fmt.Sprint("u", (i+n+1)%users)
				if _, err := c.OnBehalfOf(from).SendMessage(e.ctx(), client.SendMessageRequest{Receiver: to, ReceiverType: "user",
					Data: map[string]any{"text": "hi"}}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	now := testClock.Unix()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sent, _, _ := messageTotals(t, e.c, now-300, now+300)
		if sent == 2*perNode {
			break
		}
		if sent > 2*perNode || time.Now().After(deadline) {
			t.Fatalf("messages sent %d, want %d", sent, 2*perNode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := activeUsers(t, e.c, now-300, now+300); got != users {
		t.Errorf("active users %d, want %d", got, users)
	}
	if sent, _, _ := messageTotals(t, c2, now-300, now+300); sent != 2*perNode {
		t.Errorf("the second node sees %d messages, want %d", sent, 2*perNode)
	}
}
