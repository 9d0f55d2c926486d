package chat

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conversation kinds.
const (
	ConversationUser  = "user"
	ConversationGroup = "group"
)

// Conversation is one conversation as one user (or the app) sees it.
type Conversation struct {
	ID        string
	Kind      string
	With      *User  // a one-to-one conversation's other user
	Group     *Group // a group conversation's group, with the viewer's membership
	Last      *Message
	Unread    int64
	Mentions  int64
	LastRead  int64
	Tags      []string
	CreatedAt int64
	UpdatedAt int64
	// PinnedAt and PinnedBy: the app's pin (PinnedBy app_system), else the viewer's own.
	PinnedAt int64
	PinnedBy string
}

// ConversationRow is a conversation's row with the viewer's marker (docs/read-model.md).
type ConversationRow struct {
	ID            string
	Kind          string
	UIDA, UIDB    string
	GUID          string
	LastMessageID int64
	LastSeq       int64
	CreatedAt     int64
	UpdatedAt     int64
	Marker        Marker
	// Own is how many of the seqs after the viewer's read marker are not unread to it (its
	// own messages there, and any purged), and Mentions how many of the messages after it
	// mention the viewer.
	Own      int64
	Mentions int64
	// SystemPinnedAt is when the app pinned the conversation for everyone (0: it did not).
	SystemPinnedAt int64
}

// ConversationQuery filters a conversation list.
type ConversationQuery struct {
	Viewer    string
	Kind      string
	SearchKey string
	Tags      []string
	UserTags  []string
	GroupTags []string
	WithTags  bool
	Unread    bool
	// PinnedBy keeps only conversations pinned by the app (PinnedBySystem), the viewer
	// (PinnedByMe), or either when both are named.
	PinnedBy []string
	Page     Page
	// IncludeBlocked lists the viewer's one-to-one conversations with the users it blocked,
	// which are left out otherwise (the hosted includeBlockedUsers, false by default).
	IncludeBlocked bool
	// WithBlockedInfo gives each one-to-one conversation's user its blocks towards the
	// viewer (blockedByMe, hasBlockedMe and their times), as the user lists do.
	WithBlockedInfo bool
	// HideAgentic leaves out, and OnlyAgentic keeps only, the agentic conversations: the
	// one-to-one conversations with an AI agent's user (another party than the viewer).
	HideAgentic, OnlyAgentic bool
}

// ConversationStore reads conversations.
type ConversationStore interface {
	// ListConversations lists a viewer's conversations (or, without one, the app's) by
	// last activity, newest first, with the viewer's markers; the int is the total.
	ListConversations(ctx context.Context, appID string, q ConversationQuery) ([]ConversationRow, int, error)
	// ConversationRow reads one conversation with viewer's marker; ErrNotFound when it has
	// no message yet.
	ConversationRow(ctx context.Context, appID, viewer, id string) (ConversationRow, error)
	// MessagesByID reads messages by id, as ListMessages does, for viewer.
	MessagesByID(ctx context.Context, appID, viewer string, ids []int64) (map[int64]Message, error)
	// UsersByID reads active users by uid.
	UsersByID(ctx context.Context, appID string, uids []string) (map[string]User, error)
	// GroupsByID reads groups by guid, with viewer's memberships when viewer is set.
	GroupsByID(ctx context.Context, appID, viewer string, guids []string) (map[string]Group, error)
}

