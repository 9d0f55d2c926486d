package client

import (
	"context"
	"net/http"
)

// Directions of ListBlockedUsers.
const (
	BlockedByMe  = "blockedByMe"  // the users uid has blocked (the server's default)
	HasBlockedMe = "hasBlockedMe" // the users who have blocked uid
	BlockedBoth  = "both"         // either
)

// BlockResult is one uid's outcome of BlockUsers or UnblockUsers: Success, or the Code that
// refused it (ERR_CANNOT_BLOCK_SELF, or ERR_UID_NOT_FOUND when blocking).
type BlockResult struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// ListBlockedUsersParams are the query parameters of GET /users/{uid}/blockedusers; zero
// values are not sent.
type ListBlockedUsersParams struct {
	// Direction is BlockedByMe, HasBlockedMe or BlockedBoth.
	Direction string
	SearchKey string
	SearchIn  []string
	WithTags  bool
	PerPage   int
	Page      int
}

// blocksPath is uid's blocked-users path; with uid empty, the acting user's (/blockedusers,
// as the client SDK calls it: the client's OnBehalfOf user or its auth token's).
func blocksPath(uid string) string {
	if uid == "" {
		return "/blockedusers"
	}
	return "/users/" + seg(uid) + "/blockedusers"
}

// BlockUsers makes uid block each of uids and returns the outcome per uid, keyed by the
// lower-cased uid. A user already blocked is reported done. With uid empty it is the
// acting user who blocks (OnBehalfOf, or an auth token's user).
func (c *Client) BlockUsers(ctx context.Context, uid string, uids []string) (map[string]BlockResult, error) {
	return c.changeBlocks(ctx, http.MethodPost, uid, uids)
}

// UnblockUsers lifts uid's blocks of each of uids and returns the outcome per uid, keyed by
// the lower-cased uid. A user not blocked is reported done.
func (c *Client) UnblockUsers(ctx context.Context, uid string, uids []string) (map[string]BlockResult, error) {
	return c.changeBlocks(ctx, http.MethodDelete, uid, uids)
}

func (c *Client) changeBlocks(ctx context.Context, method, uid string, uids []string) (map[string]BlockResult, error) {
	var out map[string]BlockResult
	if _, err := c.call(ctx, method, blocksPath(uid), nil, map[string][]string{"blockedUids": uids}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListBlockedUsers returns one page of the users uid has blocked, or who have blocked it
// (p.Direction), each with the block fields as uid sees them.
func (c *Client) ListBlockedUsers(ctx context.Context, uid string, p ListBlockedUsersParams) (*UserList, error) {
	q := ListUsersParams{SearchKey: p.SearchKey, SearchIn: p.SearchIn, WithTags: p.WithTags, PerPage: p.PerPage, Page: p.Page}.query()
	setStr(q, "direction", p.Direction)
	return c.userList(ctx, blocksPath(uid), q)
}
