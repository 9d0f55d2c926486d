package chat

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Group types.
const (
	GroupPublic   = "public"
	GroupPassword = "password"
	GroupPrivate  = "private"
)

// Limits of groups: the hosted service's, and natter's where it states none.
const (
	MaxGroupNameLen        = 100
	MaxGroupDescriptionLen = 255
	MaxGroupPasswordLen    = 100
	DefaultMaxGroupMembers = 100_000
	MaxGroupsPerUser       = 2000
)

// ReceiverGroup is the receiver type of group messages.
const ReceiverGroup = "group"

// Group is a group of one app.
type Group struct {
	AppID        string
	GUID         string
	Name         string
	Type         string
	PasswordHash string // never leaves the service
	Icon         string
	Description  string
	Metadata     json.RawMessage // compact JSON object, or nil
	Owner        string          // "" when the app owns it
	Tags         []string
	MembersCount int64
	CreatedAt    int64
	UpdatedAt    int64 // 0 until updated
	UpdatedBy    string
	// Viewer is the acting user's membership when the request names one; nil otherwise.
	Viewer *Membership
}

// Membership is one user's place in a group; Scope is empty when the user is not a member.
// A banned user is not a member.
type Membership struct {
	Scope    string
	JoinedAt int64
	Banned   bool
}

// Joined reports whether the user is a member.
func (m Membership) Joined() bool { return m.Scope != "" }

// GroupConversationID is a group's conversation id.
func GroupConversationID(guid string) string { return "group_" + guid }

// GroupStore keeps groups; their changes go through Transact (GroupTx).
type GroupStore interface {
	// Group returns the group with its tags and, when viewer is not empty, Viewer set to
	// viewer's membership.
	Group(ctx context.Context, appID, guid, viewer string) (Group, error)
	// ListGroups lists groups with their tags when q.WithTags, and viewer memberships when
	// q.Viewer is set; the int is the total.
	ListGroups(ctx context.Context, appID string, q GroupQuery) ([]Group, int, error)
	// Membership is uid's membership of guid, whether or not either exists.
	Membership(ctx context.Context, appID, guid, uid string) (Membership, error)
}

// GroupTx is what group and membership changes need inside their transaction. A change
// locks its group first (LockGroup) and then, all at once, the users it adds (FriendTx's
// LockUsers), so concurrent changes of one group, and of one user's groups, queue.
type GroupTx interface {
	// InsertGroup stores a new group with its tags; ErrAlreadyExists for a taken guid.
	InsertGroup(g Group) error
	// LockGroup holds the group against concurrent changes until the transaction ends and
	// reads it with its tags; ErrNotFound when the app has none.
	LockGroup(appID, guid string) (Group, error)
	// SaveGroup writes g's fields, and its tags too when tags is set.
	SaveGroup(g Group, tags bool) error
	// DeleteGroup removes the group with its tags, members, bans, messages and reactions.
	DeleteGroup(appID, guid string) error
	// MemberStates reads each uid's user, membership and ban of guid, and how many groups
	// it is a member of; a uid with no user has an empty User.
	MemberStates(appID, guid string, uids []string) (map[string]MemberState, error)
	InsertMember(appID, guid, uid, scope string, at int64) error
	DeleteMember(appID, guid, uid string) error
	SetMemberScope(appID, guid, uid, scope string) error
	InsertBan(appID, guid, uid, by string, at int64) error
	DeleteBan(appID, guid, uid string) error
}

// MemberState is what a membership rule is decided on for one user.
type MemberState struct {
	User       User // an empty UID when there is no such user
	Membership Membership
	Banned     bool
	Groups     int // how many groups the user is a member of
}

