package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// roleJSON is the role shape of the hosted service, keys in its examples' order; settings
// only when the role has them.
type roleJSON struct {
	Role        string          `json:"role"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Settings    *settingsJSON   `json:"settings,omitempty"`
	CreatedAt   int64           `json:"createdAt"`
	UpdatedAt   int64           `json:"updatedAt,omitempty"`
}

type settingsJSON struct {
	ListUsers      string `json:"listUsers"`
	SendMessagesTo string `json:"sendMessagesTo"`
}

func roleOut(r chat.Role) roleJSON {
	out := roleJSON{Role: r.Role, Name: r.Name, Description: r.Description, Metadata: wire.StoredObject(r.Metadata),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.Settings != nil {
		out.Settings = &settingsJSON{ListUsers: r.Settings.ListUsers, SendMessagesTo: r.Settings.SendMessagesTo}
	}
	return out
}

type createRoleRequest struct {
	Role        string          `json:"role"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Metadata    json.RawMessage `json:"metadata"`
	Settings    json.RawMessage `json:"settings"`
}

func (s *Server) createRole(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req createRoleRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	role, err := s.svc.Roles().CreateRole(r.Context(), p, chat.RoleCreate{Role: req.Role, Name: req.Name, Description: req.Description,
		Metadata: req.Metadata, Settings: req.Settings})
	if err != nil {
		return err
	}
	writeData(w, r, roleOut(role), nil)
	return nil
}

func (s *Server) listRoles(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	roles, total, err := s.svc.Roles().ListRoles(r.Context(), p, page)
	if err != nil {
		return err
	}
	out := make([]roleJSON, len(roles))
	for i, role := range roles {
		out[i] = roleOut(role)
	}
	writeData(w, r, out, pageMeta(page, len(out), total))
	return nil
}

func (s *Server) getRole(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	role, err := s.svc.Roles().Role(r.Context(), p, r.PathValue("role"))
	if err != nil {
		return err
	}
	writeData(w, r, roleOut(role), nil)
	return nil
}

type updateRoleRequest struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Metadata    json.RawMessage `json:"metadata"`
	Settings    json.RawMessage `json:"settings"`
	Unset       []string        `json:"unset"`
}

func (s *Server) updateRole(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req updateRoleRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	role, err := s.svc.Roles().UpdateRole(r.Context(), p, r.PathValue("role"), chat.RoleChange{Name: req.Name, Description: req.Description,
		Metadata: req.Metadata, Settings: req.Settings, Unset: req.Unset})
	if err != nil {
		return err
	}
	writeData(w, r, roleOut(role), nil)
	return nil
}

func (s *Server) deleteRole(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	role, err := s.svc.Roles().DeleteRole(r.Context(), p, r.PathValue("role"))
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "Role " + role + " has been deleted successfully."}, nil)
	return nil
}
