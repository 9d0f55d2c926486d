package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/sqlstore"
	"github.com/natter-chat/natter/webhook"
	"github.com/natter-chat/natter/wire"
)

// receiver is a local webhook endpoint: it records what it accepts, and refuses with 500
// while fail says so.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []delivered
	fail func(n int) bool // n counts every request, from 1
	n    int
}

type delivered struct {
	header http.Header
	body   []byte
	env    struct {
		Trigger string          `json:"trigger"`
		Data    json.RawMessage `json:"data"`
		AppID   string          `json:"appId"`
		Region  string          `json:"region"`
		Webhook string          `json:"webhook"`
	}
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.n++
		if rc.fail != nil && rc.fail(rc.n) {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		d := delivered{header: r.Header.Clone(), body: body}
		json.Unmarshal(body, &d.env)
		rc.got = append(rc.got, d)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) wait(t *testing.T, n int) []delivered {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rc.mu.Lock()
		got := append([]delivered(nil), rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			time.Sleep(200 * time.Millisecond) // anything more would be a duplicate
			rc.mu.Lock()
			got = append([]delivered(nil), rc.got...)
			rc.mu.Unlock()
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// webhookEnv is an env whose server may deliver to loopback, with this node's workers on a
// short schedule.
func webhookEnv(t *testing.T, backend string) *env {
	e := newEnv(t, backend, chat.Config{WebhookAllowPrivate: true, Now: time.Now})
	startDeliverer(t, e, 0)
	return e
}

// startDeliverer runs a node's workers on a short schedule until the test ends.
func startDeliverer(t *testing.T, e *env, workers int) {
	ctx, cancel := context.WithCancel(context.Background())
	d := webhook.New(e.svc, webhook.Config{Workers: workers, Poll: 20 * time.Millisecond, Backoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		Timeout: 2 * time.Second, AllowPrivate: true})
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestWebhookDeliversEachTriggerOnce(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			before := e.mustText("ann", "bob", "before any webhook") // no event: nobody subscribed
			wh, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL + "/hook"), UseBasicAuth: ptr(true),
				Username: ptr("natter"), Password: ptr("pw"), Triggers: &chat.EmittedTriggers})
			if err != nil {
				t.Fatal(err)
			}
			m := e.mustText("ann", "bob", "hello")
			ann := e.c.OnBehalfOf("ann")
			if _, err := ann.EditMessage(e.ctx(), m.ID, client.EditMessageRequest{Data: map[string]any{"text": "hello!"}}); err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second add is a no-op: no event
				if _, err := e.c.OnBehalfOf("bob").AddReaction(e.ctx(), m.ID, "👍"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.c.OnBehalfOf("bob").RemoveReaction(e.ctx(), m.ID, "👍"); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.OnBehalfOf("bob").RemoveReaction(e.ctx(), m.ID, "👍"); err != nil { // no-op
				t.Fatal(err)
			}
			if _, err := ann.DeleteMessage(e.ctx(), m.ID, false); err != nil {
				t.Fatal(err)
			}
			// A refused change (bob may not delete ann's message) writes no event.
			if _, err := e.c.OnBehalfOf("bob").DeleteMessage(e.ctx(), before.ID, false); err == nil {
				t.Fatal("bob deleted ann's message")
			}
			got := rc.wait(t, 5)
			want := []string{"message_sent", "message_edited", "message_reaction_added", "message_reaction_removed", "message_deleted"}
			if len(got) != len(want) {
				t.Fatalf("%d deliveries, want %d", len(got), len(want))
			}
			ids := map[string]bool{}
			for i, d := range got {
				if d.env.Trigger != want[i] || d.env.AppID != "demo" || d.env.Region != "us" || d.env.Webhook != wh.ID {
					t.Errorf("delivery %d: %s", i, d.body)
				}
				if d.header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("natter:pw")) {
					t.Errorf("delivery %d: Authorization %q", i, d.header.Get("Authorization"))
				}
				if err := webhook.Verify([]byte(wh.SigningSecret), d.header.Get(webhook.HeaderTimestamp), d.header.Get(webhook.HeaderSignature), d.body, 5*time.Minute, time.Now()); err != nil {
					t.Errorf("delivery %d: %v", i, err)
				}
				if d.header.Get(webhook.HeaderAttempt) != "1" || d.header.Get(webhook.HeaderTrigger) != want[i] {
					t.Errorf("delivery %d: headers %v", i, d.header)
				}
				ids[d.header.Get(webhook.HeaderEventID)] = true
			}
			if len(ids) != 5 {
				t.Errorf("event ids not distinct: %v", ids)
			}
			var sent struct {
				Message struct {
					ID     string
					Sender string
					Data   struct{ Text string }
				}
			}
			json.Unmarshal(got[0].env.Data, &sent)
			if sent.Message.ID != m.ID || sent.Message.Sender != "ann" || sent.Message.Data.Text != "hello" {
				t.Errorf("message_sent data: %s", got[0].env.Data)
			}
			var reacted struct {
				Reaction struct {
					MessageID, Reaction, UID string
					ReactedBy                struct{ UID string }
				}
			}
			json.Unmarshal(got[2].env.Data, &reacted)
			if r := reacted.Reaction; r.MessageID != m.ID || r.Reaction != "👍" || r.UID != "bob" || r.ReactedBy.UID != "bob" {
				t.Errorf("message_reaction_added data: %s", got[2].env.Data)
			}
			var edited struct {
				Message struct {
					Data struct {
						Action   string
						Entities struct {
							On struct{ Entity struct{ ID string } }
						}
					}
				}
			}
			json.Unmarshal(got[1].env.Data, &edited)
			if edited.Message.Data.Action != "edited" || edited.Message.Data.Entities.On.Entity.ID != m.ID {
				t.Errorf("message_edited data: %s", got[1].env.Data)
			}
			if n := e.count(`SELECT COUNT(*) FROM webhook_deliveries WHERE state = 1`); n != 5 {
				t.Errorf("%d deliveries marked delivered, want 5", n)
			}
		})
	}
}

