package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// appendMemberResults appends an add's results, {"usersToBan":{uid:result,…},"admins":…},
// lists in the hosted example's order and uids in the order they were named: success with
// the action message that records the add (a ban has none), or the refusal in the error
// envelope's shape. A list the request did not send is left out, unless all is set: the
// client SDKs' add (PUT) reads all four lists and throws on a missing one.
func appendMemberResults(b []byte, res chat.MemberResults, all bool) []byte {
	b = append(b, '{')
	first := true
	for _, l := range []struct {
		name string
		rs   []chat.MemberResult
	}{{"usersToBan", res.UsersToBan}, {"admins", res.Admins}, {"moderators", res.Moderators}, {"participants", res.Participants}} {
		if l.rs == nil && !all {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = wire.AppendString(b, l.name)
		b = append(b, ":{"...)
		for i, r := range l.rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendString(b, r.UID)
			b = append(b, ':')
			switch {
			case r.Err != nil:
				b = append(b, `{"success":false,"error":`...)
				e, _ := json.Marshal(wire.ErrorOut(r.Err))
				b = append(b, e...)
				b = append(b, '}')
			case r.Action != nil:
				b = append(b, `{"success":true,"data":`...)
				b = wire.AppendMessage(b, *r.Action)
				b = append(b, '}')
			default:
				b = append(b, `{"success":true}`...)
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func (s *Server) addMembers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		memberListsJSON
		Password *string `json:"password"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	l := req.memberListsJSON
	// The client SDK joins a group by posting here on its own behalf, with at most a
	// password: a request that names no list is a join. Both SDKs read the group out of
	// the answer's joined action message (data.data.entities.for.entity), the one the
	// socket carries, and throw on any other shape.
	if l.Admins == nil && l.Moderators == nil && l.Participants == nil && l.UsersToBan == nil && p.Actor != "" {
		pw := ""
		if req.Password != nil {
			pw = *req.Password
		}
		m, err := s.svc.Join(r.Context(), p, r.PathValue("guid"), pw)
		if err != nil {
			return err
		}
		writeMessage(w, r, m)
		return nil
	}
	return s.answerAdd(w, r, p, l, false)
}

// putMembers is the client SDKs' add (addMembersToGroup: PUT with the lists, never a
// join). It answers as the add does, with all four lists, the SDK reading each.
func (s *Server) putMembers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var l memberListsJSON
	if err := decodeJSON(r, &l); err != nil {
		return err
	}
	return s.answerAdd(w, r, p, l, true)
}

func (s *Server) answerAdd(w http.ResponseWriter, r *http.Request, p chat.Principal, l memberListsJSON, all bool) error {
	res, err := s.svc.AddMembers(r.Context(), p, r.PathValue("guid"), l.lists())
	if err != nil {
		return err
	}
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":`...)
	out = appendMemberResults(out, res, all)
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
	return nil
}

// leaveGroup is the client SDK's leave: DELETE on the members collection, on its own behalf.
func (s *Server) leaveGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.Leave(r.Context(), p, r.PathValue("guid")); err != nil {
		return err
	}
	guid, _ := chat.NormalizeID(r.PathValue("guid"))
	writeData(w, r, success{true, "The user " + p.Actor + " has left the group " + guid + "."}, nil)
	return nil
}

// memberJSON is a member in a member list: the user shape with its scope and join time.
type memberJSON struct {
	wire.User
	Scope    string `json:"scope"`
	JoinedAt int64  `json:"joinedAt"`
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.MemberQuery{Scopes: q.list("scopes"), Status: q.str("status"), SearchKey: q.str("searchKey"), Page: q.page()}
	if err := q.err(); err != nil {
		return err
	}
	members, total, err := s.svc.ListMembers(r.Context(), p, r.PathValue("guid"), f)
	if err != nil {
		return err
	}
	out := make([]memberJSON, len(members))
	for i, m := range members {
		out[i] = memberJSON{User: wire.UserFor(p, m.User), Scope: m.Scope, JoinedAt: m.JoinedAt}
		if p.Actor != "" && p.Actor != m.User.UID {
			out[i].ConversationID = chat.ConversationID(p.Actor, m.User.UID)
		}
	}
	writeData(w, r, out, pageMeta(f.Page, len(out), total))
	return nil
}

func (s *Server) changeScope(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Scope string `json:"scope"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	m, err := s.svc.ChangeScope(r.Context(), p, r.PathValue("guid"), r.PathValue("uid"), req.Scope)
	if err != nil {
		return err
	}
	guid, _ := chat.NormalizeID(r.PathValue("guid"))
	writeData(w, r, struct {
		GUID     string `json:"guid"`
		UID      string `json:"uid"`
		Scope    string `json:"scope"`
		JoinedAt int64  `json:"joinedAt"`
	}{guid, m.User.UID, m.Scope, m.JoinedAt}, nil)
	return nil
}

func (s *Server) kickMember(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	g, err := s.svc.Kick(r.Context(), p, r.PathValue("guid"), r.PathValue("uid"))
	if err != nil {
		return err
	}
	uid, _ := chat.NormalizeID(r.PathValue("uid"))
	writeData(w, r, success{true, "The member with " + uid + " has been kicked from the Group with " + g.GUID + "."}, nil)
	return nil
}

func (s *Server) banUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	g, err := s.svc.Ban(r.Context(), p, r.PathValue("guid"), r.PathValue("uid"))
	if err != nil {
		return err
	}
	uid, _ := chat.NormalizeID(r.PathValue("uid"))
	writeData(w, r, success{true, "The user with uid " + uid + " has been banned from the Group with " + g.GUID + "."}, nil)
	return nil
}

func (s *Server) unbanUser(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	g, err := s.svc.Unban(r.Context(), p, r.PathValue("guid"), r.PathValue("uid"))
	if err != nil {
		return err
	}
	uid, _ := chat.NormalizeID(r.PathValue("uid"))
	writeData(w, r, success{true, "The user with uid " + uid + " has been unbanned from the Group with " + g.GUID + "."}, nil)
	return nil
}

func (s *Server) listBanned(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.MemberQuery{SearchKey: q.str("searchKey"), Page: q.page()}
	if err := q.err(); err != nil {
		return err
	}
	users, total, err := s.svc.ListBanned(r.Context(), p, r.PathValue("guid"), f)
	if err != nil {
		return err
	}
	out := make([]wire.User, len(users))
	for i, u := range users {
		out[i] = wire.UserFor(p, u)
		if p.Actor != "" && p.Actor != u.UID {
			out[i].ConversationID = chat.ConversationID(p.Actor, u.UID)
		}
	}
	writeData(w, r, out, pageMeta(f.Page, len(out), total))
	return nil
}
