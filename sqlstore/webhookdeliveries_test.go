package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
)

// TestDeliveryClaims, on both databases: a claim takes only each lane's head (the first
// pending delivery of a webhook and conversation), at most PerWebhook of one webhook and
// PerApp of one app in flight; the outcomes a claim records free the lanes' next ones in
// the same transaction; two nodes claiming at once lease each delivery once; and every
// delivery is claimed once, each conversation's in order, per webhook.
func TestDeliveryClaims(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			for _, app := range []string{"a", "b"} {
				if err := db.CreateApp(ctx, chat.App{ID: app, Region: "us", Name: app}, nil); err != nil {
					t.Fatal(err)
				}
			}
			hooks := [][2]string{{"a", "w1"}, {"a", "w2"}, {"a", "w3"}, {"b", "w1"}}
			for _, h := range hooks {
				w := chat.Webhook{AppID: h[0], ID: h[1], URL: "https://example.com/" + h[1], Enabled: true, Triggers: []string{chat.TriggerMessageSent}}
				if err := db.CreateWebhook(ctx, w, chat.WebhookSecret{Secret: []byte("x")}, 25); err != nil {
					t.Fatal(err)
				}
			}
			// 5 conversations × 4 events per app, so 20 deliveries per webhook.
			for i := range 4 {
				for c := range 5 {
					for _, app := range []string{"a", "b"} {
						if err := db.Transact(ctx, func(tx chat.Tx) error {
							return tx.InsertOutbox(chat.OutboxEvent{AppID: app, Trigger: chat.TriggerMessageSent,
								ConversationID: fmt.Sprintf("c%d", c), MessageID: int64(i*10 + c + 1), At: 1000})
						}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			lease := chat.Lease{Node: "n1", Now: 2000, Until: 100000, Limit: 100, PerWebhook: 3, PerApp: 7}
			first, err := db.ClaimDeliveries(ctx, lease, nil)
			if err != nil {
				t.Fatal(err)
			}
			perHook, perApp := map[string]int{}, map[string]int{}
			lanes := map[string]bool{}
			for _, d := range first {
				perHook[d.AppID+"/"+d.WebhookID]++
				perApp[d.AppID]++
				lane := d.AppID + "/" + d.WebhookID + "/" + d.ConversationID
				if lanes[lane] {
					t.Errorf("two deliveries of lane %s claimed at once", lane)
				}
				lanes[lane] = true
			}
			for h, n := range perHook {
				if n > 3 {
					t.Errorf("webhook %s: %d in flight, want at most 3", h, n)
				}
			}
			if perApp["a"] != 7 || perApp["b"] != 3 {
				t.Errorf("in flight per app %v, want a 7 (its cap) and b 3 (its one webhook's cap)", perApp)
			}
			// Nothing more while those are held; recording them frees their lanes' next ones.
			if more, err := db.ClaimDeliveries(ctx, lease, nil); err != nil || len(more) != 0 {
				t.Fatalf("claimed %d more while at the caps (err %v), want 0", len(more), err)
			}

			// Two nodes deliver everything, recording as they claim.
			var mu sync.Mutex
			seen := map[int64]int{}
			last := map[string]int64{} // lane → last event id delivered
			check := func(ds []chat.Delivery) {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range ds {
					seen[d.ID]++
					lane := d.AppID + "/" + d.WebhookID + "/" + d.ConversationID
					if d.EventID < last[lane] {
						t.Errorf("lane %s: event %d claimed after %d", lane, d.EventID, last[lane])
					}
					last[lane] = d.EventID
				}
			}
			check(first)
			done := func(ds []chat.Delivery) []chat.Delivery {
				out := make([]chat.Delivery, len(ds))
				for i, d := range ds {
					d.State, d.DoneAt, d.Payload, d.Rendered = chat.DeliveryDelivered, 3000, []byte(`{"n":1}`), true
					out[i] = d
				}
				return out
			}
			var wg sync.WaitGroup
			for _, node := range []string{"n1", "n2"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					l := lease
					l.Node = node
					var held []chat.Delivery
					if node == "n1" {
						held = first
					}
					// A node may claim nothing for a while: the other, recording and claiming
					// in one transaction, can keep the caps full.
					for range 2000 {
						got, err := db.ClaimDeliveries(ctx, l, done(held))
						if err != nil {
							t.Error(err)
							return
						}
						check(got)
						held = got
						mu.Lock()
						n := len(seen)
						mu.Unlock()
						if n == 80 && len(got) == 0 {
							return
						}
						if len(got) == 0 {
							time.Sleep(time.Millisecond)
						}
					}
					t.Errorf("node %s: not done after 2000 claims", node)
				}()
			}
			wg.Wait()
			if len(seen) != 80 {
				t.Errorf("%d deliveries claimed, want 80", len(seen))
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("delivery %d claimed %d times, want once", id, n)
				}
			}
			if n, err := db.PendingDeliveries(ctx); err != nil || n != 0 {
				t.Errorf("%d deliveries pending (err %v), want 0", n, err)
			}
		})
	}
}

