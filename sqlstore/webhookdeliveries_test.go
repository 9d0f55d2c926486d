package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

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
					for range 200 {
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
					}
					t.Errorf("node %s: not done after 200 claims", node)
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
