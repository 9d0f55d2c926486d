package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// The role page and a group's permissions page set what GET/PUT/DELETE
// /roles/{role}/permissions, /roles/{role}/restrictedfeatures and
// /groups/{guid}/scopes/{scope}/permissions set, through the same service calls.

// permissionRow is one permission as a role or a group scope has it, for a table.
type permissionRow struct {
	Key, Title, Value string
	Set               bool
}

func permissionRows(in []chat.PermissionSetting) []permissionRow {
	out := make([]permissionRow, len(in))
	for i, s := range in {
		v := s.Value.Str
		if s.DataType == chat.DataStringArray {
			v = strings.Join(s.Value.List, ", ")
			if v == "" {
				v = "(any)"
			}
		}
		out[i] = permissionRow{Key: s.Key, Title: s.Title, Value: v, Set: s.Set}
	}
	return out
}

// permissionValue is a form's value for the permission key as the API takes it: a JSON
// string, or for a list permission a JSON array of the items (separated by commas or
// spaces). An unknown key is sent as a string for the service to refuse by name.
func permissionValue(t chat.PermissionType, key, raw string) json.RawMessage {
	raw = strings.TrimSpace(raw)
	var v any = raw
	for _, d := range chat.PermissionDefs(t) {
		if d.Key == key && d.DataType == chat.DataStringArray {
			v = strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
			if v.([]string) == nil {
				v = []string{}
			}
		}
	}
	b, _ := json.Marshal(v)
	return b
}

type roleData struct {
	Role        chat.Role
	Permissions []permissionRow
	Defs        []chat.PermissionDef
	Restricted  []chat.RestrictedFeature
	Features    []chat.Feature // those not restricted, to restrict
}

func (c *Console) role(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderRole(w, r, q, r.PathValue("role"))
}

func (c *Console) renderRole(w http.ResponseWriter, r *http.Request, q *request, id string) error {
	ctx := r.Context()
	role, err := c.svc.Roles().Role(ctx, q.p, id)
	if err != nil {
		return err
	}
	d := roleData{Role: role, Defs: chat.PermissionDefs(chat.RolePermission)}
	perms, err := c.svc.Roles().Permissions(ctx, q.p, chat.PermissionTarget{Type: chat.RolePermission, Role: role.Role})
	if err != nil {
		return err
	}
	d.Permissions = permissionRows(perms)
	if d.Restricted, err = c.svc.Roles().ListRestrictedFeatures(ctx, q.p, role.Role); err != nil {
		return err
	}
	restricted := map[string]bool{}
	for _, f := range d.Restricted {
		restricted[f.Key] = true
	}
	for _, f := range chat.Features() {
		if !restricted[f.Key] {
			d.Features = append(d.Features, f)
		}
	}
	c.show(w, r, q, "role", q.page("Role "+role.Name, "roles", d))
	return nil
}

// roleChanged redirects to the role's page after a change, or shows the page again with a
// service error.
func (c *Console) roleChanged(w http.ResponseWriter, r *http.Request, q *request, err error) error {
	role := r.PathValue("role")
	if err != nil {
		if q.retry(err, r) {
			return c.renderRole(w, r, q, role)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/roles/"+url.PathEscape(role))
	return nil
}

func (c *Console) setRolePermission(w http.ResponseWriter, r *http.Request, q *request) error {
	key := r.PostFormValue("permission")
	_, _, err := c.svc.Roles().SetPermissions(r.Context(), q.p, chat.PermissionTarget{Type: chat.RolePermission, Role: r.PathValue("role")},
		map[string]json.RawMessage{key: permissionValue(chat.RolePermission, key, r.PostFormValue("value"))})
	return c.roleChanged(w, r, q, err)
}

func (c *Console) unsetRolePermission(w http.ResponseWriter, r *http.Request, q *request) error {
	_, err := c.svc.Roles().UnsetPermission(r.Context(), q.p, chat.PermissionTarget{Type: chat.RolePermission, Role: r.PathValue("role")},
		r.PostFormValue("permission"))
	return c.roleChanged(w, r, q, err)
}

func (c *Console) restrictFeature(w http.ResponseWriter, r *http.Request, q *request) error {
	_, err := c.svc.Roles().RestrictFeatures(r.Context(), q.p, r.PathValue("role"), postedAll(r, "feature"))
	return c.roleChanged(w, r, q, err)
}

func (c *Console) allowFeature(w http.ResponseWriter, r *http.Request, q *request) error {
	err := c.svc.Roles().AllowFeatures(r.Context(), q.p, r.PathValue("role"), postedAll(r, "feature"), false)
	return c.roleChanged(w, r, q, err)
}

type scopePermissions struct {
	Scope       string
	Permissions []permissionRow
}

type groupPermissionsData struct {
	Group  chat.Group
	Scopes []scopePermissions
	Defs   []chat.PermissionDef
}

func (c *Console) groupPermissions(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderGroupPermissions(w, r, q, r.PathValue("guid"))
}

func (c *Console) renderGroupPermissions(w http.ResponseWriter, r *http.Request, q *request, guid string) error {
	ctx := r.Context()
	g, err := c.svc.Group(ctx, q.p, guid)
	if err != nil {
		return err
	}
	d := groupPermissionsData{Group: g, Defs: chat.PermissionDefs(chat.ScopePermission)}
	for _, scope := range []string{chat.ScopeAdmin, chat.ScopeModerator, chat.ScopeParticipant} {
		perms, err := c.svc.Roles().Permissions(ctx, q.p, chat.PermissionTarget{Type: chat.ScopePermission, GUID: g.GUID, Scope: scope})
		if err != nil {
			return err
		}
		d.Scopes = append(d.Scopes, scopePermissions{Scope: scope, Permissions: permissionRows(perms)})
	}
	c.show(w, r, q, "grouppermissions", q.page("Permissions of "+g.Name, "groups", d))
	return nil
}

func (c *Console) groupPermissionsChanged(w http.ResponseWriter, r *http.Request, q *request, err error) error {
	guid := r.PathValue("guid")
	if err != nil {
		if q.retry(err, r) {
			return c.renderGroupPermissions(w, r, q, guid)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/groups/"+url.PathEscape(guid)+"/permissions")
	return nil
}

func (c *Console) setScopePermission(w http.ResponseWriter, r *http.Request, q *request) error {
	key := r.PostFormValue("permission")
	_, _, err := c.svc.Roles().SetPermissions(r.Context(), q.p, chat.PermissionTarget{Type: chat.ScopePermission, GUID: r.PathValue("guid"),
		Scope: r.PostFormValue("scope")}, map[string]json.RawMessage{key: permissionValue(chat.ScopePermission, key, r.PostFormValue("value"))})
	return c.groupPermissionsChanged(w, r, q, err)
}

func (c *Console) unsetScopePermission(w http.ResponseWriter, r *http.Request, q *request) error {
	_, err := c.svc.Roles().UnsetPermission(r.Context(), q.p, chat.PermissionTarget{Type: chat.ScopePermission, GUID: r.PathValue("guid"),
		Scope: r.PostFormValue("scope")}, r.PostFormValue("permission"))
	return c.groupPermissionsChanged(w, r, q, err)
}

// postedAll is every value a form posted for name (PostFormValue parses the form: a form
// htmx sends has its CSRF token in a header, so nothing has parsed it yet).
func postedAll(r *http.Request, name string) []string {
	r.PostFormValue(name)
	return r.PostForm[name]
}
