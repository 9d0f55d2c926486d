package httpapi_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/realtime"
)

// TestHubHearsTheFeed: a message sent through chat.Service outside the API (the console
// sends, and approves held messages) reaches its audience's sockets as an API send's does,
// with nobody publishing it: the hub hears it from the service's change feed. A message a
// rule held reaches nobody.
func TestHubHearsTheFeed(t *testing.T) {
	e := realtimeEnv(t, "sqlite", realtime.HubOptions{})
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
	f := bob.next("message")
	var body client.Message
	json.Unmarshal(f["body"], &body)
	if body.ID != strconv.FormatInt(m.ID, 10) || str(f["sender"]) != "alice" || str(f["deviceId"]) != "" {
		t.Errorf("bob's frame %v, want message %d from alice with no device id", f, m.ID)
	}
	e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"zork","name":"Z","conditions":[{"category":"word","value":["zorkmid"]}],"action":["blockMessage"]}`})
	held, err := e.svc.SendMessage(ctx, p.ActingAs("alice"), chat.MessageSend{Receiver: "bob", ReceiverType: "user", Category: "message",
		Type: "text", Data: json.RawMessage(`{"text":"a zorkmid"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if held.Moderation != chat.ModPending {
		t.Fatalf("the send was not held: %+v", held)
	}
	bob.quiet("message", 200*time.Millisecond)
}
