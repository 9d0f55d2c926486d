package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Member scopes, from most to least powerful.
const (
	ScopeAdmin       = "admin"
	ScopeModerator   = "moderator"
	ScopeParticipant = "participant"
)

// MaxMembersPerCall bounds the uids one add (or create) names, across its lists.
const MaxMembersPerCall = 25

func validScope(s string) bool {
	return s == ScopeAdmin || s == ScopeModerator || s == ScopeParticipant
}

// Member is a user as a member of a group.
type Member struct {
	User     User
	Scope    string
	JoinedAt int64
}

// MemberQuery filters a member list.
type MemberQuery struct {
	Scopes []string
	Status string
	// SearchKey is a case-insensitive prefix of the member's uid or name (the SDK's
	// setSearchKeyword, on members and banned users alike).
	SearchKey string
	Page      Page
}

// MemberStore lists members and bans.
type MemberStore interface {
	// ListMembers lists a group's members in the order they joined; the int is the total.
	ListMembers(ctx context.Context, appID, guid string, q MemberQuery) ([]Member, int, error)
	// ListBanned lists the users banned from a group, most recently banned first.
	// Of q, only SearchKey and Page apply.
	ListBanned(ctx context.Context, appID, guid string, q MemberQuery) ([]User, int, error)
}

// MemberLists are the uids an add (or a create) names, per scope, and those to ban.
type MemberLists struct {
	Admins, Moderators, Participants, UsersToBan []string
}

// MemberResult is what happened to one uid of an add: Err nil on success, and Action the
// groupMember message that recorded an added member.
type MemberResult struct {
	UID    string
	Err    error
	Action *Message
}

// MemberResults are an add's results per list, in the order the uids were named; a list
// the request did not send is nil.
type MemberResults struct {
	UsersToBan, Admins, Moderators, Participants []MemberResult
}

// memberList is one list of an add, resolved: its scope ("" for bans) and its uids.
type memberList struct {
	name  string
	scope string
	uids  []string
	sent  bool
}

// resolvedLists are the lists of an add after precedence: each uid in the one list that
// wins for it (admin > moderator > participant > ban); losers and malformed uids carry
// their result already.
type resolvedLists struct {
	buckets [4]memberList // usersToBan, admins, moderators, participants: the answer's order
	early   map[string][]MemberResult
}

// normalize applies the uid rules and the precedence. A uid named in several lists goes
// to the most powerful; in the lists it loses it is answered with a refusal that says so.
func (l MemberLists) normalize(fe fieldErrors) (resolvedLists, error) {
	r := resolvedLists{early: map[string][]MemberResult{}}
	r.buckets = [4]memberList{
		{name: "usersToBan", uids: l.UsersToBan, sent: l.UsersToBan != nil},
		{name: "admins", scope: ScopeAdmin, uids: l.Admins, sent: l.Admins != nil},
		{name: "moderators", scope: ScopeModerator, uids: l.Moderators, sent: l.Moderators != nil},
		{name: "participants", scope: ScopeParticipant, uids: l.Participants, sent: l.Participants != nil},
	}
	total := 0
	for _, b := range r.buckets {
		total += len(b.uids)
	}
	if total > MaxMembersPerCall {
		fe.add("members", "At most 25 uids may be named in one call, across admins, moderators, participants and usersToBan.")
		return r, nil
	}
	winner := map[string]string{} // uid → the list it goes to
	for _, i := range []int{1, 2, 3, 0} {
		for _, raw := range r.buckets[i].uids {
			if uid, ok := NormalizeID(raw); ok {
				if _, taken := winner[uid]; !taken {
					winner[uid] = r.buckets[i].name
				}
			}
		}
	}
	for i := range r.buckets {
		b := &r.buckets[i]
		var keep []string
		seen := map[string]bool{}
		for _, raw := range b.uids {
			uid, ok := NormalizeID(raw)
			if !ok {
				uid = raw // answered under the key it was sent as
			}
			switch {
			case seen[uid]: // one result per uid: the answer is an object keyed by uid
			case !ok:
				r.early[b.name] = append(r.early[b.name], MemberResult{UID: raw, Err: errUIDNotFound("")})
			case winner[uid] != b.name:
				r.early[b.name] = append(r.early[b.name], MemberResult{UID: uid,
					Err: InvalidField(b.name, "The uid "+uid+" is also named in "+winner[uid]+", which takes precedence.")})
			default:
				keep = append(keep, uid)
			}
			seen[uid] = true
		}
		b.uids = keep
	}
	return r, nil
}

