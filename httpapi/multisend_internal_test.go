package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// One receiver's failure that is not a refusal (a database error) is that entry's
// ERR_EXCEPTION, logged with its cause, which stays out of the answer; the others' entries
// stand, and the answer is still well-formed.
func TestSendResultsFailureIsPerReceiver(t *testing.T) {
	var logs bytes.Buffer
	r := httptest.NewRequest("POST", "/v3/messages", nil)
	r = r.WithContext(context.WithValue(r.Context(), loggerKey{}, slog.New(slog.NewTextHandler(&logs, nil))))
	sent := chat.Message{ID: 7, ConversationID: "alice_user_bob", Sender: "alice", ReceiverType: chat.ReceiverUser, Receiver: "bob",
		Category: chat.CategoryMessage, Type: "text", Data: json.RawMessage(`{"text":"hi"}`)}
	res := chat.MultiSendResults{
		Users: []chat.ReceiverResult{
			{ID: "bob", Message: sent},
			{ID: "carol", Err: fmt.Errorf("insert message: %w", errors.New("disk on fire at /var/lib/natter"))},
			{ID: "ghost", Err: &chat.Error{Code: chat.CodeUIDNotFound, Message: "The UID ghost does not exist."}},
		},
		Groups: []chat.ReceiverResult{},
	}
	body := appendSendResults(nil, r, res)
	var got struct {
		Users  map[string]json.RawMessage
		Groups map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Groups == nil || len(got.Users) != 3 {
		t.Fatalf("results %s: %v", body, err)
	}
	code := func(raw json.RawMessage) string {
		var e struct{ Error struct{ Code string } }
		json.Unmarshal(raw, &e)
		return e.Error.Code
	}
	if c := code(got.Users["carol"]); c != "ERR_EXCEPTION" {
		t.Errorf("carol: %s, want ERR_EXCEPTION", got.Users["carol"])
	}
	if c := code(got.Users["ghost"]); c != "ERR_UID_NOT_FOUND" {
		t.Errorf("ghost: %s", got.Users["ghost"])
	}
	if !strings.Contains(string(got.Users["bob"]), `"id":"7"`) || code(got.Users["bob"]) != "" {
		t.Errorf("bob: %s", got.Users["bob"])
	}
	if strings.Contains(string(body), "disk on fire") || strings.Contains(string(body), "/var/lib") {
		t.Errorf("the cause leaked into the answer: %s", body)
	}
	if !strings.Contains(logs.String(), "disk on fire") || !strings.Contains(logs.String(), "receiver=carol") || strings.Contains(logs.String(), "ghost") {
		t.Errorf("log: %s, want carol's failure only", logs.String())
	}
}