func TestWebhookRetriesInOrder(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			rc.fail = func(n int) bool { return n <= 6 } // down for a while, then back
			other := newReceiver(t)                      // a healthy webhook is not held up
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			e.mustUser("cat", "Cat")
			for _, u := range []string{rc.srv.URL, other.srv.URL} {
				if _, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(u), Triggers: &[]string{"message_sent"}}); err != nil {
					t.Fatal(err)
				}
			}
			var ab, ac []string
			for i := range 5 {
				ab = append(ab, e.mustText("ann", "bob", "ab"+string(rune('0'+i))).ID)
				ac = append(ac, e.mustText("ann", "cat", "ac"+string(rune('0'+i))).ID)
			}
			if got := other.wait(t, 10); len(got) != 10 {
				t.Fatalf("healthy webhook: %d deliveries", len(got))
			}
			got := rc.wait(t, 10)
			if len(got) != 10 {
				t.Fatalf("%d deliveries after recovery, want 10", len(got))
			}
			seen := map[string][]string{}
			for _, d := range got {
				var m struct{ Message struct{ ID, Receiver string } }
				json.Unmarshal(d.env.Data, &m)
				seen[m.Message.Receiver] = append(seen[m.Message.Receiver], m.Message.ID)
			}
			if strings.Join(seen["bob"], ",") != strings.Join(ab, ",") || strings.Join(seen["cat"], ",") != strings.Join(ac, ",") {
				t.Fatalf("out of order per conversation: bob %v want %v; cat %v want %v", seen["bob"], ab, seen["cat"], ac)
			}
			if n := e.count(`SELECT COUNT(*) FROM webhook_deliveries WHERE attempts > 1`); n == 0 {
				t.Fatal("no delivery was retried")
			}
		})
	}
}