// MemberOp is a membership change that one member (or the app) makes to another user.
type MemberOp int

const (
	OpAdd MemberOp = iota
	OpKick
	OpBan
	OpUnban
	OpScope
)

// MemberRule is what DecideMember decides on.
type MemberRule struct {
	Op MemberOp
	// Actor is the acting user, empty when the app acts; ActorScope its scope in the
	// group, empty when it is not a member.
	Actor, ActorScope string
	Owner             string
	Target            string
	// TargetScope is the target's scope, empty when it is not a member.
	TargetScope  string
	TargetBanned bool
	// Scope is the scope an add or a scope change gives.
	Scope string
}

// DecideMember is the membership rule: nobody acts on itself, and the owner is neither
// removed nor demoted, by anyone; an acting user must be a member, participants manage no
// one, moderators manage participants and give no more than participant, admins manage
// everyone but the owner (and the app everyone). Then the target's state: an add needs a
// user who is neither a member nor banned, a kick or a scope change a member, a ban a user
// not banned yet, an unban a banned one, and a scope change a new scope.
func DecideMember(r MemberRule) error {
	if r.Actor != "" && r.Actor == r.Target {
		return Errorf(CodeGroupNoSelfAction, "The user %s cannot perform this action on itself.", r.Actor)
	}
	if r.Target == r.Owner && r.Owner != "" && (r.Op == OpKick || r.Op == OpBan || r.Op == OpScope) {
		return Errorf(CodeGroupNoScopeClearance, "The user %s owns the group: it cannot be kicked, banned or given another scope; transfer the ownership first.", r.Target)
	}
	if r.Actor != "" {
		switch r.ActorScope {
		case "":
			return Errorf(CodeNotAMember, "The user %s is not a member of the group.", r.Actor)
		case ScopeParticipant:
			return Errorf(CodeGroupNoClearance, "The user %s is a participant of the group and cannot manage its members.", r.Actor)
		case ScopeModerator:
			if r.TargetScope == ScopeAdmin || r.TargetScope == ScopeModerator {
				return Errorf(CodeGroupNoScopeClearance, "The user %s is a moderator and cannot act on the %s %s.", r.Actor, r.TargetScope, r.Target)
			}
			if (r.Op == OpAdd || r.Op == OpScope) && r.Scope != ScopeParticipant {
				return Errorf(CodeGroupNoScopeClearance, "The user %s is a moderator and cannot make a user %s.", r.Actor, r.Scope)
			}
		}
	}
	switch r.Op {
	case OpAdd:
		if r.TargetBanned {
			return errBanned(r.Target)
		}
		if r.TargetScope != "" {
			return Errorf(CodeAlreadyJoined, "The user %s is already a member of the group.", r.Target)
		}
	case OpKick:
		if r.TargetScope == "" {
			return Errorf(CodeNotAMember, "The user %s is not a member of the group.", r.Target)
		}
	case OpBan:
		if r.TargetBanned {
			return Errorf(CodeAlreadyBanned, "The user %s is already banned from the group.", r.Target)
		}
	case OpUnban:
		if !r.TargetBanned {
			return Errorf(CodeNotABannedUser, "The user %s is not banned from the group.", r.Target)
		}
	case OpScope:
		if r.TargetScope == "" {
			return Errorf(CodeNotAMember, "The user %s is not a member of the group.", r.Target)
		}
		if r.TargetScope == r.Scope {
			return Errorf(CodeSameScope, "The user %s is already a %s of the group.", r.Target, r.Scope)
		}
	}
	return nil
}

func errBanned(uid string) error {
	return Errorf(CodeBannedGroupMember, "The user %s is banned from the group.", uid)
}

// memberChange makes membership changes to one locked group inside one transaction, and
// keeps g (its members count, its update time) and the action messages in step.
type memberChange struct {
	s     *Service
	tx    Tx
	p     Principal
	g     *Group
	now   int64
	actor Entity // the acting user, or the system user when the app acts
	// actorScope is the acting user's scope, read once.
	actorScope string
	actorRead  bool
	// recorded are the action messages written, announced with the change.
	recorded []Message
	// events are the webhook events of the change, for writeEvents.
	events []memberEvent
	// notify says the app has a notification provider: the recorded actions get notification
	// events. Read before the transaction, which must not wait for another connection.
	notify bool
}

