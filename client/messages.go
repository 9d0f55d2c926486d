package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// SendMessageRequest is the body of POST /messages. The sender is the onBehalfOf user; see
// Client.OnBehalfOf (or, for SendBotMessage, the bot). "<@uid:...>" in Data["text"] mentions
// that user.
type SendMessageRequest struct {
	Receiver     string         `json:"receiver"`
	ReceiverType string         `json:"receiverType"`
	Category     string         `json:"category"`
	Type         string         `json:"type"`
	Data         map[string]any `json:"data"`
	Tags         []string       `json:"tags,omitempty"`
	MUID         string         `json:"muid,omitempty"`
	// QuotedMessageID is the id of a message of the same conversation the new one quotes.
	QuotedMessageID string `json:"quotedMessageId,omitempty"`
}

// EditMessageRequest is the body of PUT /messages/{id}: what to change, at least one of
// them.
type EditMessageRequest struct {
	// Data holds the data keys to change: "text" (text messages only) and "metadata" (an
	// object, replacing the old whole). The message's other data keys stay as they were.
	Data map[string]any `json:"data,omitempty"`
	// Tags, when not nil, replaces the message's tags; a pointer to an empty slice clears
	// them.
	Tags *[]string `json:"tags,omitempty"`
}

// Message is the message shape of the API. The optional fields are zero when the server
// leaves them out.
type Message struct {
	ID             string      `json:"id"`
	ConversationID string      `json:"conversationId"`
	Sender         string      `json:"sender"`
	ReceiverType   string      `json:"receiverType"`
	Receiver       string      `json:"receiver"`
	Category       string      `json:"category"`
	Type           string      `json:"type"`
	Data           MessageData `json:"data"`
	SentAt         int64       `json:"sentAt"`
	// DeliveredAt and ReadAt are set on one-to-one messages once the receiver's delivered
	// and read markers have passed them.
	DeliveredAt int64 `json:"deliveredAt,omitempty"`
	ReadAt      int64 `json:"readAt,omitempty"`
	// EditedAt and EditedBy are set on an edited message ("app_system" when the app edited).
	EditedAt  int64  `json:"editedAt,omitempty"`
	EditedBy  string `json:"editedBy,omitempty"`
	UpdatedAt int64  `json:"updatedAt"`
	// ParentID is set on a thread reply: the id of the message whose thread it is in.
	ParentID string `json:"parentId,omitempty"`
	// ReplyCount is set on a thread's parent; UnreadRepliesCount too, in a list read on a
	// user's behalf, when that user has replies from others it has not read.
	ReplyCount         int64 `json:"replyCount,omitempty"`
	UnreadRepliesCount int64 `json:"unreadRepliesCount,omitempty"`
	// MentionedUsers are the users the text mentions ("<@uid:...>"), in the order named, at
	// most 25 (Data.Mentions holds them by uid); MentionedMe is set when the user the message
	// was read for (the acting user) is one of them.
	MentionedUsers []EntityUser `json:"mentionedUsers,omitempty"`
	MentionedMe    bool         `json:"mentionedMe,omitempty"`
	MUID           string       `json:"muid,omitempty"`
	Tags           []string     `json:"tags,omitempty"`
	DeletedAt      int64        `json:"deletedAt,omitempty"`
	DeletedBy      string       `json:"deletedBy,omitempty"`
	// PinnedAt and PinnedBy are set while the message is pinned (PinnedBy "app_system" for
	// the app); SavedAt while the acting user has it saved.
	PinnedAt int64  `json:"pinnedAt,omitempty"`
	PinnedBy string `json:"pinnedBy,omitempty"`
	SavedAt  int64  `json:"savedAt,omitempty"`
	// QuotedMessageID is set on a quoted reply, QuotedMessage too unless the quoted message
	// was deleted permanently or the list hid it (HideQuotedMessages).
	QuotedMessageID string   `json:"quotedMessageId,omitempty"`
	QuotedMessage   *Message `json:"quotedMessage,omitempty"`
	// Receipts are set on GetMessage and a conversation's LastMessage: who the message was
	// delivered to and who read it.
	Receipts *Receipts `json:"receipts,omitempty"`
}

