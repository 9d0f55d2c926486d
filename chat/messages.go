package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of messages.
const (
	MaxMessageDataBytes = 10 * 1024
	MaxMessageTypeLen   = 100
	MaxMUIDLen          = 100
)

// ReceiverUser is the receiver type of one-to-one messages.
const ReceiverUser = "user"

// Message is a stored message with its parties resolved.
type Message struct {
	ID             int64
	AppID          string
	ConversationID string
	Sender         string
	ReceiverType   string
	Receiver       string
	Category       string
	Type           string
	Data           json.RawMessage // the content object as sent, minus the keys natter generates
	Tags           []string
	MUID           string
	SentAt         int64
	UpdatedAt      int64
	DeletedAt      int64
	DeletedBy      string
	SenderEntity   Entity
	ReceiverEntity Entity // a user receiver's
	// ReceiverGroup is a group receiver's entity.
	ReceiverGroup *Group
	Reactions     []ReactionSummary
	// Action messages only: what happened (data.action) and the message it happened to, or
	// for a groupMember action the user.
	Action     string
	Target     *Message
	TargetID   int64
	TargetUID  string
	TargetUser *Entity
	// Threads: a reply's parent, and a parent's replies.
	ParentID   int64
	ReplyCount int64
	// A reply's new followers of its thread, stored with it (threads.go): ThreadJoin
	// follow it whatever they chose before, ThreadJoinIfNew unless they chose before.
	ThreadJoin, ThreadJoinIfNew []string
	// Files are the keys of the app's uploaded files the message carries (data.url,
	// data.attachments[].url), which its store marks attached in the message's transaction
	// so that the orphan sweep never takes them (filesweep.go); set on a send only.
	Files []string
	// Seq is the message's place among its conversation's counted messages; set only on
	// import, where the service numbers a batch itself (dataimport.go).
	Seq      int64
	EditedAt int64
	EditedBy string
	// One-to-one messages: when the receiver's markers passed them.
	DeliveredAt int64
	ReadAt      int64
	// For the viewer of a list: its thread replies not read yet.
	UnreadReplies int64
	// A reaction change's answer only: what the change did, and the reaction record it
	// added (0 for a removal or no change).
	ReactionEffect ReactionEffect
	ReactionID     int64
	// Mentions are the users its text mentions (<@uid:...>), in order; MentionedMe is
	// whether the viewer is one of them.
	Mentions    []Entity
	MentionedMe bool
	// Receipts are its recipients' deliveries and reads (receipts.go), set where the
	// hosted service answers them: GET /messages/{id} and a conversation's lastMessage.
	Receipts     []Receipt
	WithReceipts bool
	// Pins and saves (pins.go): the message's pin, conversation-wide (PinnedBy a uid or
	// app_system), and when the viewer saved it; 0 when not.
	PinnedAt int64
	PinnedBy string
	SavedAt  int64
	// ThreadSubscribed is whether the viewer follows the message's thread (threads.go).
	ThreadSubscribed bool
	// Moderation is data.moderation.status (moderation.go): set on a message a rule held
	// (pending) and in the review lists; empty on every message delivered.
	Moderation string
	// QuotedID is the message this one quotes (quotes.go), 0 for none; Quoted is that
	// message as its readers see it, when it is still there and the read did not hide it.
	QuotedID int64
	Quoted   *Message
	// Interactions are the viewer's interactions with an interactive message
	// (interactive.go), its data.interactions.
	Interactions []Interaction
}

// MarkMentioned sets MentionedMe for viewer (none when empty).
func (m *Message) MarkMentioned(viewer string) {
	m.MentionedMe = false
	for _, e := range m.Mentions {
		if viewer != "" && e.UID == viewer {
			m.MentionedMe = true
		}
	}
}

// MarkTargetConversation gives a groupMember action's user the viewer's conversation with
// it, as the hosted service's examples show it on data.entities.on (none without a viewer,
// or when the viewer is that user).
func (m *Message) MarkTargetConversation(viewer string) {
	if m.TargetUser == nil {
		return
	}
	m.TargetUser.ConversationID = ""
	if viewer != "" && viewer != m.TargetUser.UID {
		m.TargetUser.ConversationID = ConversationID(viewer, m.TargetUser.UID)
	}
}

