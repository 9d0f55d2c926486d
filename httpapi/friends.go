package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// friendResultJSON is one uid's outcome of an add: success with the hosted service's
// message, or a refusal with its code.
type friendResultJSON struct {
	Success bool      `json:"success"`
	Message string    `json:"message"`
	Code    chat.Code `json:"code,omitempty"`
}

func (s *Server) addFriends(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Accepted []string `json:"accepted"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	results, err := s.svc.AddFriends(r.Context(), p, r.PathValue("uid"), req.Accepted)
	if err != nil {
		return err
	}
	out := make(map[string]friendResultJSON, len(results))
	for uid, e := range results {
		if e == nil {
			out[uid] = friendResultJSON{Success: true, Message: "Created relationship with status accepted."}
			continue
		}
		out[uid] = friendResultJSON{Message: e.Message, Code: e.Code}
	}
	writeData(w, r, map[string]map[string]friendResultJSON{"accepted": out}, nil)
	return nil
}

// listFriends answers as GET /users does: a page of users with meta.pagination and the
// cursor, under meta and beside it.
func (s *Server) listFriends(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.UserQuery{SearchKey: q.str("searchKey"), SearchIn: q.list("searchIn"), WithTags: q.boolean("withTags"), Page: q.page()}
	if q.str("updatedAt") != "" {
		since := int64(q.integer("updatedAt", 0, 0, 1<<62))
		f.ChangedSince = &since
	}
	f.Affix = q.str("affix")
	if err := q.err(); err != nil {
		return err
	}
	users, total, err := s.svc.ListFriends(r.Context(), p, r.PathValue("uid"), f)
	if err != nil {
		return err
	}
	owner, _ := chat.NormalizeID(r.PathValue("uid"))
	out := make([]wire.User, len(users))
	for i, u := range users {
		out[i] = wire.UserFor(p, u)
		out[i].ConversationID = chat.ConversationID(owner, u.UID) // the friend's conversation with uid, as the hosted examples show it
	}
	c := f.Cursor(users)
	cursor := userCursorJSON{UpdatedAt: c.UpdatedAt, Affix: c.Affix}
	writeJSON(w, r, http.StatusOK, userListJSON{Data: out, Meta: userListMeta{Pagination: pageOf(f.Page, len(out), total), Cursor: cursor}, Cursor: cursor})
	return nil
}

func (s *Server) removeFriends(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Friends []string `json:"friends"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	uid, err := s.svc.RemoveFriends(r.Context(), p, r.PathValue("uid"), req.Friends)
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "Removed friends successfully for uid " + uid + "."}, nil)
	return nil
}
