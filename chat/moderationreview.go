package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"
)

// Flagging and review (docs/moderation.md). A user flags a message it can see, once, with a
// reason and a remark; the message is then in the flagged list until a moderator approves
// it (it stays) or disapproves it (it is deleted for everyone, as app_system). Messages a
// blockMessage rule held are in the blocked list until approved (sent then) or rejected
// (never sent). A review is final: reviewing again is ERR_ALREADY_REVIEWED.

// Moderation triggers (webhook events).
const (
	TriggerModerationEngineApproved = "moderation_engine_approved"
	TriggerModerationEngineBlocked  = "moderation_engine_blocked"
	TriggerModerationManualApproved = "moderation_manual_approved"
)

// Flag is one user's flag of a message.
type Flag struct {
	UID       string
	ReasonID  string
	Remark    string
	CreatedAt int64
	// Filled by FlaggedMessages for the lists' flaggedBy (the newest hosted file's): the
	// flagger as the cache knows it (its name, avatar and role; empty once the user is
	// gone) and the reason's name and description (empty once the reason is deleted).
	By     Entity
	Reason Reason
}

// Flagged is a flagged message's review state with its flags; Message is filled by the
// service.
type Flagged struct {
	MessageID  int64
	Status     string
	Flags      []Flag
	CreatedAt  int64
	ReviewedAt int64
	Message    *Message // nil when the message was deleted for good since
}

// BlockedMessage is a message a blockMessage rule held, with the rule revision and
// condition that matched. ID is the entry's own, which only natter's event references use;
// the API and the console know an entry by MessageID (= Message.ID), the id the message was
// given when held and keeps when approved, as the hosted API knows it by message.id.
type BlockedMessage struct {
	ID        int64
	AppID     string
	RuleID    string
	RuleName  string
	Revision  int64
	Condition Condition
	Action    []string
	Message   Message
	Status    string
	MessageID int64
	CreatedAt int64
	UpdatedAt int64
}

// FlagInput is a flag to record.
type FlagInput struct {
	ReasonID string
	Remark   string
}

// FlagMessage records the acting user's flag of a message it can see. Flagging a message
// twice is ERR_MESSAGE_ALREADY_FLAGGED.
func (s Moderation) FlagMessage(ctx context.Context, p Principal, id string, in FlagInput) error {
	mid, err := ParseMessageID(id)
	if err != nil {
		return err
	}
	fe := fieldErrors{}
	fe.text("reasonId", in.ReasonID, MaxModNameLen, true)
	fe.text("remark", in.Remark, MaxRemarkLen, false)
	if err := fe.err(); err != nil {
		return err
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return err
	}
	if _, err := s.Reason(ctx, p, in.ReasonID); err != nil {
		return err
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		m, err := s.partyMessage(tx, p, mid, u.UID)
		if err != nil {
			return err
		}
		if m.DeletedAt != 0 {
			return errDeleted(m.Head())
		}
		if ok, err := tx.ReasonExists(p.App.ID, in.ReasonID); err != nil {
			return err
		} else if _, def := defaultReason(in.ReasonID); !ok && !def {
			return errReasonNotFound(in.ReasonID) // deleted meanwhile
		}
		cs.Add(settingsChange(p.App.ID, SettingModeration))
		return tx.InsertFlag(p.App.ID, mid, Flag{UID: u.UID, ReasonID: in.ReasonID, Remark: in.Remark, CreatedAt: now})
	})
	if errors.Is(err, ErrAlreadyExists) {
		return Errorf(CodeAlreadyFlagged, "The user %s has already flagged the message with id %d.", u.UID, mid)
	}
	return modErr("flag message", err)
}

// MaxModerationPage bounds a page of the flagged, reviewed and blocked lists.
const MaxModerationPage = 100

// FlaggedMessages lists flagged messages not reviewed yet (reviewed false) or reviewed,
// newest first, below the message id before.
func (s Moderation) FlaggedMessages(ctx context.Context, p Principal, reviewed bool, before int64, limit int) ([]Flagged, error) {
	fs, err := s.store.FlaggedMessages(ctx, p.App.ID, reviewed, before, limit)
	if err != nil {
		return nil, internal("list flagged messages", err)
	}
	for i := range fs {
		m, err := s.store.Message(ctx, p.App.ID, fs[i].MessageID, "")
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, internal("read flagged message", err)
		}
		m.Moderation = fs[i].Status
		fs[i].Message = &m
	}
	if err := s.describeFlags(ctx, p, fs); err != nil {
		return nil, err
	}
	return fs, nil
}

