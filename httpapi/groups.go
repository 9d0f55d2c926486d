package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

type memberListsJSON struct {
	Admins       []string `json:"admins"`
	Moderators   []string `json:"moderators"`
	Participants []string `json:"participants"`
	UsersToBan   []string `json:"usersToBan"`
}

func (l memberListsJSON) lists() chat.MemberLists {
	return chat.MemberLists{Admins: l.Admins, Moderators: l.Moderators, Participants: l.Participants, UsersToBan: l.UsersToBan}
}

type createGroupRequest struct {
	GUID        string           `json:"guid"`
	Name        string           `json:"name"`
	Type        string           `json:"type"`
	Password    string           `json:"password"`
	Icon        string           `json:"icon"`
	Description string           `json:"description"`
	Metadata    json.RawMessage  `json:"metadata"`
	Owner       string           `json:"owner"`
	Tags        []string         `json:"tags"`
	Members     *memberListsJSON `json:"members"`
}

func (s *Server) createGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req createGroupRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.GroupCreate{GUID: req.GUID, Name: req.Name, Type: req.Type, Password: req.Password, Icon: req.Icon,
		Description: req.Description, Metadata: req.Metadata, Owner: req.Owner, Tags: req.Tags}
	if req.Members != nil {
		in.Members = req.Members.lists()
	}
	g, results, err := s.svc.CreateGroup(r.Context(), p, in)
	if err != nil {
		return err
	}
	out := wire.GroupOut(g)
	if req.Members != nil {
		out.Members = appendMemberResults(nil, results, false)
		if p.ByToken() {
			// The client SDK's createGroupWithMembers reads the results one level down
			// (data.members.data), all four lists of them (it walks each, and throws in its
			// callback on a missing one), and without them resolves with no member's
			// result; the REST shape stays beside them for a client that reads it.
			out.Members = appendClientMemberResults(out.Members, appendMemberResults(nil, results, true))
		}
	}
	writeData(w, r, out, nil)
	return nil
}

// appendClientMemberResults puts all (a create's member results with every list) under
// data, beside the REST lists sent: {"admins":…, "data":{"admins":…, "moderators":{}, …}}.
func appendClientMemberResults(sent, all []byte) []byte {
	b := make([]byte, 0, len(sent)+len(all)+16)
	b = append(b, sent[:len(sent)-1]...)
	if len(sent) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"data":`...)
	b = append(b, all...)
	return append(b, '}')
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	g, err := s.svc.Group(r.Context(), p, r.PathValue("guid"))
	if err != nil {
		return err
	}
	writeData(w, r, wire.GroupOut(g), nil)
	return nil
}

type updateGroupRequest struct {
	Name        *string         `json:"name"`
	Type        *string         `json:"type"`
	Password    *string         `json:"password"`
	Icon        *string         `json:"icon"`
	Description *string         `json:"description"`
	Metadata    json.RawMessage `json:"metadata"`
	Owner       *string         `json:"owner"`
	Tags        *[]string       `json:"tags"`
	Unset       []string        `json:"unset"`
}

func (s *Server) updateGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req updateGroupRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	g, err := s.svc.UpdateGroup(r.Context(), p, r.PathValue("guid"), chat.GroupChange{Name: req.Name, Type: req.Type,
		Password: req.Password, Icon: req.Icon, Description: req.Description, Metadata: req.Metadata, Owner: req.Owner,
		Tags: req.Tags, Unset: req.Unset})
	if err != nil {
		return err
	}
	writeData(w, r, wire.GroupOut(g), nil)
	return nil
}

func (s *Server) transferGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Owner string `json:"owner"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	g, err := s.svc.TransferOwner(r.Context(), p, r.PathValue("guid"), req.Owner)
	if err != nil {
		return err
	}
	writeData(w, r, wire.GroupOut(g), nil)
	return nil
}

func (s *Server) deleteGroup(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.DeleteGroup(r.Context(), p, r.PathValue("guid")); err != nil {
		return err
	}
	guid, _ := chat.NormalizeID(r.PathValue("guid"))
	writeData(w, r, success{true, "Group with guid " + guid + " has been deleted successfully."}, nil)
	return nil
}

func (s *Server) listGroups(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.GroupQuery{
		SearchKey: q.str("searchKey"),
		SearchIn:  q.list("searchIn"),
		SortBy:    q.str("sortBy"),
		SortOrder: q.str("sortOrder"),
		Types:     append(q.list("type"), q.list("types")...),
		Tags:      q.list("tags"),
		WithTags:  q.boolean("withTags"),
		HasJoined: q.boolean("hasJoined"),
		Page:      q.page(),
		Affix:     q.str("affix"),
		GUID:      q.str("guid"),
		GUIDs:     q.list("guids"),
		CreatedAt: q.timeRange("createdAt"),
		UpdatedAt: q.timeRange("updatedAt"),
		// The hosted file documents gte, lte and eq, and names gt and lt in gte's text.
		MembersCount: q.countFilter("membersCount"),
	}
	if q.str("updatedAt") != "" {
		since := int64(q.integer("updatedAt", 0, 0, 1<<62))
		f.ChangedSince = &since
	}
	if err := q.err(); err != nil {
		return err
	}
	groups, total, err := s.svc.ListGroups(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]wire.Group, len(groups))
	for i, g := range groups {
		out[i] = wire.GroupOut(g)
	}
	c := f.Cursor(groups)
	writeData(w, r, out, userListMeta{Pagination: pageOf(f.Page, len(out), total), Cursor: userCursorJSON{UpdatedAt: c.UpdatedAt, Affix: c.Affix}})
	return nil
}
