package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Thread is one entry of ListThreads: the thread's parent message (UpdatedAt the thread's,
// the list's cursor) with the thread's own fields.
type Thread struct {
	Message
	ParentMessageID    string   `json:"parentMessageId"`
	LastReply          *Message `json:"lastReply,omitempty"`
	ThreadSubscribed   bool     `json:"threadSubscribed"`
	UnreadReplyCount   int64    `json:"unreadReplyCount"`
	UnreadMentionCount int64    `json:"unreadMentionsCount"`
}

// ThreadListParams are ListThreads' paging: Affix "prepend" (older, the default) or
// "append" (newer), from the cursor UpdatedAt and ID (meta.next's), Limit 1–1000; and its
// scope: UID (the acting user's conversation with that user) or GUID (a group's), or
// neither for all the user's threads.
type ThreadListParams struct {
	UID, GUID string
	Affix     string
	UpdatedAt int64
	ID        string
	Limit     int
}

// ThreadList is a page of threads and where the next begins.
type ThreadList struct {
	Data []Thread
	Meta struct {
		Current struct {
			Limit int `json:"limit"`
			Count int `json:"count"`
		} `json:"current"`
		Next struct {
			Affix     string `json:"affix"`
			UpdatedAt int64  `json:"updatedAt"`
			ID        string `json:"id"`
		} `json:"next"`
	}
}

// NextParams are the parameters of the page after l.
func (l *ThreadList) NextParams(limit int) ThreadListParams {
	return ThreadListParams{Affix: l.Meta.Next.Affix, UpdatedAt: l.Meta.Next.UpdatedAt, ID: l.Meta.Next.ID, Limit: limit}
}

// NextPage is p continued after l, in the same scope.
func (p ThreadListParams) NextPage(l *ThreadList) ThreadListParams {
	next := l.NextParams(p.Limit)
	next.UID, next.GUID = p.UID, p.GUID
	return next
}

// ListThreads lists the threads the acting user (required) follows, newest first, in the
// scope p names.
func (c *Client) ListThreads(ctx context.Context, p ThreadListParams) (*ThreadList, error) {
	q := url.Values{}
	if p.Affix != "" {
		q.Set("affix", p.Affix)
	}
	if p.UpdatedAt != 0 {
		q.Set("updatedAt", strconv.FormatInt(p.UpdatedAt, 10))
	}
	if p.ID != "" {
		q.Set("id", p.ID)
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	path := "/threads"
	switch {
	case p.UID != "":
		path = "/users/" + seg(p.UID) + "/threads"
	case p.GUID != "":
		path = groupPath(p.GUID) + "/threads"
	}
	var out ThreadList
	env, err := c.call(ctx, http.MethodGet, path, q, nil, &out.Data)
	if err != nil {
		return nil, err
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &out.Meta); err != nil {
			return nil, fmt.Errorf("natter: decode thread list meta: %w", err)
		}
	}
	return &out, nil
}

// SubscribeThread makes the acting user follow the thread of the message msgID.
func (c *Client) SubscribeThread(ctx context.Context, msgID string) (*Ack, error) {
	return c.ack(ctx, http.MethodPost, messagePath(msgID, "thread/subscription"), nil)
}

// UnsubscribeThread makes the acting user stop following the thread of the message msgID.
func (c *Client) UnsubscribeThread(ctx context.Context, msgID string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, messagePath(msgID, "thread/subscription"), nil)
}