// TestDeliveryLaneBatches, on both databases: with PerLane a claim leases each lane's head
// and its next deliveries together, in order, counting a lane once against PerWebhook; an
// outcome marked Unattempted gives its lease back with its attempt uncounted; a lane whose
// head waits for a retry lends nothing behind it.
func TestDeliveryLaneBatches(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			w := chat.Webhook{AppID: "a", ID: "w1", URL: "https://example.com/w1", Enabled: true, Triggers: []string{chat.TriggerMessageSent}}
			if err := db.CreateWebhook(ctx, w, chat.WebhookSecret{Secret: []byte("x")}, 25); err != nil {
				t.Fatal(err)
			}
			// 3 conversations × 5 events, interleaved.
			for i := range 5 {
				for c := range 3 {
					if err := db.Transact(ctx, func(tx chat.Tx) error {
						return tx.InsertOutbox(chat.OutboxEvent{AppID: "a", Trigger: chat.TriggerMessageSent,
							ConversationID: fmt.Sprintf("c%d", c), MessageID: int64(i*10 + c + 1), At: 1000})
					}); err != nil {
						t.Fatal(err)
					}
				}
			}
			lease := chat.Lease{Node: "n1", Now: 2000, Until: 100000, Limit: 10, PerWebhook: 2, PerApp: 10, PerLane: 3}
			byLane := func(ds []chat.Delivery) map[string][]chat.Delivery {
				m := map[string][]chat.Delivery{}
				for _, d := range ds {
					m[d.ConversationID] = append(m[d.ConversationID], d)
				}
				return m
			}
			first, err := db.ClaimDeliveries(ctx, lease, nil)
			if err != nil {
				t.Fatal(err)
			}
			lanes := byLane(first)
			if len(lanes) != 2 || len(first) != 6 {
				t.Fatalf("claimed %d deliveries of %d lanes, want 3 of each of 2 lanes (PerWebhook counts lanes)", len(first), len(lanes))
			}
			msgs := func(ds []chat.Delivery) []int64 {
				var out []int64
				for _, d := range ds {
					out = append(out, d.MessageID)
				}
				return out
			}
			for c, ds := range lanes {
				n := int64(c[1] - '0' + 1)
				if got, want := msgs(ds), []int64{n, 10 + n, 20 + n}; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("lane %s: messages %v, want the first three, %v", c, got, want)
				}
			}
			if more, err := db.ClaimDeliveries(ctx, lease, nil); err != nil || len(more) != 0 {
				t.Fatalf("claimed %d more with both lanes of the cap held (err %v), want 0", len(more), err)
			}
			// One lane: delivered, failed (retry at 50000), and the third not attempted.
			// The other: all three delivered.
			var done []chat.Delivery
			var failedLane string
			for c, ds := range lanes {
				for i, d := range ds {
					d.State, d.DoneAt = chat.DeliveryDelivered, 3000
					if failedLane == "" || failedLane == c {
						failedLane = c
						switch i {
						case 1:
							d.State, d.DoneAt, d.NextAt, d.LastError = chat.DeliveryPending, 0, 50000, "503"
						case 2:
							d.State, d.DoneAt, d.Unattempted = chat.DeliveryPending, 0, true
						}
					}
					done = append(done, d)
				}
			}
			next, err := db.ClaimDeliveries(ctx, lease, done)
			if err != nil {
				t.Fatal(err)
			}
			nl := byLane(next)
			if _, ok := nl[failedLane]; ok || len(nl) != 2 {
				t.Fatalf("claimed lanes %v, want the two other than %s (its head waits for its retry)", msgs(next), failedLane)
			}
			for c, ds := range nl {
				n := int64(c[1] - '0' + 1)
				want := []int64{n, 10 + n, 20 + n}
				if len(lanes[c]) > 0 {
					want = []int64{30 + n, 40 + n} // the lane's rest
				}
				if got := msgs(ds); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("lane %s: messages %v, want %v", c, got, want)
				}
			}
			// At the retry's time the failed lane comes back: its head (2 attempts counted
			// by then) and the one its batch did not attempt (1: the first claim's uncounted).
			later := lease
			later.Now, later.Until, later.Node, later.PerWebhook = 150000, 300000, "n2", 10 // n1's leases have ended
			back, err := db.ClaimDeliveries(ctx, later, nil)
			if err != nil {
				t.Fatal(err)
			}
			fl := byLane(back)[failedLane]
			n := int64(failedLane[1] - '0' + 1)
			if got := msgs(fl); fmt.Sprint(got) != fmt.Sprint([]int64{10 + n, 20 + n, 30 + n}) {
				t.Fatalf("failed lane after its retry time: messages %v, want %v", got, []int64{10 + n, 20 + n, 30 + n})
			}
			if fl[0].Attempts != 2 || fl[1].Attempts != 1 || fl[2].Attempts != 1 {
				t.Errorf("attempts %d %d %d, want 2 1 1", fl[0].Attempts, fl[1].Attempts, fl[2].Attempts)
			}
		})
	}
}