// rule fills in the acting side of r.
func (c *memberChange) rule(r MemberRule) (MemberRule, error) {
	r.Owner = c.g.Owner
	if !c.p.acting() {
		return r, nil
	}
	r.Actor = c.actor.UID
	if !c.actorRead {
		st, err := c.tx.MemberStates(c.g.AppID, c.g.GUID, []string{c.actor.UID})
		if err != nil {
			return r, err
		}
		c.actorScope, c.actorRead = st[c.actor.UID].Membership.Scope, true
	}
	r.ActorScope = c.actorScope
	return r, nil
}

// target reads one user's state; an unknown or inactive user is not found.
func (c *memberChange) target(uid string) (MemberState, error) {
	st, err := c.tx.MemberStates(c.g.AppID, c.g.GUID, []string{uid})
	if err != nil {
		return MemberState{}, err
	}
	t := st[uid]
	if t.User.UID == "" || !t.User.Active() {
		return t, errUIDNotFound(uid)
	}
	return t, nil
}

// refusal separates a rule's answer (an *Error) from a storage failure, which fails the
// transaction.
func refusal(err error) bool { return ErrorCode(err) != "" }

// sortedUIDs sorts uids and drops repeats, the order locks are taken in.
func sortedUIDs(uids []string) []string {
	slices.Sort(uids)
	return slices.Compact(uids)
}

// uids are every uid the lists add or ban.
func (l resolvedLists) uids() []string {
	var out []string
	for _, b := range l.buckets {
		out = append(out, b.uids...)
	}
	return out
}

// addLists adds and bans the uids of lists, each with its own result.
func (c *memberChange) addLists(lists resolvedLists) (MemberResults, error) {
	var out MemberResults
	if _, err := c.tx.LockUsers(c.g.AppID, sortedUIDs(lists.uids())); err != nil {
		return out, err
	}
	dst := [4]*[]MemberResult{&out.UsersToBan, &out.Admins, &out.Moderators, &out.Participants}
	for i, b := range lists.buckets {
		if !b.sent {
			continue
		}
		*dst[i] = []MemberResult{}
		for _, uid := range b.uids {
			var res MemberResult
			var err error
			if b.scope == "" {
				err = c.ban(uid)
				res = MemberResult{UID: uid, Err: err}
			} else {
				var m *Message
				m, err = c.add(uid, b.scope)
				res = MemberResult{UID: uid, Err: err, Action: m}
			}
			if err != nil && !refusal(err) {
				return out, err
			}
			*dst[i] = append(*dst[i], res)
		}
		*dst[i] = append(*dst[i], lists.early[b.name]...)
	}
	return out, nil
}

// add makes uid a member with scope, and records it.
func (c *memberChange) add(uid, scope string) (*Message, error) {
	t, err := c.target(uid)
	if err != nil {
		return nil, err
	}
	r, err := c.rule(MemberRule{Op: OpAdd, Target: uid, TargetScope: t.Membership.Scope, TargetBanned: t.Banned, Scope: scope})
	if err != nil {
		return nil, err
	}
	if err := DecideMember(r); err != nil {
		return nil, err
	}
	if err := c.vacancy(t); err != nil {
		return nil, err
	}
	if err := c.join(uid, scope); err != nil {
		return nil, err
	}
	return c.record("added", EventMember{Entity: t.User.Entity(), Scope: scope})
}

// join makes uid a member: its row, the group's count, and its read marker, so that the
// group's history before it joined is not unread to it.
func (c *memberChange) join(uid, scope string) error {
	if err := c.tx.InsertMember(c.g.AppID, c.g.GUID, uid, scope, c.now); err != nil {
		return err
	}
	c.g.MembersCount++
	c.g.UpdatedAt = c.now
	return c.tx.MarkJoined(c.g.AppID, uid, GroupConversationID(c.g.GUID), c.now)
}

// vacancy checks the group's and the user's limits for one more membership.
func (c *memberChange) vacancy(t MemberState) error {
	if c.g.MembersCount >= int64(c.s.cfg.MaxGroupMembers) {
		return Errorf(CodeNoVacancy, "The group %s already has %d members, the most allowed.", c.g.GUID, c.s.cfg.MaxGroupMembers)
	}
	if t.Groups >= MaxGroupsPerUser {
		return errGroupsPerUser(t.User.UID)
	}
	return nil
}

