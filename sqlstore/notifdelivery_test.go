package sqlstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestNotificationLeases: nodes claiming at once take each event once; only the node
// holding an event's lease records its expansion; a send is written once per destination,
// waits until it is due, and an attempt that is not the last makes it due again.
func TestNotificationLeases(t *testing.T) {
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
			const events = 40
			for i := range events {
				if err := db.Transact(ctx, func(tx chat.Tx) error {
					return tx.InsertOutbox(chat.OutboxEvent{Kind: chat.EventNotification, AppID: "a", Trigger: chat.TriggerMessageSent, ConversationID: "c", MessageID: int64(i + 1), At: 1000})
				}); err != nil {
					t.Fatal(err)
				}
			}
			// Two nodes claim at once, a few at a time, until nothing is left.
			var mu sync.Mutex
			claimed := map[int64]string{}
			var wg sync.WaitGroup
			for _, node := range []string{"n1", "n2"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						evs, err := db.ClaimNotificationEvents(ctx, chat.Lease{Node: node, Now: 2000, Until: 100000, Limit: 3})
						if err != nil {
							t.Error(err)
							return
						}
						if len(evs) == 0 {
							return
						}
						mu.Lock()
						for _, ev := range evs {
							if prev, ok := claimed[ev.ID]; ok {
								t.Errorf("event %d claimed by %s and %s", ev.ID, prev, node)
							}
							claimed[ev.ID] = node
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if len(claimed) != events {
				t.Fatalf("%d events claimed, want %d", len(claimed), events)
			}
			// Leased: no one claims them again before the lease ends.
			if evs, err := db.ClaimNotificationEvents(ctx, chat.Lease{Node: "n3", Now: 3000, Until: 200000, Limit: 100}); err != nil || len(evs) != 0 {
				t.Fatalf("claimed under lease: %v %+v", err, evs)
			}
			var id int64
			var holder string
			for id, holder = range claimed {
				break
			}
			send := chat.NotificationSend{AppID: "a", EventID: id, Trigger: chat.TriggerMessageSent, ConversationID: "c", MessageID: 1, UID: "bob",
				Channel: chat.ChannelSMS, Provider: chat.LogProviderTwilio, Destination: "+14155550101", Recheck: true, NextAt: 5000, CreatedAt: 2000}
			log := chat.NotificationLog{AppID: "a", EventID: id, Trigger: chat.TriggerMessageSent, MessageID: 1, Recipient: "bob", Channel: chat.ChannelSMS,
				Provider: chat.LogProviderTwilio, Triggered: true, CreatedAt: 2000}
			other := map[string]string{"n1": "n2", "n2": "n1"}[holder]
			if err := db.FinishNotificationEvent(ctx, other, id, []chat.NotificationLog{log}, []chat.NotificationSend{send}); err != nil {
				t.Fatal(err)
			}
			if ls, _ := db.NotificationLogs(ctx, "a", chat.NotificationLogQuery{Limit: 10}); len(ls) != 0 {
				t.Fatalf("a node without the lease recorded %+v", ls)
			}
			if err := db.FinishNotificationEvent(ctx, holder, id, []chat.NotificationLog{log}, []chat.NotificationSend{send, send}); err != nil {
				t.Fatal(err)
			}
			// Not due before next_at; due after.
			if ss, err := db.ClaimNotificationSends(ctx, chat.Lease{Node: "n1", Now: 4999, Until: 9000, Limit: 10}, nil); err != nil || len(ss) != 0 {
				t.Fatalf("claimed early: %v %+v", err, ss)
			}
			ss, err := db.ClaimNotificationSends(ctx, chat.Lease{Node: "n1", Now: 5000, Until: 9000, Limit: 10}, nil)
			if err != nil || len(ss) != 1 || ss[0].Destination != send.Destination || !ss[0].Recheck || ss[0].Attempts != 1 {
				t.Fatalf("claim sends: %v %+v", err, ss)
			}
			s := ss[0]
			s.NextAt = 20000
			attempt := log
			attempt.Attempt, attempt.Reason, attempt.Status, attempt.CreatedAt = 1, "retry", 503, 5000
			if err := db.FinishNotificationSend(ctx, "n1", s, attempt, false); err != nil {
				t.Fatal(err)
			}
			if ss, _ := db.ClaimNotificationSends(ctx, chat.Lease{Node: "n2", Now: 19999, Until: 30000, Limit: 10}, nil); len(ss) != 0 {
				t.Fatalf("claimed before its retry: %+v", ss)
			}
			ss, _ = db.ClaimNotificationSends(ctx, chat.Lease{Node: "n2", Now: 20000, Until: 30000, Limit: 10}, nil)
			if len(ss) != 1 || ss[0].Attempts != 2 {
				t.Fatalf("the retry: %+v", ss)
			}
			// n1's lease is over: its late record changes nothing.
			if err := db.FinishNotificationSend(ctx, "n1", ss[0], attempt, true); err != nil {
				t.Fatal(err)
			}
			attempt.Attempt, attempt.Reason, attempt.Status, attempt.Success = 2, "", 201, true
			if err := db.FinishNotificationSend(ctx, "n2", ss[0], attempt, true); err != nil {
				t.Fatal(err)
			}
			ls, err := db.NotificationLogs(ctx, "a", chat.NotificationLogQuery{Limit: 10})
			if err != nil || len(ls) != 3 || !ls[0].Success || ls[0].Attempt != 2 || ls[1].Reason != "retry" || ls[2].Attempt != 0 {
				t.Fatalf("log: %v %+v", err, ls)
			}
			yes := true
			if ls, _ := db.NotificationLogs(ctx, "a", chat.NotificationLogQuery{Success: &yes, Channel: chat.ChannelSMS, Limit: 10}); len(ls) != 1 {
				t.Fatalf("successful SMS: %+v", ls)
			}
			if ls, _ := db.NotificationLogs(ctx, "b", chat.NotificationLogQuery{Limit: 10}); len(ls) != 0 {
				t.Fatalf("another app's log: %+v", ls)
			}
			if ss, _ := db.ClaimNotificationSends(ctx, chat.Lease{Node: "n2", Now: 1 << 40, Until: 1<<40 + 1, Limit: 10}, nil); len(ss) != 0 {
				t.Fatalf("a done send is claimed: %+v", ss)
			}
			if err := db.PurgeNotificationLogs(ctx, 5000); err != nil {
				t.Fatal(err)
			}
			if ls, _ := db.NotificationLogs(ctx, "a", chat.NotificationLogQuery{Limit: 10}); len(ls) != 2 {
				t.Fatalf("after the purge: %+v", ls)
			}
		})
	}
}
