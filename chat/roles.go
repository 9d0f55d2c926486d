package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// A role is what a user is: every user has exactly one, `default` when none is named, and
// the role's permissions (permissions.go), settings and restricted features (features.go)
// decide what the user may do (policy.go). Every app has the `default` role, which cannot be
// deleted; deleting another role moves its users to `default`, in the same transaction, so
// no user is ever left with a role that does not exist.

// Limits of roles.
const (
	MaxRolesPerApp        = 25 // default included
	MaxRoleDescriptionLen = 1000
)

// The default role, which every app has from its creation.
const (
	DefaultRoleName        = "Default Role"
	DefaultRoleDescription = "This role gives full access"
)

// Values of a role's settings.
const (
	SettingAll         = "all"
	SettingFriendsOnly = "friendsOnly"
)

// RoleSettings are a role's two coarse restrictions: which users its users may list
// (listUsers) and send one-to-one messages to (sendMessagesTo), all or friendsOnly.
type RoleSettings struct {
	ListUsers      string
	SendMessagesTo string
}

// Role is a role of one app.
type Role struct {
	AppID       string
	Role        string
	Name        string
	Description string
	Metadata    json.RawMessage // compact JSON object, or nil
	Settings    *RoleSettings   // nil when the role has none
	CreatedAt   int64
	UpdatedAt   int64 // 0 until updated
}

// NewDefaultRole is the default role of an app created at at.
func NewDefaultRole(appID string, at int64) Role {
	return Role{AppID: appID, Role: DefaultRole, Name: DefaultRoleName, Description: DefaultRoleDescription, CreatedAt: at}
}

// RoleStore reads roles.
type RoleStore interface {
	Role(ctx context.Context, appID, role string) (Role, error)
	// ListRoles lists roles, newest first; the int is the total.
	ListRoles(ctx context.Context, appID string, page Page) ([]Role, int, error)
}

// RoleTx is what changing roles needs inside its transaction (with APIKeyTx's LockApp).
type RoleTx interface {
	CountRoles(appID string) (int, error)
	// InsertRole stores a new role; ErrAlreadyExists for a taken id.
	InsertRole(r Role) error
	// LockRole holds the role against concurrent changes (and users being given it) until
	// the transaction ends, and reads it; ErrNotFound when the app has none.
	LockRole(appID, role string) (Role, error)
	SaveRole(r Role) error
	// DeleteRole gives the role's users (in any state) the role to, and removes the role
	// with its permissions and restricted features.
	DeleteRole(appID, role, to string) error
	// ExistingRoles returns which of roles the app has.
	ExistingRoles(appID string, roles []string) ([]string, error)
}

// ErrRoleNotFound is the store's answer to a user given a role the app does not have.
var ErrRoleNotFound = errors.New("role not found")

// errRoleNotFound names role only when it may be quoted; pass "" for a malformed one.
func errRoleNotFound(role string) error {
	if !quotableID(role) {
		return Errorf(CodeRoleNotFound, "The role does not exist, please make sure you have created a role with that id.")
	}
	return Errorf(CodeRoleNotFound, "The role %s does not exist, please make sure you have created a role with id %s.", role, role)
}

// RoleCreate is a create-role request; Settings and Metadata are the JSON sent (nil when
// absent).
type RoleCreate struct {
	Role        string
	Name        string
	Description string
	Metadata    json.RawMessage
	Settings    json.RawMessage
}

// parseSettings validates a role's settings object: listUsers and sendMessagesTo, each all
// or friendsOnly (all when absent). base is what a key not sent keeps.
func (f fieldErrors) settings(raw json.RawMessage, base RoleSettings) *RoleSettings {
	if !isJSONKind(raw, '{') {
		f.add("settings", "The settings must be a JSON object with listUsers and sendMessagesTo.")
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		f.add("settings", "The settings must be a JSON object with listUsers and sendMessagesTo.")
		return nil
	}
	out := base
	for k, v := range m {
		var s string
		if !isJSONKind(v, '"') || json.Unmarshal(v, &s) != nil || s != SettingAll && s != SettingFriendsOnly {
			f.add(detailField("settings", k), "The value of "+brief(k)+" must be all or friendsOnly.")
			continue
		}
		switch k {
		case "listUsers":
			out.ListUsers = s
		case "sendMessagesTo":
			out.SendMessagesTo = s
		default:
			f.add(detailField("settings", k), "The settings take only listUsers and sendMessagesTo, not "+brief(k)+".")
		}
	}
	if out.ListUsers == "" {
		out.ListUsers = SettingAll
	}
	if out.SendMessagesTo == "" {
		out.SendMessagesTo = SettingAll
	}
	return &out
}

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// CreateRole creates a role, at most MaxRolesPerApp per app.
func (s Roles) CreateRole(ctx context.Context, p Principal, in RoleCreate) (Role, error) {
	fe := fieldErrors{}
	r := Role{AppID: p.App.ID, Name: in.Name, Description: in.Description}
	r.Role = fe.id("role", in.Role, true)
	fe.text("name", in.Name, MaxNameLen, true)
	fe.text("description", in.Description, MaxRoleDescriptionLen, false)
	if present(in.Metadata) {
		r.Metadata = fe.metadata("metadata", in.Metadata)
	}
	if present(in.Settings) {
		r.Settings = fe.settings(in.Settings, RoleSettings{})
	}
	if err := fe.err(); err != nil {
		return Role{}, err
	}
	r.CreatedAt = s.now()
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingRoles))
		// The app stays locked until the role is in, so concurrent creates cannot both pass
		// the count.
		if err := tx.LockApp(p.App.ID); err != nil {
			return err
		}
		n, err := tx.CountRoles(p.App.ID)
		if err != nil {
			return err
		}
		if n >= MaxRolesPerApp {
			return InvalidField("role", fmt.Sprintf("An app may have at most %d roles, default included; delete one first.", MaxRolesPerApp))
		}
		err = tx.InsertRole(r)
		if errors.Is(err, ErrAlreadyExists) {
			return InvalidField("role", "The role "+r.Role+" already exists.")
		}
		return err
	})
	if err != nil {
		return Role{}, s.groupErr("create role", err)
	}
	s.forgetPolicy(p.App.ID)
	return r, nil
}