// TestWebhookLaneBatchStopsAtFailure: a conversation's backlog goes to one worker as a
// batch, posted in order; the first attempt that fails ends the batch, the ones after it
// are not posted before its retry, and their attempts are not counted.
func TestWebhookLaneBatchStopsAtFailure(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			down, after := true, 0
			rc.fail = func(int) bool { // under rc.mu
				if down {
					return true // the backlog builds up behind the lane's head
				}
				after++
				return after == 2 // then the batch's second post fails, once
			}
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			if _, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL), Triggers: &[]string{"message_sent"}}); err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range 5 {
				want = append(want, e.mustText("ann", "bob", "m"+string(rune('0'+i))).ID)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				rc.mu.Lock()
				n := rc.n
				if n > 0 {
					down = false
				}
				rc.mu.Unlock()
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no attempt")
				}
			}
			var got []string
			for _, d := range rc.wait(t, 5) {
				var m struct{ Message struct{ ID string } }
				json.Unmarshal(d.env.Data, &m)
				got = append(got, m.Message.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("delivered %v, want %v in order", got, want)
			}
			rc.mu.Lock()
			posts := after
			rc.mu.Unlock()
			if posts != 6 {
				t.Errorf("%d posts once up, want 6 (five and the failed one's retry)", posts)
			}
			attempts := func(id string) int {
				return e.count(`SELECT attempts FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.message_id = ` + id)
			}
			if n := attempts(want[1]); n != 2 {
				t.Errorf("the failed delivery: %d attempts, want 2", n)
			}
			for _, id := range want[2:] {
				if n := attempts(id); n != 1 {
					t.Errorf("message %s: %d attempts, want 1: those a failed batch gave back are uncounted", id, n)
				}
			}
		})
	}
}

// TestWebhookLogAndReplay: the delivery log pages what was sent, and a replay sends an
// event again with its id, by id or by time range; bad requests are refused.
func TestWebhookLogAndReplay(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			wh, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL + "/hook"), Triggers: &[]string{"message_sent"}})
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now().UnixMilli()
			e.mustText("ann", "bob", "one")
			e.mustText("ann", "bob", "two")
			got := rc.wait(t, 2)
			first := got[0].header.Get("X-Natter-Event-Id")

			log, err := e.c.ListDeliveries(e.ctx(), wh.ID, client.DeliveriesParams{})
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != 2 || log[1].EventID != first || log[0].State != "delivered" || log[0].Attempts != 1 || log[0].Trigger != "message_sent" || log[0].LastStatus != 200 {
				t.Fatalf("log %+v, want two delivered entries, newest first, the older %s", log, first)
			}
			page, err := e.c.ListDeliveries(e.ctx(), wh.ID, client.DeliveriesParams{Limit: 1})
			if err != nil || len(page) != 1 || page[0].ID != log[0].ID {
				t.Fatalf("first page of one: %+v %v", page, err)
			}
			if r := e.do(request{method: "GET", path: "/v3/webhooks/" + wh.ID + "/deliveries?limit=1"}); !strings.Contains(string(r.body), `"next":{"before":"`+log[0].ID+`"}`) {
				t.Errorf("a full page's meta: %s, want next.before %s", r.body, log[0].ID)
			}
			older, err := e.c.ListDeliveries(e.ctx(), wh.ID, client.DeliveriesParams{Before: log[0].ID})
			if err != nil || len(older) != 1 || older[0].ID != log[1].ID {
				t.Fatalf("the page before %s: %+v %v", log[0].ID, older, err)
			}
			if dead, err := e.c.ListDeliveries(e.ctx(), wh.ID, client.DeliveriesParams{State: "dead"}); err != nil || len(dead) != 0 {
				t.Errorf("dead deliveries: %+v %v, want none", dead, err)
			}

			// Replay one event: it arrives again with the same event id, and its retries run
			// for --webhook-retry-for from the replay, not from the event's first delivery.
			replayedAt := time.Now().UnixMilli()
			if n, err := e.c.Replay(e.ctx(), wh.ID, client.ReplayRequest{EventID: first}); err != nil || n != 1 {
				t.Fatalf("replay %s: %d %v", first, n, err)
			}
			got = rc.wait(t, 3)
			if id := got[2].header.Get("X-Natter-Event-Id"); id != first {
				t.Errorf("replayed delivery's event id %s, want %s", id, first)
			}
			if n := e.count(`SELECT COUNT(*) FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
				WHERE d.created_at >= $1 AND ev.created_at < $1`, replayedAt); n != 1 {
				t.Errorf("%d replayed deliveries with a fresh retry window, want 1", n)
			}
			// Replay the range: both again.
			if n, err := e.c.Replay(e.ctx(), wh.ID, client.ReplayRequest{From: t0 - 1000, To: time.Now().UnixMilli()}); err != nil || n != 2 {
				t.Fatalf("replay the range: %d %v, want 2", n, err)
			}
			rc.wait(t, 5)

			week := int64(7 * 24 * time.Hour / time.Millisecond)
			for _, c := range []struct {
				name   string
				r      request
				status int
			}{
				{"unknown state", request{method: "GET", path: "/v3/webhooks/" + wh.ID + "/deliveries?state=lost"}, 400},
				{"limit 0", request{method: "GET", path: "/v3/webhooks/" + wh.ID + "/deliveries?limit=0"}, 400},
				{"limit 101", request{method: "GET", path: "/v3/webhooks/" + wh.ID + "/deliveries?limit=101"}, 400},
				{"bad cursor", request{method: "GET", path: "/v3/webhooks/" + wh.ID + "/deliveries?before=x"}, 400},
				{"unknown webhook's log", request{method: "GET", path: "/v3/webhooks/nope/deliveries"}, 404},
				{"replay nothing", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: `{}`}, 400},
				{"replay both", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: `{"eventId":"evt_1","from":1,"to":2}`}, 400},
				{"malformed event id", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: `{"eventId":"evt_x"}`}, 400},
				{"range backwards", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: fmt.Sprintf(`{"from":%d,"to":%d}`, t0, t0-1)}, 400},
				{"range over a week", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: fmt.Sprintf(`{"from":%d,"to":%d}`, t0, t0+week+1)}, 400},
				{"unknown webhook's replay", request{method: "POST", path: "/v3/webhooks/nope/replay", body: `{"eventId":"evt_1"}`}, 404},
				{"not JSON", request{method: "POST", path: "/v3/webhooks/" + wh.ID + "/replay", body: `evt_1`}, 400},
			} {
				if r := e.do(c.r); r.status != c.status {
					t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
				}
			}
			if n, err := e.c.Replay(e.ctx(), wh.ID, client.ReplayRequest{EventID: "evt_999999"}); err != nil || n != 0 {
				t.Errorf("replay of an event this webhook never had: %d %v, want 0", n, err)
			}
		})
	}
}