// record writes the groupMember action message for action on the member on, and notes its
// webhook event.
func (c *memberChange) record(action string, on EventMember) (*Message, error) {
	data := `{"action":"` + action + `"`
	if on.OldScope != "" {
		extras, _ := json.Marshal(map[string]any{"scope": map[string]string{"new": on.Scope, "old": on.OldScope}})
		data += `,"extras":` + string(extras)
	}
	data += "}"
	g := *c.g
	g.Viewer = nil
	target := on.Entity
	m := &Message{AppID: c.g.AppID, ConversationID: GroupConversationID(c.g.GUID), Sender: c.actor.UID,
		ReceiverType: ReceiverGroup, Receiver: c.g.GUID, Category: CategoryAction, Type: "groupMember",
		Data: json.RawMessage(data), SentAt: c.now, UpdatedAt: c.now, Action: action,
		SenderEntity: c.actor, TargetUID: on.UID, TargetUser: &target, ReceiverGroup: &g}
	if err := c.tx.InsertMessage(m); err != nil {
		return nil, err
	}
	c.recorded = append(c.recorded, *m)
	c.event(memberTriggers[action], on)
	return m, nil
}

// memberTriggers are the webhook triggers of the groupMember actions.
var memberTriggers = map[string]string{
	"added": TriggerMemberAdded, "joined": TriggerMemberJoined, "left": TriggerMemberLeft, "kicked": TriggerMemberKicked,
	"banned": TriggerMemberBanned, "unbanned": TriggerMemberUnbanned, "scopeChanged": TriggerMemberScopeChanged,
}

// memberEvent is a webhook event of a member change, not written yet: the events of one
// request go out together, one per trigger, with the group as the request left it.
type memberEvent struct {
	trigger string
	member  *EventMember // nil for an event about the group alone
}

func (c *memberChange) event(trigger string, m EventMember) {
	c.events = append(c.events, memberEvent{trigger, &m})
}

// created turns the change's events into a new group's: group_created names every first
// member, the founders (admins) and those added, who get no group_member_added of their
// own; bans made at creation stay group_member_banned.
func (c *memberChange) created(founders []string, states map[string]MemberState) {
	evs := []memberEvent{{trigger: TriggerGroupCreated}}
	for _, uid := range founders {
		m := EventMember{Entity: states[uid].User.Entity(), Scope: ScopeAdmin}
		evs = append(evs, memberEvent{TriggerGroupCreated, &m})
	}
	for _, e := range c.events {
		if e.trigger == TriggerMemberAdded {
			e.trigger = TriggerGroupCreated
		}
		evs = append(evs, e)
	}
	c.events = evs
}

// writeEvents writes the change's webhook events to the outbox: per trigger in the order it
// first happened, its members together, each with the group as it is now and who acted.
// subs are the app's subscribed triggers.
func (c *memberChange) writeEvents(subs []string) error {
	var order []string
	members := map[string][]EventMember{}
	for _, e := range c.events {
		if !slices.Contains(subs, e.trigger) {
			continue
		}
		if _, seen := members[e.trigger]; !seen {
			order = append(order, e.trigger)
			members[e.trigger] = []EventMember{}
		}
		if e.member != nil {
			members[e.trigger] = append(members[e.trigger], *e.member)
		}
	}
	if err := c.writeNotifyEvents(); err != nil {
		return err
	}
	if len(order) == 0 {
		return nil
	}
	g, by, at := eventGroup(*c.g), c.actor, time.Now().UnixMilli()
	for _, t := range order {
		ev := OutboxEvent{AppID: c.g.AppID, Trigger: t, ConversationID: GroupConversationID(c.g.GUID), At: at,
			Ref: EventRef{Group: g, Members: members[t], By: &by}}
		if err := c.tx.InsertOutbox(ev); err != nil {
			return err
		}
	}
	return nil
}

// writeNotifyEvents writes a notification event per groupMember action the change recorded,
// when the app has a notification provider: the action message says who did what to whom.
func (c *memberChange) writeNotifyEvents() error {
	if len(c.recorded) == 0 || !c.notify {
		return nil
	}
	at := time.Now().UnixMilli()
	for _, m := range c.recorded {
		t, ok := memberTriggers[m.Action]
		if !ok {
			continue
		}
		ev := OutboxEvent{Kind: EventNotification, AppID: m.AppID, Trigger: t, ConversationID: m.ConversationID, MessageID: m.ID, At: at,
			Ref: EventRef{UID: m.TargetUID}}
		if err := c.tx.InsertOutbox(ev); err != nil {
			return err
		}
	}
	return nil
}

