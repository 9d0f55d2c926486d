package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// TestWritesWhilePostgresIsDown: with PostgreSQL stopped, every send path (the pipelined
// one, and the transaction a send with a webhook event takes) and a reaction fail with
// chat.ErrUnavailable, which the API answers 503 (retry), not 500; once PostgreSQL is back,
// the same pool sends again. whbench -faults found the webhook send answering 500 through a
// PostgreSQL restart.
func TestWritesWhilePostgresIsDown(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.NewServer(t)
	db, err := sqlstore.Open(ctx, pg.URL(), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"u0", "u1"} {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: u, Name: u, Role: chat.DefaultRole, Status: "offline"}); err != nil {
			t.Fatal(err)
		}
	}
	send := func(events ...chat.OutboxEvent) (int64, error) {
		m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: "u0", Receiver: "u1", ReceiverType: "user",
			Category: "message", Type: "text", Data: []byte(`{"text":"x"}`)}
		err := db.CreateMessage(ctx, m, events...)
		return m.ID, err
	}
	webhookEvent := chat.OutboxEvent{Kind: chat.EventWebhook, AppID: "a", Trigger: chat.TriggerMessageSent,
		ConversationID: "u0_user_u1", At: time.Now().UnixMilli()}
	id, err := send(webhookEvent)
	if err != nil {
		t.Fatal(err)
	}

	pg.Stop()
	_, plain := send()
	_, withEvent := send(webhookEvent)
	_, reaction := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: id, UID: "u1", Reaction: "r", Add: true, At: 1})
	for name, err := range map[string]error{"send": plain, "send with a webhook event": withEvent, "reaction": reaction} {
		if !errors.Is(err, chat.ErrUnavailable) {
			t.Errorf("%s while PostgreSQL is down: %v, want chat.ErrUnavailable", name, err)
		}
	}

	pg.Start()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := send(webhookEvent)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("send with a webhook event 10 s after PostgreSQL came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
