package httpapi_test

import (
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

func TestSendAndGetMessage(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("cometchat-uid-3", "Nancy")
		e.mustUser("cometchat-uid-2", "George")
		r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "cometchat-uid-3"},
			body: `{"receiver":"COMETCHAT-UID-2","receiverType":"user","category":"message","type":"text",
			"data":{"text":"Hi <there> & welcome","metadata":{"z":1,"a":[true]},"entities":{"forged":true},"extra":"kept"},"tags":["t1"],"muid":"m-1"}`})
		if r.status != 200 {
			t.Fatalf("send: %d %s", r.status, r.body)
		}
		golden(t, "message_send", r.body)
		golden(t, "message_get", e.do(request{method: "GET", path: "/v3/messages/1", headers: map[string]string{"onBehalfOf": "cometchat-uid-2"}}).body)

		custom, err := e.c.OnBehalfOf("cometchat-uid-2").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "cometchat-uid-3",
			ReceiverType: "user", Category: "custom", Type: "location", Data: map[string]any{"customData": map[string]any{"lat": 1.5}}})
		if err != nil || custom.ConversationID != "cometchat-uid-2_user_cometchat-uid-3" || custom.Type != "location" {
			t.Fatalf("custom: %+v %v", custom, err)
		}
		img, err := e.c.OnBehalfOf("cometchat-uid-2").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "cometchat-uid-3",
			ReceiverType: "user", Category: "message", Type: "image", Data: map[string]any{"attachments": []any{map[string]any{"url": "https://x/y.png", "name": "y.png", "mimeType": "image/png", "extension": "png", "size": 3}}}})
		if err != nil || len(img.Data.Attachments) != 1 {
			t.Fatalf("image: %+v %v", img, err)
		}

		// Only a participant may read a message on someone's behalf; the app may read any.
		e.mustUser("eve", "Eve")
		_, err = e.c.OnBehalfOf("eve").GetMessage(e.ctx(), "1")
		apiErr(t, err, 403, "ERR_MESSAGE_NO_ACCESS")
		if _, err := e.c.GetMessage(e.ctx(), "1"); err != nil {
			t.Fatal(err)
		}
		_, err = e.c.GetMessage(e.ctx(), "999")
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		_, err = e.c.GetMessage(e.ctx(), "abc")
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")

		// category defaults to message and type to text, as in the hosted service's spec.
		r = e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "eve"},
			body: `{"receiver":"cometchat-uid-2","receiverType":"user","data":{"text":"hi"}}`})
		if r.status != 200 || !strings.Contains(string(r.body), `"category":"message"`) || !strings.Contains(string(r.body), `"type":"text"`) {
			t.Fatalf("defaults: %d %s", r.status, r.body)
		}
	})
}

