package chat

import (
	"context"
	"errors"
	"strconv"
)

// Online counts (docs/api-decisions.md, "Online counts"): how many of an app's users are
// online, and how many members of some of its groups, as the client SDK's
// getOnlineUserCount and getOnlineGroupMemberCount ask. Online is what presence says: a user
// a node holds a socket of (RealtimeStore.SetOnline), across every node of a deployment,
// since the holds are rows of the shared database.

// MaxOnlineGroups bounds the groups one request asks about: each costs a membership check.
const MaxOnlineGroups = 100

// OnlineStore counts the users that some node holds a live socket of.
type OnlineStore interface {
	// CountOnline counts the app's users with a presence hold that expires after now.
	CountOnline(ctx context.Context, appID string, now int64) (int64, error)
	// CountOnlineMembers counts, for each of the groups, its members with such a hold; a
	// group with none is absent from the answer.
	CountOnlineMembers(ctx context.Context, appID string, guids []string, now int64) (map[string]int64, error)
}

// OnlineCounts answers an online count: the app's online users and, by guid, the online
// members of each group asked about that the caller may see.
type OnlineCounts struct {
	Users  int64
	Groups map[string]int64
}

// OnlineMembers counts the app's online users, and the online members of the groups guids.
// A group counts only where the caller may list its members: an API key acting as no one
// sees every group of the app; a user (its auth token, or a key acting as it) only the
// groups it is a member of and whose members its role may list. Any other group — unknown,
// another app's, one the user is not in or is banned from — is left out of the answer
// rather than refused, so that one group the user left does not fail the whole question,
// and its absence says no more than a count of nothing would.
func (s *Service) OnlineMembers(ctx context.Context, p Principal, guids []string) (OnlineCounts, error) {
	fe := fieldErrors{}
	if len(guids) > MaxOnlineGroups {
		fe.add("groups", "The groups may not have more than "+strconv.Itoa(MaxOnlineGroups)+" items.")
	}
	ids := make([]string, 0, len(guids))
	seen := map[string]bool{}
	for _, g := range guids {
		id, ok := NormalizeID(g)
		if !ok {
			fe.add("groups", "Each of the groups must be a guid: letters, numbers, underscores and hyphens, at most 100 characters.")
			break
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if err := fe.err(); err != nil {
		return OnlineCounts{}, err
	}
	var viewer User
	if p.acting() {
		var err error
		if viewer, err = s.actingUser(ctx, p); err != nil {
			return OnlineCounts{}, err
		}
	}
	visible := make([]string, 0, len(ids))
	for _, id := range ids {
		ok, err := s.seesMembers(ctx, p, viewer, id)
		if err != nil {
			return OnlineCounts{}, err
		}
		if ok {
			visible = append(visible, id)
		}
	}
	now := s.now()
	users, err := s.store.CountOnline(ctx, p.App.ID, now)
	if err != nil {
		return OnlineCounts{}, internal("count online users", err)
	}
	out := OnlineCounts{Users: users, Groups: make(map[string]int64, len(visible))}
	if len(visible) > 0 {
		counts, err := s.store.CountOnlineMembers(ctx, p.App.ID, visible, now)
		if err != nil {
			return OnlineCounts{}, internal("count online members", err)
		}
		for _, id := range visible {
			out.Groups[id] = counts[id] // 0 where no member is online
		}
	}
	return out, nil
}

// seesMembers reports whether the caller may learn who of the group guid's members is
// online: what listing its members takes (ListMembers), answered as a yes or no.
func (s *Service) seesMembers(ctx context.Context, p Principal, viewer User, guid string) (bool, error) {
	g, err := s.groupAs(ctx, p.App.ID, guid, viewer.UID)
	var ce *Error
	if errors.As(err, &ce) && ce.Code == CodeGUIDNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if g.Viewer == nil {
		return true, nil
	}
	if !g.Viewer.Joined() || g.Viewer.Banned {
		return false, nil
	}
	_, err = s.permit(ctx, p, Action{Op: OpListMembers, Role: viewer.Role, GUID: g.GUID, Scope: g.Viewer.Scope})
	if errors.As(err, &ce) && ce.Code == CodePermissionDenied {
		return false, nil
	}
	return err == nil, err
}
