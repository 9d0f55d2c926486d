package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// conversationJSON is the hosted service's conversation, keys in its examples' order; the
// unread count is a string, as there.
type conversationJSON struct {
	ConversationID      string          `json:"conversationId"`
	ConversationType    string          `json:"conversationType"`
	UnreadMessageCount  string          `json:"unreadMessageCount"`
	UnreadMentionsCount int64           `json:"unreadMentionsCount"`
	LastReadMessageID   string          `json:"lastReadMessageId,omitempty"`
	CreatedAt           int64           `json:"createdAt"`
	UpdatedAt           int64           `json:"updatedAt"`
	LastMessage         json.RawMessage `json:"lastMessage,omitempty"`
	ConversationWith    any             `json:"conversationWith,omitempty"`
	Tags                []string        `json:"tags,omitempty"`
	PinnedAt            int64           `json:"pinnedAt,omitempty"`
	PinnedBy            string          `json:"pinnedBy,omitempty"`
}

func conversationOut(c chat.Conversation, p chat.Principal) conversationJSON {
	viewer := p.Actor
	out := conversationJSON{ConversationID: c.ID, ConversationType: c.Kind, UnreadMessageCount: strconv.FormatInt(c.Unread, 10),
		UnreadMentionsCount: c.Mentions,
		CreatedAt:           c.CreatedAt, UpdatedAt: c.UpdatedAt, Tags: c.Tags, PinnedAt: c.PinnedAt, PinnedBy: c.PinnedBy}
	if c.LastRead > 0 {
		out.LastReadMessageID = strconv.FormatInt(c.LastRead, 10)
	}
	if c.Last != nil {
		out.LastMessage = wire.AppendMessage(nil, *c.Last)
	}
	switch {
	case c.Group != nil:
		out.ConversationWith = wire.GroupOut(*c.Group)
	case c.With != nil:
		u := wire.UserFor(p, *c.With)
		if viewer != "" {
			u.ConversationID = c.ID
		}
		out.ConversationWith = u
	}
	return out
}

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.ConversationQuery{
		Kind:      q.str("conversationType"),
		SearchKey: q.str("searchKey"),
		Tags:      q.list("tags"),
		UserTags:  q.list("userTags"),
		GroupTags: q.list("groupTags"),
		WithTags:  q.boolean("withTags") || q.boolean("withUserAndGroupTags"),
		Unread:    q.boolean("unread"),
		PinnedBy:  q.list("pinnedBy"),
		Page:      q.page(),
		// The hosted file's newer filters: a user's conversations with the users it blocked
		// are left out unless asked for.
		IncludeBlocked:  q.boolean("includeBlockedUsers"),
		WithBlockedInfo: q.boolean("withBlockedInfo"),
		HideAgentic:     q.boolean("hideAgentic"),
		OnlyAgentic:     q.boolean("onlyAgentic"),
	}
	if err := q.err(); err != nil {
		return err
	}
	cs, total, err := s.svc.ListConversations(r.Context(), p, f)
	if err != nil {
		return err
	}
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":[`...)
	for i, c := range cs {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendConversation(out, conversationOut(c, p))
	}
	out = append(out, `],"meta":`...)
	out = appendJSON(out, pageMeta(f.Page, len(cs), total))
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
	return nil
}

// appendConversation appends c as encoding/json writes a conversationJSON, by hand: given
// the whole page, encoding/json validated each last message's bytes again, a fifth of a
// conversation page's CPU (its other party or group, a few fields, still goes through it).
func appendConversation(b []byte, c conversationJSON) []byte {
	b = append(b, `{"conversationId":`...)
	b = wire.AppendString(b, c.ConversationID)
	b = append(b, `,"conversationType":`...)
	b = wire.AppendString(b, c.ConversationType)
	b = append(b, `,"unreadMessageCount":`...)
	b = wire.AppendString(b, c.UnreadMessageCount)
	b = append(b, `,"unreadMentionsCount":`...)
	b = strconv.AppendInt(b, c.UnreadMentionsCount, 10)
	if c.LastReadMessageID != "" {
		b = append(b, `,"lastReadMessageId":`...)
		b = wire.AppendString(b, c.LastReadMessageID)
	}
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, c.CreatedAt, 10)
	b = append(b, `,"updatedAt":`...)
	b = strconv.AppendInt(b, c.UpdatedAt, 10)
	if len(c.LastMessage) > 0 {
		b = append(append(b, `,"lastMessage":`...), c.LastMessage...)
	}
	if c.ConversationWith != nil {
		b = appendJSON(append(b, `,"conversationWith":`...), c.ConversationWith)
	}
	if len(c.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range c.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendString(b, t)
		}
		b = append(b, ']')
	}
	if c.PinnedAt != 0 {
		b = append(b, `,"pinnedAt":`...)
		b = strconv.AppendInt(b, c.PinnedAt, 10)
	}
	if c.PinnedBy != "" {
		b = append(b, `,"pinnedBy":`...)
		b = wire.AppendString(b, c.PinnedBy)
	}
	return append(b, '}')
}

