package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// TestClaimWhoseCommitFails: a claim whose statements all ran but whose COMMIT failed (the
// PostgreSQL restart of e2e's TestWebhookPostgresOutage: "terminating connection due to
// administrator command") leased nothing, and hands out nothing. It handed out the rows its
// statements had leased, with their attempt counted; the webhook worker posted them, and,
// the count rolled back, the next claim posted the same attempt number again ("attempt 1 of
// evt_55 was sent twice"). A deferred constraint trigger refuses the commit of node
// "doomed"'s leases, for a webhook delivery (its own claim) and a notification event (the
// shared claim of leases.go, which notification sends and agent jobs use too).
func TestClaimWhoseCommitFails(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.leased_by = 'doomed' THEN RAISE EXCEPTION 'commit refused'; END IF;
			RETURN NULL;
		END $$`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"webhook_deliveries", "notification_events"} {
		if _, err := admin.Exec(`CREATE CONSTRAINT TRIGGER refuse_doomed AFTER UPDATE ON ` + table + `
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_doomed()`); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	w := chat.Webhook{AppID: "a", ID: "w1", URL: "https://example.com/w1", Enabled: true, Triggers: []string{chat.TriggerMessageSent}}
	if err := db.CreateWebhook(ctx, w, chat.WebhookSecret{Secret: []byte("x")}, 25); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []chat.EventKind{chat.EventWebhook, chat.EventNotification} {
		if err := db.Transact(ctx, func(tx chat.Tx) error {
			return tx.InsertOutbox(chat.OutboxEvent{Kind: kind, AppID: "a", Trigger: chat.TriggerMessageSent, ConversationID: "c", MessageID: 1, At: 1000})
		}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("webhook deliveries", func(t *testing.T) {
		lease := chat.Lease{Node: "doomed", Now: 2000, Until: 100000, Limit: 10, PerWebhook: 4, PerApp: 4, PerLane: 4}
		got, err := db.ClaimDeliveries(ctx, lease, nil)
		if err == nil || len(got) != 0 {
			t.Fatalf("a claim whose commit failed: %v, %d deliveries (%+v); want an error and none", err, len(got), got)
		}
		lease.Node = "n1"
		got, err = db.ClaimDeliveries(ctx, lease, nil)
		if err != nil || len(got) != 1 || got[0].Attempts != 1 {
			t.Fatalf("the next claim: %v, %+v; want the delivery, at attempt 1", err, got)
		}
	})
	t.Run("notification events", func(t *testing.T) {
		lease := chat.Lease{Node: "doomed", Now: 2000, Until: 100000, Limit: 10}
		got, err := db.ClaimNotificationEvents(ctx, lease)
		if err == nil || len(got) != 0 {
			t.Fatalf("a claim whose commit failed: %v, %d events; want an error and none", err, len(got))
		}
		lease.Node = "n1"
		got, err = db.ClaimNotificationEvents(ctx, lease)
		if err != nil || len(got) != 1 || got[0].Attempts != 1 {
			t.Fatalf("the next claim: %v, %+v; want the event, at attempt 1", err, got)
		}
	})
}
