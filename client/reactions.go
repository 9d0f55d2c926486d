package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Reaction is one user's reaction to a message.
type Reaction struct {
	ID        string `json:"id"`
	MessageID string `json:"messageId"`
	Reaction  string `json:"reaction"`
	UID       string `json:"uid"`
	ReactedAt int64  `json:"reactedAt"`
	ReactedBy User   `json:"reactedBy"`
}

// ListReactionsParams select reactions. A non-empty Reaction lists only that reaction;
// Affix and ID come from a previous page's Next.
type ListReactionsParams struct {
	Reaction string
	Limit    int
	Affix    string
	ID       string
}

// ReactionList is one page of reactions. Next is where the following page starts; the
// server sends it on every page, the last one too, so More tells whether to ask for it.
type ReactionList struct {
	Reactions []Reaction
	Limit     int
	Count     int
	Next      *ReactionCursor
}

// More reports whether a following page may hold reactions: this one is full. A full last
// page costs one more request, which answers empty.
func (l *ReactionList) More() bool { return l.Next != nil && l.Count > 0 && l.Count >= l.Limit }

// ReactionCursor is where the next page starts.
type ReactionCursor struct {
	Affix string `json:"affix"`
	ID    string `json:"id"`
}

// AddReaction adds reaction to the message msgID.
func (c *Client) AddReaction(ctx context.Context, msgID, reaction string) (*Message, error) {
	return c.message(ctx, http.MethodPost, reactionPath(msgID, reaction), nil)
}

// RemoveReaction removes reaction from the message msgID.
func (c *Client) RemoveReaction(ctx context.Context, msgID, reaction string) (*Message, error) {
	return c.message(ctx, http.MethodDelete, reactionPath(msgID, reaction), nil)
}

// ListReactions returns one page of the reactions to the message msgID.
func (c *Client) ListReactions(ctx context.Context, msgID string, p ListReactionsParams) (*ReactionList, error) {
	path := "/messages/" + seg(msgID) + "/reactions"
	if p.Reaction != "" {
		path = reactionPath(msgID, p.Reaction)
	}
	q := url.Values{}
	setInt(q, "limit", p.Limit)
	setStr(q, "affix", p.Affix)
	setStr(q, "id", p.ID)
	var out ReactionList
	env, err := c.call(ctx, http.MethodGet, path, q, nil, &out.Reactions)
	if err != nil {
		return nil, err
	}
	var meta struct {
		Current struct {
			Limit int `json:"limit"`
			Count int `json:"count"`
		} `json:"current"`
		Next *ReactionCursor `json:"next"`
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &meta); err != nil {
			return nil, fmt.Errorf("natter: decode reaction cursor: %w", err)
		}
	}
	out.Limit, out.Count, out.Next = meta.Current.Limit, meta.Current.Count, meta.Next
	return &out, nil
}

// reactionPath puts the reaction in one escaped segment, so a reaction holding "/", "%" or
// "?" reaches the server intact.
func reactionPath(msgID, reaction string) string {
	return "/messages/" + seg(msgID) + "/reactions/" + seg(reaction)
}