// conversationKind is the kind and key a /users/{uid}/conversation… or
// /groups/{guid}/conversation… path names.
func conversationKind(r *http.Request) (string, string) {
	if guid := r.PathValue("guid"); guid != "" {
		return chat.ConversationGroup, guid
	}
	return chat.ConversationUser, r.PathValue("uid")
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	kind, key := conversationKind(r)
	c, err := s.svc.GetConversation(r.Context(), p, kind, key)
	if err != nil {
		return err
	}
	writeData(w, r, conversationOut(c, p), nil)
	return nil
}

func (s *Server) updateConversation(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Tags []string `json:"tags"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.Tags == nil {
		return chat.InvalidField("tags", "The tags field is required.")
	}
	kind, key := conversationKind(r)
	c, err := s.svc.UpdateConversationTags(r.Context(), p, kind, key, req.Tags)
	if err != nil {
		return err
	}
	writeData(w, r, conversationOut(c, p), nil)
	return nil
}

func (s *Server) resetConversation(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		ConversationWith          string `json:"conversationWith"`
		DeleteMessagesPermanently bool   `json:"deleteMessagesPermanently"`
		// PreserveOrder (the newest hosted file's) is decoded only so that a non-boolean is
		// refused: a reset conversation leaves the list until its next message, which places
		// it, so natter has no kept position to preserve (docs/api-decisions.md).
		PreserveOrder bool `json:"preserveOrder"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.DeleteMessagesPermanently {
		return chat.InvalidField("deleteMessagesPermanently", "natter resets a conversation for the acting user only; delete messages with DELETE /messages/{id}.")
	}
	kind, key := conversationKind(r)
	id, err := s.svc.ResetConversation(r.Context(), p, kind, key)
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The conversation " + id + " has been deleted successfully for UID " + p.Actor + "."}, nil)
	return nil
}

// markConversation answers the marks with the hosted service's acknowledgements; its
// one-to-one delivered and read acknowledgements spell the key "Message".
func (s *Server) markConversation(what chat.MarkKind) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		var req struct {
			MessageID json.Number `json:"messageId"`
		}
		if err := decodeJSON(r, &req); err != nil {
			return err
		}
		var id int64
		if req.MessageID != "" {
			n, err := strconv.ParseInt(string(req.MessageID), 10, 64)
			if err != nil || n < 1 {
				return chat.InvalidField("messageId", "The messageId must be a message id.")
			}
			id = n
		}
		kind, key := conversationKind(r)
		if err := s.svc.Mark(r.Context(), p, kind, key, what, id); err != nil {
			return err
		}
		switch {
		case what == chat.MarkUnread:
			from := "the user " + key
			if kind == chat.ConversationGroup {
				from = "the group " + key
			}
			// The conversation as it now is: the SDK's markMessageAsUnread resolves with it
			// (data.conversation), and never settles without it.
			c, err := s.svc.GetConversation(r.Context(), p, kind, key)
			if err != nil {
				return err
			}
			writeData(w, r, struct {
				success
				Conversation conversationJSON `json:"conversation"`
			}{success{true, "The messages after the message id " + strconv.FormatInt(id, 10) + " from " + from + " are marked as unread for the user " + p.Actor + "."},
				conversationOut(c, p)}, nil)
		case kind == chat.ConversationGroup:
			writeData(w, r, success{true, "All the messages in the group are marked as " + markWord(what) + " for the requesting user."}, nil)
		default:
			writeData(w, r, struct {
				Success bool   `json:"success"`
				Message string `json:"Message"`
			}{true, "All the messages from the user are marked as " + markWord(what) + " for the requesting user."}, nil)
		}
		return nil
	}
}

func markWord(k chat.MarkKind) string {
	if k == chat.MarkDelivered {
		return "delivered"
	}
	return "read"
}

func (s *Server) getConversationByID(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	c, err := s.svc.GetConversationByID(r.Context(), p, r.PathValue("conversationId"))
	if err != nil {
		return err
	}
	writeData(w, r, conversationOut(c, p), nil)
	return nil
}

func (s *Server) deleteConversationByID(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	id := r.PathValue("conversationId")
	if id == "pinned" {
		return pinnedListMethod(w, r)
	}
	if err := s.svc.DeleteConversationForAll(r.Context(), p, id); err != nil {
		return err
	}
	writeData(w, r, success{true, "The conversation " + id + " has been deleted successfully for all the users."}, nil)
	return nil
}
