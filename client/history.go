package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Receiver types: a one-to-one conversation's, and a group's.
const (
	ReceiverUser  = "user"
	ReceiverGroup = "group"
)

// MessageListParams are the query parameters of the message lists; zero values are not
// sent. The server refuses (400 ERR_BAD_REQUEST) a parameter a list does not take rather
// than ignore it: ReceiverType and ConversationID are ListMessages' only; Unread and
// Undelivered the conversation lists' only (ListUserMessages, ListGroupMessages); a thread
// (ListThread) takes only Affix, ID and Limit.
type MessageListParams struct {
	// Affix is "append" (the default: from the oldest, forward) or "prepend" (from the
	// newest, backward); ID is the message id to page from. A page's Next sets both.
	Affix string
	ID    string
	// SentAt narrows the list to the messages sent at or after it (append), or at or before
	// it (prepend).
	SentAt int64
	// Limit is the page size, 1 to 1000; the server's default is 10.
	Limit int
	// FromTimestamp and ToTimestamp bound the send time, both inclusive.
	FromTimestamp int64
	ToTimestamp   int64
	// Categories (message, custom, action) and Types: a message matches with any.
	Categories []string
	Types      []string
	// Sender keeps only the messages of this uid.
	Sender string
	// SearchKey keeps the messages whose data holds it, case-insensitively.
	SearchKey      string
	HideDeleted    bool
	OnlyDeleted    bool
	HideReplies    bool // leaves thread replies out
	HasReactions   bool
	HasAttachments bool
	// AttachmentTypes are image, video, audio or file: a message matches with any.
	AttachmentTypes []string
	HasLinks        bool
	// HasMentions keeps the messages that mention a user; MentionedUIDs (at most 25) those
	// that mention any of these users; MyMentionsOnly those that mention the acting user
	// (acting as a user is required).
	HasMentions    bool
	MentionedUIDs  []string
	MyMentionsOnly bool
	// HideMessagesFromBlockedUsers leaves out the messages of the users the acting user has
	// blocked (acting as a user is required).
	HideMessagesFromBlockedUsers bool
	// Pinned keeps only pinned messages; Saved only those the acting user saved (acting as a
	// user is required).
	Pinned bool
	Saved  bool
	// WithTags includes each message's tags, which are left out otherwise; Tags keeps the
	// messages with any of them.
	WithTags bool
	Tags     []string
	// ReceiverType ("user" or "group") and ConversationID: ListMessages only.
	ReceiverType   string
	ConversationID string
	// ListMessages only, as the hosted file has them: Senders keeps the messages of any of
	// these uids; SentAtRange, UpdatedAtRange and EditedAtRange those sent, updated or
	// edited in the range (a message never edited or deleted is in no UpdatedAtRange, one
	// never edited in no EditedAtRange).
	Senders                                    []string
	SentAtRange, UpdatedAtRange, EditedAtRange TimeRange
	// HideQuotedMessages leaves each message's QuotedMessage out of the answer (its
	// QuotedMessageID stays).
	HideQuotedMessages bool
	// Unread keeps the acting user's unread messages, Undelivered its undelivered ones:
	// the conversation lists only, acting as a user.
	Unread      bool
	Undelivered bool
}

