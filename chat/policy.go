package chat

import (
	"context"
	"slices"
	"strings"
)

// The permission check. Every operation a user does (on behalf of, with onBehalfOf or an
// auth token) that a permission, a role setting or a restricted feature names is decided
// here, once, by Policy.decide: the service describes the operation as an Action and asks
// permit. A request that acts as no user (a fullAccess key without onBehalfOf) acts as the
// app, which nothing restricts. The app's Policy is read whole and cached per node for the
// key cache's TTL (a change made on this node applies at once, on others within the TTL),
// as is each group's scope permissions; an app that has set nothing answers every check
// without a lookup.

// CodePermissionDenied is the code of every refusal the check makes.

// Op is an operation the check knows.
type Op int

const (
	OpSendMessage Op = iota + 1
	OpSendThreadMessage
	OpEditMessage
	OpDeleteMessage
	OpGetMessage
	OpListMessages
	OpListUserMessages
	OpListGroupMessages
	OpListThread
	OpAddReaction // adding or removing
	OpListReactions
	OpListUsers
	OpGetUser
	OpUpdateProfile // a client app's user updating its own profile
	OpCreateGroup
	OpListGroups
	OpGetGroup
	OpUpdateGroup
	OpDeleteGroup
	OpJoinGroup
	OpLeaveGroup
	OpAddMembers
	OpKickMember
	OpBanMember
	OpUnbanMember
	OpChangeScope
	OpTransferOwner
	OpListMembers
	OpListBanned
	OpListConversations
	OpGetConversation
	OpDeleteConversation
	OpInitiateCall
	OpUpdateCall // its status or its type
	OpGetCall
	OpListCalls
	OpBlockUsers // the acting user's own blocks (/blockedusers)
	OpUnblockUsers
	OpListBlocked
)

// opFeatures is the restricted feature each operation is.
var opFeatures = map[Op]string{
	OpSendMessage:        "u.createMessage",
	OpInitiateCall:       "u.createCall",
	OpUpdateCall:         "u.updateCall",
	OpGetCall:            "u.getCall",
	OpListCalls:          "u.listCalls",
	OpSendThreadMessage:  "u.createMessageThread",
	OpEditMessage:        "u.updateMessage",
	OpDeleteMessage:      "u.deleteMessage",
	OpGetMessage:         "u.getMessage",
	OpListMessages:       "u.listMessages",
	OpListUserMessages:   "u.getUserMessages",
	OpListGroupMessages:  "u.getGroupMessages",
	OpListThread:         "u.listThreadedMessages",
	OpListUsers:          "u.listUsers",
	OpGetUser:            "u.getUser",
	OpUpdateProfile:      "u.updateAuthToken",
	OpCreateGroup:        "u.createGroup",
	OpListGroups:         "u.listGroups",
	OpGetGroup:           "u.getGroup",
	OpUpdateGroup:        "u.updateGroup",
	OpDeleteGroup:        "u.deleteGroup",
	OpJoinGroup:          "u.joinGroup",
	OpLeaveGroup:         "u.leaveGroup",
	OpAddMembers:         "u.addMember",
	OpKickMember:         "u.kickMember",
	OpBanMember:          "u.ban",
	OpUnbanMember:        "u.unban",
	OpChangeScope:        "u.changeScope",
	OpTransferOwner:      "u.patchOwner",
	OpListMembers:        "u.listGroupMembers",
	OpListBanned:         "u.listBannedUsers",
	OpListConversations:  "u.listConversations",
	OpGetConversation:    "u.getConversation",
	OpDeleteConversation: "u.deleteConversationForUser",
	OpBlockUsers:         "u.blockUser",
	OpUnblockUsers:       "u.unblockUser",
	OpListBlocked:        "u.getBlockedUsers",
}

// Action is an operation as the check sees it: what it is, who does it (Role, and Scope
// in the group it happens in), and what it touches. Fields an operation does not have
// stay zero.
type Action struct {
	Op   Op
	Role string
	// GUID is the group the operation happens in, and Scope the actor's scope there ("" when
	// not a member).
	GUID  string
	Scope string
	// A message sent: its receiver type, the receiver's role (one-to-one), its category,
	// type and data (whose attachments state their MIME types).
	ReceiverType string
	ReceiverRole string
	Category     string
	Type         string
	Data         []byte
	// A user read: the actor itself (Self), or another user of TargetRole.
	Self       bool
	TargetRole string
	// A group created or joined: its type.
	GroupType string
	// Members named by an add.
	Count int
	// Friend reports whether the other user (a one-to-one receiver, a user read) is the
	// actor's friend; asked only when a friends-only rule applies.
	Friend func() (bool, error)
}