// announce adds to cs what the change did: to the group (kind ChangeGroup or ChangeMember,
// UIDs the users the recorded actions are about), and each action message recorded. subs
// are the app's subscribed triggers, as for writeEvents.
func (c *memberChange) announce(cs *Changes, kind ChangeKind, subs []string) {
	var work Work
	if len(subs) > 0 {
		work |= WorkWebhook
	}
	if c.notify && len(c.recorded) > 0 {
		work |= WorkNotify
	}
	var uids []string
	for _, m := range c.recorded {
		if m.TargetUID != "" && !slices.Contains(uids, m.TargetUID) {
			uids = append(uids, m.TargetUID)
		}
	}
	cs.Add(&Change{Kind: kind, App: c.g.AppID, GUID: c.g.GUID, UIDs: uids, Work: work})
	for i := range c.recorded {
		cs.Add(messageChange(&c.recorded[i], 0))
	}
}

// kick removes a member.
func (c *memberChange) kick(uid string) (*Message, error) {
	t, err := c.target(uid)
	if err != nil {
		return nil, err
	}
	r, err := c.rule(MemberRule{Op: OpKick, Target: uid, TargetScope: t.Membership.Scope, TargetBanned: t.Banned})
	if err != nil {
		return nil, err
	}
	if err := DecideMember(r); err != nil {
		return nil, err
	}
	if err := c.remove(uid); err != nil {
		return nil, err
	}
	return c.record("kicked", EventMember{Entity: t.User.Entity()})
}

func (c *memberChange) remove(uid string) error {
	if err := c.tx.DeleteMember(c.g.AppID, c.g.GUID, uid); err != nil {
		return err
	}
	c.g.MembersCount--
	c.g.UpdatedAt = c.now
	return nil
}

// ban bans a user, removing its membership.
func (c *memberChange) ban(uid string) error {
	t, err := c.target(uid)
	if err != nil {
		return err
	}
	r, err := c.rule(MemberRule{Op: OpBan, Target: uid, TargetScope: t.Membership.Scope, TargetBanned: t.Banned})
	if err != nil {
		return err
	}
	if err := DecideMember(r); err != nil {
		return err
	}
	if t.Membership.Joined() {
		if err := c.remove(uid); err != nil {
			return err
		}
	}
	if err := c.tx.InsertBan(c.g.AppID, c.g.GUID, uid, c.actor.UID, c.now); err != nil {
		return err
	}
	_, err = c.record("banned", EventMember{Entity: t.User.Entity()})
	return err
}

// unban lifts a ban.
func (c *memberChange) unban(uid string) error {
	st, err := c.tx.MemberStates(c.g.AppID, c.g.GUID, []string{uid})
	if err != nil {
		return err
	}
	t := st[uid]
	if t.User.UID == "" { // a purged user's bans go with it
		return errUIDNotFound(uid)
	}
	r, err := c.rule(MemberRule{Op: OpUnban, Target: uid, TargetScope: t.Membership.Scope, TargetBanned: t.Banned})
	if err != nil {
		return err
	}
	if err := DecideMember(r); err != nil {
		return err
	}
	if err := c.tx.DeleteBan(c.g.AppID, c.g.GUID, uid); err != nil {
		return err
	}
	_, err = c.record("unbanned", EventMember{Entity: t.User.Entity()})
	return err
}

// scope changes a member's scope.
func (c *memberChange) scope(uid, scope string) (Membership, error) {
	t, err := c.target(uid)
	if err != nil {
		return Membership{}, err
	}
	r, err := c.rule(MemberRule{Op: OpScope, Target: uid, TargetScope: t.Membership.Scope, TargetBanned: t.Banned, Scope: scope})
	if err != nil {
		return Membership{}, err
	}
	if err := DecideMember(r); err != nil {
		return Membership{}, err
	}
	if err := c.tx.SetMemberScope(c.g.AppID, c.g.GUID, uid, scope); err != nil {
		return Membership{}, err
	}
	c.g.UpdatedAt = c.now
	if _, err := c.record("scopeChanged", EventMember{Entity: t.User.Entity(), Scope: scope, OldScope: t.Membership.Scope}); err != nil {
		return Membership{}, err
	}
	return Membership{Scope: scope, JoinedAt: t.Membership.JoinedAt}, nil
}

