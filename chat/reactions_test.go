package chat

import "testing"

func TestDecideReaction(t *testing.T) {
	u0 := User{UID: "u0"}
	msg := MessageHead{ID: 7, Sender: "u0", Receiver: "u1", ReceiverType: ReceiverUser}
	add := ReactionChange{MessageID: 7, UID: "u0", Reaction: "x", Add: true, Max: 2}
	remove := add
	remove.Add = false
	deleted := msg
	deleted.DeletedAt = 5
	outsider := add
	outsider.UID = "u9"
	tests := []struct {
		name string
		c    ReactionChange
		s    ReactionState
		want ReactionEffect
		code Code
	}{
		{"unknown actor before unknown message", add, ReactionState{}, 0, CodeUIDNotFound},
		{"deactivated actor", add, ReactionState{Actor: User{UID: "u0", DeactivatedAt: 1}, Message: msg}, 0, CodeUIDNotFound},
		{"deleted actor", add, ReactionState{Actor: User{UID: "u0", DeletedAt: 1}, Message: msg}, 0, CodeUIDNotFound},
		{"unknown message", add, ReactionState{Actor: u0}, 0, CodeMessageNotFound},
		{"not a party", outsider, ReactionState{Actor: User{UID: "u9"}, Message: msg}, 0, CodeMessageNoAccess},
		{"deleted message", add, ReactionState{Actor: u0, Message: deleted, Mine: true, Count: 1, Distinct: 1}, 0, CodeMessageActionDenied},
		{"first of its kind", add, ReactionState{Actor: u0, Message: msg}, ReactionAddFirst, ""},
		{"one more", add, ReactionState{Actor: u0, Message: msg, Distinct: 2, Count: 1}, ReactionAddMore, ""},
		{"a repeat changes nothing", add, ReactionState{Actor: u0, Message: msg, Distinct: 2, Count: 1, Mine: true}, ReactionUnchanged, ""},
		{"a new kind over the cap", add, ReactionState{Actor: u0, Message: msg, Distinct: 2}, 0, CodeReactionLimitExceeded},
		{"no cap", ReactionChange{MessageID: 7, UID: "u0", Reaction: "x", Add: true}, ReactionState{Actor: u0, Message: msg, Distinct: 500}, ReactionAddFirst, ""},
		{"removing the last", remove, ReactionState{Actor: u0, Message: msg, Distinct: 1, Count: 1, Mine: true}, ReactionRemoveLast, ""},
		{"removing one of two", remove, ReactionState{Actor: u0, Message: msg, Distinct: 1, Count: 2, Mine: true}, ReactionRemoveOne, ""},
		{"removing what is not there", remove, ReactionState{Actor: u0, Message: msg, Distinct: 1, Count: 2}, ReactionUnchanged, ""},
		{"removing at the cap", remove, ReactionState{Actor: u0, Message: msg, Distinct: 2, Count: 1, Mine: true}, ReactionRemoveLast, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideReaction(tt.c, tt.s)
			if code := ErrorCode(err); code != tt.code || err == nil && got != tt.want {
				t.Fatalf("got %v, %v (code %q); want %v, code %q", got, err, code, tt.want, tt.code)
			}
		})
	}
}
