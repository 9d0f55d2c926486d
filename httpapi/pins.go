package httpapi

import (
	"context"
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// Pins and saves of messages answer with the message, pinnedAt and pinnedBy set while it is
// pinned and savedAt while the acting user has it saved (docs/api-decisions.md).

func (s *Server) pinMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerMessage(w, r, p, s.svc.PinMessage)
}

func (s *Server) unpinMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerMessage(w, r, p, s.svc.UnpinMessage)
}

func (s *Server) saveMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerMessage(w, r, p, s.svc.SaveMessage)
}

func (s *Server) unsaveMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerMessage(w, r, p, s.svc.UnsaveMessage)
}

func (s *Server) answerMessage(w http.ResponseWriter, r *http.Request, p chat.Principal,
	change func(ctx context.Context, p chat.Principal, id string) (chat.Message, error)) error {
	m, err := change(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

// pinConversation and unpinConversation answer with the conversation, pinnedAt and pinnedBy
// set while it is pinned (pinnedBy app_system for the app's pins).
func (s *Server) pinConversation(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerConversation(w, r, p, s.svc.PinConversation)
}

func (s *Server) unpinConversation(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerConversation(w, r, p, s.svc.UnpinConversation)
}

func (s *Server) answerConversation(w http.ResponseWriter, r *http.Request, p chat.Principal,
	change func(ctx context.Context, p chat.Principal, kind, key string) (chat.Conversation, error)) error {
	kind, key := conversationKind(r)
	c, err := change(r.Context(), p, kind, key)
	if err != nil {
		return err
	}
	writeData(w, r, conversationOut(c, p), nil)
	return nil
}

// systemPinJSON is one entry of the app's pinned conversations: the shape the replace
// request takes ({uid} or {guid}), with its type and when it was pinned.
type systemPinJSON struct {
	UID              string `json:"uid,omitempty"`
	GUID             string `json:"guid,omitempty"`
	ConversationType string `json:"conversationType"`
	PinnedAt         int64  `json:"pinnedAt"`
}

type systemPinsJSON struct {
	PinnedConversations []systemPinJSON `json:"pinnedConversations"`
}

func writeSystemPins(w http.ResponseWriter, r *http.Request, pins []chat.SystemPin) {
	out := systemPinsJSON{PinnedConversations: make([]systemPinJSON, len(pins))}
	for i, p := range pins {
		e := systemPinJSON{ConversationType: p.Kind, PinnedAt: p.PinnedAt}
		if p.Kind == chat.ConversationGroup {
			e.GUID = p.Target
		} else {
			e.UID = p.Target
		}
		out.PinnedConversations[i] = e
	}
	writeData(w, r, out, nil)
}

func (s *Server) listSystemPins(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	pins, err := s.svc.SystemPins(r.Context(), p)
	if err != nil {
		return err
	}
	writeSystemPins(w, r, pins)
	return nil
}

func (s *Server) replaceSystemPins(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		PinnedConversations *[]struct {
			UID  string `json:"uid"`
			GUID string `json:"guid"`
		} `json:"pinnedConversations"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.PinnedConversations == nil {
		return chat.InvalidField("pinnedConversations", "The pinnedConversations field is required (an empty list unpins all).")
	}
	targets := make([]chat.SystemPinTarget, len(*req.PinnedConversations))
	for i, t := range *req.PinnedConversations {
		targets[i] = chat.SystemPinTarget{UID: t.UID, GUID: t.GUID}
	}
	pins, err := s.svc.ReplaceSystemPins(r.Context(), p, targets)
	if err != nil {
		return err
	}
	writeSystemPins(w, r, pins)
	return nil
}

// pinnedListMethod answers a method /conversations/pinned does not take. The path is a
// literal beside /conversations/{conversationId}, so such a method reaches the wildcard's
// handler, which sends it here ("pinned" is no conversation id): 405 with Allow, as the
// dispatcher answers any other known path called with another method.
func pinnedListMethod(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", "GET, PUT")
	return &chat.Error{Code: chat.CodeMethodNotAllowed, Message: "The method " + r.Method + " is not allowed on this endpoint.",
		DevMessage: "The method " + r.Method + " is not allowed on this endpoint; allowed: GET, PUT."}
}