func (p MessageListParams) query() url.Values {
	q := url.Values{}
	setStr(q, "affix", p.Affix)
	setStr(q, "id", p.ID)
	setInt64(q, "sentAt", p.SentAt)
	setInt(q, "limit", p.Limit)
	setInt64(q, "fromTimestamp", p.FromTimestamp)
	setInt64(q, "toTimestamp", p.ToTimestamp)
	setStr(q, "categories", strings.Join(p.Categories, ","))
	setStr(q, "types", strings.Join(p.Types, ","))
	setStr(q, "sender", p.Sender)
	setStr(q, "searchKey", p.SearchKey)
	setBool(q, "hideDeleted", p.HideDeleted)
	setBool(q, "onlyDeleted", p.OnlyDeleted)
	setBool(q, "hideReplies", p.HideReplies)
	setBool(q, "hasReactions", p.HasReactions)
	setBool(q, "hasAttachments", p.HasAttachments)
	setStr(q, "attachmentTypes", strings.Join(p.AttachmentTypes, ","))
	setBool(q, "hasLinks", p.HasLinks)
	setBool(q, "hasMentions", p.HasMentions)
	setStr(q, "mentionedUids", strings.Join(p.MentionedUIDs, ","))
	setBool(q, "myMentionsOnly", p.MyMentionsOnly)
	setBool(q, "hideMessagesFromBlockedUsers", p.HideMessagesFromBlockedUsers)
	setBool(q, "pinned", p.Pinned)
	setBool(q, "saved", p.Saved)
	setBool(q, "withTags", p.WithTags)
	setStr(q, "tags", strings.Join(p.Tags, ","))
	setStr(q, "receiverType", p.ReceiverType)
	setStr(q, "conversationId", p.ConversationID)
	setStr(q, "senders", strings.Join(p.Senders, ","))
	p.SentAtRange.set(q, "sentAt")
	p.UpdatedAtRange.set(q, "updatedAt")
	p.EditedAtRange.set(q, "editedAt")
	setBool(q, "hideQuotedMessages", p.HideQuotedMessages)
	setBool(q, "unread", p.Unread)
	setBool(q, "undelivered", p.Undelivered)
	return q
}

func setInt64(q url.Values, k string, v int64) {
	if v != 0 {
		q.Set(k, strconv.FormatInt(v, 10))
	}
}

// MessageList is one page of messages, in id order whichever the direction.
type MessageList struct {
	Data []Message       `json:"data"`
	Meta MessageListMeta `json:"meta"`
	// params are those the page was asked for, which Next continues.
	params MessageListParams
}

// MessageListMeta is a message list's meta.
type MessageListMeta struct {
	// Pagination describes the page itself (a cursor list knows no total).
	Pagination Pagination      `json:"pagination"`
	Current    MessagePageSize `json:"current"`
	// Next is where the following page starts, on every page (the last one too).
	Next MessageCursor `json:"next"`
	// Cursor is Next again, with the id as a number, as the hosted service sends it.
	Cursor MessageListCursor `json:"cursor"`
}

// MessagePageSize is meta.current: the page's limit and how many messages it holds.
type MessagePageSize struct {
	Limit int `json:"limit"`
	Count int `json:"count"`
}

// MessageCursor is meta.next: the direction, the message id to page from ("0" for none),
// and when that message was sent (0 on an empty page).
type MessageCursor struct {
	Affix  string `json:"affix"`
	SentAt int64  `json:"sentAt,omitempty"`
	ID     string `json:"id"`
}

// MessageListCursor is meta.cursor.
type MessageListCursor struct {
	ID    int64  `json:"id"`
	Affix string `json:"affix"`
}

// Next returns the parameters of the following page: those l was asked for, with the affix
// and id of l's meta.next. more is false when l holds fewer messages than its limit, so the
// list has no more for now; new messages may still arrive, and polling with the returned
// parameters finds them.
func (l *MessageList) Next() (p MessageListParams, more bool) {
	p = l.params
	p.Affix, p.ID = l.Meta.Next.Affix, l.Meta.Next.ID
	return p, l.Meta.Current.Count > 0 && l.Meta.Current.Count >= l.Meta.Current.Limit
}

// ListMessages returns one page of the app's messages, or acting as a user (see
// Client.OnBehalfOf) of that user's conversations.
func (c *Client) ListMessages(ctx context.Context, p MessageListParams) (*MessageList, error) {
	return c.messageList(ctx, "/messages", p)
}

// ListUserMessages returns one page of the acting user's one-to-one conversation with the
// user uid; acting as a user is required.
func (c *Client) ListUserMessages(ctx context.Context, uid string, p MessageListParams) (*MessageList, error) {
	return c.messageList(ctx, "/users/"+seg(uid)+"/messages", p)
}