// TestWebhookDisabledPauses: a disabled webhook's pending deliveries wait, and go out in
// order once it is enabled again.
func TestWebhookDisabledPauses(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			down := true
			rc.fail = func(int) bool { return down } // read under rc.mu
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			wh, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL), Triggers: &[]string{"message_sent"}})
			if err != nil {
				t.Fatal(err)
			}
			a, b := e.mustText("ann", "bob", "a"), e.mustText("ann", "bob", "b")
			tries := func() int {
				rc.mu.Lock()
				defer rc.mu.Unlock()
				return rc.n
			}
			for deadline := time.Now().Add(10 * time.Second); tries() == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no attempt while enabled")
				}
			}
			if _, err := e.c.UpdateWebhook(e.ctx(), wh.ID, client.WebhookRequest{Enabled: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// Attempts claimed before the update may still be made; then none is (none is
			// counted, so none nears dead-lettering), across more than the whole back-off
			// schedule of this env (at most 200 ms apart).
			attempts := func() int { return e.count(`SELECT COALESCE(SUM(attempts), 0) FROM webhook_deliveries`) }
			time.Sleep(300 * time.Millisecond)
			paused, pausedTries := attempts(), tries()
			time.Sleep(600 * time.Millisecond)
			if n := attempts(); n != paused || tries() != pausedTries {
				t.Fatalf("%d attempts while disabled", n-paused)
			}
			if n := e.count(`SELECT COUNT(*) FROM webhook_deliveries WHERE state = 0`); n != 2 {
				t.Fatalf("%d pending deliveries while disabled, want 2", n)
			}
			rc.mu.Lock()
			down = false
			rc.mu.Unlock()
			if _, err := e.c.UpdateWebhook(e.ctx(), wh.ID, client.WebhookRequest{Enabled: ptr(true)}); err != nil {
				t.Fatal(err)
			}
			got := rc.wait(t, 2)
			var ids []string
			for _, d := range got {
				var m struct{ Message struct{ ID string } }
				json.Unmarshal(d.env.Data, &m)
				ids = append(ids, m.Message.ID)
			}
			if len(ids) != 2 || ids[0] != a.ID || ids[1] != b.ID {
				t.Fatalf("after enabling: %v, want [%s %s]", ids, a.ID, b.ID)
			}
		})
	}
}