// GroupQuery filters a group list.
type GroupQuery struct {
	SearchKey string
	SearchIn  []string // "name", "guid"; empty means both
	SortBy    string   // "name" (default), "guid", "createdAt"
	SortOrder string   // "asc" (default), "desc"
	Types     []string
	Tags      []string
	WithTags  bool
	HasJoined bool   // only the viewer's groups
	Viewer    string // the acting user; private groups it has not joined are not listed
	Page      Page
	// ChangedSince, with Affix, lists by change time as UserQuery does.
	ChangedSince *int64
	Affix        string
	// GUID and GUIDs keep only the group named, or those named (unknown ones are not
	// listed); given both, a group must be both.
	GUID  string
	GUIDs []string
	// CreatedAt and UpdatedAt keep the groups created, or last updated, in the range (UNIX
	// seconds, inclusive); a group never updated has no updatedAt and is in none, as the
	// hosted service says. MembersCount compares the group's count of members.
	CreatedAt, UpdatedAt Range
	MembersCount         CountFilter
}

// Cursor of a listed page, as UserQuery.Cursor.
func (q GroupQuery) Cursor(groups []Group) UserCursor {
	return pageCursor(q.ChangedSince, q.Affix, len(groups), func(i int) int64 { return groups[i].ChangedAt() })
}

// ChangedAt is when the group last changed: its update, else its creation.
func (g Group) ChangedAt() int64 {
	if g.UpdatedAt > 0 {
		return g.UpdatedAt
	}
	return g.CreatedAt
}

// GroupCreate is a create-group request.
type GroupCreate struct {
	GUID        string
	Name        string
	Type        string
	Password    string
	Icon        string
	Description string
	Metadata    json.RawMessage
	Owner       string
	Tags        []string
	Members     MemberLists
}

// errGUIDNotFound names guid only when it may be quoted; pass "" for a malformed one.
func errGUIDNotFound(guid string) error {
	if !quotableID(guid) {
		return Errorf(CodeGUIDNotFound, "The group does not exist, please make sure you have created a group with that GUID.")
	}
	return Errorf(CodeGUIDNotFound, "The GUID %s does not exist, please make sure you have created a group with GUID %s.", guid, guid)
}

// validGroupType checks a group type and its password: a password group needs one, and
// the other types take none.
func validGroupType(fe fieldErrors, typ, password string, hasPassword bool) error {
	switch typ {
	case GroupPublic, GroupPrivate, GroupPassword:
	case "":
		fe.add("type", "The type field is required.")
		return nil
	default:
		fe.add("type", "The type must be one of public, password, private.")
		return nil
	}
	if hasPassword {
		fe.text("password", password, MaxGroupPasswordLen, false)
	}
	if typ == GroupPassword && password == "" {
		return Errorf(CodeEmptyGroupPass, "A password is required for a group of type password.")
	}
	if typ != GroupPassword && hasPassword && password != "" {
		fe.add("password", "Only a group of type password takes a password.")
	}
	return nil
}