// Grant is what a permitted list may show; a nil field restricts nothing.
type Grant struct {
	FriendsOnly bool     // users: only the actor's friends
	Roles       []string // users: only those of these roles
	GroupTypes  []string // groups: only those of these types
	Scopes      []string // members, reactions: only those of members of these scopes
	Categories  []string // messages: of category message or custom, only these
	Types       []string // messages: of category message, only these types
}

// Policy is one app's permissions: for each role that has any, its settings, the
// permissions set for it and its restricted features; and whether any group has scope
// permissions.
type Policy struct {
	roles  map[string]*RolePolicy
	scoped bool
}

// RolePolicy is what one role has set.
type RolePolicy struct {
	Settings    RoleSettings
	Permissions map[string]PermissionValue
	Features    map[string]bool
}

// ScopeRules are one group's scope permissions: scope → key → value.
type ScopeRules map[string]map[string]PermissionValue

// PolicyData is an app's policy as stored: what each role has set (permission values as
// stored JSON), and whether any group has scope permissions.
type PolicyData struct {
	Roles  map[string]*StoredRolePolicy
	Scoped bool
}

// StoredRolePolicy is what one role has set, as stored.
type StoredRolePolicy struct {
	Settings    RoleSettings
	Permissions map[string]string
	Features    []string
}

// NewPolicy builds a policy from what the app has set. A stored value natter no longer
// reads (a key it dropped, a value that no longer fits) is left out: the default applies.
func NewPolicy(d PolicyData) *Policy {
	roles := map[string]*RolePolicy{}
	for role, sr := range d.Roles {
		rp := &RolePolicy{Settings: sr.Settings, Permissions: map[string]PermissionValue{}, Features: map[string]bool{}}
		for k, v := range sr.Permissions {
			if pv, ok := decodePermissionValue(RolePermission, k, v); ok {
				rp.Permissions[k] = pv
			}
		}
		for _, f := range sr.Features {
			rp.Features[f] = true
		}
		roles[role] = rp
	}
	return newPolicy(roles, d.Scoped)
}

// newPolicy keeps the roles that restrict anything.
func newPolicy(roles map[string]*RolePolicy, scoped bool) *Policy {
	pol := &Policy{roles: map[string]*RolePolicy{}, scoped: scoped}
	for role, rp := range roles {
		s := rp.Settings
		if len(rp.Permissions) > 0 || len(rp.Features) > 0 || s.ListUsers == SettingFriendsOnly || s.SendMessagesTo == SettingFriendsOnly {
			pol.roles[role] = rp
		}
	}
	return pol
}

// open reports whether the app restricts nothing, so that every check passes without
// looking further.
func (pol *Policy) open() bool { return len(pol.roles) == 0 && !pol.scoped }

// PolicyStore reads what the check needs beyond the operation itself.
type PolicyStore interface {
	// PolicyData reads an app's policy.
	PolicyData(ctx context.Context, appID string) (PolicyData, error)
	// ScopePermissions reads one group's scope permissions: scope → key → stored value.
	ScopePermissions(ctx context.Context, appID, guid string) (map[string]map[string]string, error)
	// IsFriend reports whether other is uid's friend.
	IsFriend(ctx context.Context, appID, uid, other string) (bool, error)
	// MessageGroup is the guid of a group message; "" for a one-to-one message or none.
	MessageGroup(ctx context.Context, appID string, id int64) (string, error)
}

// check is a role's or a scope's view of its permissions: what is set, else the default.
type check struct {
	t    PermissionType
	set  map[string]PermissionValue
	name string // the role or the scope, for messages
}

func (c check) value(key string) PermissionValue {
	if v, ok := c.set[key]; ok {
		return v
	}
	d, _ := permissionDef(c.t, key)
	return d.Default
}

func (c check) denied(key string) bool { return c.value(key).Str == Deny }

// allows reports whether a list permission lets v through: an empty list restricts nothing.
func (c check) allows(key, v string) bool {
	l := c.value(key).List
	return len(l) == 0 || slices.Contains(l, v)
}

func (c check) list(key string) []string {
	if l := c.value(key).List; len(l) > 0 {
		return l
	}
	return nil
}

func (c check) refuse(key, why string) error {
	who := "the role " + c.name
	if c.t == ScopePermission {
		who = "the scope " + c.name + " of this group"
	}
	return denial(key, key+" of "+who+": "+why)
}

