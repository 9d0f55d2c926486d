package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

func (s *Server) addReaction(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	m, err := s.svc.AddReaction(r.Context(), p, r.PathValue("id"), r.PathValue("reaction"))
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

func (s *Server) removeReaction(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	m, err := s.svc.RemoveReaction(r.Context(), p, r.PathValue("id"), r.PathValue("reaction"))
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

// reactionJSON is a reaction record (API-reference §3.4).
type reactionJSON struct {
	ID        string   `json:"id"`
	MessageID string   `json:"messageId"`
	Reaction  string   `json:"reaction"`
	UID       string   `json:"uid"`
	ReactedAt int64    `json:"reactedAt"`
	ReactedBy userJSON `json:"reactedBy"`
}

type cursorMeta struct {
	Current struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
	Next *struct {
		Affix string `json:"affix"`
		ID    string `json:"id"`
	} `json:"next,omitempty"`
}

func (s *Server) listReactions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := chat.ReactionPage{Reaction: r.PathValue("reaction"), Affix: q.str("affix"), CursorID: q.str("id"),
		Limit: q.integer("limit", chat.MaxReactionPage, 1, chat.MaxReactionPage)}
	if err := q.err(); err != nil {
		return err
	}
	rs, more, err := s.svc.ListReactions(r.Context(), p, r.PathValue("id"), page)
	if err != nil {
		return err
	}
	out := make([]reactionJSON, len(rs))
	for i, x := range rs {
		u := userOut(x.ReactedBy)
		u.Tags = nil
		out[i] = reactionJSON{ID: strconv.FormatInt(x.ID, 10), MessageID: strconv.FormatInt(x.MessageID, 10),
			Reaction: x.Reaction, UID: x.UID, ReactedAt: x.ReactedAt, ReactedBy: u}
	}
	var meta cursorMeta
	meta.Current.Limit, meta.Current.Count = page.Limit, len(out)
	if more && len(out) > 0 {
		affix, last := "append", out[len(out)-1].ID
		if page.Affix == "prepend" {
			affix, last = "prepend", out[0].ID
		}
		meta.Next = &struct {
			Affix string `json:"affix"`
			ID    string `json:"id"`
		}{affix, last}
	}
	writeData(w, r, out, meta)
	return nil
}