// CreateGroup creates a group. Its owner is the owner named, else the acting user, else
// the app; the owner, and the acting user, join it as admins. The members named join it
// (or are banned from it) one by one, each with its own result: one bad member never
// fails the create.
func (s *Service) CreateGroup(ctx context.Context, p Principal, in GroupCreate) (Group, MemberResults, error) {
	fe := fieldErrors{}
	g := Group{AppID: p.App.ID, Name: in.Name, Type: in.Type, Icon: in.Icon, Description: in.Description}
	g.GUID = fe.id("guid", in.GUID, true)
	fe.text("name", in.Name, MaxGroupNameLen, true)
	fe.text("icon", in.Icon, MaxURLLen, false)
	fe.text("description", in.Description, MaxGroupDescriptionLen, false)
	passErr := validGroupType(fe, in.Type, in.Password, true)
	if in.Metadata != nil && string(in.Metadata) != "null" {
		g.Metadata = fe.metadata("metadata", in.Metadata)
	}
	g.Tags = fe.tags("tags", in.Tags)
	owner := fe.id("owner", in.Owner, false)
	lists, err := in.Members.normalize(fe)
	if err != nil {
		return Group{}, MemberResults{}, err
	}
	if err := fe.err(); err != nil {
		return Group{}, MemberResults{}, err
	}
	if passErr != nil {
		return Group{}, MemberResults{}, passErr
	}
	if in.Password != "" {
		g.PasswordHash = hashGroupPassword(in.Password)
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
		return Group{}, MemberResults{}, err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpCreateGroup, Role: actor.Role, GroupType: g.Type}); err != nil {
		return Group{}, MemberResults{}, err
	}
	creator := ""
	if p.acting() {
		creator = actor.UID
	}
	if owner == "" {
		owner = creator
	}
	g.Owner = owner
	now := s.now()
	g.CreatedAt = now
	subs, notifying := s.subscriptions(ctx, p.App.ID), s.notifying(ctx, p.App.ID)
	var results MemberResults
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		results = MemberResults{}
		g.MembersCount = 0
		founders := []string{owner}
		if creator != "" && creator != owner {
			founders = append(founders, creator)
		}
		if owner == "" {
			founders = founders[:0]
		}
		if _, err := tx.LockUsers(p.App.ID, sortedUIDs(append(slices.Clone(founders), lists.uids()...))); err != nil {
			return err
		}
		states, err := tx.MemberStates(p.App.ID, g.GUID, founders)
		if err != nil {
			return err
		}
		for _, uid := range founders {
			st := states[uid]
			if st.User.UID == "" || !st.User.Active() {
				return errUIDNotFound(uid)
			}
			if st.Groups >= MaxGroupsPerUser {
				return errGroupsPerUser(uid)
			}
		}
		if err := tx.InsertGroup(g); err != nil {
			if errors.Is(err, ErrAlreadyExists) {
				return Errorf(CodeGUIDAlreadyExists, "The GUID %s already exists, please use another GUID.", g.GUID)
			}
			return err
		}
		for _, uid := range founders {
			if err := tx.InsertMember(p.App.ID, g.GUID, uid, ScopeAdmin, now); err != nil {
				return err
			}
			g.MembersCount++
		}
		// The creator, an admin of the new group, adds the members (or the app does).
		ch := &memberChange{s: s, tx: tx, p: p, g: &g, now: now, actor: actor, notify: notifying}
		results, err = ch.addLists(lists)
		if err != nil {
			return err
		}
		g.UpdatedAt = 0 // a new group has not been updated, whatever its first members did
		ch.created(founders, states)
		if err := ch.writeEvents(subs); err != nil {
			return err
		}
		ch.announce(cs, ChangeGroup, subs)
		return tx.SaveGroup(g, false)
	})
	if err != nil {
		return Group{}, MemberResults{}, s.groupErr("create group", err)
	}
	if creator != "" {
		g.Viewer = &Membership{Scope: ScopeAdmin, JoinedAt: now}
	}
	return g, results, nil
}

// groupErr passes an API error through and wraps anything else.
func (s *Service) groupErr(op string, err error) error {
	if err == nil || ErrorCode(err) != "" {
		return err
	}
	return internal(op, err)
}

func errGroupsPerUser(uid string) error {
	return Errorf(CodePlanQuotaRestriction, "The user %s is already a member of %d groups, the most allowed.", uid, MaxGroupsPerUser)
}

// Group returns a group; acting as a user, with that user's membership, as far as its
// permissions let it.
func (s *Service) Group(ctx context.Context, p Principal, guid string) (Group, error) {
	g, viewer, err := s.group(ctx, p, guid)
	if err == nil && viewer.UID != "" {
		_, err = s.permit(ctx, p, Action{Op: OpGetGroup, Role: viewer.Role})
	}
	return g, err
}

// group reads a group as Group does, with the acting user (none when the app acts).
func (s *Service) group(ctx context.Context, p Principal, guid string) (Group, User, error) {
	if _, ok := NormalizeID(guid); !ok {
		return Group{}, User{}, errGUIDNotFound("")
	}
	var viewer User
	if p.acting() {
		var err error
		if viewer, err = s.actingUser(ctx, p); err != nil {
			return Group{}, User{}, err
		}
	}
	g, err := s.groupAs(ctx, p.App.ID, guid, viewer.UID)
	return g, viewer, err
}

