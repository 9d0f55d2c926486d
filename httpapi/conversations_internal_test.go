package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// TestAppendConversationAsEncodingJSON: the hand-encoded conversation is, byte for byte,
// what encoding/json writes for the same conversationJSON (as writeJSON does, without HTML
// escaping), whichever optional fields are set and whatever the strings hold.
func TestAppendConversationAsEncodingJSON(t *testing.T) {
	odd := "a\"b\\c<d>&e\u2028f\u2029g\x01h\té"
	msg := wire.AppendMessage(nil, chat.Message{ID: 7, ConversationID: "a_user_b", Sender: "a", ReceiverType: chat.ReceiverUser,
		Receiver: "b", Category: chat.CategoryMessage, Type: "text", Data: json.RawMessage(`{"text":"hi <b>"}`), SentAt: 5, UpdatedAt: 5})
	for _, c := range []conversationJSON{
		{},
		{ConversationID: "a_user_b", ConversationType: "user", UnreadMessageCount: "3", UnreadMentionsCount: 1, CreatedAt: 1, UpdatedAt: 2},
		{ConversationID: odd, ConversationType: "group", UnreadMessageCount: odd, LastReadMessageID: "9", CreatedAt: -1, UpdatedAt: 1 << 60,
			LastMessage: msg, ConversationWith: wire.UserOut(chat.User{UID: "b", Name: odd, Metadata: json.RawMessage(`{"k":"<v>"}`)}),
			Tags: []string{odd, "x"}, PinnedAt: 4, PinnedBy: odd},
		{ConversationID: "group_g", ConversationType: "group", UnreadMessageCount: "0",
			ConversationWith: wire.GroupOut(chat.Group{GUID: "g", Name: "G", Type: "public", Tags: []string{"t"}}), Tags: []string{}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
		got := appendConversation(nil, c)
		if !bytes.Equal(got, bytes.TrimRight(want.Bytes(), "\n")) {
			t.Errorf("hand-encoded:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
}
