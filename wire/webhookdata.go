package wire

import (
	"encoding/json"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// WebhookData renders a webhook event's data in the hosted service's shapes (API-reference
// §7). The webhook workers send it, and the notification workers give it to custom providers
// and push templates.
//   - message events, user_mentioned: {"message": <message>} (an edit's or deletion's action
//     message carries its target in data.entities.on);
//   - reactions: {"reaction": <reaction record>};
//   - receipts: {receiver, receiverType, type: "receipts", sender, messageSender,
//     body: {action, messageId, user, timestamp}};
//   - blocks: {"users": {uid: user}, "by": user};
//   - groups and members: {"group": <group>, "members": {uid: user}, "by": user}, a member
//     with its scope (and oldScope on a scope change);
//   - calls: call_initiated, _busy, _cancelled, _rejected and _unanswered {"message": <call
//     message>}; call_started {created_at, sessionId}; call_participant_joined and _left
//     {occupant, sessionId}; call_ended {all_occupants, destroyed_at, created_at, sessionId};
//   - connection status: {timestamp (ms), user, status, currentConnection, userPresenceChanged}.
func WebhookData(sub chat.Subject) []byte {
	ref := sub.Ref
	switch {
	case sub.Reaction != nil:
		r := sub.Reaction
		rec := Reaction{ID: strconv.FormatInt(r.ID, 10), MessageID: strconv.FormatInt(r.MessageID, 10), Reaction: r.Reaction,
			UID: r.UID, ReactedAt: r.ReactedAt, ReactedBy: UserOut(r.ReactedBy)}
		b, _ := json.Marshal(struct {
			Reaction Reaction `json:"reaction"`
		}{rec})
		return b
	case ref.Receipt != nil:
		return receiptData(sub)
	case ref.Call != nil:
		return callEventData(sub)
	case sub.User != nil:
		return connectionData(sub)
	case sub.Message != nil:
		b := append([]byte(`{"message":`), AppendMessage(nil, *sub.Message)...)
		return append(b, '}')
	case ref.Group != nil:
		b := append([]byte(`{"group":`), mustJSON(GroupOut(*ref.Group))...)
		if len(ref.Members) > 0 {
			b = appendMembers(append(b, `,"members":`...), ref.Members)
		}
		return appendBy(b, ref.By)
	default: // blocks
		b := appendMembers([]byte(`{"users":`), ref.Members)
		return appendBy(b, ref.By)
	}
}

// appendMembers appends {uid: user, …} in the order given, each with its scope when it has
// one.
func appendMembers(b []byte, ms []chat.EventMember) []byte {
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, m.UID), ':')
		b = AppendUser(b, m.Entity, "")
		if m.Scope != "" {
			b = append(b[:len(b)-1], `,"scope":`...)
			b = AppendString(b, m.Scope)
			if m.OldScope != "" {
				b = append(b, `,"oldScope":`...)
				b = AppendString(b, m.OldScope)
			}
			b = append(b, '}')
		}
	}
	return append(b, '}')
}

func appendBy(b []byte, by *chat.Entity) []byte {
	if by != nil {
		b = AppendUser(append(b, `,"by":`...), *by, "")
	}
	return append(b, '}')
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// receiptData is a receipt event's data, as the real-time receipt says it.
func receiptData(sub chat.Subject) []byte {
	rc := sub.Ref.Receipt
	out := map[string]any{
		"receiver": rc.Receiver, "receiverType": rc.ReceiverType, "type": "receipts", "sender": rc.Reader.UID,
		"body": map[string]any{"action": rc.Action, "messageId": strconv.FormatInt(sub.Ref.MessageID, 10),
			"user": json.RawMessage(AppendUser(nil, rc.Reader, "")), "timestamp": rc.At},
	}
	if sub.Message != nil {
		out["messageSender"] = sub.Message.Sender
	}
	return mustJSON(out)
}

// connectionData is a connection status change: natter sends one when a user's presence
// changes (its first socket opened on any node, its last closed or its node gone), so
// userPresenceChanged is always true.
func connectionData(sub chat.Subject) []byte {
	action := "disconnected"
	if sub.User.Status == "available" {
		action = "connected"
	}
	conn := map[string]any{"action": action}
	if action == "connected" {
		conn["connectedAt"] = sub.At / 1000
	}
	return mustJSON(map[string]any{"timestamp": sub.At, "user": UserOut(*sub.User), "status": sub.User.Status,
		"currentConnection": conn, "userPresenceChanged": true})
}
