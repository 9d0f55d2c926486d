package chat

import "context"

// Limits of message lists.
const (
	DefaultMessageLimit = 10 // the hosted spec's default
	MaxMessageLimit     = 1000
)

// MessageQuery is a window over messages, built by the service from a MessagePage.
type MessageQuery struct {
	// ConversationID limits the list to one conversation; ParentID to one thread.
	ConversationID string
	ParentID       int64
	// Viewer is the acting user: reactedByMe and unread replies are its, and without a
	// conversation the list holds only its conversations (its one-to-one messages and the
	// groups it is a member of).
	Viewer string
	// HiddenUpTo hides the history at or before this id (the viewer's reset).
	HiddenUpTo int64
	// The cursor: ids after AfterID (append) or before BeforeID (prepend), and sent at or
	// after SentFrom; results come in id order either way.
	AfterID, BeforeID int64
	Prepend           bool
	Limit             int
	// Filters.
	SentFrom, SentTo int64 // 0: unbounded
	Categories       []string
	Types            []string
	Sender           string
	ReceiverType     string
	SearchKey        string
	HideDeleted      bool
	OnlyDeleted      bool
	HideReplies      bool
	HasReactions     bool
	HasAttachments   bool
	AttachmentTypes  []string
	HasLinks         bool
	Tags             []string
	// UnreadAfter (with Viewer): only others' messages after this id; Undelivered likewise.
	UnreadAfter int64
	Unread      bool
	// HideBlockedFor hides the messages of the users this one has blocked.
	HideBlockedFor string
	// Mentions: any (HasMentions), of any of these users, or of this one (MentionsOf).
	HasMentions   bool
	MentionedUIDs []string
	MentionsOf    string
	// Pinned: only pinned messages; SavedBy: only those this user saved.
	Pinned  bool
	SavedBy string
	// The viewer's permissions: of the message and custom categories, only these
	// (AllowedCategories), and of category message, only these types (AllowedTypes).
	AllowedCategories []string
	AllowedTypes      []string
	// HideQuoted leaves the messages the page quotes unread (MessagePage.HideQuoted).
	HideQuoted bool
	// OnlyGoalCompleted keeps the interactive messages whose goal the viewer's interactions
	// completed, or without a viewer anyone's (onlyInteractionGoalCompleted).
	OnlyGoalCompleted bool
	// Senders keeps the messages of any of these users. Sent, Updated and Edited keep those
	// sent, updated or edited in the range: a message never updated (edited or deleted) or
	// never edited is in no Updated or Edited range.
	Senders               []string
	Sent, Updated, Edited Range
}

// permitted is q narrowed to what the viewer's permissions let it list.
func (s *Service) permitted(ctx context.Context, p Principal, q MessageQuery, a Action) (MessageQuery, error) {
	g, err := s.permit(ctx, p, a)
	q.AllowedCategories, q.AllowedTypes = g.Categories, g.Types
	return q, err
}

// MessagePage is a message-list request as the API takes it. Unsupported names the query
// parameters the request sent that natter does not serve, which are refused.
type MessagePage struct {
	Affix           string
	CursorID        string
	SentAt          int64
	Limit           int
	FromTimestamp   int64
	ToTimestamp     int64
	Categories      []string
	Types           []string
	Sender          string
	ReceiverType    string
	ConversationID  string
	SearchKey       string
	HideDeleted     bool
	OnlyDeleted     bool
	HideReplies     bool
	HasReactions    bool
	HasAttachments  bool
	AttachmentTypes []string
	HasLinks        bool
	Tags            []string
	Unread          bool
	Undelivered     bool
	Count           bool
	HasMentions     bool
	MentionedUIDs   []string
	MyMentionsOnly  bool
	HideBlocked     bool
	Pinned          bool
	Saved           bool
	// The hosted service's newer filters of GET /messages: senders (any of), and the
	// ranges sentAt, updatedAt and editedAt.
	Senders                              []string
	SentRange, UpdatedRange, EditedRange Range
	// HideQuoted is hideQuotedMessages, which leaves each message's quotedMessage out of the
	// answer, as the hosted file says ("exclude all quotedMessage nodes from the returned
	// messages"): the messages that quote stay listed, with their quotedMessageId.
	HideQuoted bool
	// OnlyGoalCompleted is onlyInteractionGoalCompleted (MessageQuery.OnlyGoalCompleted).
	OnlyGoalCompleted bool
}

// MessageList is a page of messages and the cursor that continues it.
type MessageList struct {
	Messages []Message
	Limit    int
	// Next continues the list in its direction: past the page's last message (append) or
	// before its first (prepend); where the request was when the page is empty.
	NextAffix  string
	NextID     int64
	NextSentAt int64
	// Counts is the answer of count=true (with unread or undelivered) in place of
	// messages: one entry per conversation with messages to count, none without (non-nil).
	Counts []UnreadCount
}