// denial is the check's answer: 403 ERR_PERMISSION_DENIED naming the permission key (a
// role or scope permission, settings.<name>, or u.<feature>) in its message and details.
func denial(key, what string) error {
	return &Error{Code: CodePermissionDenied, Message: "Permission denied by " + what, Details: map[string][]string{"permission": {key}}}
}

// decide is the rule: the operation's restricted feature, then the role's permissions and
// settings, then the group scope's permissions (rules, nil when the group has none).
func (pol *Policy) decide(a Action, rules ScopeRules) (Grant, error) {
	var g Grant
	rp := pol.roles[a.Role]
	if rp == nil {
		rp = &RolePolicy{}
	}
	role := check{t: RolePermission, set: rp.Permissions, name: a.Role}
	scope := check{t: ScopePermission, set: rules[a.Scope], name: a.Scope}
	inGroup := a.GUID != "" && a.Scope != ""

	key := opFeatures[a.Op]
	if a.Op == OpGetUser && a.Self {
		key = "u.getMyDetails"
	}
	if a.Op == OpDeleteMessage && a.GUID != "" && rp.Features["u.deleteGroupMessages"] {
		key = "u.deleteGroupMessages"
	}
	if a.Op == OpAddMembers && a.Count > 1 && rp.Features["u.massMemberOperate"] {
		key = "u.massMemberOperate"
	}
	if rp.Features[key] {
		return g, denial(key, key+": the feature is restricted for the role "+a.Role+".")
	}

	// friends refuses by a friends-only rule unless the other user is the actor's friend,
	// which is asked once, and only when such a rule applies (no Friend: not a friend).
	asked, friend := false, false
	friends := func(key, why string) error {
		if !asked && a.Friend != nil {
			ok, err := a.Friend()
			if err != nil {
				return err
			}
			asked, friend = true, ok
		}
		if friend {
			return nil
		}
		return role.refuse(key, why)
	}

	switch a.Op {
	case OpSendMessage, OpSendThreadMessage:
		if err := pol.send(a, role, rp, friends); err != nil {
			return g, err
		}
		if inGroup && scope.denied("sendMessage") {
			return g, scope.refuse("sendMessage", "its members may not send messages to the group.")
		}
		if inGroup && a.Op == OpSendThreadMessage && scope.denied("sendThreadedMessage") {
			return g, scope.refuse("sendThreadedMessage", "its members may not reply in threads.")
		}
	case OpInitiateCall:
		switch {
		case role.denied("initiateCall"):
			return g, role.refuse("initiateCall", "its users may not initiate calls.")
		case a.ReceiverType == ReceiverUser && !role.allows("initiateCall.allowedReceiverRoles", a.ReceiverRole):
			return g, role.refuse("initiateCall.allowedReceiverRoles", "its users may not call users of the role "+a.ReceiverRole+".")
		case inGroup && scope.denied("initiateCall"):
			return g, scope.refuse("initiateCall", "its members may not call the group.")
		case inGroup && !scope.allows("initiateCall.allowedScopes", a.Scope):
			return g, scope.refuse("initiateCall.allowedScopes", "its members may not call the group.")
		case inGroup && !scope.allows("initiateCall.allowedType", a.Type):
			return g, scope.refuse("initiateCall.allowedType", "its members may not make "+a.Type+" calls to the group.")
		}
		if a.ReceiverType == ReceiverUser && role.value("initiateCall.mode").Str == ModeFriends {
			if err := friends("initiateCall.mode", "its users may call their friends only."); err != nil {
				return g, err
			}
		}
	case OpEditMessage:
		switch {
		case role.denied("editMessage"):
			return g, role.refuse("editMessage", "its users may not edit messages.")
		case inGroup && !role.allowsNot("editMessage.denyForScopes", a.Scope):
			return g, role.refuse("editMessage.denyForScopes", "its users may not edit messages in groups where they are "+a.Scope+".")
		case inGroup && scope.denied("editMessage"):
			return g, scope.refuse("editMessage", "its members may not edit messages in the group.")
		}
	case OpDeleteMessage:
		switch {
		case role.denied("deleteMessage"):
			return g, role.refuse("deleteMessage", "its users may not delete messages.")
		case inGroup && !role.allowsNot("deleteMessage.denyForScopes", a.Scope):
			return g, role.refuse("deleteMessage.denyForScopes", "its users may not delete messages in groups where they are "+a.Scope+".")
		}
	case OpListMessages, OpListUserMessages, OpListGroupMessages, OpListThread:
		g.Categories = role.list("listMessages.allowedMessageCategories")
		g.Types = role.list("listMessages.allowedMessageTypes")
	case OpAddReaction:
		if inGroup && scope.denied("addReaction") {
			return g, scope.refuse("addReaction", "its members may not react to the group's messages.")
		}
	case OpListReactions:
		if inGroup && scope.denied("listReactions") {
			return g, scope.refuse("listReactions", "its members may not list the reactions on the group's messages.")
		}
		if inGroup {
			g.Scopes = scope.list("listReactions.allowedScopes")
		}
	case OpListUsers:
		if role.denied("listUsers") {
			return g, role.refuse("listUsers", "its users may not list users.")
		}
		g.FriendsOnly = role.value("listUsers.mode").Str == ModeFriends || rp.Settings.ListUsers == SettingFriendsOnly
		g.Roles = role.list("listUsers.allowedRoles")
	case OpGetUser:
		if a.Self {
			break
		}
		if !role.allows("getUserDetails.allowedRoles", a.TargetRole) {
			return g, role.refuse("getUserDetails.allowedRoles", "its users may not read the details of users of the role "+a.TargetRole+".")
		}
		if role.value("getUserDetails.mode").Str == ModeFriends {
			if err := friends("getUserDetails.mode", "its users may read the details of their friends only."); err != nil {
				return g, err
			}
		}
	case OpCreateGroup:
		switch {
		case role.denied("createGroup"):
			return g, role.refuse("createGroup", "its users may not create groups.")
		case !role.allows("createGroup.allowedGroupTypes", a.GroupType):
			return g, role.refuse("createGroup.allowedGroupTypes", "its users may not create "+a.GroupType+" groups.")
		}
	case OpListGroups:
		if role.denied("listGroups") {
			return g, role.refuse("listGroups", "its users may not list groups.")
		}
		g.GroupTypes = role.list("listGroups.allowedGroupTypes")
	case OpJoinGroup:
		switch {
		case role.denied("joinGroup"):
			return g, role.refuse("joinGroup", "its users may not join groups.")
		case !role.allows("joinGroup.allowedGroupTypes", a.GroupType):
			return g, role.refuse("joinGroup.allowedGroupTypes", "its users may not join "+a.GroupType+" groups.")
		}
	case OpListMembers:
		if inGroup && scope.denied("listMembers") {
			return g, scope.refuse("listMembers", "its members may not list the group's members.")
		}
		if inGroup {
			g.Scopes = scope.list("listMembers.allowedScopes")
		}
	}
	return g, nil
}

