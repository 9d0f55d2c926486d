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
