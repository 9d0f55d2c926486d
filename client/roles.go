package client

import (
	"context"
	"net/http"
	"net/url"
)

// Role settings values.
const (
	SettingAll         = "all"
	SettingFriendsOnly = "friendsOnly"
)

// Role is a role of the app.
type Role struct {
	Role        string         `json:"role"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Settings    *RoleSettings  `json:"settings,omitempty"`
	CreatedAt   int64          `json:"createdAt"`
	UpdatedAt   int64          `json:"updatedAt,omitempty"`
}

// RoleSettings are which users a role's users may list (ListUsers) and message one to one
// (SendMessagesTo): SettingAll or SettingFriendsOnly. An empty value is not sent.
type RoleSettings struct {
	ListUsers      string `json:"listUsers,omitempty"`
	SendMessagesTo string `json:"sendMessagesTo,omitempty"`
}

// CreateRoleRequest is the body of POST /roles.
type CreateRoleRequest struct {
	Role        string         `json:"role"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Settings    *RoleSettings  `json:"settings,omitempty"`
}

// UpdateRoleRequest is the body of PUT /roles/{role}; nil fields are not sent, and Unset
// names the fields to clear (settings, description, metadata).
type UpdateRoleRequest struct {
	Name        *string        `json:"name,omitempty"`
	Description *string        `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Settings    *RoleSettings  `json:"settings,omitempty"`
	Unset       []string       `json:"unset,omitempty"`
}

// RoleList is one page of roles.
type RoleList struct {
	Roles      []Role
	Pagination Pagination
}

func rolePath(role string) string { return "/roles/" + seg(role) }

// CreateRole creates a role.
func (c *Client) CreateRole(ctx context.Context, req CreateRoleRequest) (*Role, error) {
	var r Role
	if _, err := c.call(ctx, http.MethodPost, "/roles", nil, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListRoles returns one page of the app's roles, newest first; zero values are not sent.
func (c *Client) ListRoles(ctx context.Context, perPage, page int) (*RoleList, error) {
	q := url.Values{}
	setInt(q, "perPage", perPage)
	setInt(q, "page", page)
	var out RoleList
	env, err := c.call(ctx, http.MethodGet, "/roles", q, nil, &out.Roles)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetRole returns a role.
func (c *Client) GetRole(ctx context.Context, role string) (*Role, error) {
	var r Role
	if _, err := c.call(ctx, http.MethodGet, rolePath(role), nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateRole changes a role.
func (c *Client) UpdateRole(ctx context.Context, role string, req UpdateRoleRequest) (*Role, error) {
	var r Role
	if _, err := c.call(ctx, http.MethodPut, rolePath(role), nil, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// DeleteRole deletes a role; its users get the default role.
func (c *Client) DeleteRole(ctx context.Context, role string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, rolePath(role), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}