// transfer makes uid the owner, and an admin: a member is promoted, a user who is not one
// joins. The previous owner stays an admin.
func (c *memberChange) transfer(uid string) error {
	if _, err := c.tx.LockUsers(c.g.AppID, []string{uid}); err != nil {
		return err
	}
	t, err := c.target(uid)
	if err != nil {
		return err
	}
	switch {
	case t.Banned:
		return errBanned(uid)
	case !t.Membership.Joined():
		if err := c.vacancy(t); err != nil {
			return err
		}
		if err := c.join(uid, ScopeAdmin); err != nil {
			return err
		}
		if _, err := c.record("added", EventMember{Entity: t.User.Entity(), Scope: ScopeAdmin}); err != nil {
			return err
		}
	case t.Membership.Scope != ScopeAdmin:
		if err := c.tx.SetMemberScope(c.g.AppID, c.g.GUID, uid, ScopeAdmin); err != nil {
			return err
		}
		if _, err := c.record("scopeChanged", EventMember{Entity: t.User.Entity(), Scope: ScopeAdmin, OldScope: t.Membership.Scope}); err != nil {
			return err
		}
	}
	c.g.Owner = uid
	c.g.UpdatedAt = c.now
	c.event(TriggerOwnerTransferred, EventMember{Entity: t.User.Entity(), Scope: ScopeAdmin})
	return nil
}

// changeMembers runs fn on a locked group in one transaction and saves the group after it;
// the operation (a.Op, a.Count) is checked against the acting user's permissions first.
func (s *Service) changeMembers(ctx context.Context, p Principal, guid string, a Action, fn func(c *memberChange) error) (Group, error) {
	id, ok := NormalizeID(guid)
	if !ok {
		return Group{}, errGUIDNotFound("")
	}
	actor, err := s.actorEntity(ctx, p)
	if err != nil {
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
		a.Role, a.GroupType = actor.Role, g.Type
		if _, err := s.permit(ctx, p, a); err != nil {
			return err
		}
		c := &memberChange{s: s, tx: tx, p: p, g: &g, now: now, actor: actor, notify: notifying}
		if err := fn(c); err != nil {
			return err
		}
		out = g
		if err := c.writeEvents(subs); err != nil {
			return err
		}
		c.announce(cs, ChangeMember, subs)
		return tx.SaveGroup(g, false)
	})
	if err != nil {
		return Group{}, s.groupErr("change members", err)
	}
	return out, nil
}

// normalizeTarget checks a path uid.
func normalizeTarget(uid string) (string, error) {
	id, ok := NormalizeID(uid)
	if !ok {
		return "", errUIDNotFound("")
	}
	return id, nil
}

// AddMembers adds users to a group (and bans those in UsersToBan), each with its own
// result. Acting as a user, that user's scope decides what it may do.
func (s *Service) AddMembers(ctx context.Context, p Principal, guid string, in MemberLists) (MemberResults, error) {
	fe := fieldErrors{}
	lists, _ := in.normalize(fe)
	if in.Admins == nil && in.Moderators == nil && in.Participants == nil && in.UsersToBan == nil {
		fe.add("participants", "Name at least one uid in admins, moderators, participants or usersToBan.")
	}
	if err := fe.err(); err != nil {
		return MemberResults{}, err
	}
	var out MemberResults
	n := len(in.Admins) + len(in.Moderators) + len(in.Participants) + len(in.UsersToBan)
	_, err := s.changeMembers(ctx, p, guid, Action{Op: OpAddMembers, Count: n}, func(c *memberChange) error {
		// An acting user who may add no one is refused as a whole, not once per uid.
		if p.acting() {
			r, err := c.rule(MemberRule{})
			if err != nil {
				return err
			}
			switch r.ActorScope {
			case "":
				return errNotAMember(r.Actor, c.g.GUID)
			case ScopeParticipant:
				return Errorf(CodeGroupNoClearance, "The user %s is a participant of the group and cannot manage its members.", r.Actor)
			}
		}
		var err error
		out, err = c.addLists(lists)
		return err
	})
	return out, err
}

