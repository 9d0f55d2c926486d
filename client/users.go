package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// User is the user shape of the API. Its Metadata holds "@private" only when the caller is
// the user itself or the app's fullAccess key acting as no one (docs/security.md).
type User struct {
	UID           string         `json:"uid"`
	Name          string         `json:"name"`
	Link          string         `json:"link,omitempty"`
	Avatar        string         `json:"avatar,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	Status        string         `json:"status"`
	StatusMessage string         `json:"statusMessage,omitempty"`
	Role          string         `json:"role"`
	CreatedAt     int64          `json:"createdAt"`
	UpdatedAt     int64          `json:"updatedAt,omitempty"`
	LastActiveAt  int64          `json:"lastActiveAt,omitempty"`
	DeactivatedAt int64          `json:"deactivatedAt,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	// ConversationID is set in lists made on a user's behalf.
	ConversationID string `json:"conversationId,omitempty"`
	// AuthToken is the user's first auth token, on create with WithAuthToken.
	AuthToken string `json:"authToken,omitempty"`
	// The blocks between this user and the acting user, as the acting user sees them: sent
	// when the user is read or listed on a user's behalf (Client.OnBehalfOf, or an auth
	// token), and in ListBlockedUsers as its uid sees them; false and zero otherwise.
	// BlockedByMe: the acting user has blocked this user, at BlockedByMeAt. HasBlockedMe:
	// this user has blocked the acting user, at BlockedAt.
	BlockedByMe   bool  `json:"blockedByMe,omitempty"`
	BlockedByMeAt int64 `json:"blockedByMeAt,omitempty"`
	HasBlockedMe  bool  `json:"hasBlockedMe,omitempty"`
	BlockedAt     int64 `json:"blockedAt,omitempty"`
}

// CreateUserRequest is the body of POST /users. UID and Name are required, so they are
// always sent and an empty one is the server's to reject.
type CreateUserRequest struct {
	UID           string         `json:"uid"`
	Name          string         `json:"name"`
	Avatar        string         `json:"avatar,omitempty"`
	Link          string         `json:"link,omitempty"`
	Role          string         `json:"role,omitempty"`
	StatusMessage string         `json:"statusMessage,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	// WithAuthToken asks for the user's first auth token in the answer (User.AuthToken).
	WithAuthToken bool `json:"withAuthToken,omitempty"`
}

// UpdateUserRequest is the body of PUT /users/{uid}; nil fields are left unchanged. Tags
// points at the full new list, so a pointer to an empty slice clears them. Unset names the
// fields to clear.
type UpdateUserRequest struct {
	Name          *string        `json:"name,omitempty"`
	Avatar        *string        `json:"avatar,omitempty"`
	Link          *string        `json:"link,omitempty"`
	Role          *string        `json:"role,omitempty"`
	StatusMessage *string        `json:"statusMessage,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	Tags          *[]string      `json:"tags,omitempty"`
	Unset         []string       `json:"unset,omitempty"`
}

// ListUsersParams are the query parameters of GET /users; zero values are not sent.
type ListUsersParams struct {
	SearchKey string
	SearchIn  []string
	// Status is a presence (available, offline), or several comma-separated.
	Status string
	// CreatedAt and UpdatedAtRange keep the users created, or last updated, in the range; a
	// user never updated is in no UpdatedAtRange.
	CreatedAt       TimeRange
	UpdatedAtRange  TimeRange
	Roles           []string
	Tags            []string
	WithTags        bool
	OnlyDeactivated bool
	WithDeactivated bool
	PerPage         int
	Page            int
	// UpdatedAt and Affix page by change time, from a previous list's Cursor; UpdatedAt
	// is sent when Affix is set or it is not zero.
	UpdatedAt int64
	Affix     string
}

func (p ListUsersParams) query() url.Values {
	q := url.Values{}
	setStr(q, "searchKey", p.SearchKey)
	setStr(q, "searchIn", strings.Join(p.SearchIn, ","))
	setStr(q, "status", p.Status)
	setStr(q, "roles", strings.Join(p.Roles, ","))
	setStr(q, "tags", strings.Join(p.Tags, ","))
	setBool(q, "withTags", p.WithTags)
	setBool(q, "onlyDeactivated", p.OnlyDeactivated)
	setBool(q, "withDeactivated", p.WithDeactivated)
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	if p.UpdatedAt != 0 || p.Affix != "" {
		q.Set("updatedAt", strconv.FormatInt(p.UpdatedAt, 10))
	}
	setStr(q, "affix", p.Affix)
	p.CreatedAt.set(q, "createdAt")
	p.UpdatedAtRange.set(q, "updatedAt")
	return q
}