// HistoryStore reads message lists and the markers they depend on.
type HistoryStore interface {
	// ListMessages returns up to q.Limit messages in id order, with entities, summaries
	// for q.Viewer and the targets of action messages.
	ListMessages(ctx context.Context, appID string, q MessageQuery) ([]Message, error)
	// CountMessages counts the messages q selects, ignoring its cursor and limit.
	CountMessages(ctx context.Context, appID string, q MessageQuery) (int64, error)
	// Marker is a user's marker of a conversation (the zero Marker when it has none).
	Marker(ctx context.Context, appID, uid, conversationID string) (Marker, error)
}

// Marker is how far one user has got in one conversation.
type Marker struct {
	ReadID      int64
	ReadSeq     int64
	DeliveredID int64
	ResetID     int64
	Tags        []string
	UpdatedAt   int64
	PinnedAt    int64 // the user's pin of the conversation; 0 when not pinned
}

// maxFilterValues bounds the values one list filter names (categories, types).
const maxFilterValues = 100

// query validates p and turns it into a MessageQuery; the conversation scope and the
// viewer are the caller's.
func (p MessagePage) query() (MessageQuery, error) {
	fe := fieldErrors{}
	q := MessageQuery{Limit: p.Limit, SentFrom: p.FromTimestamp, SentTo: p.ToTimestamp, Categories: p.Categories, Types: p.Types,
		ReceiverType: p.ReceiverType, HideDeleted: p.HideDeleted, OnlyDeleted: p.OnlyDeleted, HideReplies: p.HideReplies,
		HasReactions: p.HasReactions, HasAttachments: p.HasAttachments, AttachmentTypes: p.AttachmentTypes, HasLinks: p.HasLinks,
		Pinned: p.Pinned, HideQuoted: p.HideQuoted, OnlyGoalCompleted: p.OnlyGoalCompleted}
	if q.Limit == 0 {
		q.Limit = DefaultMessageLimit
	}
	if q.Limit < 1 || q.Limit > MaxMessageLimit {
		fe.add("limit", "The limit must be between 1 and 1000.")
	}
	switch p.Affix {
	case "", "append":
	case "prepend":
		q.Prepend = true
	default:
		fe.add("affix", "The affix must be append or prepend.")
	}
	if p.CursorID != "" && p.CursorID != "0" {
		id, err := ParseMessageID(p.CursorID)
		if err != nil {
			fe.add("id", "The id must be a message id.")
		}
		if q.Prepend {
			q.BeforeID = id
		} else {
			q.AfterID = id
		}
	}
	if p.SentAt < 0 || p.FromTimestamp < 0 || p.ToTimestamp < 0 {
		fe.add("sentAt", "Times are UNIX seconds, 0 or more.")
	}
	if p.SentAt > 0 && q.SentFrom < p.SentAt && !q.Prepend {
		q.SentFrom = p.SentAt
	}
	if p.SentAt > 0 && q.Prepend && (q.SentTo == 0 || p.SentAt < q.SentTo) {
		q.SentTo = p.SentAt
	}
	if p.FromTimestamp > 0 && p.ToTimestamp > 0 && p.FromTimestamp > p.ToTimestamp {
		fe.add("fromTimestamp", "The fromTimestamp must not be after the toTimestamp.")
	}
	// A filter value natter has never heard of (a category such as the UI Kit's card or
	// agentic, a type, a receiver type) matches nothing rather than failing the list: the
	// values are only bounded, and the query compares them as they are.
	for _, c := range q.Categories {
		fe.text("categories", c, MaxMessageTypeLen, true)
	}
	for _, t := range q.Types {
		fe.text("types", t, MaxMessageTypeLen, true)
	}
	fe.text("receiverType", q.ReceiverType, MaxMessageTypeLen, false)
	for _, t := range q.AttachmentTypes {
		fe.text("attachmentTypes", t, MaxMessageTypeLen, true)
	}
	if len(q.Categories) > maxFilterValues || len(q.Types) > maxFilterValues || len(q.AttachmentTypes) > maxFilterValues {
		fe.add("types", "A filter names at most 100 values.")
	}
	if q.HideDeleted && q.OnlyDeleted {
		fe.add("onlyDeleted", "hideDeleted and onlyDeleted exclude each other.")
	}
	fe.text("searchKey", p.SearchKey, MaxSearchKeyLen, false)
	q.SearchKey = p.SearchKey
	q.Tags = fe.tags("tags", p.Tags)
	if p.Sender != "" {
		q.Sender = fe.id("sender", p.Sender, true)
	}
	q.HasMentions = p.HasMentions
	for _, u := range p.MentionedUIDs {
		q.MentionedUIDs = append(q.MentionedUIDs, fe.id("mentionedUids", u, true))
	}
	if len(q.MentionedUIDs) > MaxMentions {
		fe.add("mentionedUids", "At most 25 uids may be named.")
	}
	if p.Count && !p.Unread {
		fe.add("count", "The count parameter counts unread messages: send unread=true with it.")
	}
	// As for sender; an unknown uid matches nothing.
	for _, u := range p.Senders {
		q.Senders = append(q.Senders, fe.id("senders", u, true))
	}
	if len(q.Senders) > maxFilterValues {
		fe.add("senders", "At most 100 uids may be named.")
	}
	fe.timeRange("sentAt", p.SentRange)
	fe.timeRange("updatedAt", p.UpdatedRange)
	fe.timeRange("editedAt", p.EditedRange)
	q.Sent, q.Updated, q.Edited = p.SentRange, p.UpdatedRange, p.EditedRange
	return q, fe.err()
}

