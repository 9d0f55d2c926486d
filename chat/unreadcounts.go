package chat

import "context"

// UnreadCount is how many messages of one conversation the acting user has not read: the
// answer of unread=true&count=true, one per conversation, as the client SDKs read it
// ({entityId, entityType, count}).
type UnreadCount struct {
	EntityID   string // the other user's uid, or the group's guid
	EntityType string // ReceiverUser or ReceiverGroup
	Count      int64
}

// unreadCount is one conversation's count as the answer lists it: nothing when none is
// unread.
func unreadCount(kind, id string, n int64) []UnreadCount {
	if n <= 0 {
		return []UnreadCount{}
	}
	return []UnreadCount{{EntityID: id, EntityType: kind, Count: n}}
}

// aggregateFilter names the first filter of page that would narrow an unread count across
// conversations, as the parameter is spelled (the paging parameters and hideReplies do not
// narrow it: a count has no page, and replies are never unread).
func (p MessagePage) aggregateFilter() string {
	switch {
	case p.ConversationID != "":
		return "conversationId"
	case len(p.Categories) > 0:
		return "categories"
	case len(p.Types) > 0:
		return "types"
	case p.Sender != "":
		return "sender"
	case p.SearchKey != "":
		return "searchKey"
	case p.FromTimestamp > 0:
		return "fromTimestamp"
	case p.ToTimestamp > 0:
		return "toTimestamp"
	case p.SentAt > 0:
		return "sentAt"
	case p.HideDeleted:
		return "hideDeleted"
	case p.OnlyDeleted:
		return "onlyDeleted"
	case p.HasReactions:
		return "hasReactions"
	case p.HasAttachments:
		return "hasAttachments"
	case len(p.AttachmentTypes) > 0:
		return "attachmentTypes"
	case p.HasLinks:
		return "hasLinks"
	case len(p.Tags) > 0:
		return "tags"
	case p.HasMentions:
		return "hasMentions"
	case len(p.MentionedUIDs) > 0:
		return "mentionedUids"
	case p.MyMentionsOnly:
		return "myMentionsOnly"
	case p.Pinned:
		return "pinned"
	case p.Saved:
		return "saved"
	case len(p.Senders) > 0:
		return "senders"
	case p.SentRange.Set():
		return "sentAt"
	case p.UpdatedRange.Set():
		return "updatedAt"
	case p.EditedRange.Set():
		return "editedAt"
	}
	return ""
}

// unreadCounts answers GET /messages?unread=true&count=true: one count per conversation of
// the acting user that has unread messages, its one-to-one conversations and its groups'
// (receiverType narrows to one kind; a kind natter does not know matches nothing). Each is
// the count its conversation shows in the conversation list (docs/read-model.md), read
// from the conversation rows without walking history; with hideMessagesFromBlockedUsers,
// or permissions that hide some categories or types, the conversations with unread
// messages are counted again with those applied, as their own lists count them.
func (s *Service) unreadCounts(ctx context.Context, p Principal, page MessagePage, q MessageQuery) ([]UnreadCount, error) {
	if !p.acting() {
		return nil, InvalidField("onBehalfOf", "Unread counts are a user's: send the onBehalfOf header (or an auth token).")
	}
	if name := page.aggregateFilter(); name != "" {
		return nil, InvalidField(name, "Unread counts across conversations take only receiverType and hideMessagesFromBlockedUsers: count one conversation's with /users/{uid}/messages or /groups/{guid}/messages.")
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return nil, err
	}
	if q, err = s.permitted(ctx, p, q, Action{Op: OpListMessages, Role: u.Role}); err != nil {
		return nil, err
	}
	out := []UnreadCount{}
	if q.ReceiverType != "" && q.ReceiverType != ReceiverUser && q.ReceiverType != ReceiverGroup {
		return out, nil
	}
	recount := page.HideBlocked || len(q.AllowedCategories) > 0 || len(q.AllowedTypes) > 0
	cq := ConversationQuery{Viewer: u.UID, Kind: q.ReceiverType, Unread: true, Page: Page{Number: 1, PerPage: MaxPerPage}}
	for {
		rows, total, err := s.store.ListConversations(ctx, p.App.ID, cq)
		if err != nil {
			return nil, internal("unread counts", err)
		}
		for _, r := range rows {
			n := max(0, r.LastSeq-r.Marker.ReadSeq-r.Own)
			if n > 0 && recount {
				c := q
				c.ConversationID, c.Viewer, c.HiddenUpTo = r.ID, u.UID, r.Marker.ResetID
				c.Unread, c.UnreadAfter = true, r.Marker.ReadID
				if page.HideBlocked {
					c.HideBlockedFor = u.UID
				}
				if n, err = s.store.CountMessages(ctx, p.App.ID, c); err != nil {
					return nil, internal("unread counts", err)
				}
			}
			if n <= 0 {
				continue
			}
			id := r.GUID
			if r.Kind == ConversationUser {
				id = r.other(u.UID)
			}
			out = append(out, UnreadCount{EntityID: id, EntityType: r.Kind, Count: n})
		}
		if len(rows) < cq.Page.PerPage || cq.Page.Offset()+len(rows) >= total {
			return out, nil
		}
		cq.Page.Number++
	}
}