// allowsNot reports whether a deny list leaves v out.
func (c check) allowsNot(key, v string) bool { return !slices.Contains(c.value(key).List, v) }

// send is the role's rule on a message sent.
func (pol *Policy) send(a Action, role check, rp *RolePolicy, friends func(key, why string) error) error {
	switch {
	case role.denied("sendMessage"):
		return role.refuse("sendMessage", "its users may not send messages.")
	case !role.allows("sendMessage.allowedReceiverTypes", a.ReceiverType):
		return role.refuse("sendMessage.allowedReceiverTypes", "its users may not send messages to a "+a.ReceiverType+".")
	case !role.allows("sendMessage.allowedMessageCategories", a.Category):
		return role.refuse("sendMessage.allowedMessageCategories", "its users may not send "+a.Category+" messages.")
	case a.Category == CategoryMessage && !role.allows("sendMessage.allowedMessageTypes", a.Type):
		return role.refuse("sendMessage.allowedMessageTypes", "its users may not send "+brief(a.Type)+" messages.")
	case a.Category == CategoryCustom && !role.allows("sendMessage.allowedCustomTypes", a.Type):
		return role.refuse("sendMessage.allowedCustomTypes", "its users may not send custom messages of type "+brief(a.Type)+".")
	}
	if a.Category == CategoryMessage && mediaTypes[a.Type] {
		if allowed := role.list("sendMessage.allowedMimeTypes"); allowed != nil {
			types, known := attachmentMIMETypes(a.Data)
			if !known {
				return role.refuse("sendMessage.allowedMimeTypes", "its users may send only attachments whose mimeType is among "+strings.Join(allowed, ", ")+", and this message's attachments do not all state one.")
			}
			for _, m := range types {
				if !mimeAllowed(allowed, m) {
					return role.refuse("sendMessage.allowedMimeTypes", "its users may not send attachments of type "+brief(m)+".")
				}
			}
		}
	}
	if a.ReceiverType != ReceiverUser {
		return nil
	}
	if !role.allows("sendMessage.allowedReceiverRoles", a.ReceiverRole) {
		return role.refuse("sendMessage.allowedReceiverRoles", "its users may not send messages to users of the role "+a.ReceiverRole+".")
	}
	if role.value("sendMessage.mode").Str == ModeFriends {
		if err := friends("sendMessage.mode", "its users may send messages to their friends only."); err != nil {
			return err
		}
	}
	if rp.Settings.SendMessagesTo == SettingFriendsOnly {
		return friends("settings.sendMessagesTo", "its users may send messages to their friends only.")
	}
	return nil
}

