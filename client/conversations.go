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

// Conversation marks: what MarkUserConversation and MarkGroupConversation move.
const (
	MarkRead      = "read"      // the read marker forward to a message (the delivered one with it)
	MarkDelivered = "delivered" // the delivered marker forward to a message
	MarkUnread    = "unread"    // the read marker back to a message: the messages after it are unread
)

// Conversation is the conversation shape of the API: a one-to-one or group conversation as
// the acting user (see Client.OnBehalfOf) sees it. The optional fields are zero when the
// server leaves them out.
type Conversation struct {
	ConversationID   string `json:"conversationId"`
	ConversationType string `json:"conversationType"` // ReceiverUser or ReceiverGroup
	// UnreadMessageCount is how many of the others' messages the acting user has not read;
	// the server sends it as a string of digits. It is 0 in the app's list.
	UnreadMessageCount int64 `json:"unreadMessageCount,string"`
	// UnreadMentionsCount is how many of those unread messages mention the acting user.
	UnreadMentionsCount int64 `json:"unreadMentionsCount"`
	// LastReadMessageID is the acting user's read marker, once it has one.
	LastReadMessageID string `json:"lastReadMessageId,omitempty"`
	CreatedAt         int64  `json:"createdAt"`
	UpdatedAt         int64  `json:"updatedAt"` // when LastMessage was sent
	// LastMessage is the conversation's newest message (in a group, or its newest
	// membership action).
	LastMessage *Message `json:"lastMessage,omitempty"`
	// With is conversationWith of a one-to-one conversation, the other user; Group is that of
	// a group conversation, with the acting user's membership. The other is nil, and both
	// are when the server leaves conversationWith out (a deactivated or deleted user).
	With  *User  `json:"-"`
	Group *Group `json:"-"`
	// Tags are the acting user's tags of the conversation (UpdateUserConversation,
	// UpdateGroupConversation).
	Tags []string `json:"tags,omitempty"`
	// PinnedAt and PinnedBy are set while the conversation is pinned: by the app for every
	// user (PinnedBy "app_system"), else by the acting user.
	PinnedAt int64  `json:"pinnedAt,omitempty"`
	PinnedBy string `json:"pinnedBy,omitempty"`
}

