package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Restricted features are the hosted service's older, coarser RBAC: a role may be barred
// from whole operations, each named by a feature key ("u.listUsers"). A restricted
// operation done on behalf of one of the role's users answers 403 ERR_PERMISSION_DENIED
// naming the key (policy.go). features is the one table of the keys natter knows.

// Feature is a restrictable operation.
type Feature struct {
	Key         string // "u.<name>"
	Title       string
	Description string
	Path        string // the endpoint it names, as the hosted service shows it
	// Enforced is false for the operations no user does in natter: those it does not serve
	// yet (deleting a call, settings, logout). They may be restricted, and apply once a user
	// does them.
	Enforced bool
}

func feature(name, title, description, path string) Feature {
	return Feature{Key: "u." + name, Title: title, Description: description, Path: path, Enforced: true}
}

// notByUsers is a feature no user does in natter (Enforced).
func notByUsers(name, title, description, path string) Feature {
	f := feature(name, title, description, path)
	f.Enforced = false
	return f
}

// features are the keys of the hosted service's restrict-features table, in its order.
var features = []Feature{
	feature("addMember", "Add Member", "Allows logged-in user to add a member to a group.", "/v3/groups/{{guid}}/members"),
	feature("ban", "Ban User", "Allows logged-in user to ban a member in a group.", "/v3/groups/{{guid}}/bannedusers/{{uid}}"),
	feature("blockUser", "Block User", "Allows logged-in user to block a user.", "/v3/users/{{uid}}/blockedusers"),
	feature("changeScope", "Change Scope", "Allows logged-in user to change the scope of a member in a group.", "/v3/groups/{{guid}}/members/{{uid}}"),
	feature("createCall", "Initiate Call", "Allows logged-in user to initiate a call.", "/v3/calls"),
	feature("createGroup", "Create Group", "Allows logged-in user to create a group.", "/v3/groups"),
	feature("createMessage", "Send Message", "Allows logged-in user to send a message.", "/v3/messages"),
	feature("createMessageThread", "Reply to a Message", "Allows logged-in user to reply in a message's thread.", "/v3/messages/{{id}}/thread"),
	notByUsers("deleteCall", "Delete Call", "Allows logged-in user to delete a call.", "/v3/calls/{{sessionId}}"),
	feature("deleteConversationForUser", "Delete Conversation", "Allows logged-in user to delete a conversation for himself.", "/v3/users/{{uid}}/conversation"),
	feature("deleteGroup", "Delete Group", "Allows logged-in user to delete a group.", "/v3/groups/{{guid}}"),
	feature("deleteGroupMessages", "Delete Group Messages", "Allows logged-in user to delete messages in a group.", "/v3/messages/{{id}}"),
	feature("deleteMessage", "Delete Message", "Allows logged-in user to delete a message.", "/v3/messages/{{id}}"),
	feature("getBlockedUsers", "Fetch Blocked Users", "Allows logged-in user to fetch the list of blocked users.", "/v3/users/{{uid}}/blockedusers"),
	feature("getCall", "Get Call", "Allows logged-in user to fetch the details of a call.", "/v3/calls/{{sessionId}}"),
	feature("getConversation", "Get Conversation", "Allows logged-in user to get the details of a conversation.", "/v3/users/{{uid}}/conversation"),
	feature("getGroup", "Get Group", "Allows logged-in user to get the details of a group.", "/v3/groups/{{guid}}"),
	feature("getGroupMessages", "List Group Messages", "Allows logged-in user to fetch messages in a group.", "/v3/groups/{{guid}}/messages"),
	notByUsers("getMember", "Get Member", "Allows logged-in user to get details of a member in a group.", "/v3/groups/{{guid}}/members/{{uid}}"),
	feature("getMessage", "Get Message", "Allows logged-in user to get the details of a message.", "/v3/messages/{{id}}"),
	feature("getMyDetails", "Get My Details", "Allows logged-in user to fetch his own details.", "/v3/users/{{uid}}"),
	feature("getUser", "Get User", "Allows logged-in user to fetch the details of any other user.", "/v3/users/{{uid}}"),
	feature("getUserMessages", "List User Messages", "Allows logged-in user to fetch messages sent/received from another user.", "/v3/users/{{uid}}/messages"),
	feature("joinGroup", "Join Group", "Allows logged-in user to join a group.", "/v3/groups/{{guid}}/members"),
	feature("kickMember", "Kick Member", "Allows logged-in user to kick a member from the group.", "/v3/groups/{{guid}}/members/{{uid}}"),
	feature("leaveGroup", "Leave Group", "Allows logged-in user to leave a group.", "/v3/groups/{{guid}}/members"),
	feature("listBannedUsers", "List Banned Users", "Allows logged-in user to fetch the banned members in a group.", "/v3/groups/{{guid}}/bannedusers"),
	feature("listCalls", "List Calls", "Allows logged-in user to fetch the call list.", "/v3/calls"),
	feature("listConversations", "List Conversations", "Allows logged-in user to fetch the conversation list.", "/v3/conversations"),
	feature("listGroupMembers", "List Group Members", "Allows logged-in user to fetch the members list for a group.", "/v3/groups/{{guid}}/members"),
	feature("listGroups", "List Groups", "Allows logged-in user to fetch the group list.", "/v3/groups"),
	feature("listMessages", "List Messages", "Allows logged-in user to fetch all the messages sent by/for him.", "/v3/messages"),
	notByUsers("listSettings", "List Settings", "Allows logged-in user to fetch the settings.", "/v3/settings"),
	feature("listThreadedMessages", "List Threaded Messages", "Allows logged-in user to fetch all the replies for a message.", "/v3/messages/{{id}}/thread"),
	feature("listUsers", "List Users", "Allows logged-in user to fetch the user list.", "/v3/users"),
	notByUsers("logout", "Logout", "Allows logged-in user to logout.", "/v3/me/logout"),
	feature("massMemberOperate", "Group Mass Operation", "Allows logged-in user to manage multiple group members with a single API call.", "/v3/groups/{{guid}}/members"),
	feature("patchOwner", "Patch Owner", "Allows logged-in user to transfer the ownership of a group.", "/v3/groups/{{guid}}/owner"),
	feature("unban", "Unban User", "Allows logged-in user to unban a member.", "/v3/groups/{{guid}}/bannedusers/{{uid}}"),
	feature("unblockUser", "Unblock User", "Allows logged-in user to unblock a user.", "/v3/users/{{uid}}/blockedusers"),
	feature("updateAuthToken", "Updates AuthToken", "Allows logged-in user to update his own details and authtoken details.", "/v3/users/{{uid}}"),
	feature("updateCall", "Update Call", "Allows logged-in user to change the status of initiated/ongoing call.", "/v3/calls/{{sessionId}}"),
	feature("updateGroup", "Edit Group", "Allows logged-in user to edit group details.", "/v3/groups/{{guid}}"),
	feature("updateMessage", "Edit Message", "Allows logged-in user to edit a message.", "/v3/messages/{{id}}"),
}

