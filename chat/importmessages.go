package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
)

// ImportMessages imports message history, keyed by muid. Sender and receiver must exist.
// Ids are natter's own (database sequence values), given in sentAt order: the batch is
// sorted by sentAt (ties keep their order in the request), and a message older than the
// last message its conversation already has is refused, so that within a conversation id
// order is sentAt order and history pages the right way. Imported messages count in their
// conversations (lastMessage, unread counts); a one-to-one message with readAt or
// deliveredAt moves its receiver's read or delivery marker.
func (s Import) ImportMessages(ctx context.Context, p Principal, items []MessageImport) ([]ImportResult[Message], error) {
	n := len(items)
	errs := make([]error, n)
	msgs := make([]Message, n)
	digests := make([]string, n)
	for i, in := range items {
		msgs[i], errs[i] = validateMessageImport(p.App.ID, in)
		if errs[i] == nil {
			m := msgs[i]
			digests[i] = importDigest(MessageImport{MUID: m.MUID, Sender: m.Sender, ReceiverType: m.ReceiverType, Receiver: m.Receiver,
				Category: m.Category, Type: m.Type, Data: m.Data, Tags: m.Tags, SentAt: m.SentAt, DeliveredAt: m.DeliveredAt, ReadAt: m.ReadAt,
				QuotedMUID: items[i].QuotedMUID})
		}
	}
	if err := batchKeys("messages", n, func(i int) string {
		if errs[i] != nil {
			return ""
		}
		return msgs[i].MUID
	}, errs); err != nil {
		return nil, err
	}
	// The order the batch is written in: by sentAt, ties in request order.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return msgs[order[a]].SentAt < msgs[order[b]].SentAt })

	// Whom each message's text mentions; those that exist are indexed as a sent message's.
	mentioned := make([][]string, n)
	for i := range msgs {
		if errs[i] == nil {
			var d struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(msgs[i].Data, &d) == nil && d.Text != "" {
				mentioned[i] = ParseMentions(d.Text)
			}
		}
	}

	details := make([][]DetailUser, n)
	for i := range items {
		details[i] = items[i].Details
	}
	detailed, detailDigests := detailUsers(p.App.ID, details, errs, s.now())

	res := make([]ImportResult[Message], n)
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingImport))
		for i := range res {
			res[i] = ImportResult[Message]{Key: items[i].Key, Value: msgs[i], Err: errs[i]}
		}
		if err := tx.LockImports(p.App.ID); err != nil {
			return err
		}
		if err := createDetailUsers(tx, p.App.ID, detailed, detailDigests); err != nil {
			return err
		}
		var keys, uids, guids, convs []string
		for i := range res {
			if res[i].Err != nil {
				continue
			}
			m := &res[i].Value
			keys = append(keys, m.MUID)
			uids = append(uids, m.Sender)
			uids = append(uids, mentioned[i]...)
			if m.ReceiverType == ReceiverGroup {
				guids = append(guids, m.Receiver)
			} else {
				uids = append(uids, m.Receiver)
			}
			convs = append(convs, m.ConversationID)
		}
		recs, err := tx.ImportRecords(p.App.ID, ImportMessage, keys)
		if err != nil {
			return err
		}
		users, err := tx.ExistingUsers(p.App.ID, uids)
		if err != nil {
			return err
		}
		groups, err := tx.ExistingGroups(p.App.ID, guids)
		if err != nil {
			return err
		}
		tails, err := tx.ConversationTails(p.App.ID, convs)
		if err != nil {
			return err
		}
		quoted, err := importedQuotes(tx, p.App.ID, items, res)
		if err != nil {
			return err
		}
		inBatch := map[string]*Message{} // this batch's messages written so far, by muid
		var add []*Message
		var addIdx []int
		for _, i := range order {
			r := &res[i]
			if r.Err != nil {
				continue
			}
			m := &r.Value
			if rec, ok := recs[m.MUID]; ok {
				r.Skipped, r.Err = rec.Digest == digests[i], conflictUnless(rec.Digest == digests[i], m.MUID)
				m.ID = rec.Ref
				continue
			}
			t := tails[m.ConversationID]
			switch {
			case !users[m.Sender]:
				r.Err = errUIDNotFound(m.Sender)
			case m.ReceiverType == ReceiverUser && !users[m.Receiver]:
				r.Err = errUIDNotFound(m.Receiver)
			case m.ReceiverType == ReceiverGroup && !groups[m.Receiver]:
				r.Err = errGUIDNotFound(m.Receiver)
			case m.SentAt < t.LastSentAt:
				r.Err = errImportOutOfOrder(m.MUID, m.SentAt, t.LastSentAt)
			case items[i].QuotedMUID != "" && !quoteImport(m, items[i].QuotedMUID, inBatch, quoted):
				r.Err = errImportQuoteNotFound(items[i].QuotedMUID)
			default:
				t.LastSeq++
				t.LastSentAt = m.SentAt
				tails[m.ConversationID] = t
				m.Seq = t.LastSeq
				for _, uid := range mentioned[i] {
					if users[uid] {
						m.Mentions = append(m.Mentions, Entity{UID: uid})
					}
				}
				add = append(add, m)
				addIdx = append(addIdx, i)
				inBatch[m.MUID] = m
			}
		}
		if len(add) == 0 {
			return nil
		}
		if err := tx.InsertImportedMessages(add); err != nil {
			return err
		}
		for _, m := range add {
			m.Quoted = nil // the answer carries quotedMessageId; reads carry quotedMessage
		}
		save := make([]ImportRecord, len(add))
		for j, m := range add {
			save[j] = ImportRecord{Key: m.MUID, Digest: digests[addIdx[j]], Ref: m.ID}
		}
		return tx.SaveImportRecords(p.App.ID, ImportMessage, save)
	})
	if err != nil {
		return nil, internal("import messages", err)
	}
	if err := s.importedEntities(ctx, p.App.ID, res); err != nil {
		return nil, err
	}
	return res, nil
}

