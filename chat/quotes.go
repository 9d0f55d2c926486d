package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Quoted replies (issue 38). A send may name quotedMessageId: a message of the same
// conversation, not deleted, that is not an action. The message keeps the id (its
// quotedMessageId on every read) and is answered, announced and read with quotedMessage,
// the quoted message as a reader of the conversation sees it: its row with its sender's and
// receiver's entities (QuotedView). A page reads the messages its rows quote in one query.
//
// An id that names no such message — unknown, another app's, another conversation's,
// deleted, an action — is refused the same way, 404 ERR_MESSAGE_ID_NOT_FOUND naming the id
// as sent, so that the answer tells nothing of a message the sender may not read.

// ParseQuotedID reads a quotedMessageId as sent: a string or a number of a positive id;
// absent, null, "" and 0 quote nothing (0). Anything else is 400 naming quotedMessageId.
func ParseQuotedID(raw json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == `""` || s == "0" || s == `"0"` {
		return 0, nil
	}
	if u, err := strconv.Unquote(s); err == nil && strings.HasPrefix(s, `"`) {
		s = u
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, InvalidField("quotedMessageId", "The quotedMessageId must be the id of a message.")
	}
	return id, nil
}

// quote sets m's quoted message from the send's quotedMessageId, after m's conversation is
// known.
func (s *Service) quote(ctx context.Context, m *Message, raw json.RawMessage) error {
	id, err := ParseQuotedID(raw)
	if err != nil || id == 0 {
		return err
	}
	q, err := s.store.Message(ctx, m.AppID, id, "")
	switch {
	case errors.Is(err, ErrNotFound):
		return errQuotedNotFound(id)
	case err != nil:
		return internal("read quoted message", err)
	case !Quotable(q, m.ConversationID):
		return errQuotedNotFound(id)
	}
	m.QuotedID, m.Quoted = id, QuotedView(q)
	return nil
}

// Quotable decides whether a message may be quoted in conversation: one of its messages,
// not deleted, not an action.
func Quotable(q Message, conversation string) bool {
	return q.ConversationID == conversation && q.DeletedAt == 0 && q.Category != CategoryAction
}

func errQuotedNotFound(id int64) error {
	e := Errorf(CodeMessageNotFound, "The quoted message with id %d does not exist.", id)
	e.Details = map[string][]string{"quotedMessageId": {e.Message}}
	return e
}

// QuotedView is q as a quoting message carries it, the same on every read and for every
// reader: its row and its parties, without what is read for a viewer or per page (reactions,
// mentions, receipts, saves, its own quote), so that a page reads its quoted messages in one
// query. A quoted message deleted later is shown as a deleted message is (deletedAt).
func QuotedView(q Message) *Message {
	v := q
	v.Reactions, v.Mentions, v.MentionedMe, v.Receipts, v.WithReceipts = nil, nil, false, nil, false
	v.SavedAt, v.ThreadSubscribed, v.UnreadReplies, v.Quoted, v.Interactions = 0, false, 0, nil, nil
	v.Target, v.TargetUser = nil, nil
	return &v
}
