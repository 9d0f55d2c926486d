package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/natter-chat/natter/client"
)

// A send to several receivers decodes each receiver's message or refusal, and its retry
// carries the Idempotency-Key of the copy that made it.
func TestSendToManyDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client().OnBehalfOf("alice")
	f.respond(http.StatusOK, `{"data":{"users":{"bob":{"id":"7","conversationId":"alice_user_bob","sender":"alice","receiverType":"user",
		"receiver":"bob","category":"message","type":"text","data":{"text":"hi"},"sentAt":5,"updatedAt":5},
		"ghost":{"error":{"message":"The UID ghost does not exist.","devMessage":"d","source":"chat-api","code":"ERR_UID_NOT_FOUND"}}},
		"groups":{}}}`)
	res, err := c.IdempotencyKey("k-1").SendMessageToMany(ctx, client.SendMessageRequest{Data: map[string]any{"text": "hi"}},
		client.Receivers{UIDs: []string{"bob", "ghost"}})
	got := f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("Idempotency-Key") != "k-1" || got.Header.Get("onBehalfOf") != "alice" {
		t.Errorf("headers = %v", got.Header)
	}
	bob, ghost := res.Users["bob"], res.Users["ghost"]
	if bob.Error != nil || bob.Message == nil || bob.Message.ID != "7" || bob.Message.Data.Text != "hi" {
		t.Errorf("bob = %+v", bob)
	}
	if ghost.Message != nil || ghost.Error == nil || ghost.Error.Code != "ERR_UID_NOT_FOUND" || ghost.Error.Status != 0 {
		t.Errorf("ghost = %+v", ghost)
	}
	if res.Groups == nil || len(res.Groups) != 0 || len(res.Users) != 2 {
		t.Errorf("results = %+v", res)
	}
	// The copy with the key leaves the client it came from without one.
	if _, err := c.GetMessage(ctx, "7"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("Idempotency-Key") != "" {
		t.Errorf("Idempotency-Key leaked to the original client: %v", got.Header)
	}
	if _, err := c.IdempotencyKey("k-2").IdempotencyKey("").GetMessage(ctx, "7"); err != nil {
		t.Fatal(err)
	}
	if got := f.last(t); got.Header.Get("Idempotency-Key") != "" {
		t.Errorf(`IdempotencyKey("") kept the key: %v`, got.Header)
	}
}
