package wire

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
)

// Messages are on the path of every message and reaction response, so they are encoded by
// hand rather than through encoding/json's reflection (which also re-validated the
// generated parts of data): the same bytes — keys in the hosted service's order, the
// optional keys omitted when empty, strings escaped as encoding/json escapes
// them without HTML escaping — in a fraction of the time. encode_test.go holds the
// reflection-based encoder as the oracle.

// AppendMessage appends the wire message.
func AppendMessage(b []byte, m chat.Message) []byte {
	b = append(b, `{"id":"`...)
	b = strconv.AppendInt(b, m.ID, 10)
	b = append(b, `","conversationId":`...)
	b = AppendString(b, m.ConversationID)
	b = append(b, `,"sender":`...)
	b = AppendString(b, m.Sender)
	b = append(b, `,"receiverType":`...)
	b = AppendString(b, m.ReceiverType)
	b = append(b, `,"receiver":`...)
	b = AppendString(b, m.Receiver)
	b = append(b, `,"category":`...)
	b = AppendString(b, m.Category)
	b = append(b, `,"type":`...)
	b = AppendString(b, m.Type)
	b = append(b, `,"data":`...)
	b = AppendData(b, m)
	b = append(b, `,"sentAt":`...)
	b = strconv.AppendInt(b, m.SentAt, 10)
	b = appendTime(b, `,"deliveredAt":`, m.DeliveredAt)
	b = appendTime(b, `,"readAt":`, m.ReadAt)
	b = appendTime(b, `,"editedAt":`, m.EditedAt)
	if m.EditedBy != "" {
		b = append(b, `,"editedBy":`...)
		b = AppendString(b, m.EditedBy)
	}
	b = append(b, `,"updatedAt":`...)
	b = strconv.AppendInt(b, m.UpdatedAt, 10)
	if m.ParentID != 0 {
		b = append(b, `,"parentId":"`...)
		b = strconv.AppendInt(b, m.ParentID, 10)
		b = append(b, '"')
	}
	b = appendTime(b, `,"replyCount":`, m.ReplyCount)
	b = appendTime(b, `,"unreadRepliesCount":`, m.UnreadReplies)
	if len(m.Mentions) > 0 {
		b = append(b, `,"mentionedUsers":[`...)
		for i, e := range m.Mentions {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendUser(b, e, "")
		}
		b = append(b, ']')
		if m.MentionedMe {
			b = append(b, `,"mentionedMe":true`...)
		}
	}
	if m.MUID != "" {
		b = append(b, `,"muid":`...)
		b = AppendString(b, m.MUID)
	}
	if len(m.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range m.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, t)
		}
		b = append(b, ']')
	}
	if m.QuotedID != 0 { // a quoted reply: the id always, the message when it was read
		b = append(b, `,"quotedMessageId":"`...)
		b = strconv.AppendInt(b, m.QuotedID, 10)
		b = append(b, '"')
		if m.Quoted != nil {
			b = AppendMessage(append(b, `,"quotedMessage":`...), *m.Quoted)
		}
	}
	if m.DeletedAt != 0 {
		b = append(b, `,"deletedAt":`...)
		b = strconv.AppendInt(b, m.DeletedAt, 10)
	}
	if m.DeletedBy != "" {
		b = append(b, `,"deletedBy":`...)
		b = AppendString(b, m.DeletedBy)
	}
	if m.PinnedAt != 0 {
		b = strconv.AppendInt(append(b, `,"pinnedAt":`...), m.PinnedAt, 10)
	}
	if m.PinnedBy != "" {
		b = append(b, `,"pinnedBy":`...)
		b = AppendString(b, m.PinnedBy)
	}
	b = appendTime(b, `,"savedAt":`, m.SavedAt)
	if m.ThreadSubscribed {
		b = append(b, `,"threadSubscribed":true`...)
	}
	if m.WithReceipts {
		b = appendReceipts(b, m.Receipts)
	}
	return append(b, '}')
}

