package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// messageJSON is the message shape of the seed (§2.1), keys in its order; the optional keys
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
	UpdatedAt      int64           `json:"updatedAt"`
	MUID           string          `json:"muid,omitempty"`
	Tags           []string        `json:"tags,omitempty"`
	DeletedAt      int64           `json:"deletedAt,omitempty"`
	DeletedBy      string          `json:"deletedBy,omitempty"`
}

// entityUserJSON is a user inside data.entities (seed §2.3).
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
	}
	return messageJSON{ID: strconv.FormatInt(m.ID, 10), ConversationID: m.ConversationID, Sender: m.Sender,
		ReceiverType: m.ReceiverType, Receiver: m.Receiver, Category: m.Category, Type: m.Type,
		Data: spliceObject(m.Data, gen), SentAt: m.SentAt, UpdatedAt: m.UpdatedAt, MUID: m.MUID, Tags: m.Tags,
		DeletedAt: m.DeletedAt, DeletedBy: m.DeletedBy}
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

type sendMessageRequest struct {
	Receiver     string          `json:"receiver"`
	ReceiverType string          `json:"receiverType"`
	Category     string          `json:"category"`
	Type         string          `json:"type"`
	Data         json.RawMessage `json:"data"`
	Tags         []string        `json:"tags"`
	MUID         string          `json:"muid"`
	Multiple     json.RawMessage `json:"multipleReceivers"`
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req sendMessageRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if len(req.Multiple) > 0 && string(req.Multiple) != "null" {
		return chat.Errorf(chat.CodeNotImplemented, "multipleReceivers is not implemented in natter yet.")
	}
	m, err := s.svc.SendMessage(r.Context(), p, r.Header.Get("onBehalfOf"), chat.MessageSend{Receiver: req.Receiver,
		ReceiverType: req.ReceiverType, Category: req.Category, Type: req.Type, Data: req.Data, Tags: req.Tags, MUID: req.MUID})
	if err != nil {
		return err
	}
	writeData(w, r, messageOut(m), nil)
	return nil
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	m, err := s.svc.Message(r.Context(), p, r.PathValue("id"), r.Header.Get("onBehalfOf"))
	if err != nil {
		return err
	}
	writeData(w, r, messageOut(m), nil)
	return nil
}

type deleteMessageRequest struct {
	Permanent bool `json:"permanent"`
}

func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req deleteMessageRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	q := newQuery(r)
	permanent := req.Permanent || q.boolean("permanent")
	if err := q.err(); err != nil {
		return err
	}
	m, err := s.svc.DeleteMessage(r.Context(), p, r.PathValue("id"), r.Header.Get("onBehalfOf"), permanent)
	if err != nil {
		return err
	}
	writeData(w, r, messageOut(m), nil)
	return nil
}
