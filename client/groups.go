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

// Group types.
const (
	GroupPublic   = "public"   // anyone may join
	GroupPassword = "password" // joining needs the group's password
	GroupPrivate  = "private"  // users join only by being added
)

// Group is the group shape of the API.
type Group struct {
	GUID        string         `json:"guid"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Icon        string         `json:"icon,omitempty"`
	Type        string         `json:"type"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Scope and JoinedAt are the acting user's membership (see Client.OnBehalfOf), set
	// when that user is a member; HasJoined says whether it is, and is false when no user
	// acts.
	Scope          string   `json:"scope,omitempty"`
	MembersCount   int64    `json:"membersCount"`
	JoinedAt       int64    `json:"joinedAt,omitempty"`
	ConversationID string   `json:"conversationId"`
	HasJoined      bool     `json:"hasJoined,omitempty"`
	CreatedAt      int64    `json:"createdAt"`
	Owner          string   `json:"owner,omitempty"` // empty when the app owns the group
	UpdatedAt      int64    `json:"updatedAt,omitempty"`
	UpdatedBy      string   `json:"updatedBy,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	// Members are each named uid's result, from CreateGroup when the request named
	// members; nil otherwise.
	Members *MemberResults `json:"members,omitempty"`
}

// CreateGroupRequest is the body of POST /groups. GUID, Name and Type are required, so they
// are always sent and an empty one is the server's to reject.
type CreateGroupRequest struct {
	GUID        string         `json:"guid"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Password    string         `json:"password,omitempty"`
	Icon        string         `json:"icon,omitempty"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Owner is the uid to make the owner; by default the acting user.
	Owner string   `json:"owner,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Members are users to add (and to ban) as the group is created; each gets its own
	// result in Group.Members.
	Members *MemberLists `json:"members,omitempty"`
}