// appendReceipts appends receipts as the SDK's getMessageReceipts reads them:
// {"data":[{"recipient":user,"deliveredAt":…,"readAt":…}]}.
func appendReceipts(b []byte, rs []chat.Receipt) []byte {
	b = append(b, `,"receipts":{"data":[`...)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"recipient":`...)
		b = AppendUser(b, r.Recipient, "")
		b = appendTime(b, `,"deliveredAt":`, r.DeliveredAt)
		b = appendTime(b, `,"readAt":`, r.ReadAt)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendTime appends key and n when n is not 0.
func appendTime(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), n, 10)
}

// AppendData appends the message's data: the stored content object (kept compact since it
// was sent, and checked on its way out: jsonguard.go) with the generated keys after it:
// entities, then reactions when there are any.
func AppendData(b []byte, m chat.Message) []byte {
	if m.Category == chat.CategoryCall {
		return appendCallData(b, m)
	}
	data := StoredObject(m.Data)
	if len(data) < 2 {
		data = []byte("{}")
	}
	b = append(b, data[:len(data)-1]...) // without its closing brace
	if len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		b = append(b, ',')
	}
	b = append(b, `"entities":{`...)
	if m.Category == chat.CategoryAction {
		b = append(b, `"by":`...)
		b = appendUserEntity(b, m.SenderEntity, "")
		if m.TargetUser != nil { // a groupMember action: by, on, for, as the hosted examples
			b = append(b, `,"on":`...)
			b = appendUserEntity(b, *m.TargetUser, m.TargetUser.ConversationID)
		}
		b = append(b, `,"for":`...)
		b = appendReceiver(b, m)
		if m.Target != nil {
			b = append(b, `,"on":{"entity":`...)
			b = AppendMessage(b, *m.Target)
			b = append(b, `,"entityType":"message"}`...)
		}
		return append(b, "}}"...)
	}
	b = append(b, `"sender":`...)
	b = appendUserEntity(b, m.SenderEntity, "")
	b = append(b, `,"receiver":`...)
	b = appendReceiver(b, m)
	b = append(b, '}')
	if len(m.Mentions) > 0 { // uid → user, as in the hosted service's webhook payloads
		b = append(b, `,"mentions":{`...)
		for i, e := range m.Mentions {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, e.UID)
			b = append(b, ':')
			b = AppendUser(b, e, "")
		}
		b = append(b, '}')
	}
	if len(m.Reactions) > 0 {
		b = append(b, `,"reactions":[`...)
		for i, r := range m.Reactions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"reaction":`...)
			b = AppendString(b, r.Reaction)
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, r.Count, 10)
			if r.ReactedByMe { // present only when true, as on the hosted service
				b = append(b, `,"reactedByMe":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(m.Interactions) > 0 { // the viewer's, on an interactive message, as the SDK reads them
		b = append(b, `,"interactions":[`...)
		for i, in := range m.Interactions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"elementId":`...)
			b = AppendString(b, in.ElementID)
			b = strconv.AppendInt(append(b, `,"interactedAt":`...), in.InteractedAt, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if m.Moderation != "" { // a message a moderation rule held, or in a review list
		b = append(b, `,"moderation":{"status":`...)
		b = append(AppendString(b, m.Moderation), '}')
	}
	return append(b, '}')
}

// appendReceiver appends the message's receiver entity: its group, or its user with the
// conversation id.
func appendReceiver(b []byte, m chat.Message) []byte {
	if m.ReceiverType == chat.ReceiverGroup {
		g := m.ReceiverGroup
		if g == nil { // the group is gone
			g = &chat.Group{GUID: m.Receiver}
		}
		return appendGroupEntity(b, *g)
	}
	return appendUserEntity(b, m.ReceiverEntity, m.ConversationID)
}

// appendGroupEntity appends a group inside data.entities, keys in the order of the hosted
// service's examples.
func appendGroupEntity(b []byte, g chat.Group) []byte {
	b = append(b, `{"entity":{"guid":`...)
	b = AppendString(b, g.GUID)
	if g.Icon != "" {
		b = append(b, `,"icon":`...)
		b = AppendString(b, g.Icon)
	}
	b = append(b, `,"name":`...)
	b = AppendString(b, g.Name)
	if len(g.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range g.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"type":`...)
	b = AppendString(b, g.Type)
	if g.Owner != "" {
		b = append(b, `,"owner":`...)
		b = AppendString(b, g.Owner)
	}
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, g.CreatedAt, 10)
	if g.UpdatedAt > 0 {
		b = append(b, `,"updatedAt":`...)
		b = strconv.AppendInt(b, g.UpdatedAt, 10)
	}
	if g.UpdatedBy != "" {
		b = append(b, `,"updatedBy":`...)
		b = AppendString(b, g.UpdatedBy)
	}
	if g.Description != "" {
		b = append(b, `,"description":`...)
		b = AppendString(b, g.Description)
	}
	b = append(b, `,"membersCount":`...)
	b = strconv.AppendInt(b, g.MembersCount, 10)
	b = append(b, `,"conversationId":`...)
	b = AppendString(b, chat.GroupConversationID(g.GUID))
	return append(b, `},"entityType":"group"}`...)
}

// appendUserEntity appends a user inside data.entities; the receiver's carries
// the conversation id.
func appendUserEntity(b []byte, e chat.Entity, conversationID string) []byte {
	b = append(b, `{"entity":`...)
	b = AppendUser(b, e, conversationID)
	return append(b, `,"entityType":"user"}`...)
}

// AppendUser appends a user's short shape (entities, mentions).
func AppendUser(b []byte, e chat.Entity, conversationID string) []byte {
	b = append(b, `{"uid":`...)
	b = AppendString(b, e.UID)
	b = append(b, `,"name":`...)
	b = AppendString(b, e.Name)
	if e.Avatar != "" {
		b = append(b, `,"avatar":`...)
		b = AppendString(b, e.Avatar)
	}
	b = append(b, `,"role":`...)
	b = AppendString(b, e.Role)
	b = append(b, `,"status":`...)
	b = AppendString(b, e.Status)
	if e.CreatedAt > 0 {
		b = append(b, `,"createdAt":`...)
		b = strconv.AppendInt(b, e.CreatedAt, 10)
	}
	if e.LastActiveAt > 0 {
		b = append(b, `,"lastActiveAt":`...)
		b = strconv.AppendInt(b, e.LastActiveAt, 10)
	}
	if e.Link != "" {
		b = append(b, `,"link":`...)
		b = AppendString(b, e.Link)
	}
	b = appendTime(b, `,"updatedAt":`, e.UpdatedAt)
	if conversationID != "" {
		b = append(b, `,"conversationId":`...)
		b = AppendString(b, conversationID)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way encoding/json does with HTML escaping
// off: quotes, backslashes and control characters escaped (\b \f \n \r \t by name), invalid
// UTF-8 replaced by U+FFFD, and U+2028/U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
