package console

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
)

type rolesData struct {
	Roles []chat.Role
}

// roles lists the app's roles (at most 25, as the service allows).
func (c *Console) roles(w http.ResponseWriter, r *http.Request, q *request) error {
	roles, _, err := c.svc.Roles().ListRoles(r.Context(), q.p, chat.Page{Number: 1, PerPage: 100})
	if err != nil {
		return err
	}
	c.show(w, r, q, "roles", q.page("Roles", "roles", rolesData{Roles: roles}))
	return nil
}

func (c *Console) createRole(w http.ResponseWriter, r *http.Request, q *request) error {
	if _, err := c.svc.Roles().CreateRole(r.Context(), q.p, chat.RoleCreate{Role: r.PostFormValue("role"), Name: r.PostFormValue("name"),
		Description: r.PostFormValue("description")}); err != nil {
		if q.retry(err, r) {
			return c.roles(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/roles")
	return nil
}

// deleteRole deletes a role; its users get the default role, as through the API.
func (c *Console) deleteRole(w http.ResponseWriter, r *http.Request, q *request) error {
	if _, err := c.svc.Roles().DeleteRole(r.Context(), q.p, r.PathValue("role")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/roles")
	return nil
}