// TestDeliveryClaimLooksPastABacklog, on both databases: where one webhook's backlog holds
// the oldest due heads of more lanes than a claim looks at, the claim still takes the other
// webhooks' heads behind them, in the same claim and while that webhook is at its cap: a
// slow endpoint's backlog does not hold back its app's other webhooks or other apps'.
func TestDeliveryClaimLooksPastABacklog(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			for _, app := range []string{"a", "b"} {
				if err := db.CreateApp(ctx, chat.App{ID: app, Region: "us", Name: app}, nil); err != nil {
					t.Fatal(err)
				}
			}
			hook := func(app, id string) {
				w := chat.Webhook{AppID: app, ID: id, URL: "https://example.com/" + id, Enabled: true, Triggers: []string{chat.TriggerMessageSent}}
				if err := db.CreateWebhook(ctx, w, chat.WebhookSecret{Secret: []byte("x")}, 25); err != nil {
					t.Fatal(err)
				}
			}
			event := func(app, conv string, at int64) {
				if err := db.Transact(ctx, func(tx chat.Tx) error {
					return tx.InsertOutbox(chat.OutboxEvent{AppID: app, Trigger: chat.TriggerMessageSent, ConversationID: conv, MessageID: at, At: at})
				}); err != nil {
					t.Fatal(err)
				}
			}
			hook("a", "slow")
			for i := range 60 { // the backlog: a lane each, older than anything else
				event("a", fmt.Sprintf("old%d", i), 1000+int64(i))
			}
			hook("a", "fast")
			hook("b", "other")
			for i := range 4 {
				event("a", fmt.Sprintf("new%d", i), 2000+int64(i))
				event("b", fmt.Sprintf("b%d", i), 2000+int64(i))
			}
			count := func(ds []chat.Delivery) map[string]int {
				m := map[string]int{}
				for _, d := range ds {
					m[d.AppID+"/"+d.WebhookID]++
				}
				return m
			}
			lease := chat.Lease{Node: "n1", Now: 3000, Until: 100000, Limit: 8, PerWebhook: 2, PerApp: 4}
			got, err := db.ClaimDeliveries(ctx, lease, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c := count(got); c["a/slow"] != 2 || c["a/fast"] != 2 || c["b/other"] != 2 {
				t.Fatalf("one claim took %v, want 2 of each webhook (its cap)", c)
			}
			// With the backlog's webhook at its cap, held from an earlier claim, the others'
			// next heads are taken, however many of its heads are older.
			var done []chat.Delivery
			for _, d := range got {
				if d.WebhookID != "slow" {
					d.State, d.DoneAt = chat.DeliveryDelivered, 3000
					done = append(done, d)
				}
			}
			lease.Limit = 6
			got, err = db.ClaimDeliveries(ctx, lease, done)
			if err != nil {
				t.Fatal(err)
			}
			if c := count(got); c["a/slow"] != 0 || c["a/fast"] != 2 || c["b/other"] != 2 {
				t.Fatalf("with the backlog's webhook at its cap a claim took %v, want 2 of a/fast and 2 of b/other", c)
			}
		})
	}
}

