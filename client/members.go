package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Member scopes, from most to least powerful.
const (
	ScopeAdmin       = "admin"
	ScopeModerator   = "moderator"
	ScopeParticipant = "participant"
)

// MemberLists are the uids an add (or a create) names: those to add, per scope, and those to
// ban; at most 25 in all. A nil list is not sent; an empty one is sent, and answered with no
// results.
type MemberLists struct {
	Admins       []string `json:"admins,omitzero"`
	Moderators   []string `json:"moderators,omitzero"`
	Participants []string `json:"participants,omitzero"`
	UsersToBan   []string `json:"usersToBan,omitzero"`
}

func (l MemberLists) empty() bool {
	return l.Admins == nil && l.Moderators == nil && l.Participants == nil && l.UsersToBan == nil
}

// MemberResults are an add's results: for each list sent, each uid it named (lower-cased;
// a malformed uid as sent) and what became of it.
type MemberResults struct {
	UsersToBan   map[string]MemberResult `json:"usersToBan,omitempty"`
	Admins       map[string]MemberResult `json:"admins,omitempty"`
	Moderators   map[string]MemberResult `json:"moderators,omitempty"`
	Participants map[string]MemberResult `json:"participants,omitempty"`
}

// MemberResult is what became of one uid of an add. On success Data is the groupMember
// action message that records the add (nil for a ban); see Message.GroupMemberAction. On
// refusal Error holds the refusal as the error envelope would (its Status is 0).
type MemberResult struct {
	Success bool     `json:"success"`
	Data    *Message `json:"data,omitempty"`
	Error   *Error   `json:"error,omitempty"`
}

// GroupMember is a member of a group: the user, with its scope and when it joined.
type GroupMember struct {
	User
	Scope    string `json:"scope"`
	JoinedAt int64  `json:"joinedAt"`
}

// MemberList is one page of a group's members.
type MemberList struct {
	Members    []GroupMember
	Pagination Pagination
}

// ListMembersParams are the query parameters of GET /groups/{guid}/members; zero values
// are not sent.
type ListMembersParams struct {
	Scopes  []string
	Status  string // "available", "offline"
	PerPage int
	Page    int
}

// ListBannedUsersParams are the query parameters of GET /groups/{guid}/bannedusers; zero
// values are not sent.
type ListBannedUsersParams struct {
	PerPage int
	Page    int
}

// BannedUserList is one page of the users banned from a group.
type BannedUserList struct {
	Users      []User
	Pagination Pagination
}

// ScopeChange is the answer of ChangeMemberScope: the member's new scope.
type ScopeChange struct {
	GUID     string `json:"guid"`
	UID      string `json:"uid"`
	Scope    string `json:"scope"`
	JoinedAt int64  `json:"joinedAt"`
}

// GroupMemberAction is the data of a groupMember action message: what happened (added,
// joined, left, kicked, banned, unbanned, scopeChanged), by whom, to whom, and in which
// group, as it was then.
type GroupMemberAction struct {
	Action string `json:"action"`
	// Extras holds a scopeChanged action's old and new scope.
	Extras *struct {
		Scope struct {
			New string `json:"new"`
			Old string `json:"old"`
		} `json:"scope"`
	} `json:"extras,omitempty"`
	Entities struct {
		By  Entity      `json:"by"`
		On  Entity      `json:"on"`
		For GroupEntity `json:"for"`
	} `json:"entities"`
}

// GroupMemberAction decodes the data of a groupMember action message (category action,
// type groupMember), such as the Data of a MemberResult.
func (m *Message) GroupMemberAction() (*GroupMemberAction, error) {
	if m.Category != "action" || m.Type != "groupMember" {
		return nil, fmt.Errorf("natter: message %s is a %s/%s message, not a groupMember action", m.ID, m.Category, m.Type)
	}
	var a GroupMemberAction
	if err := json.Unmarshal(m.Data.Raw, &a); err != nil {
		return nil, fmt.Errorf("natter: decode groupMember action %s: %w", m.ID, err)
	}
	return &a, nil
}