// importedEntities gives the imported (and already imported) messages of res their sender,
// receiver and mentioned users' entities, as the hosted answer's data.entities has them:
// two reads for the whole batch, after its transaction.
func (s *Service) importedEntities(ctx context.Context, appID string, res []ImportResult[Message]) error {
	var uids, guids []string
	seen := map[string]bool{}
	add := func(list *[]string, id string) { // each id once: a batch names few users many times
		if !seen[id] {
			seen[id] = true
			*list = append(*list, id)
		}
	}
	for i := range res {
		if res[i].Err != nil {
			continue
		}
		m := &res[i].Value
		add(&uids, m.Sender)
		if m.ReceiverType == ReceiverGroup {
			add(&guids, "\x00"+m.Receiver)
		} else {
			add(&uids, m.Receiver)
		}
		for _, e := range m.Mentions {
			add(&uids, e.UID)
		}
	}
	for i := range guids { // keyed apart from uids in seen
		guids[i] = guids[i][1:]
	}
	if len(uids) == 0 {
		return nil
	}
	users, err := s.store.UsersByID(ctx, appID, uids)
	if err != nil {
		return internal("read imported messages' users", err)
	}
	var groups map[string]Group
	if len(guids) > 0 {
		if groups, err = s.store.GroupsByID(ctx, appID, "", guids); err != nil {
			return internal("read imported messages' groups", err)
		}
	}
	entity := func(uid string) Entity {
		e := users[uid].Entity()
		e.UID = uid
		return e
	}
	for i := range res {
		if res[i].Err != nil {
			continue
		}
		m := &res[i].Value
		m.SenderEntity = entity(m.Sender)
		if m.ReceiverType == ReceiverGroup {
			if g, ok := groups[m.Receiver]; ok {
				g.Viewer = nil
				m.ReceiverGroup = &g
			}
		} else {
			m.ReceiverEntity = entity(m.Receiver)
		}
		for j := range m.Mentions {
			m.Mentions[j] = entity(m.Mentions[j].UID)
		}
	}
	return nil
}

func errImportOutOfOrder(muid string, sentAt, last int64) error {
	return &Error{Code: CodeImportOutOfOrder,
		Message:    "The message " + brief(muid) + " was sent at " + strconv.FormatInt(sentAt, 10) + ", before the last message of its conversation (" + strconv.FormatInt(last, 10) + ").",
		DevMessage: "Import a conversation's history oldest first: natter numbers messages in the order they are stored, so a message older than what its conversation already holds would page out of order. Within one request the messages are sorted by sentAt."}
}