// UpdateGroupRequest is the body of PUT /groups/{guid}; nil fields are left unchanged. Tags
// points at the full new list, so a pointer to an empty slice clears them. Unset names the
// fields to clear (icon, description, metadata). Owner transfers the group, and is ignored
// by the server when a user acts.
type UpdateGroupRequest struct {
	Name        *string        `json:"name,omitempty"`
	Type        *string        `json:"type,omitempty"`
	Password    *string        `json:"password,omitempty"`
	Icon        *string        `json:"icon,omitempty"`
	Description *string        `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Owner       *string        `json:"owner,omitempty"`
	Tags        *[]string      `json:"tags,omitempty"`
	Unset       []string       `json:"unset,omitempty"`
}

// ListGroupsParams are the query parameters of GET /groups; zero values are not sent.
type ListGroupsParams struct {
	SearchKey string
	SearchIn  []string // "guid", "name"
	SortBy    string   // "name", "guid", "createdAt"
	SortOrder string   // "asc", "desc"
	Types     []string
	Tags      []string
	WithTags  bool
	// HasJoined lists only the acting user's groups.
	HasJoined bool
	PerPage   int
	Page      int
	// UpdatedAt and Affix page by change time, from a previous list's Cursor; UpdatedAt
	// is sent when Affix is set or it is not zero.
	UpdatedAt int64
	Affix     string
	// GUID keeps only that group, GUIDs only those (both: a group named by both).
	GUID  string
	GUIDs []string
	// CreatedAt and UpdatedAtRange keep the groups created, or last updated, in the range;
	// a group never updated is in no UpdatedAtRange.
	CreatedAt      TimeRange
	UpdatedAtRange TimeRange
	// MembersCount compares each group's count of members; all the bounds set must hold.
	MembersCount CountFilter
}

// CountFilter compares a count with bounds (the hosted service's membersCount[gt], [gte],
// [lt], [lte] and [eq]); nil bounds are not sent. AtLeast, AtMost and Exactly make one.
type CountFilter struct{ GT, GTE, LT, LTE, EQ *int64 }

// AtLeast is a count of n or more; AtMost of n or fewer; Exactly of n.
func AtLeast(n int64) CountFilter { return CountFilter{GTE: &n} }
func AtMost(n int64) CountFilter  { return CountFilter{LTE: &n} }
func Exactly(n int64) CountFilter { return CountFilter{EQ: &n} }

func (c CountFilter) set(q url.Values, name string) {
	for _, b := range []struct {
		op string
		v  *int64
	}{{"gt", c.GT}, {"gte", c.GTE}, {"lt", c.LT}, {"lte", c.LTE}, {"eq", c.EQ}} {
		if b.v != nil {
			q.Set(name+"["+b.op+"]", strconv.FormatInt(*b.v, 10))
		}
	}
}

func (p ListGroupsParams) query() url.Values {
	q := url.Values{}
	setStr(q, "searchKey", p.SearchKey)
	setStr(q, "searchIn", strings.Join(p.SearchIn, ","))
	setStr(q, "sortBy", p.SortBy)
	setStr(q, "sortOrder", p.SortOrder)
	setStr(q, "types", strings.Join(p.Types, ","))
	setStr(q, "tags", strings.Join(p.Tags, ","))
	setBool(q, "withTags", p.WithTags)
	setBool(q, "hasJoined", p.HasJoined)
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	if p.UpdatedAt != 0 || p.Affix != "" {
		q.Set("updatedAt", strconv.FormatInt(p.UpdatedAt, 10))
	}
	setStr(q, "affix", p.Affix)
	setStr(q, "guid", p.GUID)
	setStr(q, "guids", strings.Join(p.GUIDs, ","))
	p.CreatedAt.set(q, "createdAt")
	p.UpdatedAtRange.set(q, "updatedAt")
	p.MembersCount.set(q, "membersCount")
	return q
}

// GroupList is one page of groups.
type GroupList struct {
	Groups     []Group
	Pagination Pagination
	Cursor     GroupCursor
}

// GroupCursor is where to ask for the groups that change next (ListGroupsParams.UpdatedAt
// and Affix).
type GroupCursor struct {
	UpdatedAt int64  `json:"updatedAt"`
	Affix     string `json:"affix"`
}

// GroupEntity is a group inside data.entities: a group message's receiver, or the group of
// a groupMember action.
type GroupEntity struct {
	Entity     EntityGroup `json:"entity"`
	EntityType string      `json:"entityType"`
}

// EntityGroup is the group shape inside data.entities; in an action message, the group as it
// was when the action happened.
type EntityGroup struct {
	GUID           string   `json:"guid"`
	Icon           string   `json:"icon,omitempty"`
	Name           string   `json:"name"`
	Tags           []string `json:"tags,omitempty"`
	Type           string   `json:"type"`
	Owner          string   `json:"owner,omitempty"`
	CreatedAt      int64    `json:"createdAt"`
	UpdatedAt      int64    `json:"updatedAt,omitempty"`
	UpdatedBy      string   `json:"updatedBy,omitempty"`
	Description    string   `json:"description,omitempty"`
	MembersCount   int64    `json:"membersCount"`
	ConversationID string   `json:"conversationId"`
}

// CreateGroup creates a group. When r names Members, the result of each is in the returned
// group's Members.
func (c *Client) CreateGroup(ctx context.Context, r CreateGroupRequest) (*Group, error) {
	return c.group(ctx, http.MethodPost, "/groups", r)
}

// GetGroup returns the group guid.
func (c *Client) GetGroup(ctx context.Context, guid string) (*Group, error) {
	return c.group(ctx, http.MethodGet, groupPath(guid), nil)
}

// UpdateGroup changes the fields of the group guid that r sets.
func (c *Client) UpdateGroup(ctx context.Context, guid string, r UpdateGroupRequest) (*Group, error) {
	return c.group(ctx, http.MethodPut, groupPath(guid), r)
}

// TransferGroup makes owner the owner of the group guid (PATCH /groups/{guid}/owner, the
// endpoint the client SDKs use). Acting as a user, only the owner may.
func (c *Client) TransferGroup(ctx context.Context, guid, owner string) (*Group, error) {
	return c.group(ctx, http.MethodPatch, groupPath(guid)+"/owner", map[string]string{"owner": owner})
}

// DeleteGroup deletes the group guid with its members, bans and messages.
func (c *Client) DeleteGroup(ctx context.Context, guid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, groupPath(guid), nil)
}

// ListGroups returns one page of groups.
func (c *Client) ListGroups(ctx context.Context, p ListGroupsParams) (*GroupList, error) {
	var out GroupList
	env, err := c.call(ctx, http.MethodGet, "/groups", p.query(), nil, &out.Groups)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	var meta struct {
		Cursor GroupCursor `json:"cursor"`
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &meta); err != nil {
			return nil, fmt.Errorf("natter: decode group cursor: %w", err)
		}
	}
	out.Cursor = meta.Cursor
	return &out, nil
}

// group makes a call whose data is a group.
func (c *Client) group(ctx context.Context, method, path string, body any) (*Group, error) {
	var g Group
	if _, err := c.call(ctx, method, path, nil, body, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// ack makes a call whose data is an acknowledgement.
func (c *Client) ack(ctx context.Context, method, path string, body any) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, method, path, nil, body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func groupPath(guid string) string { return "/groups/" + seg(guid) }