// list runs q and makes its page: the cursor that continues it, in its direction.
func (s *Service) list(ctx context.Context, appID string, q MessageQuery) (MessageList, error) {
	ms, err := s.store.ListMessages(ctx, appID, q)
	if err != nil {
		return MessageList{}, internal("list messages", err)
	}
	l := MessageList{Messages: ms, Limit: q.Limit, NextAffix: "append", NextID: q.AfterID}
	if q.Prepend {
		l.NextAffix, l.NextID = "prepend", q.BeforeID
	}
	if len(ms) > 0 {
		edge := ms[len(ms)-1]
		if q.Prepend {
			edge = ms[0]
		}
		l.NextID, l.NextSentAt = edge.ID, edge.SentAt
	}
	return l, nil
}

// ListMessages lists the app's messages; acting as a user, the messages of its
// conversations.
func (s *Service) ListMessages(ctx context.Context, p Principal, page MessagePage) (MessageList, error) {
	q, err := page.query()
	if err != nil {
		return MessageList{}, err
	}
	if page.Count {
		counts, err := s.unreadCounts(ctx, p, page, q)
		return MessageList{Counts: counts}, err
	}
	q.ConversationID = page.ConversationID
	if page.MyMentionsOnly && !p.acting() {
		return MessageList{}, InvalidField("myMentionsOnly", "myMentionsOnly is a user's: send the onBehalfOf header.")
	}
	if page.HideBlocked && !p.acting() {
		return MessageList{}, InvalidField("hideMessagesFromBlockedUsers", "Blocks are a user's: send the onBehalfOf header.")
	}
	if page.Saved && !p.acting() {
		return MessageList{}, errSavedIsAUsers()
	}
	if p.acting() {
		u, err := s.actingUser(ctx, p)
		if err != nil {
			return MessageList{}, err
		}
		if q, err = s.permitted(ctx, p, q, Action{Op: OpListMessages, Role: u.Role}); err != nil {
			return MessageList{}, err
		}
		q.Viewer = u.UID
		if page.MyMentionsOnly {
			q.MentionsOf = u.UID
		}
		if page.HideBlocked {
			q.HideBlockedFor = u.UID
		}
		if page.Saved {
			q.SavedBy = u.UID
		}
		if q.ConversationID != "" { // as the conversation's own lists: a party only, its reset applied
			if err := s.partyOf(ctx, p.App.ID, u.UID, q.ConversationID); err != nil {
				return MessageList{}, err
			}
			return s.conversationList(ctx, p, q, page, "", q.ConversationID)
		}
	}
	return s.list(ctx, p.App.ID, q)
}

// ListUserMessages lists the one-to-one conversation of the acting user with uid.
func (s *Service) ListUserMessages(ctx context.Context, p Principal, uid string, page MessagePage) (MessageList, error) {
	q, err := page.query()
	if err != nil {
		return MessageList{}, err
	}
	viewer, err := s.actingUser(ctx, p)
	if err != nil {
		return MessageList{}, err
	}
	other, err := s.User(ctx, p, uid)
	if err != nil {
		return MessageList{}, err
	}
	if q, err = s.permitted(ctx, p, q, Action{Op: OpListUserMessages, Role: viewer.Role}); err != nil {
		return MessageList{}, err
	}
	q.ConversationID, q.Viewer = ConversationID(viewer.UID, other.UID), viewer.UID
	return s.conversationList(ctx, p, q, page, ReceiverUser, other.UID)
}

