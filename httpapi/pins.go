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
