package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// GroupMarkers reads the markers of conversations that reached minID, in one query
// (chat.ReceiptStore).
func (db *DB) GroupMarkers(ctx context.Context, appID string, conversationIDs []string, minID int64) ([]chat.GroupMarker, error) {
	if len(conversationIDs) == 0 {
		return nil, nil
	}
	args := []any{appID, minID}
	for _, c := range conversationIDs {
		args = append(args, c)
	}
	var out []chat.GroupMarker
	err := each(db.read(ctx).rows(`SELECT conversation_id, uid, delivered_id, read_id, updated_at FROM conversation_markers
		WHERE app_id = $1 AND delivered_id >= $2 AND conversation_id IN (`+placeholders(3, len(conversationIDs))+`)
		ORDER BY conversation_id, uid`, args...), func(s scanner) error {
		var m chat.GroupMarker
		err := s.Scan(&m.ConversationID, &m.UID, &m.DeliveredID, &m.ReadID, &m.UpdatedAt)
		out = append(out, m)
		return err
	})
	return out, err
}