// MaxMentions bounds the users one message mentions: the first ones its text names.
const MaxMentions = 25

var mentionPattern = regexp.MustCompile(`<@uid:([A-Za-z0-9_-]{1,100})>`)

// ParseMentions returns the uids a text mentions as <@uid:...>, lower-cased, each once, in
// order, at most MaxMentions.
func ParseMentions(text string) []string {
	var out []string
	for _, m := range mentionPattern.FindAllStringSubmatch(text, -1) {
		uid, _ := NormalizeID(m[1])
		if !slices.Contains(out, uid) {
			out = append(out, uid)
		}
		if len(out) == MaxMentions {
			break
		}
	}
	return out
}

// mentions resolves the users a message's data.text mentions: those that exist and are
// active, in the order named.
func (s *Service) mentions(ctx context.Context, appID string, data json.RawMessage) ([]Entity, error) {
	var d struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(data, &d) != nil || d.Text == "" {
		return nil, nil
	}
	uids := ParseMentions(d.Text)
	if len(uids) == 0 {
		return nil, nil
	}
	users, err := s.cachedUsersByID(ctx, appID, uids)
	if err != nil {
		return nil, internal("read mentioned users", err)
	}
	var out []Entity
	for _, uid := range uids {
		if u, ok := users[uid]; ok {
			out = append(out, u.Entity())
		}
	}
	return out, nil
}

// Counts reports whether m counts in its conversation: a top-level message or custom
// message, which is unread until read past (docs/read-model.md). Actions and thread
// replies do not.
func (m *Message) Counts() bool {
	return m.ParentID == 0 && (m.Category == CategoryMessage || m.Category == CategoryCustom || m.Category == CategoryInteractive)
}

// MessageHead is what a rule needs to decide on a message inside a write transaction.
type MessageHead struct {
	ID           int64
	AppID        string
	Sender       string
	Receiver     string
	ReceiverType string
	DeletedAt    int64
}

// ConversationID of a one-to-one conversation: the two uids ascending, joined by _user_.
func ConversationID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "_user_" + b
}

// MessageStore keeps messages.
type MessageStore interface {
	// CreateMessage inserts m and sets its ID, and in the same transaction the outbox
	// events, each completed with the new message's id.
	CreateMessage(ctx context.Context, m *Message, events ...OutboxEvent) error
	// Message returns the message with its parties' entities and, when viewer is not empty,
	// the reaction summary with reactedByMe for viewer.
	Message(ctx context.Context, appID string, id int64, viewer string) (Message, error)
}

// Message categories and types natter accepts on send.
const (
	CategoryMessage = "message"
	CategoryCustom  = "custom"
	CategoryAction  = "action"
)

var mediaTypes = map[string]bool{"image": true, "file": true, "audio": true, "video": true}

// reservedDataKeys are generated by natter and dropped from what a sender supplies.
var reservedDataKeys = map[string]bool{"entities": true, "reactions": true, "action": true, "mentions": true, "moderation": true}

// MessageSend is a send-message request.
type MessageSend struct {
	Receiver     string
	ReceiverType string
	Category     string
	Type         string
	Data         json.RawMessage
	Tags         []string
	MUID         string
	// QuotedID is the body's quotedMessageId as sent (a string or a number; absent, null,
	// "" and 0 quote nothing).
	QuotedID json.RawMessage
}

// SendMessage sends a message from the acting user to a user, or to a group the user is a
// member of. A group message is one row, whatever the group's size.
func (s *Service) SendMessage(ctx context.Context, p Principal, in MessageSend) (Message, error) {
	return s.send(ctx, p, in, nil)
}

// send sends a message, or a reply into parent's thread, which must be in the same
// conversation.
func (s *Service) send(ctx context.Context, p Principal, in MessageSend, parent *Message) (Message, error) {
	sender, err := s.actingUser(ctx, p)
	if err != nil {
		return Message{}, err
	}
	return s.sendAs(ctx, p, sender, in, parent)
}

