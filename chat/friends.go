package chat

import (
	"context"
	"fmt"
	"slices"
)

// Limits of friends.
const (
	// MaxFriendsPerCall bounds the uids of one add or remove, as the hosted service bounds
	// the members of one call.
	MaxFriendsPerCall = 25
	// MaxFriends is the most friends a user may have: the hosted service's constraints
	// table says 1000 (its rate-limit list says 500).
	MaxFriends = 1000
)

// A friendship is symmetric and accepted at once: adding bob to alice's friends makes each
// the other's friend. The store keeps one row per direction.

// FriendTx is what changing friendships needs inside its transaction.
type FriendTx interface {
	// LockUsers holds the listed users, in uid order, until the transaction ends, and
	// returns those that exist (in any state, without tags).
	LockUsers(appID string, uids []string) ([]User, error)
	// FriendsAmong returns which of among are friends of uid.
	FriendsAmong(appID, uid string, among []string) ([]string, error)
	// CountFriends counts uid's friends, deactivated ones included: they may come back (a
	// deleted user's friendships are deleted with it).
	CountFriends(appID, uid string) (int, error)
	// InsertFriends and DeleteFriends write both directions of each friendship.
	InsertFriends(appID, uid string, friends []string, at int64) error
	DeleteFriends(appID, uid string, friends []string) error
}

// FriendResults are the outcome of an add, per uid as normalised: nil for a friendship made.
type FriendResults map[string]*Error

// friendUIDs validates a list of uids for an add or a remove and returns them normalised,
// without repeats, in the order given.
func friendUIDs(field string, uids []string) ([]string, error) {
	fe := fieldErrors{}
	switch {
	case len(uids) == 0:
		fe.add(field, "The "+field+" field is required.")
	case len(uids) > MaxFriendsPerCall:
		fe.add(field, fmt.Sprintf("At most %d uids may be named in one call.", MaxFriendsPerCall))
	}
	out := make([]string, 0, len(uids))
	for _, u := range uids {
		if id := fe.id(field, u, true); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// lockParties locks uid and others (uid order, so two calls never wait on each other in a
// cycle) and returns the active users among them by uid; uid itself must be active.
func lockParties(tx Tx, appID, uid string, others []string) (map[string]User, error) {
	all := append([]string{uid}, others...)
	slices.Sort(all)
	users, err := tx.LockUsers(appID, slices.Compact(all))
	if err != nil {
		return nil, err
	}
	active := map[string]User{}
	for _, u := range users {
		if u.Active() {
			active[u.UID] = u
		}
	}
	if _, ok := active[uid]; !ok {
		return nil, errUIDNotFound(uid)
	}
	return active, nil
}

// AddFriends makes each of accepted a friend of uid, and reports per uid: made, or refused
// with ERR_CANNOT_FORM_SELF_RELATION, ERR_UID_NOT_FOUND, ERR_ALREADY_FRIEND, or
// ERR_FAILED_TO_ADD_FRIEND when either side already has MaxFriends. The friendships
// reported made are exactly those written, in one transaction; a refusal of the whole call
// (an invalid list, an unknown uid in the path) writes nothing.
func (s *Service) AddFriends(ctx context.Context, p Principal, uid string, accepted []string) (FriendResults, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return nil, errUIDNotFound("")
	}
	targets, err := friendUIDs("accepted", accepted)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var results FriendResults
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		results = FriendResults{}
		active, err := lockParties(tx, p.App.ID, uid, targets)
		if err != nil {
			return err
		}
		already, err := tx.FriendsAmong(p.App.ID, uid, targets)
		if err != nil {
			return err
		}
		mine, err := tx.CountFriends(p.App.ID, uid)
		if err != nil {
			return err
		}
		var added []string
		for _, t := range targets {
			_, found := active[t]
			switch {
			case t == uid:
				results[t] = Errorf(CodeSelfRelation, "A user cannot be their own friend.")
				continue
			case !found:
				results[t] = errUIDNotFound(t).(*Error)
				continue
			case slices.Contains(already, t):
				results[t] = Errorf(CodeAlreadyFriend, "%s is already a friend.", theUser(t))
				continue
			case mine >= MaxFriends:
				results[t] = errFriendLimit(uid)
				continue
			}
			theirs, err := tx.CountFriends(p.App.ID, t)
			if err != nil {
				return err
			}
			if theirs >= MaxFriends {
				results[t] = errFriendLimit(t)
				continue
			}
			results[t] = nil
			added = append(added, t)
			mine++
		}
		if len(added) == 0 {
			return nil
		}
		cs.Add(friendChange(p.App.ID, uid, added))
		return tx.InsertFriends(p.App.ID, uid, added, now)
	})
	if ErrorCode(err) != "" {
		return nil, err
	}
	if err != nil {
		return nil, internal("add friends", err)
	}
	return results, nil
}

// friendChange announces that uid's friendships with others were made or ended.
func friendChange(app, uid string, others []string) *Change {
	return &Change{Kind: ChangeFriend, App: app, UIDs: append([]string{uid}, others...)}
}

func errFriendLimit(uid string) *Error {
	return Errorf(CodeFriendAddFailed, "%s already has %d friends, the most allowed.", theUser(uid), MaxFriends)
}

// theUser names a valid uid in a message, unless it may not be quoted (echo.go).
func theUser(uid string) string {
	if quotableID(uid) {
		return "The user " + uid
	}
	return "The user"
}

// ListFriends lists an active user's active friends, as ListUsers lists users (search,
// paging, ordering, cursor).
func (s *Service) ListFriends(ctx context.Context, p Principal, uid string, q UserQuery) ([]User, int, error) {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return nil, 0, err
	}
	q.FriendsOf = u.UID
	q.Deactivated = OnlyActive
	return s.listUsers(ctx, p.ActingAs(""), q, false)
}

// RemoveFriends ends uid's friendship with each of friends, all or nothing: a uid that is not
// a friend of uid (unknown ones included) is 404 ERR_NOT_A_FRIEND and nothing is removed.
func (s *Service) RemoveFriends(ctx context.Context, p Principal, uid string, friends []string) (string, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return "", errUIDNotFound("")
	}
	targets, err := friendUIDs("friends", friends)
	if err != nil {
		return "", err
	}
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		if _, err := lockParties(tx, p.App.ID, uid, targets); err != nil {
			return err
		}
		already, err := tx.FriendsAmong(p.App.ID, uid, targets)
		if err != nil {
			return err
		}
		for _, t := range targets {
			if !slices.Contains(already, t) {
				return Errorf(CodeNotAFriend, "%s is not a friend of the user named in the path.", theUser(t))
			}
		}
		cs.Add(friendChange(p.App.ID, uid, targets))
		return tx.DeleteFriends(p.App.ID, uid, targets)
	})
	if ErrorCode(err) != "" {
		return "", err
	}
	if err != nil {
		return "", internal("remove friends", err)
	}
	return uid, nil
}

// friendOf returns Action.Friend for other as uid's friend.
func (s *Service) friendOf(ctx context.Context, appID, uid, other string) func() (bool, error) {
	return func() (bool, error) {
		ok, err := s.store.IsFriend(ctx, appID, uid, other)
		if err != nil {
			return false, internal("read friends", err)
		}
		return ok, nil
	}
}