// ConversationTx is what marker changes need inside their transaction.
type ConversationTx interface {
	// LockConversation reads a conversation's row, holding it until the transaction ends;
	// ErrNotFound when it has no message.
	LockConversation(appID, id string) (ConversationRow, error)
	// MessageSeq reads the conversation of a message and the seq of the last counted
	// message at or before it; ErrNotFound when the app has no such message.
	MessageSeq(appID string, id int64) (conversationID string, seq int64, err error)
	// MarkerForChange reads uid's marker of a conversation inside the transaction (the
	// zero Marker when there is none).
	MarkerForChange(appID, uid, conversationID string) (Marker, error)
	// SaveMarker writes uid's marker of a conversation, whose lock the caller holds
	// (LockConversation); a read marker at the conversation's last message leaves no
	// unread count.
	SaveMarker(appID, uid, conversationID string, m Marker) error
	// RecountUnread recounts the unread counts uid's marker of a conversation keeps, after
	// SaveMarker moved its read marker before the last message (docs/read-model.md).
	RecountUnread(appID, uid, conversationID string) error
	// MarkJoined marks a group conversation read up to now for a user who joins it, so
	// that its history before the join is not unread.
	MarkJoined(appID, uid, conversationID string, at int64) error
	// StampReceipts sets deliveredAt (read false) or readAt on the one-to-one messages
	// to reader in a conversation with ids in (after, upTo] that have none.
	StampReceipts(appID, conversationID, reader string, after, upTo int64, read bool, at int64) error
	// ResetConversationForAll hides a conversation's history up to upTo from every party
	// of it, as if each had reset it.
	ResetConversationForAll(appID, id string, upTo, at int64) error
}

// conversationOf resolves the conversation a user-scoped request names: the one-to-one
// conversation of the acting user with uid (kind user), or a group's (kind group), which
// the acting user must be a member of.
func (s *Service) conversationOf(ctx context.Context, p Principal, kind, key string) (string, User, error) {
	viewer, err := s.actingUser(ctx, p)
	if err != nil {
		return "", User{}, err
	}
	if kind == ConversationUser {
		other, err := s.User(ctx, p, key)
		if err != nil {
			return "", User{}, err
		}
		return ConversationID(viewer.UID, other.UID), viewer, nil
	}
	g, _, err := s.group(ctx, p, key)
	if err != nil {
		return "", User{}, err
	}
	id := GroupConversationID(g.GUID)
	if !g.Viewer.Joined() {
		return "", User{}, errConversationNotAccessible(viewer.UID, id)
	}
	return id, viewer, nil
}

func errConversationNotFound(id string) error {
	return Errorf(CodeConversationNotFound, "The conversation %s does not exist for this user: it has no messages yet, or none since the user reset it.", id)
}

