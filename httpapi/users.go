package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

type createUserRequest struct {
	UID           string          `json:"uid"`
	Name          string          `json:"name"`
	Avatar        string          `json:"avatar"`
	Link          string          `json:"link"`
	Role          string          `json:"role"`
	StatusMessage string          `json:"statusMessage"`
	Metadata      json.RawMessage `json:"metadata"`
	Tags          []string        `json:"tags"`
	WithAuthToken bool            `json:"withAuthToken"`
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req createUserRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.UserCreate{UID: req.UID, Name: req.Name, Avatar: req.Avatar, Link: req.Link,
		Role: req.Role, StatusMessage: req.StatusMessage, Metadata: req.Metadata, Tags: req.Tags}
	if req.WithAuthToken {
		u, t, err := s.svc.CreateUserWithAuthToken(r.Context(), p, in)
		if err != nil {
			return err
		}
		out := wire.UserOut(u)
		out.AuthToken = t.Value
		writeData(w, r, out, nil)
		return nil
	}
	u, err := s.svc.CreateUser(r.Context(), p, in)
	if err != nil {
		return err
	}
	// The answer is what the caller just wrote, metadata.@private too.
	writeData(w, r, wire.UserOut(u), nil)
	return nil
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	u, err := s.svc.UserWithTags(r.Context(), p, r.PathValue("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, wire.UserFor(p, u), nil)
	return nil
}

type updateUserRequest struct {
	Name          *string         `json:"name"`
	Avatar        *string         `json:"avatar"`
	Link          *string         `json:"link"`
	Role          *string         `json:"role"`
	StatusMessage *string         `json:"statusMessage"`
	Metadata      json.RawMessage `json:"metadata"`
	Tags          *[]string       `json:"tags"`
	Unset         []string        `json:"unset"`
}

func (s *Server) updateUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req updateUserRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	u, err := s.svc.UpdateUser(r.Context(), p, r.PathValue("uid"), chat.UserChange{Name: req.Name, Avatar: req.Avatar,
		Link: req.Link, Role: req.Role, StatusMessage: req.StatusMessage, Metadata: req.Metadata, Tags: req.Tags, Unset: req.Unset})
	if err != nil {
		return err
	}
	writeData(w, r, wire.UserFor(p, u), nil)
	return nil
}

func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	permanent, err := permanentFlag(r)
	if err != nil {
		return err
	}
	uid, _ := chat.NormalizeID(r.PathValue("uid"))
	if err := s.svc.DeleteUser(r.Context(), p, r.PathValue("uid"), permanent); err != nil { // checked as sent
		return err
	}
	writeData(w, r, success{true, "User with " + uid + " has been deleted successfully."}, nil)
	return nil
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.UserQuery{
		SearchKey: q.str("searchKey"),
		SearchIn:  q.list("searchIn"),
		Statuses:  q.list("status"),
		CreatedAt: q.timeRange("createdAt"),
		UpdatedAt: q.timeRange("updatedAt"),
		Roles:     append(q.list("role"), q.list("roles")...),
		Tags:      q.list("tags"),
		WithTags:  q.boolean("withTags"),
		Page:      q.page(),
		// The SDK's setUIDs, friendsOnly and hideBlockedUsers.
		UIDs:        q.list("uids"),
		FriendsOnly: q.boolean("friendsOnly"),
		HideBlocked: q.boolean("hideBlockedUsers"),
	}
	if q.str("updatedAt") != "" {
		since := int64(q.integer("updatedAt", 0, 0, 1<<62))
		f.ChangedSince = &since
	}
	f.Affix = q.str("affix")
	switch only, with := q.boolean("onlyDeactivated"), q.boolean("withDeactivated"); {
	case only:
		f.Deactivated = chat.OnlyDeactivated
	case with:
		f.Deactivated = chat.WithDeactivated
	}
	if err := q.err(); err != nil {
		return err
	}
	users, total, err := s.svc.ListUsers(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]wire.User, len(users))
	for i, u := range users {
		out[i] = wire.UserFor(p, u)
		if p.Actor != "" {
			out[i].ConversationID = chat.ConversationID(p.Actor, u.UID)
		}
	}
	// The cursor goes under meta, as in the hosted service's other lists and its C# client,
	// and beside data and meta, where its users-list example has it.
	c := f.Cursor(users)
	cursor := userCursorJSON{UpdatedAt: c.UpdatedAt, Affix: c.Affix}
	writeJSON(w, r, http.StatusOK, userListJSON{Data: out, Meta: userListMeta{Pagination: pageOf(f.Page, len(out), total), Cursor: cursor}, Cursor: cursor})
	return nil
}

type userCursorJSON struct {
	UpdatedAt int64  `json:"updatedAt"`
	Affix     string `json:"affix"`
}

type userListMeta struct {
	Pagination pagination     `json:"pagination"`
	Cursor     userCursorJSON `json:"cursor"`
}

type userListJSON struct {
	Data   []wire.User    `json:"data"`
	Meta   userListMeta   `json:"meta"`
	Cursor userCursorJSON `json:"cursor"`
}

func (s *Server) deactivateUsers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		UIDs []string `json:"uidsToDeactivate"`
	}
	return s.setDeactivated(w, r, p, &req, &req.UIDs, "uidsToDeactivate", "deactivatedUids", true)
}

// reactivateUsers answers with the uids under "nonDeactivatedUids", the hosted service's name.
func (s *Server) reactivateUsers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		UIDs []string `json:"uidsToActivate"`
	}
	return s.setDeactivated(w, r, p, &req, &req.UIDs, "uidsToActivate", "nonDeactivatedUids", false)
}

// setDeactivated decodes req, whose uids field is named in, and answers with the uids
// changed, sorted, under out.
func (s *Server) setDeactivated(w http.ResponseWriter, r *http.Request, p chat.Principal, req any, uids *[]string, in, out string, deactivate bool) error {
	if err := decodeJSON(r, req); err != nil {
		return err
	}
	done, err := s.svc.SetUsersDeactivated(r.Context(), p, in, *uids, deactivate)
	if err != nil {
		return err
	}
	slices.Sort(done)
	writeData(w, r, map[string][]string{out: done}, nil)
	return nil
}