// ListMembers lists a group's members.
func (s *Service) ListMembers(ctx context.Context, p Principal, guid string, q MemberQuery) ([]Member, int, error) {
	fe := fieldErrors{}
	for _, sc := range q.Scopes {
		if !validScope(sc) {
			fe.add("scopes", "The scopes may only name admin, moderator and participant.")
			break
		}
	}
	if q.Status != "" && q.Status != "available" && q.Status != "offline" {
		fe.add("status", "The status must be one of available, offline.")
	}
	fe.text("searchKey", q.SearchKey, MaxSearchKeyLen, false)
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	g, viewer, err := s.group(ctx, p, guid)
	if err != nil {
		return nil, 0, err
	}
	if g.Viewer != nil && !g.Viewer.Joined() {
		return nil, 0, errNotAMember(p.Actor, g.GUID)
	}
	if g.Viewer != nil {
		gr, err := s.permit(ctx, p, Action{Op: OpListMembers, Role: viewer.Role, GUID: g.GUID, Scope: g.Viewer.Scope})
		if err != nil {
			return nil, 0, err
		}
		if gr.Scopes != nil {
			if q.Scopes, err = narrow(q.Scopes, gr.Scopes, narrowed(ScopePermission, g.Viewer.Scope, "listMembers.allowedScopes", "scopes", gr.Scopes)); err != nil {
				return nil, 0, err
			}
		}
	}
	members, total, err := s.store.ListMembers(ctx, p.App.ID, g.GUID, q)
	if err != nil {
		return nil, 0, internal("list members", err)
	}
	return members, total, nil
}

// ChangeScope gives a member another scope.
func (s *Service) ChangeScope(ctx context.Context, p Principal, guid, uid, scope string) (Member, error) {
	if scope == "" {
		scope = ScopeParticipant // the hosted spec's default
	}
	if !validScope(scope) {
		return Member{}, InvalidField("scope", "The scope must be one of admin, moderator, participant.")
	}
	id, err := normalizeTarget(uid)
	if err != nil {
		return Member{}, err
	}
	var m Membership
	_, err = s.changeMembers(ctx, p, guid, Action{Op: OpChangeScope}, func(c *memberChange) error {
		var err error
		m, err = c.scope(id, scope)
		return err
	})
	if err != nil {
		return Member{}, err
	}
	return Member{User: User{UID: id}, Scope: m.Scope, JoinedAt: m.JoinedAt}, nil
}

// Kick removes a member from a group.
func (s *Service) Kick(ctx context.Context, p Principal, guid, uid string) (Group, error) {
	id, err := normalizeTarget(uid)
	if err != nil {
		return Group{}, err
	}
	return s.changeMembers(ctx, p, guid, Action{Op: OpKickMember}, func(c *memberChange) error {
		_, err := c.kick(id)
		return err
	})
}

// Ban bans a user from a group; a member loses its membership.
func (s *Service) Ban(ctx context.Context, p Principal, guid, uid string) (Group, error) {
	id, err := normalizeTarget(uid)
	if err != nil {
		return Group{}, err
	}
	return s.changeMembers(ctx, p, guid, Action{Op: OpBanMember}, func(c *memberChange) error { return c.ban(id) })
}

// Unban lifts a user's ban.
func (s *Service) Unban(ctx context.Context, p Principal, guid, uid string) (Group, error) {
	id, err := normalizeTarget(uid)
	if err != nil {
		return Group{}, err
	}
	return s.changeMembers(ctx, p, guid, Action{Op: OpUnbanMember}, func(c *memberChange) error { return c.unban(id) })
}

// ListBanned lists the users banned from a group.
func (s *Service) ListBanned(ctx context.Context, p Principal, guid string, q MemberQuery) ([]User, int, error) {
	fe := fieldErrors{}
	fe.text("searchKey", q.SearchKey, MaxSearchKeyLen, false)
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	g, viewer, err := s.group(ctx, p, guid)
	if err != nil {
		return nil, 0, err
	}
	if g.Viewer != nil && !g.Viewer.Joined() {
		// As for the members: only a member reads who is banned (a banned user is no member).
		return nil, 0, errNotAMember(p.Actor, g.GUID)
	}
	if _, err := s.permit(ctx, p, Action{Op: OpListBanned, Role: viewer.Role}); err != nil {
		return nil, 0, err
	}
	users, total, err := s.store.ListBanned(ctx, p.App.ID, g.GUID, MemberQuery{SearchKey: q.SearchKey, Page: q.Page})
	if err != nil {
		return nil, 0, internal("list banned users", err)
	}
	return users, total, nil
}