// ListConversations lists the acting user's conversations (or the app's), by last activity.
func (s *Service) ListConversations(ctx context.Context, p Principal, q ConversationQuery) ([]Conversation, int, error) {
	fe := fieldErrors{}
	// A filter value natter has never heard of matches nothing: a conversationType or a
	// pinnedBy other than these lists no conversation rather than failing the list.
	matchesNothing := q.Kind != "" && q.Kind != ConversationUser && q.Kind != ConversationGroup
	fe.text("conversationType", q.Kind, MaxMessageTypeLen, false)
	fe.text("searchKey", q.SearchKey, MaxSearchKeyLen, false)
	q.Tags = fe.tags("tags", q.Tags)
	q.UserTags = fe.tags("userTags", q.UserTags)
	q.GroupTags = fe.tags("groupTags", q.GroupTags)
	if q.Unread && !p.acting() {
		fe.add("unread", "Unread conversations are a user's: send the onBehalfOf header.")
	}
	known := q.PinnedBy[:0:0]
	for _, by := range q.PinnedBy {
		switch {
		case by != PinnedBySystem && by != PinnedByMe:
			fe.text("pinnedBy", by, MaxMessageTypeLen, false)
		case by == PinnedByMe && !p.acting():
			fe.add("pinnedBy", "Pinned by me is a user's: send the onBehalfOf header.")
		default:
			known = append(known, by)
		}
	}
	if len(q.PinnedBy) > 0 && len(known) == 0 {
		matchesNothing = true
	}
	q.PinnedBy = known
	if q.HideAgentic && q.OnlyAgentic {
		fe.add("onlyAgentic", "hideAgentic and onlyAgentic exclude each other.")
	}
	if q.WithBlockedInfo && !p.acting() {
		fe.add("withBlockedInfo", "Blocks are a user's: send the onBehalfOf header.")
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	if p.acting() {
		u, err := s.actingUser(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		if _, err := s.permit(ctx, p, Action{Op: OpListConversations, Role: u.Role}); err != nil {
			return nil, 0, err
		}
		q.Viewer = u.UID
	}
	if matchesNothing {
		return nil, 0, nil
	}
	rows, total, err := s.store.ListConversations(ctx, p.App.ID, q)
	if err != nil {
		return nil, 0, internal("list conversations", err)
	}
	out, err := s.conversations(ctx, p.App.ID, q.Viewer, rows, q.WithTags)
	if err == nil && q.WithBlockedInfo {
		err = s.withBlocks(ctx, p.App.ID, q.Viewer, out)
	}
	return out, total, err
}

// withBlocks gives the users of one-to-one conversations their blocks towards viewer, in
// one read for the page.
func (s *Service) withBlocks(ctx context.Context, appID, viewer string, cs []Conversation) error {
	var uids []string
	for _, c := range cs {
		if c.With != nil {
			uids = append(uids, c.With.UID)
		}
	}
	if len(uids) == 0 {
		return nil
	}
	blocks, err := s.store.BlockStates(ctx, appID, viewer, uids)
	if err != nil {
		return internal("read conversation blocks", err)
	}
	for i, c := range cs {
		if c.With != nil {
			u, b := *c.With, blocks[c.With.UID]
			u.Blocks = &b
			cs[i].With = &u
		}
	}
	return nil
}

// conversations completes rows: their last messages, the other side of each, and the
// viewer's unread counts.
func (s *Service) conversations(ctx context.Context, appID, viewer string, rows []ConversationRow, withTags bool) ([]Conversation, error) {
	var ids []int64
	var uids, guids []string
	for _, r := range rows {
		ids = append(ids, r.LastMessageID)
		if r.Kind == ConversationGroup {
			guids = append(guids, r.GUID)
		} else {
			uids = append(uids, r.other(viewer))
		}
	}
	last, err := s.store.MessagesByID(ctx, appID, viewer, ids)
	if err != nil {
		return nil, internal("read last messages", err)
	}
	users, err := s.cachedUsersByID(ctx, appID, uids)
	if err != nil {
		return nil, internal("read conversation users", err)
	}
	if withTags && len(users) > 0 {
		tags, err := s.store.UserTags(ctx, appID, uids)
		if err != nil {
			return nil, internal("read conversation users", err)
		}
		for uid, u := range users {
			u.Tags = tags[uid]
			users[uid] = u
		}
	}
	groups, err := s.store.GroupsByID(ctx, appID, viewer, guids)
	if err != nil {
		return nil, internal("read conversation groups", err)
	}
	lasts := make([]*Message, 0, len(last))
	for id := range last {
		m := last[id]
		lasts = append(lasts, &m)
	}
	if err := s.withReceipts(ctx, appID, lasts); err != nil {
		return nil, err
	}
	for _, m := range lasts {
		last[m.ID] = *m
	}
	out := make([]Conversation, 0, len(rows))
	for _, r := range rows {
		c := Conversation{ID: r.ID, Kind: r.Kind, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, LastRead: r.Marker.ReadID}
		if withTags {
			c.Tags = r.Marker.Tags
		}
		if m, ok := last[r.LastMessageID]; ok {
			c.Last = &m
		}
		if r.Kind == ConversationGroup {
			if g, ok := groups[r.GUID]; ok {
				if !withTags {
					g.Tags = nil
				}
				c.Group = &g
			}
		} else if u, ok := users[r.other(viewer)]; ok {
			c.With = &u
		}
		if viewer != "" {
			c.Unread, c.Mentions = max(0, r.LastSeq-r.Marker.ReadSeq-r.Own), r.Mentions
		}
		switch {
		case r.SystemPinnedAt > 0:
			c.PinnedAt, c.PinnedBy = r.SystemPinnedAt, SystemUID
		case r.Marker.PinnedAt > 0 && viewer != "":
			c.PinnedAt, c.PinnedBy = r.Marker.PinnedAt, viewer
		}
		out = append(out, c)
	}
	return out, nil
}

// other is the one-to-one party that is not viewer (the app sees uid_b's side).
func (r ConversationRow) other(viewer string) string {
	if r.UIDA == viewer || viewer == "" && r.UIDB != "" {
		return r.UIDB
	}
	return r.UIDA
}

// GetConversation returns the acting user's conversation with a user or in a group.
func (s *Service) GetConversation(ctx context.Context, p Principal, kind, key string) (Conversation, error) {
	id, viewer, err := s.conversationOf(ctx, p, kind, key)
	if err != nil {
		return Conversation{}, err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpGetConversation, Role: viewer.Role}); err != nil {
		return Conversation{}, err
	}
	return s.conversation(ctx, p.App.ID, viewer.UID, id)
}

func (s *Service) conversation(ctx context.Context, appID, viewer, id string) (Conversation, error) {
	r, err := s.store.ConversationRow(ctx, appID, viewer, id)
	if errors.Is(err, ErrNotFound) || err == nil && r.LastMessageID <= r.Marker.ResetID {
		return Conversation{}, errConversationNotFound(id)
	}
	if err != nil {
		return Conversation{}, internal("get conversation", err)
	}
	cs, err := s.conversations(ctx, appID, viewer, []ConversationRow{r}, true)
	if err != nil {
		return Conversation{}, err
	}
	return cs[0], nil
}

// GetConversationByID is the deprecated GET /conversations/{conversationId}: the acting
// user must be a party of it.
func (s *Service) GetConversationByID(ctx context.Context, p Principal, id string) (Conversation, error) {
	viewer, err := s.actingUser(ctx, p)
	if err != nil {
		return Conversation{}, err
	}
	if err := s.partyOf(ctx, p.App.ID, viewer.UID, id); err != nil {
		return Conversation{}, err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpGetConversation, Role: viewer.Role}); err != nil {
		return Conversation{}, err
	}
	return s.conversation(ctx, p.App.ID, viewer.UID, id)
}