// groupAs reads a group with the membership of viewer (none when empty), a user the caller
// has already found.
func (s *Service) groupAs(ctx context.Context, appID, guid, viewer string) (Group, error) {
	id, ok := NormalizeID(guid)
	if !ok {
		return Group{}, errGUIDNotFound("")
	}
	g, err := s.cachedGroup(ctx, appID, id)
	if errors.Is(err, ErrNotFound) {
		return Group{}, errGUIDNotFound(id)
	}
	if err != nil {
		return Group{}, internal("get group", err)
	}
	if viewer != "" {
		m, err := s.cachedMembership(ctx, appID, id, viewer)
		if err != nil {
			return Group{}, internal("get membership", err)
		}
		g.Viewer = &m
	}
	return g, nil
}

// memberGroup is the group guid as uid sees it, uid being a member that is not banned: what
// sending to it, or calling it, asks.
func (s *Service) memberGroup(ctx context.Context, appID, guid, uid string) (Group, error) {
	g, err := s.groupAs(ctx, appID, guid, uid)
	switch {
	case err != nil:
		return Group{}, err
	case g.Viewer.Banned:
		return Group{}, errBanned(uid)
	case !g.Viewer.Joined():
		return Group{}, errNotAMember(uid, g.GUID)
	}
	return g, nil
}