// Features returns the restrictable features, in the table's order.
func Features() []Feature { return features }

// FeatureKey finds a feature by its key, "u.listUsers", or its bare name, "listUsers", and
// returns its key.
func FeatureKey(k string) (string, bool) {
	if !strings.HasPrefix(k, "u.") {
		k = "u." + k
	}
	_, ok := featureByKey(k)
	return k, ok
}

func featureByKey(key string) (Feature, bool) {
	for _, f := range features {
		if f.Key == key {
			return f, true
		}
	}
	return Feature{}, false
}

// RestrictedFeature is a feature restricted for a role, and since when.
type RestrictedFeature struct {
	Feature
	CreatedAt int64
}

// FeatureStore reads restricted features.
type FeatureStore interface {
	// RestrictedFeatures lists a role's restricted feature keys with when each was
	// restricted, in key order.
	RestrictedFeatures(ctx context.Context, appID, role string) (map[string]int64, error)
}

// FeatureTx is what changing restricted features needs inside its transaction (with
// RoleTx's LockRole).
type FeatureTx interface {
	// RestrictFeatures restricts keys for a role; one already restricted keeps its time.
	RestrictFeatures(appID, role string, keys []string, at int64) error
	// AllowFeatures lifts the restriction of keys, or of every key when keys is nil.
	AllowFeatures(appID, role string, keys []string) error
}