// sendAs is send from sender, the principal's acting user already read.
func (s *Service) sendAs(ctx context.Context, p Principal, sender User, in MessageSend, parent *Message) (Message, error) {
	m, err := validateSend(in)
	if err != nil {
		return Message{}, err
	}
	m.AppID, m.Sender = p.App.ID, sender.UID
	m.Files = s.messageFileKeys(m.AppID, m.Data)
	a := Action{Op: OpSendMessage, Role: sender.Role, ReceiverType: m.ReceiverType, Category: m.Category, Type: m.Type, Data: m.Data}
	if parent != nil {
		a.Op = OpSendThreadMessage
	}
	to, err := s.addressee(ctx, p, sender.UID, m.ReceiverType, m.Receiver)
	if err != nil {
		return Message{}, err
	}
	if g := to.Group; g != nil {
		a.GUID, a.Scope = g.GUID, g.Viewer.Scope
		g.Viewer = nil
		m.Receiver, m.ConversationID, m.ReceiverGroup = g.GUID, GroupConversationID(g.GUID), g
	} else {
		receiver := *to.User
		a.ReceiverRole, a.Friend = receiver.Role, s.friendOf(ctx, p.App.ID, sender.UID, receiver.UID)
		m.Receiver, m.ConversationID, m.ReceiverEntity = receiver.UID, ConversationID(sender.UID, receiver.UID), receiver.Entity()
	}
	if _, err := s.permit(ctx, p, a); err != nil {
		return Message{}, err
	}
	if err := s.checkUploads(ctx, p.App.ID, m.Files); err != nil { // files.go: files posted straight to the bucket
		return Message{}, err
	}
	if parent != nil {
		if m.ConversationID != parent.ConversationID {
			return Message{}, Errorf(CodeWrongMessageThread, "The message with id %d is in another conversation than %s.", parent.ID, m.ConversationID)
		}
		m.ParentID = parent.ID
	}
	if m.Mentions, err = s.mentions(ctx, p.App.ID, m.Data); err != nil {
		return Message{}, err
	}
	if err := s.quote(ctx, &m, in.QuotedID); err != nil {
		return Message{}, err
	}
	if parent != nil {
		m.ThreadJoin, m.ThreadJoinIfNew = replySubscribers(parent, &m)
	}
	mod, err := s.moderate(ctx, &m, ruleSubject{Sender: &sender, Receiver: to.User, Group: to.Group}) // moderationengine.go: a dropMessage rule refuses it
	if err != nil {
		return Message{}, err
	} else if mod.block != nil {
		return s.holdMessage(ctx, sender, m, mod)
	}
	now := s.now()
	m.SentAt, m.UpdatedAt = now, now
	var events []OutboxEvent
	if ev := mod.approvedEvent(ctx, s, &m); ev != nil {
		events = append(events, *ev)
	}
	if ev := s.outboxEvent(ctx, TriggerMessageSent, &m, EventRef{Data: m.Data, Tags: m.Tags}); ev != nil {
		events = append(events, *ev)
	}
	if len(m.Mentions) > 0 {
		// One event per message, its mentionedUsers saying who: as message_sent's data.
		if ev := s.outboxEvent(ctx, TriggerUserMentioned, &m, EventRef{Data: m.Data, Tags: m.Tags}); ev != nil {
			events = append(events, *ev)
		}
	}
	if ev := s.notificationEvent(ctx, TriggerMessageSent, &m); ev != nil {
		events = append(events, *ev)
	}
	events = append(events, s.agentJobs(ctx, &m)...) // agents.go
	// As answered, before it is announced (the store sets its ID).
	m.SenderEntity = sender.Entity()
	m.MarkMentioned(sender.UID)
	if err := s.createMessage(ctx, &m, events); errors.Is(err, ErrFileGone) {
		return Message{}, errFileGone
	} else if err != nil {
		return Message{}, internal("send message", err)
	}
	s.rollup.message(p.App.ID, sender.UID, now)
	return m, nil
}

