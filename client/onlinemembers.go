package client

import (
	"context"
	"net/http"
)

// OnlineCounts are how many of the app's users are online, and of each group asked about
// that the caller may see, how many members.
type OnlineCounts struct {
	OnlineUsersCount int64            `json:"onlineUsersCount"`
	Groups           map[string]int64 `json:"groups"`
}

// OnlineMembers counts the app's online users and the online members of groups (POST
// /online-members), as the SDK's getOnlineUserCount and getOnlineGroupMemberCount do. A
// group the caller may not list the members of is absent from Groups.
func (c *Client) OnlineMembers(ctx context.Context, groups ...string) (*OnlineCounts, error) {
	body := map[string]any{}
	if len(groups) > 0 {
		body["groups"] = groups
	}
	var out OnlineCounts
	if _, err := c.call(ctx, http.MethodPost, "/online-members", nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