// partyOf refuses a user who is not a party of the conversation id.
func (s *Service) partyOf(ctx context.Context, appID, uid, id string) error {
	r, err := s.store.ConversationRow(ctx, appID, uid, id)
	if errors.Is(err, ErrNotFound) {
		return errConversationNotFound(id)
	}
	if err != nil {
		return internal("get conversation", err)
	}
	switch r.Kind {
	case ConversationUser:
		if r.UIDA == uid || r.UIDB == uid {
			return nil
		}
	case ConversationGroup:
		m, err := s.member(ctx, appID, r.GUID, uid)
		if err != nil {
			return err
		}
		if m.Joined() {
			return nil
		}
	}
	return errConversationNotAccessible(uid, id)
}

// UpdateConversationTags sets the acting user's tags of a conversation.
func (s *Service) UpdateConversationTags(ctx context.Context, p Principal, kind, key string, tags []string) (Conversation, error) {
	fe := fieldErrors{}
	tags = fe.tags("tags", tags)
	if err := fe.err(); err != nil {
		return Conversation{}, err
	}
	id, viewer, err := s.conversationOf(ctx, p, kind, key)
	if err != nil {
		return Conversation{}, err
	}
	err = s.changeMarker(ctx, p.App.ID, viewer.UID, id, 0, func(tx Tx, r ConversationRow, m *Marker) error {
		m.Tags = tags
		return nil
	})
	if err != nil {
		return Conversation{}, err
	}
	return s.conversation(ctx, p.App.ID, viewer.UID, id)
}

