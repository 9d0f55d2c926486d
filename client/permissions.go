package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// Permission is one permission as a role or group scope has it: its definition, and Value,
// the value the role or scope has (a string, or a []string).
type Permission struct {
	ID              string   `json:"id"`
	Type            string   `json:"type"` // "role" or "scope"
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	DataType        string   `json:"dataType"` // "string" or "stringArray"
	AvailableValues []string `json:"availableValues"`
	DefaultValue    any      `json:"defaultValue"`
	Value           any      `json:"value"`
	CreatedAt       int64    `json:"createdAt"`
	UpdatedAt       int64    `json:"updatedAt"`
}

// PermissionList is one page of permissions.
type PermissionList struct {
	Permissions []Permission
	Pagination  Pagination
}

// PermissionsSet is the answer to setting permissions: each key set, and every permission's
// value as the role or scope now has it.
type PermissionsSet struct {
	Set         map[string]Ack
	Permissions map[string]any
}

// ScopePermissions names a group scope whose permissions are read or set.
type ScopePermissions struct {
	GUID  string
	Scope string // admin, moderator or participant
}

func rolePermissionsPath(role string) string { return rolePath(role) + "/permissions" }

func (s ScopePermissions) path() string {
	return "/groups/" + seg(s.GUID) + "/scopes/" + seg(s.Scope) + "/permissions"
}

// ListRolePermissions returns one page of a role's permissions; zero values are not sent.
func (c *Client) ListRolePermissions(ctx context.Context, role string, perPage, page int) (*PermissionList, error) {
	return c.listPermissions(ctx, rolePermissionsPath(role), perPage, page)
}

// ListScopePermissions returns one page of a group scope's permissions.
func (c *Client) ListScopePermissions(ctx context.Context, s ScopePermissions, perPage, page int) (*PermissionList, error) {
	return c.listPermissions(ctx, s.path(), perPage, page)
}

func (c *Client) listPermissions(ctx context.Context, path string, perPage, page int) (*PermissionList, error) {
	q := url.Values{}
	setInt(q, "perPage", perPage)
	setInt(q, "page", page)
	var out PermissionList
	env, err := c.call(ctx, http.MethodGet, path, q, nil, &out.Permissions)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetRolePermissions sets permissions of a role: key → a string, or a []string.
func (c *Client) SetRolePermissions(ctx context.Context, role string, permissions map[string]any) (*PermissionsSet, error) {
	return c.setPermissions(ctx, rolePermissionsPath(role), permissions)
}

// SetScopePermissions sets permissions of a group scope.
func (c *Client) SetScopePermissions(ctx context.Context, s ScopePermissions, permissions map[string]any) (*PermissionsSet, error) {
	return c.setPermissions(ctx, s.path(), permissions)
}

func (c *Client) setPermissions(ctx context.Context, path string, permissions map[string]any) (*PermissionsSet, error) {
	var raw map[string]json.RawMessage
	if _, err := c.call(ctx, http.MethodPut, path, nil, map[string]any{"permissions": permissions}, &raw); err != nil {
		return nil, err
	}
	out := &PermissionsSet{Set: map[string]Ack{}}
	for k, v := range raw {
		if k == "permissions" {
			if err := json.Unmarshal(v, &out.Permissions); err != nil {
				return nil, err
			}
			continue
		}
		var a Ack
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, err
		}
		out.Set[k] = a
	}
	return out, nil
}

// UnsetRolePermission returns a role's permission to its default, and answers every
// permission's value as the role now has it.
func (c *Client) UnsetRolePermission(ctx context.Context, role, key string) (map[string]any, error) {
	return c.unsetPermission(ctx, rolePermissionsPath(role)+"/"+seg(key))
}

// UnsetScopePermission returns a group scope's permission to its default.
func (c *Client) UnsetScopePermission(ctx context.Context, s ScopePermissions, key string) (map[string]any, error) {
	return c.unsetPermission(ctx, s.path()+"/"+seg(key))
}

func (c *Client) unsetPermission(ctx context.Context, path string) (map[string]any, error) {
	var out struct {
		Permissions map[string]any `json:"permissions"`
	}
	if _, err := c.call(ctx, http.MethodDelete, path, nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Permissions, nil
}

// RestrictedFeature is a feature restricted for a role.
type RestrictedFeature struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Key         string `json:"key"`
	Path        string `json:"path"`
	CreatedAt   int64  `json:"createdAt"`
}

// RestrictedFeatureList is one page of a role's restricted features.
type RestrictedFeatureList struct {
	Features   []RestrictedFeature
	Pagination Pagination
}

func featuresPath(role string) string { return rolePath(role) + "/restrictedfeatures" }

// RestrictFeatures restricts features for a role ("u.listUsers", or "listUsers") and answers
// per feature key.
func (c *Client) RestrictFeatures(ctx context.Context, role string, features []string) (map[string]Ack, error) {
	var out map[string]Ack
	if _, err := c.call(ctx, http.MethodPost, featuresPath(role), nil, map[string][]string{"featuresToRestrict": features}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListRestrictedFeatures returns one page of a role's restricted features; zero values are
// not sent.
func (c *Client) ListRestrictedFeatures(ctx context.Context, role string, perPage, page int) (*RestrictedFeatureList, error) {
	q := url.Values{}
	setInt(q, "perPage", perPage)
	setInt(q, "page", page)
	var out RestrictedFeatureList
	env, err := c.call(ctx, http.MethodGet, featuresPath(role), q, nil, &out.Features)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllowFeatures lifts the restriction of features for a role, or of all of them with all.
func (c *Client) AllowFeatures(ctx context.Context, role string, features []string, all bool) (*Ack, error) {
	body := map[string]any{}
	if len(features) > 0 {
		body["featuresToAllow"] = features
	}
	if all {
		body["allowAll"] = true
	}
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, featuresPath(role), nil, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}