// ListGroupMessages returns one page of the group guid's history; acting as a user, as that
// member sees it.
func (c *Client) ListGroupMessages(ctx context.Context, guid string, p MessageListParams) (*MessageList, error) {
	return c.messageList(ctx, groupPath(guid)+"/messages", p)
}

// UnreadCount is how many messages of one conversation the acting user has not read: the
// other user's uid or the group's guid (EntityType user or group) and the count.
type UnreadCount struct {
	EntityID   string `json:"entityId"`
	EntityType string `json:"entityType"`
	Count      int64  `json:"count"`
}

// UnreadCounts returns the acting user's unread counts (see Client.OnBehalfOf), one per
// conversation with unread messages, in no set order: all of them, or with receiverType
// ReceiverUser or ReceiverGroup those of one kind. hideBlocked leaves out the messages of
// the users it blocked. Each is the count its conversation shows in the conversation list.
func (c *Client) UnreadCounts(ctx context.Context, receiverType string, hideBlocked bool) ([]UnreadCount, error) {
	q := url.Values{"unread": {"true"}, "count": {"true"}}
	setStr(q, "receiverType", receiverType)
	setBool(q, "hideMessagesFromBlockedUsers", hideBlocked)
	out := []UnreadCount{}
	if _, err := c.call(ctx, http.MethodGet, "/messages", q, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListThread returns one page of the replies in the thread of the message id. Only Affix,
// ID and Limit of p are taken.
func (c *Client) ListThread(ctx context.Context, id string, p MessageListParams) (*MessageList, error) {
	return c.messageList(ctx, "/messages/"+seg(id)+"/thread", p)
}

// SendThreadMessage sends a reply into the thread of the message id, from the acting user.
// r's Receiver and ReceiverType may be left empty: the reply goes to the thread's
// conversation.
func (c *Client) SendThreadMessage(ctx context.Context, id string, r SendMessageRequest) (*Message, error) {
	return c.message(ctx, http.MethodPost, "/messages/"+seg(id)+"/thread", r)
}

// UnreadCount returns how many messages the acting user has not read in its one-to-one
// conversation with the user id (receiverType ReceiverUser), or in the group id
// (ReceiverGroup). p's filters narrow what is counted; its cursor, limit and Undelivered
// play no part.
func (c *Client) UnreadCount(ctx context.Context, receiverType, id string, p MessageListParams) (int64, error) {
	var path string
	switch receiverType {
	case ReceiverUser:
		path = "/users/" + seg(id) + "/messages"
	case ReceiverGroup:
		path = groupPath(id) + "/messages"
	default:
		return 0, fmt.Errorf("natter: UnreadCount: receiverType %q, want %q or %q", receiverType, ReceiverUser, ReceiverGroup)
	}
	q := p.query()
	q.Del("undelivered") // the server counts unread messages only
	q.Set("unread", "true")
	q.Set("count", "true")
	var counts []UnreadCount // the conversation's, or none when nothing is unread
	if _, err := c.call(ctx, http.MethodGet, path, q, nil, &counts); err != nil {
		return 0, err
	}
	switch {
	case counts == nil:
		return 0, errors.New("natter: UnreadCount: the response holds no list of counts")
	case len(counts) == 0:
		return 0, nil
	case len(counts) == 1:
		return counts[0].Count, nil
	}
	return 0, errors.New("natter: UnreadCount: the response holds more than one count")
}

// messageList makes a call whose answer is a message list.
func (c *Client) messageList(ctx context.Context, path string, p MessageListParams) (*MessageList, error) {
	out := MessageList{params: p}
	env, err := c.call(ctx, http.MethodGet, path, p.query(), nil, &out.Data)
	if err != nil {
		return nil, err
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &out.Meta); err != nil {
			return nil, fmt.Errorf("natter: decode message list meta: %w", err)
		}
	}
	return &out, nil
}
