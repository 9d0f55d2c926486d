package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// The block routes are an app's, /users/{uid}/blockedusers with its fullAccess key, and a
// client app's, /blockedusers, whose user is the acting one (the SDK's blockUsers,
// unblockUsers and BlockedUsersRequestBuilder); chat resolves which (an empty uid).

// blocksOwner is the uid whose blocks a request changed or listed, once chat has accepted it.
func blocksOwner(r *http.Request, p chat.Principal) string {
	if uid, _ := chat.NormalizeID(r.PathValue("uid")); uid != "" {
		return uid
	}
	return p.Actor
}

// blockUsers and unblockUsers answer {<uid>: {success, message}} per uid, as the hosted
// service's block answers; a refusal adds its code.
func (s *Server) blockUsers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.changeBlocks(w, r, p, true)
}

func (s *Server) unblockUsers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.changeBlocks(w, r, p, false)
}

func (s *Server) changeBlocks(w http.ResponseWriter, r *http.Request, p chat.Principal, block bool) error {
	var req struct {
		BlockedUIDs []string `json:"blockedUids"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	change, verb := s.svc.UnblockUsers, "unblocked"
	if block {
		change, verb = s.svc.BlockUsers, "blocked"
	}
	results, err := change(r.Context(), p, r.PathValue("uid"), req.BlockedUIDs)
	if err != nil {
		return err
	}
	blocker := blocksOwner(r, p)
	out := make(map[string]friendResultJSON, len(results))
	for uid, e := range results {
		if e == nil { // the hosted service's wording
			out[uid] = friendResultJSON{Success: true, Message: "The user with UID " + blocker + " has " + verb + " user with UID " + uid + " successfully."}
			continue
		}
		out[uid] = friendResultJSON{Message: e.Message, Code: e.Code}
	}
	writeData(w, r, out, nil)
	return nil
}

// listBlocked answers as GET /users does, each user with the block fields as the path's user
// sees them.
func (s *Server) listBlocked(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.UserQuery{SearchKey: q.str("searchKey"), SearchIn: q.list("searchIn"), WithTags: q.boolean("withTags"), Page: q.page()}
	if q.str("updatedAt") != "" {
		since := int64(q.integer("updatedAt", 0, 0, 1<<62))
		f.ChangedSince = &since
	}
	f.Affix = q.str("affix")
	direction := q.str("direction")
	if err := q.err(); err != nil {
		return err
	}
	users, total, err := s.svc.ListBlocked(r.Context(), p, r.PathValue("uid"), direction, f)
	if err != nil {
		return err
	}
	owner := blocksOwner(r, p)
	out := make([]wire.User, len(users))
	for i, u := range users {
		out[i] = wire.UserFor(p, u)
		out[i].ConversationID = chat.ConversationID(owner, u.UID)
	}
	c := f.Cursor(users)
	cursor := userCursorJSON{UpdatedAt: c.UpdatedAt, Affix: c.Affix}
	writeJSON(w, r, http.StatusOK, userListJSON{Data: out, Meta: userListMeta{Pagination: pageOf(f.Page, len(out), total), Cursor: cursor}, Cursor: cursor})
	return nil
}
