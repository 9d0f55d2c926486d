package client

import (
	"context"
	"net/http"
)

// SendBotMessage sends a message from the bot uid: POST /bots/{uid}/messages, with the body
// and the answer of SendMessage. natter's bots are users of the app, and any active user may
// be named; it needs a fullAccess key, and the acting user (Client.OnBehalfOf) plays no part.
func (c *Client) SendBotMessage(ctx context.Context, uid string, r SendMessageRequest) (*Message, error) {
	return c.message(ctx, http.MethodPost, "/bots/"+seg(uid)+"/messages", r)
}

// SendBotMessageToMany sends from the bot uid as SendMessageToMany sends on a user's behalf.
func (c *Client) SendBotMessageToMany(ctx context.Context, uid string, r SendMessageRequest, to Receivers) (*SendResults, error) {
	return c.sendToMany(ctx, "/bots/"+seg(uid)+"/messages", r, to)
}