// ListGroupMessages lists a group's messages: acting as a user, as that member sees them
// (a user who is not a member, or no longer, may not).
func (s *Service) ListGroupMessages(ctx context.Context, p Principal, guid string, page MessagePage) (MessageList, error) {
	q, err := page.query()
	if err != nil {
		return MessageList{}, err
	}
	g, viewer, err := s.group(ctx, p, guid)
	if err != nil {
		return MessageList{}, err
	}
	q.ConversationID = GroupConversationID(g.GUID)
	if g.Viewer != nil {
		if !g.Viewer.Joined() {
			return MessageList{}, errConversationNotAccessible(p.Actor, q.ConversationID)
		}
		if q, err = s.permitted(ctx, p, q, Action{Op: OpListGroupMessages, Role: viewer.Role, GUID: g.GUID, Scope: g.Viewer.Scope}); err != nil {
			return MessageList{}, err
		}
		q.Viewer = p.Actor
	} else if page.Unread || page.Undelivered {
		return MessageList{}, InvalidField("onBehalfOf", "unread and undelivered are a user's: send the onBehalfOf header.")
	}
	return s.conversationList(ctx, p, q, page, ReceiverGroup, g.GUID)
}

func errSavedIsAUsers() error {
	return InvalidField("saved", "Saved messages are a user's: send the onBehalfOf header.")
}

func errConversationNotAccessible(uid, conversationID string) error {
	return Errorf(CodeConversationNotAccessible, "The user %s is not a part of the conversation %s.", uid, conversationID)
}

// conversationList applies the viewer's marker to a one-conversation list: its reset hides
// the history before it, and unread or undelivered start after its read or delivered mark.
// With count=true it counts them instead, for the user or group kind and key name.
func (s *Service) conversationList(ctx context.Context, p Principal, q MessageQuery, page MessagePage, kind, key string) (MessageList, error) {
	if page.MyMentionsOnly {
		if q.Viewer == "" {
			return MessageList{}, InvalidField("myMentionsOnly", "myMentionsOnly is a user's: send the onBehalfOf header.")
		}
		q.MentionsOf = q.Viewer
	}
	if page.HideBlocked {
		if q.Viewer == "" {
			return MessageList{}, InvalidField("hideMessagesFromBlockedUsers", "Blocks are a user's: send the onBehalfOf header.")
		}
		q.HideBlockedFor = q.Viewer
	}
	if page.Saved {
		if q.Viewer == "" {
			return MessageList{}, errSavedIsAUsers()
		}
		q.SavedBy = q.Viewer
	}
	if q.Viewer != "" {
		mk, err := s.store.Marker(ctx, p.App.ID, q.Viewer, q.ConversationID)
		if err != nil {
			return MessageList{}, internal("read marker", err)
		}
		q.HiddenUpTo = mk.ResetID
		switch {
		case page.Unread:
			q.Unread, q.UnreadAfter = true, mk.ReadID
		case page.Undelivered:
			q.Unread, q.UnreadAfter = true, max(mk.DeliveredID, mk.ReadID)
		}
	}
	if page.Count {
		n, err := s.store.CountMessages(ctx, p.App.ID, q)
		if err != nil {
			return MessageList{}, internal("count messages", err)
		}
		return MessageList{Counts: unreadCount(kind, key, n)}, nil
	}
	return s.list(ctx, p.App.ID, q)
}

// ListThread lists a message's thread replies.
func (s *Service) ListThread(ctx context.Context, p Principal, id string, page MessagePage) (MessageList, error) {
	q, err := page.query()
	if err != nil {
		return MessageList{}, err
	}
	parent, viewer, err := s.message(ctx, p, id)
	if err != nil {
		return MessageList{}, err
	}
	q.ParentID, q.ConversationID = parent.ID, parent.ConversationID
	if p.acting() {
		if q, err = s.permitted(ctx, p, q, Action{Op: OpListThread, Role: viewer.Role}); err != nil {
			return MessageList{}, err
		}
		q.Viewer = p.Actor
	}
	return s.list(ctx, p.App.ID, q)
}

// SendThreadMessage sends a reply into a message's thread: to the parent's conversation, by
// a user who may see the parent. A reply has no thread of its own.
func (s *Service) SendThreadMessage(ctx context.Context, p Principal, id string, in MessageSend) (Message, error) {
	parent, _, err := s.message(ctx, p, id)
	if err != nil {
		return Message{}, err
	}
	switch {
	case parent.ParentID != 0:
		return Message{}, Errorf(CodeMessageThreadNesting, "The message with id %d is a thread reply: a reply has no thread of its own.", parent.ID)
	case parent.Category == CategoryAction:
		return Message{}, Errorf(CodeWrongThreadCategory, "The message with id %d is an action message, which has no thread.", parent.ID)
	case parent.DeletedAt != 0:
		return Message{}, errDeleted(parent.Head())
	}
	if in.Receiver == "" && in.ReceiverType == "" { // the thread names its conversation
		in.ReceiverType = parent.ReceiverType
		in.Receiver = parent.Receiver
		if parent.ReceiverType == ReceiverUser && parent.Receiver == p.Actor {
			in.Receiver = parent.Sender
		}
	}
	return s.send(ctx, p, in, &parent)
}