// TestWebhookSlowEndpointHoldsItsShare: a webhook whose endpoint hangs holds at most a
// quarter of the node's workers, however many of its deliveries are due at once, so a
// healthy webhook's events still go out. The deliveries pile up before the workers start,
// so that one claim sees them all.
func TestWebhookSlowEndpointHoldsItsShare(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			const workers, convs = 16, 12
			e := newEnv(t, b, chat.Config{WebhookAllowPrivate: true, Now: time.Now})
			var mu sync.Mutex
			inFlight, most := 0, 0
			release := make(chan struct{})
			slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				select {
				case <-release:
				case <-r.Context().Done():
				}
				mu.Lock()
				inFlight--
				mu.Unlock()
			}))
			t.Cleanup(func() { close(release); slow.Close() })
			healthy := newReceiver(t)
			e.mustUser("ann", "Ann")
			for _, u := range []string{slow.URL, healthy.srv.URL} { // the slow one's deliveries come first
				if _, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(u), Triggers: &[]string{"message_sent"}}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range convs { // one conversation each: none waits for another
				uid := fmt.Sprintf("u%d", i)
				e.mustUser(uid, uid)
				e.mustText("ann", uid, "hi")
			}
			startDeliverer(t, e, workers)
			healthy.wait(t, convs)
			mu.Lock()
			defer mu.Unlock()
			if most > workers/4 {
				t.Errorf("the hanging endpoint held %d of %d workers at once, want at most %d", most, workers, workers/4)
			}
		})
	}
}

// TestWebhookCommitWakesWorkers: a change committed on a node wakes its workers, so its
// events go out at once rather than at the next poll (an hour away here).
func TestWebhookCommitWakesWorkers(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{WebhookAllowPrivate: true, Now: time.Now})
	ctx, cancel := context.WithCancel(context.Background())
	d := webhook.New(e.svc, webhook.Config{Poll: time.Hour, Timeout: 2 * time.Second, AllowPrivate: true})
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	rc := newReceiver(t)
	e.mustUser("ann", "Ann")
	e.mustUser("bob", "Bob")
	if _, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL), Triggers: &[]string{"message_sent", "user_blocked"}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the workers' first claim, of nothing, is done: they wait an hour
	e.mustText("ann", "bob", "now")
	if _, err := e.c.BlockUsers(e.ctx(), "ann", []string{"bob"}); err != nil {
		t.Fatal(err)
	}
	// Two ordering keys (the conversation, ann's blocks): either may go first.
	got := rc.wait(t, 2)
	if ts := []string{got[0].env.Trigger, got[1].env.Trigger}; !sameMultiset(ts, []string{"message_sent", "user_blocked"}) {
		t.Fatalf("got %v, want message_sent and user_blocked", ts)
	}
}

