package chat_test

import (
	"context"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
)

// TestCallRules: the call state machine's refusals, and who may take part, decided by the
// service against a real store on both databases. Each refusal answers its code and
// announces nothing. httpapi's TestCalls keeps a row per code, for the status and what HTTP
// decides (bodies, query parameters, keys).
func TestCallRules(t *testing.T) {
	t.Parallel()
	chattest.Each(t, chat.Config{}, func(t *testing.T, r *chattest.Rig) {
		ctx := context.Background()
		r.Users(t, "ann", "bob", "cat", "dan")
		if _, _, err := r.Svc.CreateGroup(ctx, r.Principal(t, "ann"), chat.GroupCreate{GUID: "g", Name: "G", Type: "public",
			Members: chat.MemberLists{Participants: []string{"bob", "cat"}}}); err != nil {
			t.Fatal(err)
		}
		calls := r.Svc.Calls()
		call := func(from, to string) string {
			t.Helper()
			if _, err := calls.InitiateCall(ctx, r.Principal(t, from), chat.CallInitiate{Receiver: to, ReceiverType: "user", Type: "audio"}); err != nil {
				t.Fatal(err)
			}
			cs, _, err := calls.List(ctx, r.Principal(t, ""), chat.CallFilter{}, chat.Page{PerPage: 1, Number: 1})
			if err != nil || len(cs) != 1 || cs[0].Receiver != to {
				t.Fatalf("the new call: %+v %v", cs, err)
			}
			return cs[0].SessionID
		}
		set := func(uid, session, status string) error {
			_, err := calls.UpdateCallStatus(ctx, r.Principal(t, uid), session, status)
			return err
		}
		ended := call("ann", "bob")
		for _, status := range []string{"ongoing", "ended"} {
			if err := set("bob", ended, status); err != nil {
				t.Fatalf("%s: %v", status, err)
			}
		}
		ringing := call("ann", "cat")

		refused(t, r, []refusal{
			{"read an unknown session", "", func(p chat.Principal) error { _, err := calls.Call(ctx, p, "nope"); return err }, chat.CodeCallSessionNotFound},
			{"change an unknown session", "ann", func(p chat.Principal) error { return set("ann", "nope", "ended") }, chat.CodeCallSessionNotFound},
			{"switch an unknown session", "ann", func(p chat.Principal) error { _, err := calls.ChangeCallType(ctx, p, "nope", "video"); return err }, chat.CodeCallSessionNotFound},
			{"transcriptions of an unknown session", "", func(p chat.Principal) error {
				_, _, err := calls.CallTranscriptions(ctx, p, "nope", chat.Page{PerPage: 10, Number: 1})
				return err
			}, chat.CodeCallSessionNotFound},
			{"change an ended call", "ann", func(p chat.Principal) error { return set("ann", ended, "ongoing") }, chat.CodeCallTerminated},
			{"switch an ended call", "ann", func(p chat.Principal) error { _, err := calls.ChangeCallType(ctx, p, ended, "video"); return err }, chat.CodeCallTerminated},
			{"a stranger answers", "dan", func(p chat.Principal) error { return set("dan", ringing, "ongoing") }, chat.CodeCallNotAPart},
			{"a stranger switches", "dan", func(p chat.Principal) error { _, err := calls.ChangeCallType(ctx, p, ringing, "video"); return err }, chat.CodeCallNotAPart},
			{"the initiator answers", "ann", func(p chat.Principal) error { return set("ann", ringing, "ongoing") }, chat.CodeCallInvalidStatus},
			{"the receiver cancels", "cat", func(p chat.Principal) error { return set("cat", ringing, "cancelled") }, chat.CodeCallInvalidStatus},
			{"end before it started", "cat", func(p chat.Principal) error { return set("cat", ringing, "ended") }, chat.CodeCallNotStarted},
			{"call oneself", "ann", func(p chat.Principal) error {
				_, err := calls.InitiateCall(ctx, p, chat.CallInitiate{Receiver: "ann", ReceiverType: "user", Type: "audio"})
				return err
			}, chat.CodeCallingSelf},
			{"an unknown receiver", "ann", func(p chat.Principal) error {
				_, err := calls.InitiateCall(ctx, p, chat.CallInitiate{Receiver: "ghost", ReceiverType: "user", Type: "audio"})
				return err
			}, chat.CodeUIDNotFound},
			{"an unknown group", "ann", func(p chat.Principal) error {
				_, err := calls.InitiateCall(ctx, p, chat.CallInitiate{Receiver: "nope", ReceiverType: "group", Type: "audio"})
				return err
			}, chat.CodeGUIDNotFound},
			{"a group one is not in", "dan", func(p chat.Principal) error {
				_, err := calls.InitiateCall(ctx, p, chat.CallInitiate{Receiver: "g", ReceiverType: "group", Type: "audio"})
				return err
			}, chat.CodeNotAMember},
			{"an unknown call type", "ann", func(p chat.Principal) error {
				_, err := calls.InitiateCall(ctx, p, chat.CallInitiate{Receiver: "bob", ReceiverType: "user", Type: "screen"})
				return err
			}, chat.CodeBadRequest},
		})
	})
}