func TestSendMessageValidation(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustUser("gone", "Gone")
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		text := func(extra string) string {
			return `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}` + extra + `}`
		}
		for _, tc := range []struct {
			name, obo, body string
			status          int
			code            string
		}{
			{"no onBehalfOf", "", text(""), 400, "ERR_BAD_REQUEST"},
			{"unknown sender", "ghost", text(""), 404, "ERR_UID_NOT_FOUND"},
			{"deactivated sender", "gone", text(""), 404, "ERR_UID_NOT_FOUND"},
			{"unknown receiver", "alice", `{"receiver":"ghost","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`, 404, "ERR_UID_NOT_FOUND"},
			{"no receiver", "alice", `{"receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`, 400, "ERR_EMPTY_RECEIVER"},
			{"bad receiverType", "alice", `{"receiver":"bob","receiverType":"room","category":"message","type":"text","data":{"text":"hi"}}`, 400, "ERR_INVALID_RECEIVER_TYPE"},
			{"no category, a custom type", "alice", `{"receiver":"bob","receiverType":"user","type":"location","data":{"text":"hi"}}`, 400, "ERR_INVALID_MESSAGE_TYPE"},
			{"action category", "alice", `{"receiver":"bob","receiverType":"user","category":"action","type":"text","data":{"text":"hi"}}`, 400, "ERR_INVALID_MESSAGE_CATEGORY"},
			{"no type, no text", "alice", `{"receiver":"bob","receiverType":"user","category":"message","data":{}}`, 400, "ERR_EMPTY_MESSAGE_TEXT"},
			{"unknown message type", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"sticker","data":{"text":"hi"}}`, 400, "ERR_INVALID_MESSAGE_TYPE"},
			{"empty text", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":""}}`, 400, "ERR_EMPTY_MESSAGE_TEXT"},
			{"text not a string", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":5}}`, 400, "ERR_INVALID_MESSAGE_TEXT"},
			{"data not an object", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":"hi"}`, 400, "ERR_INVALID_MESSAGE_DATA"},
			{"data over 10 KB", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"` + strings.Repeat("x", 11<<10) + `"}}`, 400, "ERR_INVALID_MESSAGE_DATA"},
			{"metadata not an object", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi","metadata":"m"}}`, 400, "ERR_INVALID_METADATA"},
			{"media without a file", "alice", `{"receiver":"bob","receiverType":"user","category":"message","type":"image","data":{}}`, 400, "ERR_EMPTY_MESSAGE_FILE"},
			{"custom without customData", "alice", `{"receiver":"bob","receiverType":"user","category":"custom","type":"poll","data":{}}`, 400, "ERR_EMPTY_CUSTOM_DATA"},
			{"customData not an object", "alice", `{"receiver":"bob","receiverType":"user","category":"custom","type":"poll","data":{"customData":[1]}}`, 400, "ERR_INVALID_CUSTOM_DATA"},
			{"26 tags", "alice", text(`,"tags":[` + strings.TrimSuffix(strings.Repeat(`"t",`, 26), ",") + `]`), 400, "ERR_BAD_REQUEST"},
			{"muid over 100", "alice", text(`,"muid":"` + strings.Repeat("m", 101) + `"`), 400, "ERR_BAD_REQUEST"},
			{"malformed JSON", "alice", `{"receiver":`, 400, "ERR_BAD_REQUEST"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": tc.obo}, body: tc.body})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if e.snapshot() != before {
					t.Error("a failed send wrote")
				}
			})
		}
	})
}

func TestDeleteMessage(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "oops")
		if _, err := e.c.OnBehalfOf("bob").AddReaction(e.ctx(), m.ID, "😮"); err != nil {
			t.Fatal(err)
		}
		_, err := e.c.OnBehalfOf("bob").DeleteMessage(e.ctx(), m.ID, false)
		apiErr(t, err, 403, "ERR_MESSAGE_NOT_A_SENDER")
		r := e.do(request{method: "DELETE", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": "alice"}})
		if r.status != 200 {
			t.Fatalf("delete: %d %s", r.status, r.body)
		}
		golden(t, "message_delete_action", r.body)
		got, err := e.c.GetMessage(e.ctx(), m.ID)
		if err != nil || got.DeletedAt == 0 || got.DeletedBy != "alice" {
			t.Fatalf("deleted message: %+v %v", got, err)
		}
		before := e.snapshot()
		for _, call := range []func() error{
			func() error { _, err := e.c.OnBehalfOf("alice").DeleteMessage(e.ctx(), m.ID, false); return err },
			func() error { _, err := e.c.OnBehalfOf("bob").AddReaction(e.ctx(), m.ID, "👍"); return err },
			func() error { _, err := e.c.OnBehalfOf("bob").RemoveReaction(e.ctx(), m.ID, "😮"); return err },
		} {
			apiErr(t, call(), 409, "ERR_MESSAGE_ACTION_NOT_ALLOWED")
		}
		if e.snapshot() != before {
			t.Error("acting on a deleted message wrote")
		}
		// Without onBehalfOf the app deletes as app_system; permanent removes the row.
		m2 := e.mustText("bob", "alice", "gone for good")
		act, err := e.c.DeleteMessage(e.ctx(), m2.ID, true)
		if err != nil || act.Category != "action" || act.Sender != "app_system" || act.Data.Action != "deleted" || act.Data.Entities.On == nil {
			t.Fatalf("permanent delete: %+v %v", act, err)
		}
		_, err = e.c.GetMessage(e.ctx(), m2.ID)
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
		// An action message is not itself deletable or reactable.
		_, err = e.c.OnBehalfOf("alice").AddReaction(e.ctx(), act.ID, "👍")
		apiErr(t, err, 404, "ERR_MESSAGE_ID_NOT_FOUND")
	})
}