// mimeAllowed matches a MIME type against a list of types and "type/*" wildcards.
func mimeAllowed(allowed []string, m string) bool {
	m = strings.ToLower(m)
	typ, _, _ := strings.Cut(m, "/")
	for _, a := range allowed {
		if a == m || strings.HasSuffix(a, "/*") && strings.TrimSuffix(a, "/*") == typ {
			return true
		}
	}
	return false
}

// permit is the one permission check: it decides a with the app's policy, and the scope
// permissions of the group a happens in, when the request acts as a user. It answers what
// a permitted list may show.
func (s *Service) permit(ctx context.Context, p Principal, a Action) (Grant, error) {
	if !p.acting() {
		return Grant{}, nil
	}
	pol, err := s.policy(ctx, p.App.ID)
	if err != nil || pol.open() {
		return Grant{}, err
	}
	var rules ScopeRules
	if a.GUID != "" && a.Scope != "" && pol.scoped {
		if rules, err = s.scopeRules(ctx, p.App.ID, a.GUID); err != nil {
			return Grant{}, err
		}
	}
	return pol.decide(a, rules)
}

// policy is the app's policy, through the cache.
func (s *Service) policy(ctx context.Context, appID string) (*Policy, error) {
	if pol, ok := s.keys.policies.get(appID); ok {
		return pol, nil
	}
	gen := s.keys.policies.generation()
	d, err := s.store.PolicyData(ctx, appID)
	if err != nil {
		return nil, internal("read policy", err)
	}
	pol := NewPolicy(d)
	s.keys.policies.put(appID, pol, gen)
	return pol, nil
}

// scopeRules are a group's scope permissions, through the cache.
func (s *Service) scopeRules(ctx context.Context, appID, guid string) (ScopeRules, error) {
	k := appID + "\x00" + guid
	if r, ok := s.keys.scopes.get(k); ok {
		return r, nil
	}
	gen := s.keys.scopes.generation()
	stored, err := s.store.ScopePermissions(ctx, appID, guid)
	if err != nil {
		return nil, internal("read scope permissions", err)
	}
	r := ScopeRules{}
	for scope, kv := range stored {
		for k, v := range kv {
			if pv, ok := decodePermissionValue(ScopePermission, k, v); ok {
				if r[scope] == nil {
					r[scope] = map[string]PermissionValue{}
				}
				r[scope][k] = pv
			}
		}
	}
	s.keys.scopes.put(k, r, gen)
	return r, nil
}

// forgetPolicy drops this node's cached policy of an app, and a group's scope permissions
// when guid is set, after a change.
func (s *Service) forgetPolicy(appID string, guid ...string) {
	s.keys.policies.evict(appID)
	for _, g := range guid {
		if g != "" {
			s.keys.scopes.evict(appID + "\x00" + g)
		}
	}
}

// scopeFor is uid's scope in guid for a check of the group's scope permissions, read only
// when the app has set some ("" otherwise, which no scope permission applies to).
func (s *Service) scopeFor(ctx context.Context, appID, guid, uid string) (string, error) {
	pol, err := s.policy(ctx, appID)
	if err != nil || !pol.scoped {
		return "", err
	}
	m, err := s.member(ctx, appID, guid, uid)
	return m.Scope, err
}

// narrow applies a grant's list to a list filter: the filter's items the grant allows, or
// the grant's when the filter names none. A filter that names only items the grant refuses
// is refused, naming the permission.
func narrow(asked, allowed []string, refuse func() error) ([]string, error) {
	if len(asked) == 0 {
		return allowed, nil
	}
	var out []string
	for _, v := range asked {
		if slices.Contains(allowed, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, refuse()
	}
	return out, nil
}

// narrowed is the refusal of a list filter that names only what key does not let through.
func narrowed(t PermissionType, name, key, field string, allowed []string) func() error {
	return func() error {
		return check{t: t, name: name}.refuse(key, "the list may show only "+strings.Join(allowed, ", ")+", and "+field+" names none of them.")
	}
}