// UnmarshalJSON decodes conversationWith as a user or a group by the conversation's type,
// and takes the unread count as a string of digits or as a number.
func (c *Conversation) UnmarshalJSON(b []byte) error {
	type plain Conversation // without the method, to avoid recursion
	var raw struct {
		plain
		// These shadow plain's fields of the same keys.
		UnreadMessageCount json.Number     `json:"unreadMessageCount"`
		ConversationWith   json.RawMessage `json:"conversationWith"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := Conversation(raw.plain)
	if raw.UnreadMessageCount != "" {
		n, err := strconv.ParseInt(string(raw.UnreadMessageCount), 10, 64)
		if err != nil {
			return fmt.Errorf("natter: conversation unreadMessageCount %q: %w", raw.UnreadMessageCount, err)
		}
		out.UnreadMessageCount = n
	}
	if len(raw.ConversationWith) > 0 && string(raw.ConversationWith) != "null" {
		var err error
		if out.ConversationType == ReceiverGroup {
			out.Group = new(Group)
			err = json.Unmarshal(raw.ConversationWith, out.Group)
		} else {
			out.With = new(User)
			err = json.Unmarshal(raw.ConversationWith, out.With)
		}
		if err != nil {
			return err
		}
	}
	*c = out
	return nil
}

// ListConversationsParams are the query parameters of GET /conversations; zero values are
// not sent.
type ListConversationsParams struct {
	// ConversationType keeps the one-to-one (ReceiverUser) or the group (ReceiverGroup)
	// conversations only.
	ConversationType string
	// SearchKey keeps the conversations whose other user's or group's name starts with it,
	// case-insensitively.
	SearchKey string
	// Tags keeps the conversations the acting user has tagged with any of them.
	Tags []string
	// UserTags keeps the one-to-one conversations whose other user has any of them;
	// GroupTags the group conversations whose group has any.
	UserTags  []string
	GroupTags []string
	// WithTags and WithUserAndGroupTags are the hosted service's; natter takes them and
	// sends a conversation's tags whenever the acting user has set some.
	WithTags             bool
	WithUserAndGroupTags bool
	// Unread keeps the conversations with unread messages; acting as a user is required.
	Unread bool
	// PinnedBy keeps only pinned conversations: PinnedBySystem, PinnedByMe (acting as a
	// user is required), or both for either.
	PinnedBy []string
	PerPage  int
	Page     int
	// IncludeBlockedUsers lists the acting user's conversations with the users it blocked,
	// left out otherwise; WithBlockedInfo gives each one-to-one conversation's user its
	// blocks towards the acting user (User.BlockedByMe, HasBlockedMe and their times).
	IncludeBlockedUsers bool
	WithBlockedInfo     bool
	// HideAgentic leaves out, OnlyAgentic keeps only, the conversations with AI agents.
	HideAgentic bool
	OnlyAgentic bool
}

func (p ListConversationsParams) query() url.Values {
	q := url.Values{}
	setStr(q, "conversationType", p.ConversationType)
	setStr(q, "searchKey", p.SearchKey)
	setStr(q, "tags", strings.Join(p.Tags, ","))
	setStr(q, "userTags", strings.Join(p.UserTags, ","))
	setStr(q, "groupTags", strings.Join(p.GroupTags, ","))
	setBool(q, "withTags", p.WithTags)
	setBool(q, "withUserAndGroupTags", p.WithUserAndGroupTags)
	setBool(q, "unread", p.Unread)
	setStr(q, "pinnedBy", strings.Join(p.PinnedBy, ","))
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	setBool(q, "includeBlockedUsers", p.IncludeBlockedUsers)
	setBool(q, "withBlockedInfo", p.WithBlockedInfo)
	setBool(q, "hideAgentic", p.HideAgentic)
	setBool(q, "onlyAgentic", p.OnlyAgentic)
	return q
}

// ConversationList is one page of conversations, the most recently active first.
type ConversationList struct {
	Conversations []Conversation
	Pagination    Pagination
}

// ListConversations returns one page of the acting user's conversations (those of the groups
// it is a member of included), or without one the app's.
func (c *Client) ListConversations(ctx context.Context, p ListConversationsParams) (*ConversationList, error) {
	var out ConversationList
	env, err := c.call(ctx, http.MethodGet, "/conversations", p.query(), nil, &out.Conversations)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetUserConversation returns the acting user's conversation with the user uid; acting as a
// user is required.
func (c *Client) GetUserConversation(ctx context.Context, uid string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodGet, userConversationPath(uid), nil)
}

// GetGroupConversation returns the conversation of the group guid as the acting user, a
// member, sees it.
func (c *Client) GetGroupConversation(ctx context.Context, guid string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodGet, groupPath(guid)+"/conversation", nil)
}

// UpdateUserConversation sets the acting user's tags of its conversation with the user uid,
// replacing any; nil or empty tags clear them.
func (c *Client) UpdateUserConversation(ctx context.Context, uid string, tags []string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodPut, userConversationPath(uid), tagsBody(tags))
}

// UpdateGroupConversation sets the acting user's tags of the conversation of the group guid,
// replacing any; nil or empty tags clear them.
func (c *Client) UpdateGroupConversation(ctx context.Context, guid string, tags []string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodPut, groupPath(guid)+"/conversation", tagsBody(tags))
}

// ResetUserConversation hides the acting user's conversation with the user uid, up to now,
// from the acting user only; it comes back with its next message.
func (c *Client) ResetUserConversation(ctx context.Context, uid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, userConversationPath(uid), nil)
}

// ResetGroupConversation hides the history of the group guid, up to now, from the acting
// user only.
func (c *Client) ResetGroupConversation(ctx context.Context, guid string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, groupPath(guid)+"/conversation", nil)
}

// MarkUserConversation moves the acting user's marker of its conversation with the user uid:
// mark is MarkRead, MarkDelivered or MarkUnread. messageID is the message to mark up to;
// empty means the conversation's last message for MarkRead and MarkDelivered, and MarkUnread
// needs one (the server refuses it without).
func (c *Client) MarkUserConversation(ctx context.Context, uid, mark, messageID string) (*Ack, error) {
	return c.mark(ctx, "MarkUserConversation", userConversationPath(uid), mark, messageID)
}

// MarkGroupConversation is MarkUserConversation for the conversation of the group guid.
func (c *Client) MarkGroupConversation(ctx context.Context, guid, mark, messageID string) (*Ack, error) {
	return c.mark(ctx, "MarkGroupConversation", groupPath(guid)+"/conversation", mark, messageID)
}

// GetConversation returns the conversation conversationID ("<uid>_user_<uid>" or
// "group_<guid>") as the acting user, a party of it, sees it.
//
// Deprecated: the hosted service deprecates GET /conversations/{conversationId}; use
// GetUserConversation or GetGroupConversation.
func (c *Client) GetConversation(ctx context.Context, conversationID string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodGet, "/conversations/"+seg(conversationID), nil)
}

// DeleteConversation hides the conversation conversationID, up to now, from every party;
// the acting user must be one.
//
// Deprecated: the hosted service deprecates DELETE /conversations/{conversationId}; use
// ResetUserConversation or ResetGroupConversation, which reset it for the acting user only.
func (c *Client) DeleteConversation(ctx context.Context, conversationID string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, "/conversations/"+seg(conversationID), nil)
}

// mark makes a mark call on the conversation at path (…/conversation). The acknowledgement
// of a one-to-one read or delivered mark spells its key "Message", which Ack takes too.
func (c *Client) mark(ctx context.Context, name, path, mark, messageID string) (*Ack, error) {
	method := http.MethodPost
	switch mark {
	case MarkRead:
		path += "/read"
	case MarkDelivered:
		path += "/delivered"
	case MarkUnread:
		method, path = http.MethodDelete, path+"/read"
	default:
		return nil, fmt.Errorf("natter: %s: mark %q, want %q, %q or %q", name, mark, MarkRead, MarkDelivered, MarkUnread)
	}
	var body any
	if messageID != "" {
		// The hosted service takes the id as a JSON number.
		n, err := strconv.ParseInt(messageID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("natter: %s: message id %q is not an integer", name, messageID)
		}
		body = map[string]json.Number{"messageId": json.Number(strconv.FormatInt(n, 10))}
	}
	return c.ack(ctx, method, path, body)
}

// conversation makes a call whose data is a conversation.
func (c *Client) conversation(ctx context.Context, method, path string, body any) (*Conversation, error) {
	var conv Conversation
	if _, err := c.call(ctx, method, path, nil, body, &conv); err != nil {
		return nil, err
	}
	return &conv, nil
}

// tagsBody is the body of a conversation update: the server requires tags, so nil is sent
// as an empty list.
func tagsBody(tags []string) any {
	if tags == nil {
		tags = []string{}
	}
	return map[string][]string{"tags": tags}
}

func userConversationPath(uid string) string { return "/users/" + seg(uid) + "/conversation" }