// TestWebhookDataFromFeedAsFromStore: a new message's events are rendered from the copy
// this node's change feed announced, without reading the message back; the data is the
// same, byte for byte, as a node that reads it from the store renders (a second service on
// the same database, whose feed announced nothing).
func TestWebhookDataFromFeedAsFromStore(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			e.mustUser("ann", "Ann")
			e.mustUser("bob", "Bob")
			wh, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL + "/hook"),
				Triggers: &[]string{chat.TriggerMessageSent, chat.TriggerUserMentioned}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.OnBehalfOf("ann").CreateGroup(e.ctx(), client.CreateGroupRequest{GUID: "g1", Name: "G1", Type: "public",
				Members: &client.MemberLists{Participants: []string{"bob"}}}); err != nil {
				t.Fatal(err)
			}
			e.mustText("ann", "bob", "one to one")
			for _, data := range []map[string]any{
				{"text": "to the group", "metadata": map[string]any{"k": "v"}},
				{"text": "hi <@uid:bob>"},
			} {
				if _, err := e.c.OnBehalfOf("ann").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "g1", ReceiverType: "group",
					Category: "message", Type: "text", Data: data, Tags: []string{"t1"}}); err != nil {
					t.Fatal(err)
				}
			}
			if got := rc.wait(t, 4); len(got) != 4 { // three message_sent, one user_mentioned
				t.Fatalf("%d deliveries, want 4", len(got))
			}
			dels, err := e.svc.Webhooks().Outbox().Deliveries(e.ctx(), e.app.ID, wh.ID, chat.DeliveryQuery{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqlstore.Open(e.ctx(), e.dbURL, sqlstore.Options{Shared: true}) // it only reads
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			other := chat.New(db, chat.Config{})
			defer other.Close(e.ctx())
			for _, d := range dels {
				if len(d.Payload) == 0 {
					t.Fatalf("event %d (%s): no data kept", d.EventID, d.Trigger)
				}
				sub, err := other.Webhooks().EventSubject(e.ctx(), d)
				if err != nil {
					t.Fatal(err)
				}
				if want := wire.WebhookData(sub); !bytes.Equal(d.Payload, want) {
					t.Errorf("event %d (%s):\nfrom the feed  %s\nfrom the store %s", d.EventID, d.Trigger, d.Payload, want)
				}
			}
		})
	}
}

// badEndpoint is a webhook endpoint that answers each request after delay, or 500 to every
// one while failing, until heal; it notes the most requests it had in flight at once and
// how often it accepted each event id.
type badEndpoint struct {
	srv      *httptest.Server
	mu       sync.Mutex
	delay    time.Duration
	failing  bool
	inFlight int
	most     int
	posts    int
	got      map[string]int // event id → accepted
}

func newBadEndpoint(t *testing.T, delay time.Duration, failing bool) *badEndpoint {
	be := &badEndpoint{delay: delay, failing: failing, got: map[string]int{}}
	be.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		be.mu.Lock()
		be.inFlight++
		be.posts++
		be.most = max(be.most, be.inFlight)
		delay, failing := be.delay, be.failing
		be.mu.Unlock()
		time.Sleep(delay)
		be.mu.Lock()
		defer be.mu.Unlock()
		be.inFlight--
		if failing {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		be.got[r.Header.Get(webhook.HeaderEventID)]++
	}))
	t.Cleanup(be.srv.Close)
	return be
}

func (be *badEndpoint) heal() {
	be.mu.Lock()
	be.delay, be.failing = 0, false
	be.mu.Unlock()
}

// accepted is how many distinct events the endpoint accepted.
func (be *badEndpoint) accepted() int {
	be.mu.Lock()
	defer be.mu.Unlock()
	return len(be.got)
}