// errNoLists refuses an add that names no list, which the server would take for a join
// when the client acts on a user's behalf.
var errNoLists = errors.New("natter: AddMembers needs at least one list; JoinGroup joins a group")

// AddMembers adds users to the group guid and bans those in UsersToBan, each with its own
// result. Acting as a user, that user's scope decides what it may do. A MemberLists with
// no list set is refused without a request (see JoinGroup).
func (c *Client) AddMembers(ctx context.Context, guid string, l MemberLists) (*MemberResults, error) {
	if l.empty() {
		return nil, errNoLists
	}
	var out MemberResults
	if _, err := c.call(ctx, http.MethodPost, membersPath(guid), nil, l, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JoinGroup makes the acting user (see Client.OnBehalfOf) a participant of the group guid:
// a public group, or a password group with its password (leave it empty for the others).
// It is the client SDKs' join, which the server serves on POST /groups/{guid}/members, and
// it returns the groupMember action message (joined) that records the join; its
// GroupMemberAction's Entities.For is the group as the join left it.
func (c *Client) JoinGroup(ctx context.Context, guid, password string) (*Message, error) {
	var body any
	if password != "" {
		body = map[string]string{"password": password}
	}
	return c.message(ctx, http.MethodPost, membersPath(guid), body)
}

// PutMembers is AddMembers as the client SDKs send it (addMembersToGroup: PUT
// /groups/{guid}/members): the same add, answered with all four lists, sent or not.
func (c *Client) PutMembers(ctx context.Context, guid string, l MemberLists) (*MemberResults, error) {
	if l.empty() {
		return nil, errNoLists
	}
	var out MemberResults
	if _, err := c.call(ctx, http.MethodPut, membersPath(guid), nil, l, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// LeaveGroup ends the acting user's membership of the group guid (see Client.OnBehalfOf).
func (c *Client) LeaveGroup(ctx context.Context, guid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, membersPath(guid), nil)
}

// ListMembers returns one page of the members of the group guid, in the order they joined.
func (c *Client) ListMembers(ctx context.Context, guid string, p ListMembersParams) (*MemberList, error) {
	q := url.Values{}
	setStr(q, "scopes", strings.Join(p.Scopes, ","))
	setStr(q, "status", p.Status)
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	var out MemberList
	env, err := c.call(ctx, http.MethodGet, membersPath(guid), q, nil, &out.Members)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// ChangeMemberScope gives the member uid of the group guid the scope scope (admin,
// moderator or participant; the server takes an empty one for participant).
func (c *Client) ChangeMemberScope(ctx context.Context, guid, uid, scope string) (*ScopeChange, error) {
	var out ScopeChange
	body := map[string]string{"scope": scope}
	if _, err := c.call(ctx, http.MethodPut, membersPath(guid)+"/"+seg(uid), nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// KickMember removes the member uid from the group guid.
func (c *Client) KickMember(ctx context.Context, guid, uid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, membersPath(guid)+"/"+seg(uid), nil)
}

// BanUser bans the user uid from the group guid; a member loses its membership.
func (c *Client) BanUser(ctx context.Context, guid, uid string) (*Ack, error) {
	return c.ack(ctx, http.MethodPost, bannedPath(guid)+"/"+seg(uid), nil)
}

// UnbanUser lifts the ban of the user uid from the group guid.
func (c *Client) UnbanUser(ctx context.Context, guid, uid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, bannedPath(guid)+"/"+seg(uid), nil)
}

// ListBannedUsers returns one page of the users banned from the group guid, most recently
// banned first.
func (c *Client) ListBannedUsers(ctx context.Context, guid string, p ListBannedUsersParams) (*BannedUserList, error) {
	q := url.Values{}
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	var out BannedUserList
	env, err := c.call(ctx, http.MethodGet, bannedPath(guid), q, nil, &out.Users)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

func membersPath(guid string) string { return groupPath(guid) + "/members" }

func bannedPath(guid string) string { return groupPath(guid) + "/bannedusers" }