// changeMarker runs fn on the acting user's marker of a locked conversation and saves it;
// work is the worker queues fn may write to.
func (s *Service) changeMarker(ctx context.Context, appID, uid, id string, work Work, fn func(tx Tx, r ConversationRow, m *Marker) error) error {
	now := s.now()
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		r, err := tx.LockConversation(appID, id)
		if errors.Is(err, ErrNotFound) {
			return errConversationNotFound(id)
		}
		if err != nil {
			return err
		}
		mk, err := tx.MarkerForChange(appID, uid, id)
		if err != nil {
			return err
		}
		if r.LastMessageID <= mk.ResetID { // reset, and nothing new since: as if it had no messages
			return errConversationNotFound(id)
		}
		readID := mk.ReadID
		if err := fn(tx, r, &mk); err != nil {
			return err
		}
		mk.UpdatedAt = now
		cs.Add(conversationChange(appID, id, work, uid))
		if err := tx.SaveMarker(appID, uid, id, mk); err != nil || mk.ReadID == readID || mk.ReadID >= r.LastMessageID {
			return err
		}
		return tx.RecountUnread(appID, uid, id)
	})
	if err != nil && ErrorCode(err) == "" {
		return internal("change conversation", err)
	}
	return err
}

// conversationChange announces that conversation id's state changed for uids (none: for
// every party).
func conversationChange(app, id string, work Work, uids ...string) *Change {
	return &Change{Kind: ChangeConversation, App: app, Conversation: id, UIDs: uids, Work: work}
}

// MarkKind is what a mark moves.
type MarkKind int

const (
	MarkRead MarkKind = iota
	MarkDelivered
	MarkUnread
)

// Mark moves the acting user's read or delivered marker of a conversation up to a message
// (the conversation's last when messageID is 0); read and delivered only move forward. Mark
// unread moves the read marker back to the message, so the messages after it are unread.
func (s *Service) Mark(ctx context.Context, p Principal, kind, key string, what MarkKind, messageID int64) error {
	if messageID < 0 {
		return InvalidField("messageId", "The messageId must be a message id.")
	}
	if what == MarkUnread && messageID == 0 {
		return InvalidField("messageId", "The messageId field is required: the messages after it become unread.")
	}
	id, viewer, err := s.conversationOf(ctx, p, kind, key)
	if err != nil {
		return err
	}
	now := s.now()
	subs := s.subscriptions(ctx, p.App.ID)
	var work Work
	if len(subs) > 0 && what != MarkUnread {
		work = WorkWebhook
	}
	err = s.changeMarker(ctx, p.App.ID, viewer.UID, id, work, func(tx Tx, r ConversationRow, m *Marker) error {
		upTo, seq := r.LastMessageID, r.LastSeq
		if messageID != 0 {
			cid, sq, err := tx.MessageSeq(p.App.ID, messageID)
			if errors.Is(err, ErrNotFound) {
				return errMessageNotFound(messageID)
			}
			if err != nil {
				return err
			}
			if cid != id {
				return InvalidField("messageId", "The message with id "+strconv.FormatInt(messageID, 10)+" is not in the conversation "+id+".")
			}
			upTo, seq = messageID, sq
		}
		switch what {
		case MarkRead:
			if upTo <= m.ReadID {
				return nil
			}
			if kind == ConversationUser {
				if err := tx.StampReceipts(p.App.ID, id, viewer.UID, m.ReadID, upTo, true, now); err != nil {
					return err
				}
			}
			m.ReadID, m.ReadSeq = upTo, seq
			m.DeliveredID = max(m.DeliveredID, upTo)
			return s.receiptEvents(tx, subs, p.App.ID, viewer, kind, id, upTo, now, TriggerReadReceipt, TriggerReadByAll)
		case MarkDelivered:
			if upTo <= m.DeliveredID {
				return nil
			}
			if kind == ConversationUser {
				if err := tx.StampReceipts(p.App.ID, id, viewer.UID, m.DeliveredID, upTo, false, now); err != nil {
					return err
				}
			}
			m.DeliveredID = upTo
			return s.receiptEvents(tx, subs, p.App.ID, viewer, kind, id, upTo, now, TriggerDeliveryReceipt, TriggerDeliveredToAll)
		case MarkUnread:
			if upTo < m.ResetID { // the history before a reset stays read: it is hidden
				_, sq, err := tx.MessageSeq(p.App.ID, m.ResetID)
				if err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
				upTo, seq = m.ResetID, sq
			}
			m.ReadID, m.ReadSeq = min(m.ReadID, upTo), min(m.ReadSeq, seq)
		}
		return nil
	})
	if err == nil && what != MarkUnread {
		// Every receipt accepted counts (GET /stats/messages), also one that moved no marker:
		// the client sent it.
		s.rollup.receipt(p.App.ID, viewer.UID, what == MarkRead, now)
	}
	return err
}