// TestDeliveryOutcomeOfAnEarlierLease, on both databases: an outcome is recorded only on the
// lease that made it, which its attempt count names. A node can hold a newer lease of the same
// delivery by the time an older batch's outcome is recorded (its lease ended while the batch
// was starved, or a replay freed it and the node claimed it again); giving back the older
// lease's unattempted delivery then uncounted the newer lease's attempt and freed it, and the
// next claim posted that attempt number a second time; and the older attempt's failure
// undid the newer lease, whose delivery then went out a third time.
func TestDeliveryOutcomeOfAnEarlierLease(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			w := chat.Webhook{AppID: "a", ID: "w1", URL: "https://example.com/w1", Enabled: true, Triggers: []string{chat.TriggerMessageSent}}
			if err := db.CreateWebhook(ctx, w, chat.WebhookSecret{Secret: []byte("x")}, 25); err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"c1", "c2"} {
				if err := db.Transact(ctx, func(tx chat.Tx) error {
					return tx.InsertOutbox(chat.OutboxEvent{AppID: "a", Trigger: chat.TriggerMessageSent, ConversationID: c, MessageID: 1, At: 1000})
				}); err != nil {
					t.Fatal(err)
				}
			}
			lease := chat.Lease{Node: "n1", Now: 2000, Until: 100000, Limit: 10, PerWebhook: 10, PerApp: 10}
			old, err := db.ClaimDeliveries(ctx, lease, nil)
			if err != nil || len(old) != 2 {
				t.Fatalf("first claim: %v, %+v", err, old)
			}
			// The first leases end with their batch still running; n1 leases both again.
			lease.Now, lease.Until = 200000, 300000
			cur, err := db.ClaimDeliveries(ctx, lease, nil)
			if err != nil || len(cur) != 2 || cur[0].Attempts != 2 || cur[1].Attempts != 2 {
				t.Fatalf("second claim: %v, %+v; want both, at attempt 2", err, cur)
			}
			// The first batch ends: c1's delivery not attempted, c2's failed (retry at 210000).
			var done []chat.Delivery
			for _, d := range old {
				if d.ConversationID == "c1" {
					d.Unattempted = true
				} else {
					d.NextAt, d.LastStatus, d.LastError = 210000, 503, "the endpoint answered 503"
				}
				done = append(done, d)
			}
			lease.Now = 220000
			if got, err := db.ClaimDeliveries(ctx, lease, done); err != nil || len(got) != 0 {
				t.Fatalf("a claim recording the first leases' outcomes: %v, %+v; want none claimed (attempts 2 hold their leases)", err, got)
			}
			// The second batch ends: both delivered.
			for i := range cur {
				cur[i].State, cur[i].DoneAt = chat.DeliveryDelivered, 230000
			}
			lease.Now = 230000
			if got, err := db.ClaimDeliveries(ctx, lease, cur); err != nil || len(got) != 0 {
				t.Fatalf("a claim recording the second leases' outcomes: %v, %+v; want none claimed", err, got)
			}
			lease.Now, lease.Until = 500000, 600000
			if got, err := db.ClaimDeliveries(ctx, lease, nil); err != nil || len(got) != 0 {
				t.Fatalf("after both delivered: %v, %+v; want nothing left", err, got)
			}
			ds, err := db.Deliveries(ctx, "a", "w1", chat.DeliveryQuery{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if d.State != chat.DeliveryDelivered || d.Attempts != 2 {
					t.Errorf("%s: state %d after %d attempts, want delivered after 2", d.ConversationID, d.State, d.Attempts)
				}
			}
		})
	}
}
