package chat

import (
	"context"
	"slices"
)

// Receipt is one recipient's delivery and read of a message, as GET /messages/{id} and a
// conversation's lastMessage carry them in receipts.data (what the SDK's
// getMessageReceipts reads).
type Receipt struct {
	Recipient   Entity
	DeliveredAt int64
	ReadAt      int64 // 0 while unread
}

// GroupMarker is a member's delivered and read markers of a group conversation, and when
// they last moved.
type GroupMarker struct {
	ConversationID string
	UID            string
	DeliveredID    int64
	ReadID         int64
	UpdatedAt      int64
}

// ReceiptStore reads what receipts are made of.
type ReceiptStore interface {
	// GroupMarkers reads the markers of the conversations that reached at least minID.
	GroupMarkers(ctx context.Context, appID string, conversationIDs []string, minID int64) ([]GroupMarker, error)
}

// withReceipts sets the receipts of messages. A one-to-one message's come from its own row
// (its receiver's deliveredAt and readAt); a group message's from its members' markers,
// read in one query for all the group messages given, and their users in one more. A
// group keeps no time per message and member: a receipt's time is when that member's
// marker last moved, at or after the moment the message was delivered or read.
func (s *Service) withReceipts(ctx context.Context, appID string, ms []*Message) error {
	var convs []string
	minID := int64(0)
	for _, m := range ms {
		m.WithReceipts = true
		m.Receipts = nil
		if m.ReceiverType == ReceiverUser {
			if m.DeliveredAt > 0 || m.ReadAt > 0 {
				m.Receipts = []Receipt{{Recipient: m.ReceiverEntity, DeliveredAt: max(m.DeliveredAt, m.ReadAt), ReadAt: m.ReadAt}}
			}
			continue
		}
		if !slices.Contains(convs, m.ConversationID) {
			convs = append(convs, m.ConversationID)
		}
		if minID == 0 || m.ID < minID {
			minID = m.ID
		}
	}
	if len(convs) == 0 {
		return nil
	}
	marks, err := s.store.GroupMarkers(ctx, appID, convs, minID)
	if err != nil {
		return internal("read receipts", err)
	}
	var uids []string
	for _, mk := range marks {
		if !slices.Contains(uids, mk.UID) {
			uids = append(uids, mk.UID)
		}
	}
	users, err := s.cachedUsersByID(ctx, appID, uids)
	if err != nil {
		return internal("read receipts", err)
	}
	for _, m := range ms {
		if m.ReceiverType != ReceiverGroup {
			continue
		}
		for _, mk := range marks {
			u, ok := users[mk.UID]
			if mk.ConversationID != m.ConversationID || mk.UID == m.Sender || mk.DeliveredID < m.ID || !ok {
				continue
			}
			r := Receipt{Recipient: u.Entity(), DeliveredAt: mk.UpdatedAt}
			if mk.ReadID >= m.ID {
				r.ReadAt = mk.UpdatedAt
			}
			m.Receipts = append(m.Receipts, r)
		}
	}
	return nil
}