// receiptActions are the receipt triggers' body actions.
var receiptActions = map[string]string{
	TriggerReadReceipt: "read", TriggerDeliveryReceipt: "delivered", TriggerReadByAll: "readByAll", TriggerDeliveredToAll: "deliveredToAll",
}

// receiptEvents writes the webhook events of a marker moved up to the message upTo: the
// receipt, and in a one-to-one conversation, whose one receiver is the reader, the
// receipt "to all" as well. A group's "to all" would need every member's marker read per
// receipt, so natter does not send it.
func (s *Service) receiptEvents(tx Tx, subs []string, appID string, reader User, kind, conversationID string, upTo, now int64, one, all string) error {
	triggers := []string{one}
	if kind == ConversationUser {
		triggers = append(triggers, all)
	}
	for _, t := range triggers {
		if !slices.Contains(subs, t) {
			continue
		}
		rc := &EventReceipt{Action: receiptActions[t], Reader: reader.Entity(), ReceiverType: ReceiverUser, Receiver: reader.UID, At: now}
		if kind == ConversationGroup {
			rc.ReceiverType, rc.Receiver = ReceiverGroup, strings.TrimPrefix(conversationID, "group_")
		}
		ev := OutboxEvent{AppID: appID, Trigger: t, ConversationID: conversationID, MessageID: upTo, At: time.Now().UnixMilli(),
			Ref: EventRef{MessageID: upTo, Receipt: rc}}
		if err := tx.InsertOutbox(ev); err != nil {
			return err
		}
	}
	return nil
}

// ResetConversation hides a conversation's history up to now from the acting user (it
// reappears with its next message), and reads it.
func (s *Service) ResetConversation(ctx context.Context, p Principal, kind, key string) (string, error) {
	id, viewer, err := s.conversationOf(ctx, p, kind, key)
	if err != nil {
		return "", err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpDeleteConversation, Role: viewer.Role}); err != nil {
		return "", err
	}
	return id, s.changeMarker(ctx, p.App.ID, viewer.UID, id, 0, func(tx Tx, r ConversationRow, m *Marker) error {
		m.ResetID = r.LastMessageID
		m.ReadID, m.ReadSeq = max(m.ReadID, r.LastMessageID), max(m.ReadSeq, r.LastSeq)
		m.DeliveredID = max(m.DeliveredID, r.LastMessageID)
		return nil
	})
}

// DeleteConversationForAll is the deprecated DELETE /conversations/{conversationId}: it
// hides the conversation's history up to now from every party; the acting user must be one.
func (s *Service) DeleteConversationForAll(ctx context.Context, p Principal, id string) error {
	viewer, err := s.actingUser(ctx, p)
	if err != nil {
		return err
	}
	if err := s.partyOf(ctx, p.App.ID, viewer.UID, id); err != nil {
		return err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpDeleteConversation, Role: viewer.Role}); err != nil {
		return err
	}
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		r, err := tx.LockConversation(p.App.ID, id)
		if err != nil {
			return err
		}
		cs.Add(conversationChange(p.App.ID, id, 0))
		return tx.ResetConversationForAll(p.App.ID, id, r.LastMessageID, s.now())
	})
	if errors.Is(err, ErrNotFound) {
		return errConversationNotFound(id)
	}
	if err != nil {
		return internal("delete conversation", err)
	}
	return nil
}