// Receipts are a message's deliveries and reads, one entry per recipient.
type Receipts struct {
	Data []Receipt `json:"data"`
}

// Receipt is one recipient's delivery of a message and, once read, its read.
type Receipt struct {
	Recipient   json.RawMessage `json:"recipient"` // the user, in the entities' short shape
	DeliveredAt int64           `json:"deliveredAt"`
	ReadAt      int64           `json:"readAt,omitempty"`
}

// MessageData is a message's data object: the keys natter reads or generates are fields,
// and Raw keeps the whole object as received, since clients may put any keys in it.
type MessageData struct {
	Text        string           `json:"text,omitempty"`
	Action      string           `json:"action,omitempty"`
	Metadata    map[string]any   `json:"metadata,omitempty"`
	CustomData  map[string]any   `json:"customData,omitempty"`
	Attachments []map[string]any `json:"attachments,omitempty"`
	URL         string           `json:"url,omitempty"`
	Entities    Entities         `json:"entities,omitzero"`
	// Mentions are the users the text mentions, by uid: the message's MentionedUsers.
	Mentions  map[string]EntityUser `json:"mentions,omitempty"`
	Reactions []ReactionSummary     `json:"reactions,omitempty"`
	// Interactions are, on an interactive message read on a user's behalf, that user's
	// (MarkInteracted).
	Interactions []Interaction   `json:"interactions,omitempty"`
	Raw          json.RawMessage `json:"-"`
}

// Interaction is an element of an interactive message a user interacted with, and when.
type Interaction struct {
	ElementID    string `json:"elementId"`
	InteractedAt int64  `json:"interactedAt"`
}

// MarkInteracted records that the acting user interacted with these elements of the
// interactive message; an element already recorded keeps its first time.
func (c *Client) MarkInteracted(ctx context.Context, msgID string, elementIDs ...string) (Ack, error) {
	var out Ack
	_, err := c.call(ctx, http.MethodPatch, messagePath(msgID, "interacted"), nil, map[string]any{"interactions": elementIDs}, &out)
	return out, err
}

// UnmarshalJSON decodes the known keys and keeps a copy of the whole object in Raw.
func (d *MessageData) UnmarshalJSON(b []byte) error {
	type plain MessageData // without the method, to avoid recursion
	var p plain
	if !bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		p.Raw = append(json.RawMessage(nil), b...) // b belongs to the decoder
	}
	*d = MessageData(p)
	return nil
}

// Entities are data.entities: sender and receiver on ordinary messages; by, for and on on
// action messages.
type Entities struct {
	Sender   *Entity        `json:"sender,omitempty"`
	Receiver *Entity        `json:"receiver,omitempty"`
	By       *Entity        `json:"by,omitempty"`
	For      *Entity        `json:"for,omitempty"`
	On       *MessageEntity `json:"on,omitempty"`
}

// Entity is a user entity, or a group's: a group message's receiver, and the group a
// groupMember action is for.
type Entity struct {
	Entity     EntityUser `json:"entity"`
	EntityType string     `json:"entityType"`
	// Group is the entity when EntityType is "group"; Entity is then empty.
	Group *EntityGroup `json:"-"`
}

