package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

type groupsData struct {
	Query      string
	Groups     []chat.Group
	Total      int
	Prev, Next string
}

func (c *Console) groups(w http.ResponseWriter, r *http.Request, q *request) error {
	d := groupsData{Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(1, min(n, 10000))
	var err error
	if d.Groups, d.Total, err = c.svc.ListGroups(r.Context(), q.p, chat.GroupQuery{SearchKey: d.Query, Page: chat.Page{Number: n, PerPage: usersPerPage}}); err != nil {
		return err
	}
	link := func(p int) string {
		v := url.Values{"page": {strconv.Itoa(p)}}
		if d.Query != "" {
			v.Set("q", d.Query)
		}
		return Prefix + "/groups?" + v.Encode()
	}
	if n > 1 {
		d.Prev = link(n - 1)
	}
	if n*usersPerPage < d.Total {
		d.Next = link(n + 1)
	}
	c.show(w, r, q, "groups", q.page("Groups", "groups", d))
	return nil
}

func (c *Console) createGroup(w http.ResponseWriter, r *http.Request, q *request) error {
	g, _, err := c.svc.CreateGroup(r.Context(), q.p, chat.GroupCreate{GUID: r.PostFormValue("guid"), Name: r.PostFormValue("name"),
		Type: r.PostFormValue("type"), Password: r.PostFormValue("password"), Description: r.PostFormValue("description")})
	if err != nil {
		if q.retry(err, r) {
			q.form.Del("password") // never sent back
			return c.groups(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/groups/"+url.PathEscape(g.GUID))
	return nil
}

type groupData struct {
	Group   chat.Group
	Members []chat.Member
	Total   int
	Results []string // what an add did to each uid
}

func (c *Console) group(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderGroup(w, r, q, r.PathValue("guid"), nil)
}

func (c *Console) renderGroup(w http.ResponseWriter, r *http.Request, q *request, guid string, results []string) error {
	g, err := c.svc.Group(r.Context(), q.p, guid)
	if err != nil {
		return err
	}
	d := groupData{Group: g, Results: results}
	if d.Members, d.Total, err = c.svc.ListMembers(r.Context(), q.p, g.GUID, chat.MemberQuery{Page: chat.Page{Number: 1, PerPage: 200}}); err != nil {
		return err
	}
	c.show(w, r, q, "group", q.page("Group "+g.Name, "groups", d))
	return nil
}

// addMembers adds the uids (comma- or space-separated) with one scope and shows what became
// of each, as the API answers per member.
func (c *Console) addMembers(w http.ResponseWriter, r *http.Request, q *request) error {
	uids := strings.FieldsFunc(r.PostFormValue("uids"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' })
	if len(uids) == 0 {
		return chat.InvalidField("uids", "Name at least one uid to add.")
	}
	var in chat.MemberLists
	switch r.PostFormValue("scope") {
	case "admin":
		in.Admins = uids
	case "moderator":
		in.Moderators = uids
	default:
		in.Participants = uids
	}
	res, err := c.svc.AddMembers(r.Context(), q.p, r.PathValue("guid"), in)
	if err != nil {
		return err
	}
	var out []string
	for _, list := range [][]chat.MemberResult{res.Admins, res.Moderators, res.Participants} {
		for _, m := range list {
			if m.Err != nil {
				msg := "not added"
				if _, said, _, ok := describe(m.Err); ok {
					msg = said
				}
				out = append(out, m.UID+": "+msg)
			} else {
				out = append(out, m.UID+": added")
			}
		}
	}
	return c.renderGroup(w, r, q, r.PathValue("guid"), out)
}

func (c *Console) changeScope(w http.ResponseWriter, r *http.Request, q *request) error {
	if _, err := c.svc.ChangeScope(r.Context(), q.p, r.PathValue("guid"), r.PathValue("uid"), r.PostFormValue("scope")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/groups/"+url.PathEscape(r.PathValue("guid")))
	return nil
}

func (c *Console) kick(w http.ResponseWriter, r *http.Request, q *request) error {
	if _, err := c.svc.Kick(r.Context(), q.p, r.PathValue("guid"), r.PathValue("uid")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/groups/"+url.PathEscape(r.PathValue("guid")))
	return nil
}

// updateGroup renames a group or changes its description.
func (c *Console) updateGroup(w http.ResponseWriter, r *http.Request, q *request) error {
	name, desc := r.PostFormValue("name"), r.PostFormValue("description")
	g, err := c.svc.UpdateGroup(r.Context(), q.p, r.PathValue("guid"), chat.GroupChange{Name: &name, Description: &desc})
	if err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/groups/"+url.PathEscape(g.GUID))
	return nil
}

func (c *Console) deleteGroup(w http.ResponseWriter, r *http.Request, q *request) error {
	if err := c.svc.DeleteGroup(r.Context(), q.p, r.PathValue("guid")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/groups")
	return nil
}