func validateMessageImport(appID string, in MessageImport) (Message, error) {
	if in.Malformed != nil {
		return Message{}, in.Malformed
	}
	if in.MUID == "" {
		in.MUID = in.Key
	}
	fe := fieldErrors{}
	fe.text("muid", in.MUID, MaxMUIDLen, true)
	if err := fe.err(); err != nil {
		return Message{}, err
	}
	if in.MUID != in.Key {
		return Message{}, errImportKeyMismatch("muid", in.Key)
	}
	sender := fe.id("sender", in.Sender, true)
	receiver := fe.id("receiver", in.Receiver, true)
	switch in.ReceiverType {
	case ReceiverUser, ReceiverGroup:
	case "":
		fe.add("receiverType", "The receiverType field is required.")
	default:
		fe.add("receiverType", "The receiverType must be user or group.")
	}
	importTime(fe, "sentAt", in.SentAt, true)
	importTime(fe, "deliveredAt", in.DeliveredAt, false)
	importTime(fe, "readAt", in.ReadAt, false)
	fe.text("quotedMessageId", in.QuotedMUID, MaxMUIDLen, false)
	if err := fe.err(); err != nil {
		return Message{}, err
	}
	if in.ReceiverType == ReceiverUser && sender == receiver {
		return Message{}, InvalidField("receiver", "A one-to-one message needs a receiver other than its sender.")
	}
	m, err := validateContent(MessageSend{Category: in.Category, Type: in.Type, Data: in.Data, Tags: in.Tags, MUID: in.MUID})
	if err != nil {
		return Message{}, err
	}
	m.AppID, m.Sender, m.Receiver, m.ReceiverType = appID, sender, receiver, in.ReceiverType
	m.SentAt, m.UpdatedAt = in.SentAt, in.SentAt
	if in.ReceiverType == ReceiverUser {
		m.ConversationID = ConversationID(sender, receiver)
		m.DeliveredAt, m.ReadAt = in.DeliveredAt, in.ReadAt
		if m.ReadAt > 0 && m.DeliveredAt == 0 { // reading a message delivers it too
			m.DeliveredAt = m.ReadAt
		}
	} else {
		m.ConversationID = GroupConversationID(receiver)
	}
	return m, nil
}

// Quoted replies in an import (issue 38). An item's quotedMessageId names the muid of the
// message it quotes, not a natter id: an importer moving history knows its own message ids
// (the muids), not the ids natter gives them. The quoted message is one of the same
// conversation, not deleted and not an action (Quotable), imported earlier — by an earlier
// request, or earlier in this one (sentAt order, which the batch is written in). Anything
// else refuses the item alone, 404 ERR_MESSAGE_ID_NOT_FOUND naming quotedMessageId, as a send
// refuses a quote it may not make; the other items are imported.

// importedQuotes reads the messages earlier requests imported under the muids res's valid
// items quote, by muid: one read for the records, one per distinct message quoted.
func importedQuotes(tx Tx, appID string, items []MessageImport, res []ImportResult[Message]) (map[string]Message, error) {
	var keys []string
	for i := range res {
		if res[i].Err == nil && items[i].QuotedMUID != "" && !slices.Contains(keys, items[i].QuotedMUID) {
			keys = append(keys, items[i].QuotedMUID)
		}
	}
	out := map[string]Message{}
	if len(keys) == 0 {
		return out, nil
	}
	recs, err := tx.ImportRecords(appID, ImportMessage, keys)
	if err != nil {
		return nil, err
	}
	for k, rec := range recs {
		q, err := tx.MessageForChange(appID, rec.Ref)
		switch {
		case errors.Is(err, ErrNotFound):
			continue // deleted permanently since
		case err != nil:
			return nil, err
		}
		q.ID = rec.Ref
		out[k] = q
	}
	return out, nil
}

// quoteImport sets m's quote from muid, a message written earlier in this batch or imported
// before; false when neither may be quoted in m's conversation.
func quoteImport(m *Message, muid string, inBatch map[string]*Message, imported map[string]Message) bool {
	if q, ok := inBatch[muid]; ok && Quotable(*q, m.ConversationID) {
		m.Quoted = q // its id is known once the batch is written (InsertImportedMessages)
		return true
	}
	if q, ok := imported[muid]; ok && Quotable(q, m.ConversationID) {
		m.QuotedID = q.ID
		return true
	}
	return false
}

func errImportQuoteNotFound(muid string) error {
	e := Errorf(CodeMessageNotFound, "The quoted message %s does not exist in this conversation.", brief(muid))
	e.Details = map[string][]string{"quotedMessageId": {e.Message}}
	return e
}
