package chat

import (
	"context"
	"slices"
	"time"
)

// userEntity is uid's entity from users read, or its uid alone when it was not (an unblock
// of a user deleted since).
func userEntity(users map[string]User, uid string) Entity {
	if u, ok := users[uid]; ok {
		return u.Entity()
	}
	return Entity{UID: uid}
}

// A block is one user's: alice blocking bob stops one-to-one messages both ways
// (ERR_BLOCKED_RECEIVER for alice, ERR_BLOCKED_SENDER for bob), shows in user lists made on
// either's behalf, and hides bob's messages from alice's lists that ask
// (hideMessagesFromBlockedUsers). Group messages are not stopped: a group is everyone's.

// BlockTx is what blocking needs inside its transaction (with FriendTx's LockUsers).
type BlockTx interface {
	// InsertBlocks records uid blocking each of targets (an existing block stays as it was)
	// and returns the targets newly blocked.
	InsertBlocks(appID, uid string, targets []string, at int64) ([]string, error)
	// DeleteBlocks lifts uid's blocks of targets and returns those that were blocked.
	DeleteBlocks(appID, uid string, targets []string) ([]string, error)
}

// BlockStore reads blocks.
type BlockStore interface {
	// Blocks reports whether a has blocked b and whether b has blocked a.
	Blocks(ctx context.Context, appID, a, b string) (aBlockedB, bBlockedA bool, err error)
	// BlockState is uid's blocks as viewer sees them.
	BlockState(ctx context.Context, appID, viewer, uid string) (BlockState, error)
	// BlockStates is BlockState for each of uids, in one read; a uid with no block either
	// way is absent.
	BlockStates(ctx context.Context, appID, viewer string, uids []string) (map[string]BlockState, error)
}

// BlockResults are an add or remove's outcome per uid: nil for done.
type BlockResults map[string]*Error

// Block directions of a blocked-users list.
const (
	BlockedByMe  = "blockedByMe"
	HasBlockedMe = "hasBlockedMe"
	BlockedBoth  = "both"
)

// BlockUsers makes uid block each of targets, reporting per uid: done (also when it was
// already blocked), ERR_CANNOT_BLOCK_SELF, or ERR_UID_NOT_FOUND. What is reported done is
// exactly what is written, in one transaction. An empty uid is the acting user's own
// blocks (the client SDK's /blockedusers), as for UnblockUsers and ListBlocked.
func (s *Service) BlockUsers(ctx context.Context, p Principal, uid string, targets []string) (BlockResults, error) {
	uid, err := s.blocker(ctx, p, uid, OpBlockUsers)
	if err != nil {
		return nil, err
	}
	return s.changeBlocks(ctx, p, uid, targets, true)
}

// blocker is the user a block operation is for: the path's (an app's, with its key), or
// with none the acting user, whose role may have the operation restricted.
func (s *Service) blocker(ctx context.Context, p Principal, uid string, op Op) (string, error) {
	if uid != "" {
		return uid, nil
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return "", err
	}
	if _, err := s.permit(ctx, p, Action{Op: op, Role: u.Role}); err != nil {
		return "", err
	}
	return u.UID, nil
}

// UnblockUsers lifts uid's blocks of targets, reporting per uid as BlockUsers does; a user
// not blocked is done too.
func (s *Service) UnblockUsers(ctx context.Context, p Principal, uid string, targets []string) (BlockResults, error) {
	uid, err := s.blocker(ctx, p, uid, OpUnblockUsers)
	if err != nil {
		return nil, err
	}
	return s.changeBlocks(ctx, p, uid, targets, false)
}

func (s *Service) changeBlocks(ctx context.Context, p Principal, uid string, targets []string, block bool) (BlockResults, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return nil, errUIDNotFound("")
	}
	ids, err := friendUIDs("blockedUids", targets)
	if err != nil {
		return nil, err
	}
	now := s.now()
	trigger := TriggerUserUnblocked
	if block {
		trigger = TriggerUserBlocked
	}
	event := s.subscribed(ctx, p.App.ID, trigger)
	var results BlockResults
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		results = BlockResults{}
		active, err := lockParties(tx, p.App.ID, uid, ids)
		if err != nil {
			return err
		}
		var done []string
		for _, t := range ids {
			_, found := active[t]
			switch {
			case t == uid:
				results[t] = Errorf(CodeCannotBlockSelf, "A user cannot block itself.")
			case !found && block:
				results[t] = errUIDNotFound(t).(*Error)
			default:
				results[t] = nil
				done = append(done, t)
			}
		}
		if len(done) == 0 {
			return nil
		}
		change := tx.DeleteBlocks
		if block {
			change = func(appID, uid string, targets []string) ([]string, error) {
				return tx.InsertBlocks(appID, uid, targets, now)
			}
		}
		changed, err := change(p.App.ID, uid, done)
		if err != nil || len(changed) == 0 {
			return err // a block that was there already (or a lift of none) is no change
		}
		c := &Change{Kind: ChangeBlock, App: p.App.ID, UIDs: append([]string{uid}, changed...)}
		cs.Add(c)
		if !event {
			return nil
		}
		c.Work = WorkWebhook
		by := active[uid].Entity()
		ref := EventRef{By: &by}
		for _, t := range changed {
			ref.Members = append(ref.Members, EventMember{Entity: userEntity(active, t)})
		}
		// A user's block and presence events are ordered by "user:<uid>", as a
		// conversation's by its id.
		return tx.InsertOutbox(OutboxEvent{AppID: p.App.ID, Trigger: trigger, ConversationID: "user:" + uid, Ref: ref, At: time.Now().UnixMilli()})
	})
	if ErrorCode(err) != "" {
		return nil, err
	}
	if err != nil {
		return nil, internal("change blocks", err)
	}
	return results, nil
}

// ListBlocked lists the users uid has blocked (direction blockedByMe, the default), those
// who have blocked it (hasBlockedMe), or both, as ListUsers lists users; each carries the
// block fields as seen by uid.
func (s *Service) ListBlocked(ctx context.Context, p Principal, uid, direction string, q UserQuery) ([]User, int, error) {
	if direction == "" {
		direction = BlockedByMe
	}
	if !slices.Contains([]string{BlockedByMe, HasBlockedMe, BlockedBoth}, direction) {
		return nil, 0, InvalidField("direction", "The direction must be blockedByMe, hasBlockedMe or both.")
	}
	uid, err := s.blocker(ctx, p, uid, OpListBlocked)
	if err != nil {
		return nil, 0, err
	}
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return nil, 0, err
	}
	q.BlocksOf, q.BlockDirection = u.UID, direction
	q.Deactivated = OnlyActive
	return s.listUsers(ctx, p.ActingAs(u.UID), q, false)
}

// blockedBetween refuses a one-to-one message between users one of whom blocked the other.
func (s *Service) blockedBetween(ctx context.Context, appID, sender, receiver string) error {
	senderBlocked, receiverBlocked, err := s.cachedBlocks(ctx, appID, sender, receiver)
	switch {
	case err != nil:
		return internal("read blocks", err)
	case senderBlocked:
		return Errorf(CodeBlockedReceiver, "The user %s has blocked the user %s: unblock it to send it messages.", sender, receiver)
	case receiverBlocked:
		return Errorf(CodeBlockedSender, "The user %s has blocked the user %s, who cannot send it messages.", receiver, sender)
	}
	return nil
}