// ListGroups lists the app's groups; acting as a user, with that user's memberships, and
// without the private groups it has not joined.
func (s *Service) ListGroups(ctx context.Context, p Principal, q GroupQuery) ([]Group, int, error) {
	fe := fieldErrors{}
	fe.text("searchKey", q.SearchKey, MaxSearchKeyLen, false)
	for _, in := range q.SearchIn {
		if in != "guid" && in != "name" {
			fe.add("searchIn", "The searchIn field may only name guid and name.")
			break
		}
	}
	switch q.SortBy {
	case "", "name", "guid", "createdAt":
	default:
		fe.add("sortBy", "The sortBy must be one of name, guid, createdAt.")
	}
	if q.SortOrder != "" && q.SortOrder != "asc" && q.SortOrder != "desc" {
		fe.add("sortOrder", "The sortOrder must be asc or desc.")
	}
	for _, t := range q.Types {
		if t != GroupPublic && t != GroupPassword && t != GroupPrivate {
			fe.add("types", "The types may only name public, password and private.")
			break
		}
	}
	q.Tags = fe.tags("tags", q.Tags)
	if q.Affix != "" && q.Affix != "append" && q.Affix != "prepend" {
		fe.add("affix", "The affix must be append or prepend.")
	}
	if q.ChangedSince != nil && *q.ChangedSince < 0 {
		fe.add("updatedAt", "The updatedAt must be a UNIX time in seconds.")
	}
	if q.HasJoined && !p.acting() {
		fe.add("hasJoined", "The hasJoined filter needs the onBehalfOf header.")
	}
	q.GUID = fe.id("guid", q.GUID, false)
	for i, g := range q.GUIDs {
		q.GUIDs[i] = fe.id("guids", g, true)
	}
	if len(q.GUIDs) > MaxUIDsPerCall {
		fe.add("guids", "At most 1000 guids may be named.")
	}
	fe.timeRange("createdAt", q.CreatedAt)
	fe.timeRange("updatedAt", q.UpdatedAt)
	fe.countFilter("membersCount", q.MembersCount)
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	if p.acting() {
		u, err := s.actingUser(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		q.Viewer = u.UID
		g, err := s.permit(ctx, p, Action{Op: OpListGroups, Role: u.Role})
		if err != nil {
			return nil, 0, err
		}
		if g.GroupTypes != nil {
			if q.Types, err = narrow(q.Types, g.GroupTypes, narrowed(RolePermission, u.Role, "listGroups.allowedGroupTypes", "types", g.GroupTypes)); err != nil {
				return nil, 0, err
			}
		}
	}
	groups, total, err := s.store.ListGroups(ctx, p.App.ID, q)
	if err != nil {
		return nil, 0, internal("list groups", err)
	}
	return groups, total, nil
}

// GroupChange is a partial update: nil fields are left alone; Unset clears icon,
// description or metadata. Owner transfers the group, unless a user acts.
type GroupChange struct {
	Name        *string
	Type        *string
	Password    *string
	Icon        *string
	Description *string
	Metadata    json.RawMessage
	Owner       *string
	Tags        *[]string
	Unset       []string
}

var groupUnsettable = map[string]bool{"icon": true, "description": true, "metadata": true}

// UpdateGroup changes a group. Acting as a user, only an admin of the group may, and owner
// is ignored, as on the hosted service (PATCH /groups/{guid}/owner transfers it).
func (s *Service) UpdateGroup(ctx context.Context, p Principal, guid string, in GroupChange) (Group, error) {
	fe := fieldErrors{}
	if in.Name != nil {
		fe.text("name", *in.Name, MaxGroupNameLen, true)
	}
	if in.Icon != nil {
		fe.text("icon", *in.Icon, MaxURLLen, false)
	}
	if in.Description != nil {
		fe.text("description", *in.Description, MaxGroupDescriptionLen, false)
	}
	if in.Password != nil {
		fe.text("password", *in.Password, MaxGroupPasswordLen, false)
	}
	if in.Type != nil && *in.Type != GroupPublic && *in.Type != GroupPassword && *in.Type != GroupPrivate {
		fe.add("type", "The type must be one of public, password, private.")
	}
	var meta []byte
	if in.Metadata != nil && string(in.Metadata) != "null" {
		meta = fe.metadata("metadata", in.Metadata)
	}
	var tags []string
	if in.Tags != nil {
		tags = fe.tags("tags", *in.Tags)
	}
	for _, f := range in.Unset {
		if !groupUnsettable[f] {
			fe.add("unset", "The unset field may only name icon, description and metadata.")
			break
		}
	}
	owner := ""
	if in.Owner != nil && !p.acting() {
		owner = fe.id("owner", *in.Owner, true)
	}
	if err := fe.err(); err != nil {
		return Group{}, err
	}
	id, ok := NormalizeID(guid)
	if !ok {
		return Group{}, errGUIDNotFound("")
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
		return Group{}, err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpUpdateGroup, Role: actor.Role}); err != nil {
		return Group{}, err
	}
	now := s.now()
	subs, notifying := s.subscriptions(ctx, p.App.ID), s.notifying(ctx, p.App.ID)
	var out Group
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		g, err := lockGroup(tx, p.App.ID, id)
		if err != nil {
			return err
		}
		if p.acting() {
			if err := requireAdmin(tx, g, actor.UID); err != nil {
				return err
			}
		}
		if in.Name != nil {
			g.Name = *in.Name
		}
		if in.Icon != nil {
			g.Icon = *in.Icon
		}
		if in.Description != nil {
			g.Description = *in.Description
		}
		if meta != nil {
			g.Metadata = meta
		}
		for _, f := range in.Unset {
			switch f {
			case "icon":
				g.Icon = ""
			case "description":
				g.Description = ""
			case "metadata":
				g.Metadata = nil
			}
		}
		typ, password := g.Type, ""
		if in.Type != nil {
			typ = *in.Type
		}
		if in.Password != nil {
			password = *in.Password
		}
		switch {
		case typ == GroupPassword && password == "" && g.PasswordHash == "":
			return Errorf(CodeEmptyGroupPass, "A password is required for a group of type password.")
		case typ != GroupPassword && password != "":
			return InvalidField("password", "Only a group of type password takes a password.")
		case typ != GroupPassword:
			g.PasswordHash = ""
		case password != "":
			g.PasswordHash = hashGroupPassword(password)
		}
		g.Type = typ
		if in.Tags != nil {
			g.Tags = tags
		}
		g.UpdatedAt, g.UpdatedBy = now, actor.UID
		ch := &memberChange{s: s, tx: tx, p: p, g: &g, now: now, actor: actor, notify: notifying}
		ch.events = []memberEvent{{trigger: TriggerGroupUpdated}}
		if owner != "" && owner != g.Owner {
			if err := ch.transfer(owner); err != nil {
				return err
			}
		}
		if err := ch.writeEvents(subs); err != nil {
			return err
		}
		ch.announce(cs, ChangeGroup, subs)
		if err := tx.SaveGroup(g, in.Tags != nil); err != nil {
			return err
		}
		out = g
		return nil
	})
	if err != nil {
		return Group{}, s.groupErr("update group", err)
	}
	if p.acting() {
		m, err := s.store.Membership(ctx, p.App.ID, out.GUID, actor.UID)
		if err != nil {
			return Group{}, internal("update group", err)
		}
		out.Viewer = &m
	}
	return out, nil
}