// TestWebhookFairAcrossWebhooksAndApps: a slow endpoint (100 ms an answer) or a failing one
// (500s) of app A's webhook W1 slows only W1: app A's healthy W2 and app B's W3 get all
// their events while W1 has made little headway, and W1's deliveries are kept and retried
// until its endpoint heals, then each arrives once.
//
// W1's backlog is older than every delivery of W2 and W3 (W1 exists first), and runs over
// more lanes than a claim looks at, so that a claim taking the oldest due deliveries across
// webhooks (or one that let a webhook's backlog fill its look-ahead) would hand the workers
// to W1 until its backlog was nearly gone: 8 workers, so at most 2 of W1's lanes in flight
// and 4 of app A's; W1 then goes at 2 answers per 100 ms at most.
func TestWebhookFairAcrossWebhooksAndApps(t *testing.T) {
	const workers, backlog, fresh = 8, 48, 8
	for _, mode := range []string{"slow", "failing"} {
		for _, b := range []string{"sqlite", "postgres"} {
			t.Run(mode+"/"+b, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, b, chat.Config{WebhookAllowPrivate: true, Now: time.Now})
				// The failing endpoint takes a while to fail too, so that its attempts in
				// flight overlap and are counted.
				w1 := newBadEndpoint(t, 100*time.Millisecond, mode == "failing")
				if mode == "failing" {
					w1.delay = 50 * time.Millisecond
				}
				w2, w3 := newReceiver(t), newReceiver(t)
				hook := func(c *client.Client, url string) string {
					t.Helper()
					wh, err := c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(url), Triggers: &[]string{"message_sent"}})
					if err != nil {
						t.Fatal(err)
					}
					return wh.ID
				}
				send := func(c *client.Client, from, to string) {
					t.Helper()
					if _, err := c.CreateUser(e.ctx(), client.CreateUserRequest{UID: to, Name: to}); err != nil {
						t.Fatal(err)
					}
					if _, err := c.OnBehalfOf(from).SendMessage(e.ctx(), client.SendMessageRequest{Receiver: to, ReceiverType: "user",
						Category: "message", Type: "text", Data: map[string]any{"text": "hi"}}); err != nil {
						t.Fatal(err)
					}
				}
				e.mustUser("ann", "Ann")
				w1ID := hook(e.c, w1.srv.URL)
				for i := range backlog { // one conversation each: lanes that need not wait for one another
					send(e.c, "ann", fmt.Sprintf("old%d", i))
				}
				hook(e.c, w2.srv.URL)
				for i := range fresh {
					send(e.c, "ann", fmt.Sprintf("new%d", i))
				}
				appB, _ := e.newApp("other", "us")
				if _, err := appB.CreateUser(e.ctx(), client.CreateUserRequest{UID: "bea", Name: "Bea"}); err != nil {
					t.Fatal(err)
				}
				hook(appB, w3.srv.URL)
				for i := range fresh {
					send(appB, "bea", fmt.Sprintf("b%d", i))
				}
				count := func(rc *receiver) int {
					rc.mu.Lock()
					defer rc.mu.Unlock()
					return len(rc.got)
				}

				startDeliverer(t, e, workers)
				for deadline := time.Now().Add(30 * time.Second); count(w2) < fresh || count(w3) < fresh; time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("W2 got %d and W3 %d of their %d events", count(w2), count(w3), fresh)
					}
				}
				// Counted, not timed: the healthy webhooks were done while W1 had had a few
				// rounds' worth of answers.
				if n := w1.accepted(); n > backlog/4 {
					t.Errorf("W1 had %d of its %d events delivered before W2 and W3 had their %d: they waited for it", n, backlog+fresh, fresh)
				}
				w1.mu.Lock()
				most := w1.most
				w1.mu.Unlock()
				if most > workers/4 {
					t.Errorf("W1's endpoint had %d requests in flight at once, want at most %d (a quarter of %d workers)", most, workers/4, workers)
				}
				if mode == "failing" {
					for deadline := time.Now().Add(10 * time.Second); e.count(`SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1 AND attempts > 1`, w1ID) == 0; time.Sleep(20 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatal("W1's failed deliveries were not retried")
						}
					}
					if n := e.count(`SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1 AND state <> 0`, w1ID); n != 0 {
						t.Fatalf("%d of W1's deliveries are done while its endpoint fails, want none (retried, not dead)", n)
					}
				}
				w1.heal()
				for deadline := time.Now().Add(30 * time.Second); w1.accepted() < backlog+fresh; time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("W1 got %d of its %d events once healed", w1.accepted(), backlog+fresh)
					}
				}
				time.Sleep(200 * time.Millisecond) // a duplicate would come now
				w1.mu.Lock()
				for id, n := range w1.got {
					if n != 1 {
						t.Errorf("W1 accepted event %s %d times", id, n)
					}
				}
				w1.mu.Unlock()
				if n2, n3 := count(w2), count(w3); n2 != fresh || n3 != fresh {
					t.Errorf("W2 got %d and W3 %d, want %d each, once", n2, n3, fresh)
				}
			})
		}
	}
}
