package chat

import (
	"context"
	"fmt"
)

// One message to several receivers (multipleReceivers on POST /messages): each receiver gets
// its own message, sent exactly as a send to it alone would be, and its own result; one
// receiver's refusal does not stop the others'. docs/api-decisions.md has the answer's
// shape and why.

// MaxReceivers bounds the receivers of one multi-send: the distinct uids and guids it
// names, its receiver included.
const MaxReceivers = 25

// Receivers are the users and groups a multi-send names besides its receiver.
type Receivers struct {
	UIDs, GUIDs []string
}

// ReceiverResult is one receiver's part of a multi-send: ID as the answer keys it (lower-cased,
// a malformed id as sent), and the message sent to it, or Err.
type ReceiverResult struct {
	ID      string
	Message Message
	Err     error
}

// MultiSendResults are a multi-send's results, users and groups each in the order named,
// the receiver first.
type MultiSendResults struct {
	Users, Groups []ReceiverResult
}

// SendMessages sends in to each user and group that to names, and to in.Receiver when it
// is set, one message each, from the acting user, through the one-receiver send: its
// checks, blocks, membership, bans, permissions, mentions, webhook events. What concerns the
// whole request is refused as a whole, before anything is sent: the acting user, the
// receivers' list (planReceivers) and what is sent (category, type, data, tags, muid), which
// is the same for every receiver. After that each receiver's refusal, or failure, is its own
// result, and the messages sent to the others stay sent: each is its own transaction.
func (s *Service) SendMessages(ctx context.Context, p Principal, in MessageSend, to Receivers) (MultiSendResults, error) {
	sender, err := s.actingUser(ctx, p)
	if err != nil {
		return MultiSendResults{}, err
	}
	out, err := planReceivers(in.Receiver, in.ReceiverType, to)
	if err != nil {
		return MultiSendResults{}, err
	}
	if _, err := validateContent(in); err != nil {
		return MultiSendResults{}, err
	}
	// A malformed quotedMessageId is the whole request's mistake; a quoted message that is
	// not in a receiver's conversation is that receiver's refusal (sendAs).
	if _, err := ParseQuotedID(in.QuotedID); err != nil {
		return MultiSendResults{}, err
	}
	for _, l := range []struct {
		rs  []ReceiverResult
		typ string
	}{{out.Users, ReceiverUser}, {out.Groups, ReceiverGroup}} {
		for i := range l.rs {
			r := &l.rs[i]
			if r.Err != nil {
				continue
			}
			one := in
			one.Receiver, one.ReceiverType = r.ID, l.typ
			r.Message, r.Err = s.sendAs(ctx, p, sender, one, nil)
		}
	}
	return out, nil
}

// planReceivers merges receiver (when not empty) into to's lists, lower-cases the ids and
// collapses duplicates: the results hold each receiver once, in the order named, the
// receiver first; a malformed id is already refused there (not found, as a send to it alone
// would be). The request is refused as a whole when to names no uid and no guid, when it
// comes to more than MaxReceivers receivers, or when receiver's receiverType is neither user
// nor group.
func planReceivers(receiver, receiverType string, to Receivers) (MultiSendResults, error) {
	if len(to.UIDs) == 0 && len(to.GUIDs) == 0 {
		return MultiSendResults{}, InvalidField("multipleReceivers", "Name at least one uid in multipleReceivers.uids or guid in multipleReceivers.guids.")
	}
	var uids, guids []string
	switch {
	case receiver == "": // multipleReceivers alone; a receiverType without a receiver names nobody
	case receiverType == ReceiverUser:
		uids = []string{receiver}
	case receiverType == ReceiverGroup:
		guids = []string{receiver}
	default:
		return MultiSendResults{}, Errorf(CodeInvalidReceiverType, "The receiverType must be user or group.")
	}
	out := MultiSendResults{
		Users:  collapseIDs(append(uids, to.UIDs...), errUIDNotFound),
		Groups: collapseIDs(append(guids, to.GUIDs...), errGUIDNotFound),
	}
	if n := len(out.Users) + len(out.Groups); n > MaxReceivers {
		return MultiSendResults{}, InvalidField("multipleReceivers", fmt.Sprintf(
			"At most %d receivers may be named in one send, across multipleReceivers.uids, multipleReceivers.guids and receiver; this one names %d.", MaxReceivers, n))
	}
	return out, nil
}

// collapseIDs normalizes ids, each once in the order first named; a malformed one keeps the
// form it was sent in and its refusal.
func collapseIDs(ids []string, notFound func(string) error) []ReceiverResult {
	out := []ReceiverResult{}
	seen := map[string]bool{}
	for _, raw := range ids {
		id, ok := NormalizeID(raw)
		if !ok {
			id = raw
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		r := ReceiverResult{ID: id}
		if !ok {
			r.Err = notFound("")
		}
		out = append(out, r)
	}
	return out
}