// Role returns a role.
func (s Roles) Role(ctx context.Context, p Principal, role string) (Role, error) {
	id, ok := NormalizeID(role)
	if !ok {
		return Role{}, errRoleNotFound("")
	}
	r, err := s.cachedRole(ctx, p.App.ID, id)
	if errors.Is(err, ErrNotFound) {
		return Role{}, errRoleNotFound(id)
	}
	if err != nil {
		return Role{}, internal("get role", err)
	}
	return r, nil
}

// ListRoles lists the app's roles, newest first.
func (s Roles) ListRoles(ctx context.Context, p Principal, page Page) ([]Role, int, error) {
	roles, total, err := s.store.ListRoles(ctx, p.App.ID, page)
	if err != nil {
		return nil, 0, internal("list roles", err)
	}
	return roles, total, nil
}

// RoleChange is a partial update: nil fields are left alone (Settings merges the keys it
// sends), and Unset clears settings, description or metadata, winning over a value sent
// with it.
type RoleChange struct {
	Name        *string
	Description *string
	Metadata    json.RawMessage
	Settings    json.RawMessage
	Unset       []string
}

var roleUnsettable = []string{"settings", "description", "metadata"}

// UpdateRole changes a role.
func (s Roles) UpdateRole(ctx context.Context, p Principal, role string, in RoleChange) (Role, error) {
	fe := fieldErrors{}
	if in.Name != nil {
		fe.text("name", *in.Name, MaxNameLen, true)
	}
	if in.Description != nil {
		fe.text("description", *in.Description, MaxRoleDescriptionLen, false)
	}
	var meta json.RawMessage
	if present(in.Metadata) {
		meta = fe.metadata("metadata", in.Metadata)
	}
	if present(in.Settings) {
		fe.settings(in.Settings, RoleSettings{}) // checked now, merged with the stored ones below
	}
	for _, f := range in.Unset {
		if !slices.Contains(roleUnsettable, f) {
			fe.add("unset", "The unset field may only name settings, description and metadata.")
			break
		}
	}
	if err := fe.err(); err != nil {
		return Role{}, err
	}
	id, ok := NormalizeID(role)
	if !ok {
		return Role{}, errRoleNotFound("")
	}
	now := s.now()
	var out Role
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingRoles))
		r, err := tx.LockRole(p.App.ID, id)
		if errors.Is(err, ErrNotFound) {
			return errRoleNotFound(id)
		}
		if err != nil {
			return err
		}
		if in.Name != nil {
			r.Name = *in.Name
		}
		if in.Description != nil {
			r.Description = *in.Description
		}
		if meta != nil {
			r.Metadata = meta
		}
		if present(in.Settings) {
			base := RoleSettings{}
			if r.Settings != nil {
				base = *r.Settings
			}
			r.Settings = fieldErrors{}.settings(in.Settings, base)
		}
		for _, f := range in.Unset {
			switch f {
			case "settings":
				r.Settings = nil
			case "description":
				r.Description = ""
			case "metadata":
				r.Metadata = nil
			}
		}
		r.UpdatedAt = now
		out = r
		return tx.SaveRole(r)
	})
	if err != nil {
		return Role{}, s.groupErr("update role", err)
	}
	s.forgetPolicy(p.App.ID)
	return out, nil
}

// DeleteRole deletes a role other than default; its users get the default role.
func (s Roles) DeleteRole(ctx context.Context, p Principal, role string) (string, error) {
	id, ok := NormalizeID(role)
	if !ok {
		return "", errRoleNotFound("")
	}
	if id == DefaultRole {
		return "", Errorf(CodeRoleDeleteDenied, "The role default cannot be deleted: every app has it, and it is the role of users given none.")
	}
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		if _, err := tx.LockRole(p.App.ID, id); errors.Is(err, ErrNotFound) {
			return errRoleNotFound(id)
		} else if err != nil {
			return err
		}
		cs.Add(settingsChange(p.App.ID, SettingRoles))
		return tx.DeleteRole(p.App.ID, id, DefaultRole)
	})
	if err != nil {
		return "", s.groupErr("delete role", err)
	}
	s.forgetPolicy(p.App.ID)
	return id, nil
}

// userRoleErr maps the store's answer to a user given a role.
func userRoleErr(role string, err error) error {
	if errors.Is(err, ErrRoleNotFound) {
		return errRoleNotFound(role)
	}
	return nil
}