// featureKeys validates a list of feature keys and returns them as keys, without repeats.
func featureKeys(field string, in []string) ([]string, error) {
	fe := fieldErrors{}
	if len(in) > len(features) {
		fe.add(field, "Name each feature once.")
	}
	var out []string
	for _, k := range in {
		key, ok := FeatureKey(k)
		if !ok {
			fe.add(field, "The feature "+brief(k)+" does not exist.")
			continue
		}
		if !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// RestrictFeatures restricts features for a role, all or nothing: an unknown feature
// refuses the call. It returns the keys restricted.
func (s Roles) RestrictFeatures(ctx context.Context, p Principal, role string, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, InvalidField("featuresToRestrict", "The featuresToRestrict field is required.")
	}
	keys, err := featureKeys("featuresToRestrict", keys)
	if err != nil {
		return nil, err
	}
	err = s.changeRole(ctx, p, role, func(tx Tx, id string) error {
		return tx.RestrictFeatures(p.App.ID, id, keys, s.now())
	})
	return keys, err
}

// AllowFeatures lifts restrictions of a role: those of keys, or all of them with all.
func (s Roles) AllowFeatures(ctx context.Context, p Principal, role string, keys []string, all bool) error {
	switch {
	case all && len(keys) > 0:
		return InvalidField("allowAll", "Send featuresToAllow or allowAll, not both.")
	case !all && len(keys) == 0:
		return InvalidField("featuresToAllow", "Name the features to allow in featuresToAllow, or send allowAll: true.")
	}
	if !all {
		var err error
		if keys, err = featureKeys("featuresToAllow", keys); err != nil {
			return err
		}
	}
	return s.changeRole(ctx, p, role, func(tx Tx, id string) error { return tx.AllowFeatures(p.App.ID, id, keys) })
}

// ListRestrictedFeatures lists the features restricted for a role, in the table's order.
func (s Roles) ListRestrictedFeatures(ctx context.Context, p Principal, role string) ([]RestrictedFeature, error) {
	r, err := s.Role(ctx, p, role)
	if err != nil {
		return nil, err
	}
	at, err := s.store.RestrictedFeatures(ctx, p.App.ID, r.Role)
	if err != nil {
		return nil, internal("list restricted features", err)
	}
	var out []RestrictedFeature
	for _, f := range features {
		if t, ok := at[f.Key]; ok {
			out = append(out, RestrictedFeature{Feature: f, CreatedAt: t})
		}
	}
	return out, nil
}

// changeRole runs fn on a locked role in one transaction, and forgets the app's cached
// policy after it.
func (s *Service) changeRole(ctx context.Context, p Principal, role string, fn func(tx Tx, id string) error) error {
	id, ok := NormalizeID(role)
	if !ok {
		return errRoleNotFound("")
	}
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		if _, err := tx.LockRole(p.App.ID, id); errors.Is(err, ErrNotFound) {
			return errRoleNotFound(id)
		} else if err != nil {
			return err
		}
		cs.Add(settingsChange(p.App.ID, SettingFeatures))
		return fn(tx, id)
	})
	if err != nil {
		return s.groupErr("change role", err)
	}
	s.forgetPolicy(p.App.ID)
	return nil
}