// UserList is one page of users.
type UserList struct {
	Users      []User
	Pagination Pagination
	Cursor     UserCursor
}

// UserCursor is where to ask for the users that change next (ListUsersParams.UpdatedAt
// and Affix).
type UserCursor struct {
	UpdatedAt int64  `json:"updatedAt"`
	Affix     string `json:"affix"`
}

// CreateUser creates a user.
func (c *Client) CreateUser(ctx context.Context, r CreateUserRequest) (*User, error) {
	var u User
	if _, err := c.call(ctx, http.MethodPost, "/users", nil, r, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// GetUser returns the user uid; acting as a user (Client.OnBehalfOf), with the blocks
// between the two.
func (c *Client) GetUser(ctx context.Context, uid string) (*User, error) {
	var u User
	if _, err := c.call(ctx, http.MethodGet, "/users/"+seg(uid), nil, nil, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// UpdateUser changes the fields of the user uid that r sets.
func (c *Client) UpdateUser(ctx context.Context, uid string, r UpdateUserRequest) (*User, error) {
	var u User
	if _, err := c.call(ctx, http.MethodPut, "/users/"+seg(uid), nil, r, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// DeleteUser deletes the user uid; permanent deletes it for good rather than marking it
// deleted.
func (c *Client) DeleteUser(ctx context.Context, uid string, permanent bool) (*Ack, error) {
	var body any
	if permanent {
		body = map[string]bool{"permanent": true}
	}
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, "/users/"+seg(uid), nil, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// ListUsers returns one page of users; acting as a user (Client.OnBehalfOf), each with its
// conversation with that user and the blocks between the two.
func (c *Client) ListUsers(ctx context.Context, p ListUsersParams) (*UserList, error) {
	return c.userList(ctx, "/users", p.query())
}

// userList makes a call whose answer is a page of users, with the pagination and the
// cursor under meta.
func (c *Client) userList(ctx context.Context, path string, q url.Values) (*UserList, error) {
	var out UserList
	env, err := c.call(ctx, http.MethodGet, path, q, nil, &out.Users)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	var meta struct {
		Cursor UserCursor `json:"cursor"`
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &meta); err != nil {
			return nil, fmt.Errorf("natter: decode user cursor: %w", err)
		}
	}
	out.Cursor = meta.Cursor
	return &out, nil
}

// DeactivateUsers deactivates the users uids and returns those it deactivated.
func (c *Client) DeactivateUsers(ctx context.Context, uids []string) ([]string, error) {
	var out struct {
		UIDs []string `json:"deactivatedUids"`
	}
	body := map[string][]string{"uidsToDeactivate": uids}
	if _, err := c.call(ctx, http.MethodDelete, "/users", nil, body, &out); err != nil {
		return nil, err
	}
	return out.UIDs, nil
}

// ReactivateUsers reactivates the users uids and returns those it reactivated.
func (c *Client) ReactivateUsers(ctx context.Context, uids []string) ([]string, error) {
	var out struct {
		UIDs []string `json:"nonDeactivatedUids"` // the hosted service's name for them
	}
	body := map[string][]string{"uidsToActivate": uids}
	if _, err := c.call(ctx, http.MethodPut, "/users", nil, body, &out); err != nil {
		return nil, err
	}
	return out.UIDs, nil
}

// pageOf reads meta.pagination of a page-based list.
func pageOf(env *envelope) (Pagination, error) {
	var meta struct {
		Pagination Pagination `json:"pagination"`
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &meta); err != nil {
			return Pagination{}, fmt.Errorf("natter: decode pagination: %w", err)
		}
	}
	return meta.Pagination, nil
}

// TimeRange is a list filter's range of UNIX seconds (the hosted service's name[from] and
// name[to]), both ends inclusive; a nil end is open. Between and Since make one.
type TimeRange struct{ From, To *int64 }

// Between is the range from from to to, inclusive.
func Between(from, to int64) TimeRange { return TimeRange{From: &from, To: &to} }

// Since is the range from from on.
func Since(from int64) TimeRange { return TimeRange{From: &from} }

func (r TimeRange) set(q url.Values, name string) {
	if r.From != nil {
		q.Set(name+"[from]", strconv.FormatInt(*r.From, 10))
	}
	if r.To != nil {
		q.Set(name+"[to]", strconv.FormatInt(*r.To, 10))
	}
}

func setStr(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func setInt(q url.Values, k string, v int) {
	if v != 0 {
		q.Set(k, strconv.Itoa(v))
	}
}

func setBool(q url.Values, k string, v bool) {
	if v {
		q.Set(k, "true")
	}
}
