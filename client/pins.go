package client

import (
	"context"
	"net/http"
)

func messagePath(msgID, what string) string { return "/messages/" + seg(msgID) + "/" + what }

// PinMessage pins the message msgID in its conversation, as the acting user or, without
// one, as the app; pinning a pinned message changes nothing.
func (c *Client) PinMessage(ctx context.Context, msgID string) (*Message, error) {
	return c.message(ctx, http.MethodPost, messagePath(msgID, "pin"), nil)
}

// UnpinMessage removes the message's pin; a message not pinned stays as it is.
func (c *Client) UnpinMessage(ctx context.Context, msgID string) (*Message, error) {
	return c.message(ctx, http.MethodDelete, messagePath(msgID, "pin"), nil)
}

// SaveMessage saves the message for the acting user (required); the answer carries
// SavedAt. Saving a saved message changes nothing.
func (c *Client) SaveMessage(ctx context.Context, msgID string) (*Message, error) {
	return c.message(ctx, http.MethodPost, messagePath(msgID, "save"), nil)
}

// UnsaveMessage unsaves the message for the acting user; one not saved stays as it is.
func (c *Client) UnsaveMessage(ctx context.Context, msgID string) (*Message, error) {
	return c.message(ctx, http.MethodDelete, messagePath(msgID, "save"), nil)
}

// Values of ListConversationsParams.PinnedBy.
const (
	PinnedBySystem = "system" // pinned by the app for every user
	PinnedByMe     = "me"     // pinned by the acting user
)

// PinConversation pins the acting user's conversation with a user (kind ReceiverUser, id a
// uid) or in a group (ReceiverGroup, a guid), for that user only.
func (c *Client) PinConversation(ctx context.Context, kind, id string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodPost, conversationPinPath(kind, id), nil)
}

// UnpinConversation removes the acting user's pin of that conversation.
func (c *Client) UnpinConversation(ctx context.Context, kind, id string) (*Conversation, error) {
	return c.conversation(ctx, http.MethodDelete, conversationPinPath(kind, id), nil)
}

func conversationPinPath(kind, id string) string {
	if kind == ReceiverGroup {
		return groupPath(id) + "/conversation/pin"
	}
	return userConversationPath(id) + "/pin"
}

// PinnedConversation is one of the app's pinned conversations: a user's one-to-one
// conversations with UID, or a group's (GUID). PinnedAt and ConversationType are the
// server's.
type PinnedConversation struct {
	UID              string `json:"uid,omitempty"`
	GUID             string `json:"guid,omitempty"`
	ConversationType string `json:"conversationType,omitempty"`
	PinnedAt         int64  `json:"pinnedAt,omitempty"`
}

type pinnedConversations struct {
	PinnedConversations []PinnedConversation `json:"pinnedConversations"`
}

// ListPinnedConversations returns the conversations the app pinned for every user, in
// display order.
func (c *Client) ListPinnedConversations(ctx context.Context) ([]PinnedConversation, error) {
	var out pinnedConversations
	if _, err := c.call(ctx, http.MethodGet, "/conversations/pinned", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.PinnedConversations, nil
}

// ReplacePinnedConversations makes pins (at most 5, each with UID or GUID) the app's pinned
// conversations, in order, and returns the list as stored.
func (c *Client) ReplacePinnedConversations(ctx context.Context, pins []PinnedConversation) ([]PinnedConversation, error) {
	body := pinnedConversations{PinnedConversations: make([]PinnedConversation, len(pins))}
	for i, p := range pins {
		body.PinnedConversations[i] = PinnedConversation{UID: p.UID, GUID: p.GUID}
	}
	var out pinnedConversations
	if _, err := c.call(ctx, http.MethodPut, "/conversations/pinned", nil, body, &out); err != nil {
		return nil, err
	}
	return out.PinnedConversations, nil
}