// createMessage stores a new message with its events and announces it.
func (s *Service) createMessage(ctx context.Context, m *Message, events []OutboxEvent) error {
	w := &writeCtx{}
	w.single(ctx, Change{Kind: ChangeMessage, App: m.AppID, Message: m, Work: workOf(events)})
	if err := s.store.CreateMessage(w, m, events...); err != nil {
		return err
	}
	s.announce(ctx, w.cs.list)
	return nil
}

// attachmentMIMETypes are the mimeType of each of a media message's data.attachments;
// known is false when it has none, or one states none.
func attachmentMIMETypes(data json.RawMessage) (types []string, known bool) {
	var d struct {
		Attachments []struct {
			MIMEType string `json:"mimeType"`
		} `json:"attachments"`
	}
	if json.Unmarshal(data, &d) != nil || len(d.Attachments) == 0 {
		return nil, false
	}
	for _, a := range d.Attachments {
		if a.MIMEType == "" {
			return nil, false
		}
		types = append(types, a.MIMEType)
	}
	return types, true
}

// Entity is the user's short shape for message entities.
func (u User) Entity() Entity {
	return Entity{UID: u.UID, Name: u.Name, Avatar: u.Avatar, Role: u.Role, Status: u.Status, CreatedAt: u.CreatedAt, LastActiveAt: u.LastActiveAt,
		Link: u.Link, UpdatedAt: u.UpdatedAt}
}

func validateSend(in MessageSend) (Message, error) {
	switch {
	case in.Receiver == "":
		return Message{}, Errorf(CodeEmptyReceiver, "The receiver field is required.")
	case in.ReceiverType != ReceiverUser && in.ReceiverType != ReceiverGroup:
		return Message{}, Errorf(CodeInvalidReceiverType, "The receiverType must be user or group.")
	}
	m, err := validateContent(in)
	m.Receiver, m.ReceiverType = in.Receiver, in.ReceiverType
	return m, err
}

// validateContent checks what a send sends, whoever receives it: category, type, tags,
// muid and data.
func validateContent(in MessageSend) (Message, error) {
	// The hosted service's spec defaults both.
	if in.Category == "" {
		in.Category = CategoryMessage
	}
	if in.Type == "" {
		in.Type = "text"
	}
	m := Message{Category: in.Category, Type: in.Type, MUID: in.MUID}
	switch {
	case in.Category != CategoryMessage && in.Category != CategoryCustom && in.Category != CategoryInteractive:
		return m, Errorf(CodeInvalidCategory, "The category must be message, custom or interactive.")
	case in.Category == CategoryMessage && in.Type != "text" && !mediaTypes[in.Type],
		utf8.RuneCountInString(in.Type) > MaxMessageTypeLen || !utf8.ValidString(in.Type) || strings.IndexByte(in.Type, 0) >= 0:
		return m, Errorf(CodeInvalidType, "The type %s is not valid for category %s.", brief(in.Type), in.Category)
	}
	fe := fieldErrors{}
	m.Tags = fe.tags("tags", in.Tags)
	fe.text("muid", in.MUID, MaxMUIDLen, false)
	if err := fe.err(); err != nil {
		return m, err
	}
	var reserved []string
	if in.Category == CategoryInteractive {
		reserved = []string{"interactions"} // the viewer's, generated on every read
	}
	data, fields, err := cleanData(in.Data, reserved...)
	if err != nil {
		return m, err
	}
	m.Data = data
	if raw, ok := fields["metadata"]; ok && !isJSONKind(raw, '{') {
		return m, Errorf(CodeInvalidMetadata, "The data.metadata must be a JSON object.")
	}
	switch {
	case in.Category == CategoryInteractive:
		if err := validateInteractive(in.Type, fields); err != nil {
			return m, err
		}
	case in.Category == CategoryCustom:
		raw, ok := fields["customData"]
		if !ok || string(raw) == "null" {
			return m, Errorf(CodeEmptyCustomData, "The data.customData field is required for custom messages.")
		}
		if !isJSONKind(raw, '{') {
			return m, Errorf(CodeInvalidCustomData, "The data.customData must be a JSON object.")
		}
	case in.Type == "text":
		raw, ok := fields["text"]
		if !ok || string(raw) == "null" || string(raw) == `""` {
			return m, Errorf(CodeEmptyText, "The data.text field is required for text messages.")
		}
		if !isJSONKind(raw, '"') {
			return m, Errorf(CodeInvalidText, "The data.text must be a string.")
		}
	default: // media
		att, hasAtt := fields["attachments"]
		url, hasURL := fields["url"]
		if (!hasAtt || !isJSONKind(att, '[') || string(att) == "[]") && (!hasURL || !isJSONKind(url, '"') || string(url) == `""`) {
			return m, Errorf(CodeEmptyFile, "A %s message needs data.attachments or data.url, or a file.", in.Type)
		}
	}
	return m, nil
}