// describeFlags gives each flag its flagger's and its reason's details, in one read of the
// page's flaggers (through the entity cache) and one of the app's reasons, whatever the page
// holds.
func (s *Service) describeFlags(ctx context.Context, p Principal, fs []Flagged) error {
	var uids []string
	for _, f := range fs {
		for _, fl := range f.Flags {
			if !slices.Contains(uids, fl.UID) {
				uids = append(uids, fl.UID)
			}
		}
	}
	if len(uids) == 0 {
		return nil
	}
	users, err := s.cachedUsersByID(ctx, p.App.ID, uids)
	if err != nil {
		return internal("read flaggers", err)
	}
	reasons, err := s.Moderation().Reasons(ctx, p)
	if err != nil {
		return err
	}
	for i := range fs {
		for j := range fs[i].Flags {
			fl := &fs[i].Flags[j]
			fl.By = Entity{UID: fl.UID}
			if u, ok := users[fl.UID]; ok {
				fl.By = Entity{UID: u.UID, Name: u.Name, Avatar: u.Avatar, Role: u.Role}
			}
			fl.Reason = Reason{ID: fl.ReasonID}
			for _, r := range reasons {
				if r.ID == fl.ReasonID {
					fl.Reason = r
					break
				}
			}
		}
	}
	return nil
}

// ReviewFlagged approves (the message stays) or disapproves (the message is deleted for
// everyone) a flagged message.
func (s Moderation) ReviewFlagged(ctx context.Context, p Principal, id, status string) error {
	mid, err := ParseMessageID(id)
	if err != nil {
		return Errorf(CodeNotFlagged, "The message is not flagged.")
	}
	if status != ModApproved && status != ModDisapproved {
		return InvalidField("status", "The status must be approved or disapproved.")
	}
	now := s.now()
	actor := Entity{UID: SystemUID, Name: "System", Role: DefaultRole, Status: "offline"}
	deleted := s.subscribed(ctx, p.App.ID, TriggerMessageDeleted)
	approved := s.subscribed(ctx, p.App.ID, TriggerModerationManualApproved)
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		review := settingsChange(p.App.ID, SettingModeration)
		cs.Add(review)
		st, err := tx.LockFlagged(p.App.ID, mid)
		if errors.Is(err, ErrNotFound) {
			return Errorf(CodeNotFlagged, "The message with id %d is not flagged.", mid)
		}
		if err != nil {
			return err
		}
		if st != ModPending {
			return Errorf(CodeAlreadyReviewed, "The message with id %d has already been reviewed (%s).", mid, st)
		}
		if err := tx.SetFlaggedStatus(p.App.ID, mid, status, now); err != nil {
			return err
		}
		m, err := tx.MessageForChange(p.App.ID, mid)
		if errors.Is(err, ErrNotFound) {
			return nil // deleted for good since it was flagged
		}
		if err != nil {
			return err
		}
		if status == ModApproved {
			if !approved {
				return nil
			}
			review.Work = WorkWebhook
			return tx.InsertOutbox(OutboxEvent{AppID: p.App.ID, Trigger: TriggerModerationManualApproved, ConversationID: m.ConversationID,
				MessageID: mid, Ref: EventRef{MessageID: mid, Data: m.Data, Tags: m.Tags}, At: time.Now().UnixMilli()})
		}
		if m.DeletedAt != 0 {
			return nil
		}
		if err := tx.MarkMessageDeleted(p.App.ID, mid, SystemUID, now); err != nil {
			return err
		}
		action := &Message{AppID: p.App.ID, Category: CategoryAction, Type: "message", Sender: SystemUID, SentAt: now, UpdatedAt: now,
			SenderEntity: actor, Action: "deleted", TargetID: mid, Data: json.RawMessage(`{"action":"deleted"}`),
			ReceiverType: m.ReceiverType, Receiver: m.Receiver, ConversationID: m.ConversationID}
		if err := tx.InsertMessage(action); err != nil {
			return err
		}
		action.ReceiverEntity, action.ReceiverGroup = m.ReceiverEntity, m.ReceiverGroup
		target := m
		target.DeletedAt, target.DeletedBy = now, SystemUID
		action.Target = &target
		return s.recordAction(tx, cs, action, &m, TriggerMessageDeleted, deleted)
	})
	if err != nil {
		return modErr("review flagged message", err)
	}
	return nil
}

// BlockedMessages lists the messages rules held, newest first, below the message id before.
func (s Moderation) BlockedMessages(ctx context.Context, p Principal, before int64, limit int) ([]BlockedMessage, error) {
	bs, err := s.store.BlockedMessages(ctx, p.App.ID, before, limit)
	return bs, modErr("list blocked messages", err)
}

