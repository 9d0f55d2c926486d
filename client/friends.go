package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// FriendResult is one uid's outcome of AddFriends: Success, or the Code that refused it
// (ERR_CANNOT_FORM_SELF_RELATION, ERR_UID_NOT_FOUND, ERR_ALREADY_FRIEND, ERR_FAILED_TO_ADD_FRIEND).
type FriendResult struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// ListFriendsParams are the query parameters of GET /users/{uid}/friends; zero values are
// not sent.
type ListFriendsParams struct {
	SearchKey string
	SearchIn  []string
	WithTags  bool
	PerPage   int
	Page      int
}

func friendsPath(uid string) string { return "/users/" + seg(uid) + "/friends" }

// AddFriends makes each of uids a friend of uid and returns the outcome per uid.
func (c *Client) AddFriends(ctx context.Context, uid string, uids []string) (map[string]FriendResult, error) {
	var out struct {
		Accepted map[string]FriendResult `json:"accepted"`
	}
	if _, err := c.call(ctx, http.MethodPost, friendsPath(uid), nil, map[string][]string{"accepted": uids}, &out); err != nil {
		return nil, err
	}
	return out.Accepted, nil
}

// ListFriends returns one page of the user's friends.
func (c *Client) ListFriends(ctx context.Context, uid string, p ListFriendsParams) (*UserList, error) {
	q := ListUsersParams{SearchKey: p.SearchKey, SearchIn: p.SearchIn, WithTags: p.WithTags, PerPage: p.PerPage, Page: p.Page}.query()
	var out UserList
	env, err := c.call(ctx, http.MethodGet, friendsPath(uid), q, nil, &out.Users)
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

// RemoveFriends ends uid's friendship with each of uids: all of them, or none when one is
// not a friend.
func (c *Client) RemoveFriends(ctx context.Context, uid string, uids []string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, friendsPath(uid), nil, map[string][]string{"friends": uids}, &a); err != nil {
		return nil, err
	}
	return &a, nil
}