// cleanData checks that raw is a JSON object of at most MaxMessageDataBytes, drops the keys
// natter generates, and returns it compacted with its key order kept, plus its top-level
// fields.
func cleanData(raw json.RawMessage, reserved ...string) (json.RawMessage, map[string]json.RawMessage, error) {
	bad := Errorf(CodeInvalidMessageData, "The data field must be a JSON object of at most 10 KB.")
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`), map[string]json.RawMessage{}, nil
	}
	fe := fieldErrors{}
	if _, ok := fe.storedJSON("data", raw); !ok {
		return nil, nil, fe.err()
	}
	if len(raw) > 4*MaxMessageDataBytes || !isJSONKind(raw, '{') {
		return nil, nil, bad
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, nil, bad
	}
	fields := map[string]json.RawMessage{}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, bad
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, bad
		}
		if reservedDataKeys[key] || slices.Contains(reserved, key) {
			continue
		}
		if _, dup := fields[key]; dup {
			return nil, nil, Errorf(CodeInvalidMessageData, "The data field repeats the key %s.", brief(key))
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v); err != nil {
			return nil, nil, bad
		}
		fields[key] = compact.Bytes()
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(compact.Bytes())
	}
	out.WriteByte('}')
	if out.Len() > MaxMessageDataBytes {
		return nil, nil, bad
	}
	data, _ := RepairJSONText(out.Bytes()) // escaped lone surrogates become \ufffd (utf8.go)
	return data, fields, nil
}

func isJSONKind(raw json.RawMessage, first byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == first
}

// ParseMessageID parses a message id from a path; anything not a positive integer names no
// message.
func ParseMessageID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, errMessageNotFound(0)
	}
	return id, nil
}

// errMessageNotFound names the message by the id natter parsed; 0 for a path value that was
// not an id, which is not quoted.
func errMessageNotFound(id int64) error {
	if id <= 0 {
		return Errorf(CodeMessageNotFound, "The message does not exist.")
	}
	return Errorf(CodeMessageNotFound, "The message with id %d does not exist.", id)
}

// Message returns a message. Acting as a user, only a participant may read it, as far as
// its permissions let it, and the reaction summary marks that user's reactions.
func (s *Service) Message(ctx context.Context, p Principal, id string) (Message, error) {
	m, viewer, err := s.message(ctx, p, id)
	if err == nil && viewer.UID != "" {
		_, err = s.permit(ctx, p, Action{Op: OpGetMessage, Role: viewer.Role})
	}
	if err == nil && m.Category != CategoryAction {
		err = s.withReceipts(ctx, p.App.ID, []*Message{&m})
	}
	return m, err
}

// message reads a message as Message does, with the acting user (none when the app acts).
func (s *Service) message(ctx context.Context, p Principal, id string) (Message, User, error) {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, User{}, err
	}
	var viewer User
	if p.acting() {
		if viewer, err = s.actingUser(ctx, p); err != nil {
			return Message{}, User{}, err
		}
	}
	m, err := s.store.Message(ctx, p.App.ID, mid, viewer.UID)
	if errors.Is(err, ErrNotFound) {
		return Message{}, User{}, errMessageNotFound(mid)
	}
	if err != nil {
		return Message{}, User{}, internal("get message", err)
	}
	if viewer.UID != "" {
		if err := s.canSee(ctx, m.Head(), viewer.UID); err != nil {
			return Message{}, User{}, err
		}
	}
	return m, viewer, nil
}

// canSee looks up what canSee needs to know about a group message's viewer.
func (s *Service) canSee(ctx context.Context, h MessageHead, uid string) error {
	member := false
	if h.ReceiverType == ReceiverGroup {
		m, err := s.member(ctx, h.AppID, h.Receiver, uid)
		if err != nil {
			return err
		}
		member = m.Joined()
	}
	return canSee(h, uid, member)
}

// Head is the part of m that rules decide on.
func (m Message) Head() MessageHead {
	return MessageHead{ID: m.ID, AppID: m.AppID, Sender: m.Sender, Receiver: m.Receiver, ReceiverType: m.ReceiverType, DeletedAt: m.DeletedAt}
}

// canSee is the access rule: a one-to-one message is visible to its two parties, a group
// message to the group's members (member says whether uid is one; a banned user is not).
func canSee(h MessageHead, uid string, member bool) error {
	if h.ReceiverType == ReceiverUser && (h.Sender == uid || h.Receiver == uid) || h.ReceiverType == ReceiverGroup && member {
		return nil
	}
	return Errorf(CodeMessageNoAccess, "The user %s does not have access to the message with id %d.", uid, h.ID)
}

func errDeleted(h MessageHead) error {
	return Errorf(CodeMessageActionDenied, "The message with id %d has been deleted; no action is allowed on it.", h.ID)
}

// MessageTx is what deleting a message needs inside its transaction.
type MessageTx interface {
	// MessageForChange holds the message against concurrent changes until the transaction
	// ends and reads it with its entities and reaction summary; ErrNotFound when the app
	// has no such message that can be acted on (action messages cannot).
	MessageForChange(appID string, id int64) (Message, error)
	// MarkMessageDeleted soft-deletes it; PurgeMessage removes it with its reactions.
	MarkMessageDeleted(appID string, id int64, by string, at int64) error
	PurgeMessage(appID string, id int64) error
	// InsertMessage stores a new message and sets its ID.
	InsertMessage(m *Message) error
	// EditMessage writes an edit: the message's new data and tags, and who edited it when.
	EditMessage(m *Message) error
	// SetMentions replaces whom a message mentions with m.Mentions.
	SetMentions(m *Message) error
}

// recordAction announces the action message that records an edit or a deletion of m, with
// the webhook event of trigger when event says the app subscribes to it.
func (s *Service) recordAction(tx Tx, cs *Changes, action, m *Message, trigger string, event bool) error {
	c := messageChange(action, 0)
	cs.Add(c)
	if !event {
		return nil
	}
	c.Work = WorkWebhook
	return tx.InsertOutbox(s.actionEvent(trigger, action, m))
}

// SystemUID is the actor of actions taken by the app itself rather than a user.
const SystemUID = "app_system"

// DeleteMessage soft-deletes (or with permanent removes) a message and returns the action
// message that records it. Acting as a user only the sender may delete; otherwise the app
// acts as app_system.
func (s *Service) DeleteMessage(ctx context.Context, p Principal, id string, permanent bool) (Message, error) {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	actor := Entity{UID: SystemUID, Name: "System", Role: DefaultRole, Status: "offline"}
	if p.acting() {
		u, err := s.actingUser(ctx, p)
		if err != nil {
			return Message{}, err
		}
		actor = u.Entity()
	}
	now := s.now()
	action := &Message{AppID: p.App.ID, Category: CategoryAction, Type: "message", Sender: actor.UID, SentAt: now, UpdatedAt: now,
		SenderEntity: actor, Action: "deleted", TargetID: mid, Data: json.RawMessage(`{"action":"deleted"}`)}
	event := s.subscribed(ctx, p.App.ID, TriggerMessageDeleted)
	var target Message
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		m, err := tx.MessageForChange(p.App.ID, mid)
		if errors.Is(err, ErrNotFound) {
			return errMessageNotFound(mid)
		}
		if err != nil {
			return err
		}
		h := m.Head()
		if p.acting() {
			if err := s.mayChange(ctx, tx, p, h, actor, OpDeleteMessage); err != nil {
				return err
			}
		}
		if h.DeletedAt != 0 {
			return errDeleted(h)
		}
		if permanent {
			err = tx.PurgeMessage(p.App.ID, mid)
		} else {
			err = tx.MarkMessageDeleted(p.App.ID, mid, actor.UID, now)
		}
		if err != nil {
			return err
		}
		action.ReceiverType, action.Receiver, action.ConversationID = h.ReceiverType, h.Receiver, m.ConversationID
		target = m
		if err := tx.InsertMessage(action); err != nil {
			return err
		}
		// As answered, before it is announced.
		target.DeletedAt, target.DeletedBy = now, actor.UID
		action.ReceiverEntity, action.ReceiverGroup = target.ReceiverEntity, target.ReceiverGroup
		target.MarkMentioned(p.Actor)
		action.Target = &target
		return s.recordAction(tx, cs, action, &m, TriggerMessageDeleted, event)
	})
	if ErrorCode(err) != "" {
		return Message{}, err
	}
	if err != nil {
		return Message{}, internal("delete message", err)
	}
	if permanent {
		s.removeMessageFiles(ctx, target) // files.go
	}
	return *action, nil
}

// MessageEdit is an edit: the new data.text and data.metadata, and tags; nil leaves each
// as it is.
type MessageEdit struct {
	Data json.RawMessage
	Tags *[]string
}

// editableKeys are the data keys an edit may change, as in the hosted spec.
var editableKeys = map[string]bool{"text": true, "metadata": true}

// EditMessage edits a message's text, metadata or tags and returns the "edited" action
// message that records it, with the edited message. Acting as a user, the sender may edit,
// and in a group its admins and moderators; otherwise the app edits as app_system.
func (s *Service) EditMessage(ctx context.Context, p Principal, id string, in MessageEdit) (Message, error) {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	var changes map[string]json.RawMessage
	if len(in.Data) > 0 && string(in.Data) != "null" {
		_, fields, err := cleanData(in.Data)
		if err != nil {
			return Message{}, err
		}
		fe := fieldErrors{}
		for k := range fields {
			if !editableKeys[k] {
				fe.add("data", "An edit may change data.text and data.metadata only, not data."+brief(k)+".")
			}
		}
		if raw, ok := fields["text"]; ok && (!isJSONKind(raw, '"') || string(raw) == `""`) {
			return Message{}, Errorf(CodeInvalidText, "The data.text must be a non-empty string.")
		}
		if raw, ok := fields["metadata"]; ok && !isJSONKind(raw, '{') {
			return Message{}, Errorf(CodeInvalidMetadata, "The data.metadata must be a JSON object.")
		}
		if err := fe.err(); err != nil {
			return Message{}, err
		}
		changes = fields
	}
	var tags []string
	if in.Tags != nil {
		fe := fieldErrors{}
		tags = fe.tags("tags", *in.Tags)
		if err := fe.err(); err != nil {
			return Message{}, err
		}
	}
	if changes == nil && in.Tags == nil {
		return Message{}, InvalidField("data", "Send data.text, data.metadata or tags to change.")
	}
	if err := s.moderateEdit(ctx, p.App.ID, mid, changes); err != nil { // moderationengine.go
		return Message{}, err
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
		return Message{}, err
	}
	var mentions []Entity
	if _, ok := changes["text"]; ok {
		if mentions, err = s.mentions(ctx, p.App.ID, json.RawMessage(`{"text":`+string(changes["text"])+`}`)); err != nil {
			return Message{}, err
		}
	}
	now := s.now()
	action := &Message{AppID: p.App.ID, Category: CategoryAction, Type: "message", Sender: actor.UID, SentAt: now, UpdatedAt: now,
		SenderEntity: actor, Action: "edited", TargetID: mid, Data: json.RawMessage(`{"action":"edited"}`)}
	event := s.subscribed(ctx, p.App.ID, TriggerMessageEdited)
	var target Message
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		m, err := tx.MessageForChange(p.App.ID, mid)
		if errors.Is(err, ErrNotFound) {
			return errMessageNotFound(mid)
		}
		if err != nil {
			return err
		}
		h := m.Head()
		if p.acting() {
			if err := s.mayChange(ctx, tx, p, h, actor, OpEditMessage); err != nil {
				return err
			}
		}
		if h.DeletedAt != 0 {
			return errDeleted(h)
		}
		if _, ok := changes["text"]; ok && m.Type != "text" {
			return Errorf(CodeInvalidMessageData, "The message with id %d is a %s message: only a text message has a text to edit.", mid, m.Type)
		}
		if changes != nil {
			m.Data = replaceKeys(m.Data, changes)
		}
		if _, ok := changes["text"]; ok {
			m.Mentions = mentions
			if err := tx.SetMentions(&m); err != nil {
				return err
			}
		}
		if in.Tags != nil {
			m.Tags = tags
		}
		m.EditedAt, m.EditedBy, m.UpdatedAt = now, actor.UID, now
		if err := tx.EditMessage(&m); err != nil {
			return err
		}
		action.ReceiverType, action.Receiver, action.ConversationID = h.ReceiverType, h.Receiver, m.ConversationID
		target = m
		if err := tx.InsertMessage(action); err != nil {
			return err
		}
		// As answered, before it is announced.
		action.ReceiverEntity, action.ReceiverGroup = target.ReceiverEntity, target.ReceiverGroup
		target.MarkMentioned(p.Actor)
		action.Target = &target
		return s.recordAction(tx, cs, action, &m, TriggerMessageEdited, event)
	})
	if ErrorCode(err) != "" {
		return Message{}, err
	}
	if err != nil {
		return Message{}, internal("edit message", err)
	}
	return *action, nil
}

// mayChange is who may edit or delete a message on a user's behalf: its sender, and in a
// group also the group's admins and moderators, as far as their permissions let them (op
// is OpEditMessage or OpDeleteMessage); a user who cannot see the message at all is told
// so first.
func (s *Service) mayChange(ctx context.Context, tx Tx, p Principal, h MessageHead, actor Entity, op Op) error {
	uid, scope, guid := actor.UID, "", ""
	if h.ReceiverType == ReceiverGroup {
		st, err := tx.MemberStates(h.AppID, h.Receiver, []string{uid})
		if err != nil {
			return err
		}
		scope, guid = st[uid].Membership.Scope, h.Receiver
	}
	if err := canSee(h, uid, scope != ""); err != nil {
		return err
	}
	if h.Sender != uid && scope != ScopeAdmin && scope != ScopeModerator {
		verb := "edit"
		if op == OpDeleteMessage {
			verb = "delete"
		}
		return Errorf(CodeMessageNotASender, "Only the sender may %s the message with id %d.", verb, h.ID)
	}
	_, err := s.permit(ctx, p, Action{Op: op, Role: actor.Role, GUID: guid, Scope: scope})
	return err
}

// replaceKeys returns the JSON object data with the keys in changes replaced (in place, so
// key order holds) or added at the end.
func replaceKeys(data json.RawMessage, changes map[string]json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	out.WriteByte('{')
	done := map[string]bool{}
	write := func(k string, v []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(v)
	}
	if _, err := dec.Token(); err == nil {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			k, _ := tok.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				break
			}
			if nv, ok := changes[k]; ok {
				v, done[k] = nv, true
			}
			write(k, v)
		}
	}
	for _, k := range []string{"text", "metadata"} {
		if v, ok := changes[k]; ok && !done[k] {
			write(k, v)
		}
	}
	out.WriteByte('}')
	return out.Bytes()
}
