package httpapi_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// TestHubPublishMessage: a message sent through chat.Service outside the API (the console
// sends, and approves held messages) and handed to Hub.PublishMessage reaches its audience's
// sockets as an API send's does; a held one reaches nobody.
func TestHubPublishMessage(t *testing.T) {
	e := realtimeEnv(t, "sqlite", httpapi.HubOptions{})
	e.mustUser("alice", "ALICE")
	e.mustUser("bob", "BOB")
	bob := e.connect("bob", "")
	ctx := context.Background()
	p, err := e.svc.OperatorPrincipal(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.svc.SendMessage(ctx, p.ActingAs("alice"), chat.MessageSend{Receiver: "bob", ReceiverType: "user", Category: "message",
		Type: "text", Data: json.RawMessage(`{"text":"from the console"}`)})
	if err != nil {
		t.Fatal(err)
	}
	e.hub.PublishMessage(ctx, m)
	f := bob.next("message")
	var body client.Message
	json.Unmarshal(f["body"], &body)
	if body.ID != strconv.FormatInt(m.ID, 10) || str(f["sender"]) != "alice" || str(f["deviceId"]) != "" {
		t.Errorf("bob's frame %v, want message %d from alice with no device id", f, m.ID)
	}
	held := m
	held.ID, held.Moderation = m.ID+1, chat.ModPending
	e.hub.PublishMessage(ctx, held)
	bob.quiet("message", 200*time.Millisecond)
}
