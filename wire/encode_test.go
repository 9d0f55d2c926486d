package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// The reflection-based encoder that AppendMessage replaced, kept as its oracle: the hand
// encoder must produce exactly these bytes.

// messageJSON is the hosted service's message shape, keys in its order; the optional keys
// the reference names follow.
type messageJSON struct {
	ID             string          `json:"id"`
	ConversationID string          `json:"conversationId"`
	Sender         string          `json:"sender"`
	ReceiverType   string          `json:"receiverType"`
	Receiver       string          `json:"receiver"`
	Category       string          `json:"category"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	SentAt         int64           `json:"sentAt"`
	DeliveredAt    int64           `json:"deliveredAt,omitempty"`
	ReadAt         int64           `json:"readAt,omitempty"`
	EditedAt       int64           `json:"editedAt,omitempty"`
	EditedBy       string          `json:"editedBy,omitempty"`
	UpdatedAt      int64           `json:"updatedAt"`
	ParentID       string          `json:"parentId,omitempty"`
	ReplyCount     int64           `json:"replyCount,omitempty"`
	UnreadReplies  int64           `json:"unreadRepliesCount,omitempty"`
	MUID           string          `json:"muid,omitempty"`
	Tags           []string        `json:"tags,omitempty"`
	QuotedID       string          `json:"quotedMessageId,omitempty"`
	Quoted         *messageJSON    `json:"quotedMessage,omitempty"`
	DeletedAt      int64           `json:"deletedAt,omitempty"`
	DeletedBy      string          `json:"deletedBy,omitempty"`
	PinnedAt       int64           `json:"pinnedAt,omitempty"`
	PinnedBy       string          `json:"pinnedBy,omitempty"`
	SavedAt        int64           `json:"savedAt,omitempty"`
}

// entityUserJSON is a user inside data.entities.
type entityUserJSON struct {
	UID            string `json:"uid"`
	Name           string `json:"name"`
	Avatar         string `json:"avatar,omitempty"`
	Role           string `json:"role"`
	Status         string `json:"status"`
	ConversationID string `json:"conversationId,omitempty"`
}

type entityJSON struct {
	Entity     any    `json:"entity"`
	EntityType string `json:"entityType"`
}

type reactionSummaryJSON struct {
	Reaction    string `json:"reaction"`
	Count       int64  `json:"count"`
	ReactedByMe bool   `json:"reactedByMe,omitempty"` // present only when true, as on the hosted service
}

func userEntity(e chat.Entity, conversationID string) entityJSON {
	return entityJSON{Entity: entityUserJSON{UID: e.UID, Name: e.Name, Avatar: e.Avatar, Role: e.Role, Status: e.Status, ConversationID: conversationID}, EntityType: "user"}
}

// messageOut builds the wire message. data is the stored content object with the generated
// keys appended: entities, then reactions when there are any.
func messageOut(m chat.Message) messageJSON {
	var gen []byte
	if m.Category == chat.CategoryAction {
		ents := struct {
			By  entityJSON  `json:"by"`
			For entityJSON  `json:"for"`
			On  *entityJSON `json:"on,omitempty"`
		}{By: userEntity(m.SenderEntity, ""), For: userEntity(m.ReceiverEntity, m.ConversationID)}
		if m.Target != nil {
			ents.On = &entityJSON{Entity: messageOut(*m.Target), EntityType: "message"}
		}
		gen = appendKey(gen, "entities", ents)
	} else {
		ents := struct {
			Sender   entityJSON `json:"sender"`
			Receiver entityJSON `json:"receiver"`
		}{userEntity(m.SenderEntity, ""), userEntity(m.ReceiverEntity, m.ConversationID)}
		gen = appendKey(gen, "entities", ents)
		if len(m.Reactions) > 0 {
			rs := make([]reactionSummaryJSON, len(m.Reactions))
			for i, r := range m.Reactions {
				rs[i] = reactionSummaryJSON{Reaction: r.Reaction, Count: r.Count, ReactedByMe: r.ReactedByMe}
			}
			gen = appendKey(gen, "reactions", rs)
		}
		if len(m.Interactions) > 0 {
			type interactionJSON struct {
				ElementID    string `json:"elementId"`
				InteractedAt int64  `json:"interactedAt"`
			}
			is := make([]interactionJSON, len(m.Interactions))
			for i, in := range m.Interactions {
				is[i] = interactionJSON{in.ElementID, in.InteractedAt}
			}
			gen = appendKey(gen, "interactions", is)
		}
	}
	var quoted *messageJSON
	if m.QuotedID != 0 && m.Quoted != nil {
		q := messageOut(*m.Quoted)
		quoted = &q
	}
	return messageJSON{ID: strconv.FormatInt(m.ID, 10), ConversationID: m.ConversationID, Sender: m.Sender,
		ReceiverType: m.ReceiverType, Receiver: m.Receiver, Category: m.Category, Type: m.Type,
		Data: spliceObject(m.Data, gen), SentAt: m.SentAt, UpdatedAt: m.UpdatedAt, MUID: m.MUID, Tags: m.Tags,
		DeliveredAt: m.DeliveredAt, ReadAt: m.ReadAt, EditedAt: m.EditedAt, EditedBy: m.EditedBy, ParentID: parentID(m.ParentID),
		ReplyCount: m.ReplyCount, UnreadReplies: m.UnreadReplies, QuotedID: parentID(m.QuotedID), Quoted: quoted,
		DeletedAt: m.DeletedAt, DeletedBy: m.DeletedBy, PinnedAt: m.PinnedAt, PinnedBy: m.PinnedBy, SavedAt: m.SavedAt}
}

func parentID(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// appendKey appends `,"key":value` to b.
func appendKey(b []byte, key string, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // the values are natter's own types; they always encode
	k, _ := json.Marshal(key)
	b = append(b, ',')
	b = append(b, k...)
	b = append(b, ':')
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// spliceObject appends the `,"k":v` pairs in gen to the JSON object obj.
func spliceObject(obj json.RawMessage, gen []byte) json.RawMessage {
	if len(gen) == 0 {
		return obj
	}
	out := make([]byte, 0, len(obj)+len(gen))
	out = append(out, obj[:len(obj)-1]...) // drop the closing brace
	if len(obj) == 2 {                     // "{}": no leading comma
		gen = gen[1:]
	}
	out = append(out, gen...)
	return append(out, '}')
}

func oracleBody(m chat.Message) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Data any `json:"data"`
	}{messageOut(m)}); err != nil {
		panic(err)
	}
	return buf.String()
}

func handBody(m chat.Message) string {
	return string(append(AppendMessage([]byte(`{"data":`), m), "}\n"...))
}

func sampleMessage(s string) chat.Message {
	sender := chat.Entity{UID: "u1" + s, Name: "Ann " + s, Avatar: s, Role: "default", Status: "online"}
	receiver := chat.Entity{UID: "u2", Name: s, Role: s, Status: "offline"}
	data, _ := json.Marshal(map[string]string{"text": s})
	return chat.Message{ID: 42, ConversationID: "u1_user_u2" + s, Sender: "u1" + s, ReceiverType: "user", Receiver: "u2",
		Category: "message", Type: "text" + s, Data: data, SentAt: 1700000000, UpdatedAt: 1700000001, MUID: s,
		Tags: []string{s, "t"}, SenderEntity: sender, ReceiverEntity: receiver,
		Reactions: []chat.ReactionSummary{{Reaction: s + "👍", Count: 3, ReactedByMe: true}, {Reaction: "❤️", Count: 1}}}
}

func TestAppendMessageMatchesEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", `quote " backslash \\ slash /`, "<b>&amp;</b>", "line\nbreak\ttab\r\b\f\x00\x1f\x7f",
		"\u2028\u2029", "bad \xff\xfe utf8 \xe2\x80", "👍🏽 ❤️ 👨‍👩‍👧", strings.Repeat("x", 300)}
	for _, s := range tricky {
		m := sampleMessage(s)
		cases := map[string]chat.Message{"full": m}
		bare := m
		bare.MUID, bare.Tags, bare.Reactions, bare.SenderEntity.Avatar, bare.ReceiverEntity.Avatar = "", nil, nil, "", ""
		bare.Data = json.RawMessage("{}")
		cases["bare"] = bare
		deleted := m
		deleted.DeletedAt, deleted.DeletedBy, deleted.Tags = 1700000009, "u1", []string{}
		cases["deleted"] = deleted
		action := m
		action.ID, action.Category, action.Type, action.Reactions = 43, chat.CategoryAction, "message", nil
		action.Data = json.RawMessage(`{"action":"deleted"}`)
		target := deleted
		action.Target = &target
		cases["action"] = action
		orphan := action
		orphan.Target = nil
		cases["action without target"] = orphan
		reply := m
		reply.ParentID, reply.EditedAt, reply.EditedBy, reply.DeliveredAt, reply.ReadAt = 7, 1700000005, s, 1700000003, 1700000004
		cases["edited reply, delivered and read"] = reply
		parent := m
		parent.ReplyCount, parent.UnreadReplies = 12, 3
		cases["thread parent"] = parent
		pinned := m
		pinned.PinnedAt, pinned.PinnedBy, pinned.SavedAt = 1700000006, s, 1700000007
		cases["pinned and saved"] = pinned
		quoting := m
		quoting.QuotedID, quoting.Quoted = 40, &deleted
		cases["quoting a deleted message"] = quoting
		unread := m
		unread.QuotedID = 41
		cases["quoting, quoted message not read"] = unread
		interactive := m
		interactive.Category, interactive.Type = chat.CategoryInteractive, "form"
		interactive.Interactions = []chat.Interaction{{ElementID: s, InteractedAt: 1700000008}, {ElementID: "b", InteractedAt: 1700000009}}
		cases["interactive, interacted"] = interactive
		for name, c := range cases {
			if got, want := handBody(c), oracleBody(c); got != want {
				t.Errorf("%s %q:\n got %s\nwant %s", name, s, got, want)
			}
		}
	}
}

func FuzzAppendMessage(f *testing.F) {
	f.Add("plain", "👍")
	f.Add("<&>\u2028", "\xff")
	f.Fuzz(func(t *testing.T, s, reaction string) {
		m := sampleMessage(s)
		m.Reactions[0].Reaction = reaction
		if got, want := handBody(m), oracleBody(m); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}