// Join makes the acting user a member of a public group, or of a password group with its
// password. A private group is joined only by being added. It returns the joined action
// message that records the join, whose entities.for is the group as the join left it: the
// client SDKs read the group from there.
func (s *Service) Join(ctx context.Context, p Principal, guid, password string) (Message, error) {
	if _, err := p.actor(); err != nil {
		return Message{}, err
	}
	var joined *Message
	_, err := s.changeMembers(ctx, p, guid, Action{Op: OpJoinGroup}, func(c *memberChange) error {
		uid := c.actor.UID
		if _, err := c.tx.LockUsers(c.g.AppID, []string{uid}); err != nil {
			return err
		}
		t, err := c.target(uid)
		if err != nil {
			return err
		}
		switch {
		case t.Banned:
			return errBanned(uid)
		case t.Membership.Joined():
			return Errorf(CodeAlreadyJoined, "The user %s is already a member of the group %s.", uid, c.g.GUID)
		case c.g.Type == GroupPrivate:
			return Errorf(CodeGroupJoinNotAllowed, "The group %s is private: a user joins it only when an admin or moderator adds it.", c.g.GUID)
		case c.g.Type == GroupPassword && password == "":
			return Errorf(CodeEmptyGroupPass, "The group %s needs its password to be joined.", c.g.GUID)
		case c.g.Type == GroupPassword && !groupPasswordMatches(c.g.PasswordHash, password):
			return Errorf(CodeWrongGroupPass, "The password for the group %s is wrong.", c.g.GUID)
		}
		if err := c.vacancy(t); err != nil {
			return err
		}
		if err := c.join(uid, ScopeParticipant); err != nil {
			return err
		}
		joined, err = c.record("joined", EventMember{Entity: c.actor, Scope: ScopeParticipant})
		return err
	})
	if err != nil {
		return Message{}, err
	}
	return *joined, nil
}

// Leave ends the acting user's membership. The owner must transfer the group first.
func (s *Service) Leave(ctx context.Context, p Principal, guid string) error {
	if _, err := p.actor(); err != nil {
		return err
	}
	_, err := s.changeMembers(ctx, p, guid, Action{Op: OpLeaveGroup}, func(c *memberChange) error {
		uid := c.actor.UID
		t, err := c.target(uid)
		if err != nil {
			return err
		}
		switch {
		case !t.Membership.Joined():
			return errNotAMember(uid, c.g.GUID)
		case uid == c.g.Owner:
			return Errorf(CodeGroupNoScopeClearance, "The user %s owns the group %s and cannot leave it; transfer the ownership first.", uid, c.g.GUID)
		}
		if err := c.remove(uid); err != nil {
			return err
		}
		_, err = c.record("left", EventMember{Entity: c.actor})
		return err
	})
	return err
}

// TransferOwner makes uid the owner of a group. Acting as a user, only the owner may.
func (s *Service) TransferOwner(ctx context.Context, p Principal, guid, uid string) (Group, error) {
	fe := fieldErrors{}
	id := fe.id("owner", uid, true)
	if err := fe.err(); err != nil {
		return Group{}, err
	}
	g, err := s.changeMembers(ctx, p, guid, Action{Op: OpTransferOwner}, func(c *memberChange) error {
		if c.p.acting() && c.actor.UID != c.g.Owner {
			return Errorf(CodeGroupNoClearance, "Only the owner of the group %s may transfer it.", c.g.GUID)
		}
		if id == c.g.Owner {
			return nil
		}
		return c.transfer(id)
	})
	if err != nil {
		return Group{}, err
	}
	if p.acting() {
		m, err := s.store.Membership(ctx, p.App.ID, g.GUID, p.Actor)
		if err != nil {
			return Group{}, internal("transfer group", err)
		}
		g.Viewer = &m
	}
	return g, nil
}

// member reports uid's membership of guid for the message rules; a banned user is not a
// member.
func (s *Service) member(ctx context.Context, appID, guid, uid string) (Membership, error) {
	m, err := s.cachedMembership(ctx, appID, guid, uid)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Membership{}, internal("read membership", err)
	}
	return m, nil
}