// UnmarshalJSON decodes a user or a group entity by its entityType.
func (e *Entity) UnmarshalJSON(b []byte) error {
	var raw struct {
		Entity     json.RawMessage `json:"entity"`
		EntityType string          `json:"entityType"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Entity{EntityType: raw.EntityType}
	switch {
	case len(raw.Entity) == 0:
		return nil
	case raw.EntityType == "group":
		e.Group = new(EntityGroup)
		return json.Unmarshal(raw.Entity, e.Group)
	}
	return json.Unmarshal(raw.Entity, &e.Entity)
}

// EntityUser is a user inside data.entities, and a mentioned user (without
// ConversationID).
type EntityUser struct {
	UID            string `json:"uid"`
	Name           string `json:"name"`
	Avatar         string `json:"avatar,omitempty"`
	Role           string `json:"role"`
	Status         string `json:"status"`
	CreatedAt      int64  `json:"createdAt,omitempty"`
	LastActiveAt   int64  `json:"lastActiveAt,omitempty"`
	ConversationID string `json:"conversationId,omitempty"`
}

// MessageEntity is the message an action message is about.
type MessageEntity struct {
	Entity     Message `json:"entity"`
	EntityType string  `json:"entityType"`
}

// ReactionSummary is one entry of data.reactions.
type ReactionSummary struct {
	Reaction    string `json:"reaction"`
	Count       int64  `json:"count"`
	ReactedByMe bool   `json:"reactedByMe,omitempty"`
}

// SendMessage sends a message.
func (c *Client) SendMessage(ctx context.Context, r SendMessageRequest) (*Message, error) {
	return c.message(ctx, http.MethodPost, "/messages", r)
}

// Receivers are the users and groups a send reaches besides its Receiver (the body's
// multipleReceivers): at most 25 in all, the Receiver included, once duplicates collapse.
type Receivers struct {
	UIDs  []string `json:"uids,omitempty"`
	GUIDs []string `json:"guids,omitempty"`
}

// SendResults answer a send to several receivers: for each uid and each guid (lower-cased;
// a malformed one as sent) what became of it. Both maps are always set.
type SendResults struct {
	Users  map[string]SendResult `json:"users"`
	Groups map[string]SendResult `json:"groups"`
}

// SendResult is what became of one receiver of a send to several: the Message sent to it,
// or the Error that refused it, as the error envelope would hold it (its Status is 0).
type SendResult struct {
	Message *Message
	Error   *Error
}

// UnmarshalJSON decodes a refusal ({"error": …}) or a message.
func (r *SendResult) UnmarshalJSON(b []byte) error {
	var refused struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(b, &refused); err != nil {
		return err
	}
	if refused.Error != nil {
		*r = SendResult{Error: refused.Error}
		return nil
	}
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = SendResult{Message: &m}
	return nil
}

// multiSendBody is a send's body with multipleReceivers.
type multiSendBody struct {
	SendMessageRequest
	MultipleReceivers Receivers `json:"multipleReceivers"`
}

// SendMessageToMany sends r's message to each receiver in to, and to r.Receiver too when
// it is set, one message each, as SendMessage would to each alone. A receiver's refusal is
// in its SendResult and does not stop the others; what concerns the whole request (the
// sender, an empty or too long list, the message itself) is the error. Sent through
// Client.IdempotencyKey, a retry gets the first answer instead of sending again.
func (c *Client) SendMessageToMany(ctx context.Context, r SendMessageRequest, to Receivers) (*SendResults, error) {
	return c.sendToMany(ctx, "/messages", r, to)
}

func (c *Client) sendToMany(ctx context.Context, path string, r SendMessageRequest, to Receivers) (*SendResults, error) {
	var out SendResults
	if _, err := c.call(ctx, http.MethodPost, path, nil, multiSendBody{r, to}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetMessage returns the message id.
func (c *Client) GetMessage(ctx context.Context, id string) (*Message, error) {
	return c.message(ctx, http.MethodGet, "/messages/"+seg(id), nil)
}

// EditMessage edits the message id and returns the action message that records the edit
// (category "action", type "message", Data.Action "edited"), whose Data.Entities.On holds
// the message as edited. Acting as a user (see Client.OnBehalfOf), the sender may edit, and
// in a group its admins and moderators too; otherwise the app edits.
func (c *Client) EditMessage(ctx context.Context, id string, r EditMessageRequest) (*Message, error) {
	return c.message(ctx, http.MethodPut, "/messages/"+seg(id), r)
}

// DeleteMessage deletes the message id and returns the action message that records it.
func (c *Client) DeleteMessage(ctx context.Context, id string, permanent bool) (*Message, error) {
	var body any
	if permanent {
		body = map[string]bool{"permanent": true}
	}
	return c.message(ctx, http.MethodDelete, "/messages/"+seg(id), body)
}

// message makes a call whose data is a message.
func (c *Client) message(ctx context.Context, method, path string, body any) (*Message, error) {
	var m Message
	if _, err := c.call(ctx, method, path, nil, body, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