// ReviewBlocked approves a held message, which is sent then (its events, sockets and
// notifications as any send's, sentAt the approval's time) and answered, or rejects it
// (never sent; the answer's ID is 0). id is the held message's id (its message.id in the
// blocked list, the id its sender was answered with), as the hosted API's
// PATCH /moderation/blocked-messages/{messageId}; the entry's own id is not an address.
func (s Moderation) ReviewBlocked(ctx context.Context, p Principal, id, status string) (Message, error) {
	bid, err := strconv.ParseInt(id, 10, 64)
	if err != nil || bid <= 0 {
		return Message{}, Errorf(CodeBlockedNotFound, "The blocked message does not exist.")
	}
	if status != ModApproved && status != ModRejected {
		return Message{}, InvalidField("status", "The status must be approved or rejected.")
	}
	if status == ModApproved {
		// Approval sends it as its sender now: refused, and left pending for a rejection,
		// when the sender could not send it now.
		b, err := s.store.BlockedByMessage(ctx, p.App.ID, bid)
		if errors.Is(err, ErrNotFound) {
			return Message{}, Errorf(CodeBlockedNotFound, "The blocked message with id %d does not exist.", bid)
		} else if err != nil {
			return Message{}, modErr("review blocked message", err)
		}
		if b.Status == ModPending {
			if err := s.stillMaySend(ctx, p, b.Message); err != nil {
				return Message{}, err
			}
		}
	}
	now := s.now()
	// What the delivery's events need, read before the transaction: inside it a read would
	// wait for a connection that transactions queued on the same row may all hold.
	subscribed := map[string]bool{}
	for _, t := range []string{TriggerMessageSent, TriggerModerationManualApproved, TriggerUserMentioned} {
		subscribed[t] = s.subscribed(ctx, p.App.ID, t)
	}
	notify := s.notifying(ctx, p.App.ID)
	agents := s.appAgents(ctx, p.App.ID)
	var sent Message
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		sent = Message{}
		b, err := tx.LockBlocked(p.App.ID, bid)
		if errors.Is(err, ErrNotFound) {
			return Errorf(CodeBlockedNotFound, "The blocked message with id %d does not exist.", bid)
		}
		if err != nil {
			return err
		}
		if b.Status != ModPending {
			return Errorf(CodeAlreadyReviewed, "The blocked message with id %d has already been reviewed (%s).", bid, b.Status)
		}
		if status == ModRejected {
			cs.Add(settingsChange(p.App.ID, SettingModeration))
			// It keeps its message id: the list and a second review still know it by that.
			return tx.SetBlockedStatus(p.App.ID, b.ID, ModRejected, b.MessageID, now)
		}
		// It keeps the id its sender was answered with.
		m := b.Message
		m.ID, m.Moderation, m.SentAt, m.UpdatedAt = b.MessageID, "", now, now
		var events []OutboxEvent
		at := time.Now().UnixMilli()
		for _, t := range []string{TriggerMessageSent, TriggerModerationManualApproved, TriggerUserMentioned} {
			if subscribed[t] && (t != TriggerUserMentioned || len(m.Mentions) > 0) {
				events = append(events, OutboxEvent{AppID: m.AppID, Trigger: t, ConversationID: m.ConversationID, Ref: EventRef{Data: m.Data, Tags: m.Tags}, At: at})
			}
		}
		if notify {
			events = append(events, OutboxEvent{Kind: EventNotification, AppID: m.AppID, Trigger: TriggerMessageSent, ConversationID: m.ConversationID, At: at})
		}
		// An agent it was written to answers it now, as it would have at the send.
		for _, uid := range AgentTargets(&m, agents) {
			events = append(events, OutboxEvent{Kind: EventAgentJob, AppID: m.AppID, ConversationID: m.ConversationID, Agent: uid, At: at})
		}
		// As a send: the conversation's row first, which orders its seqs (sqlstore's
		// insertMessage).
		if _, err := tx.LockConversation(p.App.ID, m.ConversationID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := tx.InsertMessage(&m); err != nil {
			return err
		}
		for _, ev := range events {
			ev.MessageID, ev.Ref.MessageID = m.ID, m.ID
			if err := tx.InsertOutbox(ev); err != nil {
				return err
			}
		}
		sent = m
		cs.Add(messageChange(&sent, workOf(events)))
		return tx.SetBlockedStatus(p.App.ID, b.ID, ModApproved, m.ID, now)
	})
	if err != nil {
		return Message{}, modErr("review blocked message", err)
	}
	if sent.ID != 0 {
		s.rollup.message(p.App.ID, sent.Sender, now)
	}
	return sent, nil
}

// stillMaySend re-checks what the send of a held message checked before a rule held it:
// its sender and receiver are still users, the sender still a member of the group and not
// banned from it, and neither user has blocked the other since. (A send and its check are
// no more atomic than this either.)
func (s *Service) stillMaySend(ctx context.Context, p Principal, m Message) error {
	if _, err := s.User(ctx, p, m.Sender); err != nil {
		return err
	}
	_, err := s.addressee(ctx, p, m.Sender, m.ReceiverType, m.Receiver)
	return err
}

// blockedSubject renders a moderation_engine_blocked event: the held message as it was
// held (pending, the id its sender was answered with), whatever its review decided since.
func (s *Service) blockedSubject(ctx context.Context, appID string, id int64) (*Message, error) {
	b, err := s.store.BlockedMessage(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	b.Message.ID, b.Message.Moderation = b.MessageID, ModPending
	if b.MessageID == 0 {
		b.Message.ID = b.ID
	}
	return &b.Message, nil
}