// DeleteGroup removes a group with its members, bans, messages and reactions. Acting as a
// user, only an admin of the group may.
func (s *Service) DeleteGroup(ctx context.Context, p Principal, guid string) error {
	id, ok := NormalizeID(guid)
	if !ok {
		return errGUIDNotFound("")
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
		return err
	}
	if _, err := s.permit(ctx, p, Action{Op: OpDeleteGroup, Role: actor.Role}); err != nil {
		return err
	}
	subs := s.subscriptions(ctx, p.App.ID)
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		g, err := lockGroup(tx, p.App.ID, id)
		if err != nil {
			return err
		}
		if p.acting() {
			if err := requireAdmin(tx, g, actor.UID); err != nil {
				return err
			}
		}
		if err := tx.DeleteGroup(p.App.ID, id); err != nil {
			return err
		}
		ch := &memberChange{tx: tx, g: &g, actor: actor, events: []memberEvent{{trigger: TriggerGroupDeleted}}}
		ch.announce(cs, ChangeGroup, subs)
		return ch.writeEvents(subs)
	})
	if err == nil {
		s.forgetPolicy(p.App.ID, id) // its scope permissions went with it
	}
	return s.groupErr("delete group", err)
}

// lockGroup locks and reads a group inside a transaction.
func lockGroup(tx Tx, appID, guid string) (Group, error) {
	g, err := tx.LockGroup(appID, guid)
	if errors.Is(err, ErrNotFound) {
		return Group{}, errGUIDNotFound(guid)
	}
	return g, err
}

// requireAdmin refuses a user who is not an admin of g.
func requireAdmin(tx Tx, g Group, uid string) error {
	st, err := tx.MemberStates(g.AppID, g.GUID, []string{uid})
	if err != nil {
		return err
	}
	switch st[uid].Membership.Scope {
	case ScopeAdmin:
		return nil
	case "":
		return errNotAMember(uid, g.GUID)
	}
	return Errorf(CodeGroupNoClearance, "The user %s is not an admin of the group %s.", uid, g.GUID)
}

func errNotAMember(uid, guid string) error {
	return Errorf(CodeNotAMember, "The user %s is not a member of the group %s.", uid, guid)
}

// actorEntity is the acting user's entity, or the app's system user when none acts.
func (s *Service) actorEntity(ctx context.Context, p Principal) (Entity, error) {
	if !p.acting() {
		return systemEntity, nil
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return Entity{}, err
	}
	return u.Entity(), nil
}

var systemEntity = Entity{UID: SystemUID, Name: "System", Role: DefaultRole, Status: "offline"}

// Group passwords are short secrets a person types, so they are stretched (PBKDF2-SHA-256)
// rather than only hashed as API keys are; a join is rare enough to pay for it.
const groupPasswordIterations = 100_000

func hashGroupPassword(pw string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key, _ := pbkdf2.Key(sha256.New, pw, salt, groupPasswordIterations, 32)
	return "pbkdf2-sha256$" + strconv.Itoa(groupPasswordIterations) + "$" +
		base64.RawStdEncoding.EncodeToString(salt) + "$" + base64.RawStdEncoding.EncodeToString(key)
}

func groupPasswordMatches(hash, pw string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false
	}
	iter, err := strconv.Atoi(parts[1])
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[2])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[3])
	if err != nil || err1 != nil || err2 != nil || iter < 1 {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, pw, salt, iter, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}
