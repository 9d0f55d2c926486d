package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
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

func (s *Server) listReactions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := chat.ReactionPage{Reaction: r.PathValue("reaction"), Affix: q.str("affix"), CursorID: q.str("id"),
		Limit: q.pageSize(chat.MaxReactionPage, 1, chat.MaxReactionPage)}
	if err := q.err(); err != nil {
		return err
	}
	rs, _, err := s.svc.ListReactions(r.Context(), p, r.PathValue("id"), page)
	if err != nil {
		return err
	}
	out := make([]wire.Reaction, len(rs))
	for i, x := range rs {
		u := wire.UserFor(p, x.ReactedBy)
		u.Tags = nil
		out[i] = wire.Reaction{ID: strconv.FormatInt(x.ID, 10), MessageID: strconv.FormatInt(x.MessageID, 10),
			Reaction: x.Reaction, UID: x.UID, ReactedAt: x.ReactedAt, ReactedBy: u}
	}
	// next is on every page, the last one too: the official JavaScript client keeps its old
	// cursor when next is missing, and so would read its first page forever. It points past
	// the page's last record, or stays where the request was when the page is empty.
	var meta cursorMeta
	meta.Current.Limit, meta.Current.Count = page.Limit, len(out)
	affix, last := "append", page.CursorID
	if page.Affix == "prepend" {
		affix = "prepend"
	}
	if len(out) > 0 {
		last = out[len(out)-1].ID
		if affix == "prepend" {
			last = out[0].ID
		}
	}
	if last == "" {
		last = "0"
	}
	meta.Next = &cursorJSON{affix, last}
	writeData(w, r, out, meta)
	return nil
}
