package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// permissionJSON is one permission as the hosted service lists it, plus value: what the
// role or group scope has (natter's addition; the hosted list shows only the definition).
type permissionJSON struct {
	ID              string   `json:"id"`
	Type            string   `json:"type"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	DataType        string   `json:"dataType"`
	AvailableValues []string `json:"availableValues"`
	DefaultValue    any      `json:"defaultValue"`
	Value           any      `json:"value"`
	CreatedAt       int64    `json:"createdAt"`
	UpdatedAt       int64    `json:"updatedAt"`
}

// roleTarget and scopeTarget are the permissions' target a path names.
func roleTarget(r *http.Request) chat.PermissionTarget {
	return chat.PermissionTarget{Type: chat.RolePermission, Role: r.PathValue("role")}
}

func scopeTarget(r *http.Request) chat.PermissionTarget {
	return chat.PermissionTarget{Type: chat.ScopePermission, GUID: r.PathValue("guid"), Scope: r.PathValue("scope")}
}

func (s *Server) listRolePermissions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.listPermissions(w, r, p, roleTarget(r))
}

func (s *Server) listScopePermissions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.listPermissions(w, r, p, scopeTarget(r))
}

// listPermissions answers every permission of the target, paged as the hosted list is.
func (s *Server) listPermissions(w http.ResponseWriter, r *http.Request, p chat.Principal, t chat.PermissionTarget) error {
	q := newQuery(r)
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	all, err := s.svc.Roles().Permissions(r.Context(), p, t)
	if err != nil {
		return err
	}
	out := []permissionJSON{}
	for _, ps := range pageOfSlice(all, page) {
		values := ps.Values
		if values == nil {
			values = []string{}
		}
		out = append(out, permissionJSON{ID: ps.Key, Type: string(ps.Type), Title: ps.Title, Description: ps.Description,
			DataType: ps.DataType, AvailableValues: values, DefaultValue: ps.Default.JSON(ps.PermissionDef), Value: ps.Value.JSON(ps.PermissionDef),
			CreatedAt: ps.CreatedAt, UpdatedAt: ps.UpdatedAt})
	}
	writeData(w, r, out, pageMeta(page, len(out), len(all)))
	return nil
}

// pageOfSlice is one page of a list the service answers whole.
func pageOfSlice[T any](all []T, page chat.Page) []T {
	from := min(page.Offset(), len(all))
	return all[from:min(from+page.PerPage, len(all))]
}

func (s *Server) setRolePermissions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.setPermissions(w, r, p, roleTarget(r))
}

func (s *Server) setScopePermissions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.setPermissions(w, r, p, scopeTarget(r))
}

// setPermissions answers {<key>: {success, message}, ..., "permissions": {every key: value}},
// the hosted service's shape, keys in the table's order.
func (s *Server) setPermissions(w http.ResponseWriter, r *http.Request, p chat.Principal, t chat.PermissionTarget) error {
	var req struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	keys, all, err := s.svc.Roles().SetPermissions(r.Context(), p, t, req.Permissions)
	if err != nil {
		return err
	}
	var obj ordered
	for _, k := range keys {
		msg := "Permission with id " + k + " have been mapped successfully to role " + normalized(t.Role) + "."
		if t.Type == chat.ScopePermission {
			msg = "Permission with id " + k + " have been mapped successfully to scope " + t.Scope + " on group " + normalized(t.GUID) + "."
		}
		obj = append(obj, field{k, success{true, msg}})
	}
	obj = append(obj, field{"permissions", permissionValues(all)})
	writeData(w, r, obj, nil)
	return nil
}

func (s *Server) unsetRolePermission(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.unsetPermission(w, r, p, roleTarget(r))
}

func (s *Server) unsetScopePermission(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.unsetPermission(w, r, p, scopeTarget(r))
}

func (s *Server) unsetPermission(w http.ResponseWriter, r *http.Request, p chat.Principal, t chat.PermissionTarget) error {
	all, err := s.svc.Roles().UnsetPermission(r.Context(), p, t, r.PathValue("permission"))
	if err != nil {
		return err
	}
	writeData(w, r, ordered{{"permissions", permissionValues(all)}}, nil)
	return nil
}

// permissionValues is every permission's value, by key in the table's order.
func permissionValues(all []chat.PermissionSetting) ordered {
	out := make(ordered, len(all))
	for i, ps := range all {
		out[i] = field{ps.Key, ps.Value.JSON(ps.PermissionDef)}
	}
	return out
}

func normalized(id string) string {
	n, _ := chat.NormalizeID(id)
	return n
}

// ordered is a JSON object whose keys keep their order.
type ordered []field

type field struct {
	key   string
	value any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// restrictedFeatureJSON is a restricted feature as the hosted service lists it.
type restrictedFeatureJSON struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Key         string `json:"key"`
	Path        string `json:"path"`
	CreatedAt   int64  `json:"createdAt"`
}

func (s *Server) restrictFeatures(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		FeaturesToRestrict []string `json:"featuresToRestrict"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	keys, err := s.svc.Roles().RestrictFeatures(r.Context(), p, r.PathValue("role"), req.FeaturesToRestrict)
	if err != nil {
		return err
	}
	out := make(ordered, len(keys))
	for i, k := range keys {
		out[i] = field{k, success{true, "The feature " + k + " has been restricted successfully."}}
	}
	writeData(w, r, out, nil)
	return nil
}

func (s *Server) listRestrictedFeatures(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	all, err := s.svc.Roles().ListRestrictedFeatures(r.Context(), p, r.PathValue("role"))
	if err != nil {
		return err
	}
	out := []restrictedFeatureJSON{}
	for _, f := range pageOfSlice(all, page) {
		out = append(out, restrictedFeatureJSON{Title: f.Title, Description: f.Description, Key: f.Key, Path: f.Path, CreatedAt: f.CreatedAt})
	}
	writeData(w, r, out, pageMeta(page, len(out), len(all)))
	return nil
}

func (s *Server) allowFeatures(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		FeaturesToAllow []string `json:"featuresToAllow"`
		AllowAll        bool     `json:"allowAll"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := s.svc.Roles().AllowFeatures(r.Context(), p, r.PathValue("role"), req.FeaturesToAllow, req.AllowAll); err != nil {
		return err
	}
	writeData(w, r, success{true, "The feature has been allowed successfully."}, nil)
	return nil
}
