package chat

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

// permCase is one permission key with the operation it governs, a value that lets the
// operation through and one that does not. A list permission that narrows a list rather
// than refusing it says so with narrowed, which reports whether the grant is narrowed.
type permCase struct {
	t            PermissionType
	key          string
	a            Action
	allow, deny  PermissionValue
	narrowed     func(Grant) bool
	notForFriend bool // the deny value refuses a friend too (false: a friend passes)
}

func str(s string) PermissionValue      { return PermissionValue{Str: s} }
func items(s ...string) PermissionValue { return PermissionValue{List: s} }
func notFriend() (bool, error)          { return false, nil }
func withData(d string) []byte          { return []byte(d) }
func mime(types ...string) []byte {
	b, _ := json.Marshal(map[string]any{"attachments": attachments(types)})
	return b
}
func attachments(types []string) []any {
	var a []any
	for _, t := range types {
		a = append(a, map[string]string{"mimeType": t})
	}
	return a
}
func hasList(l []string, v string) bool { return slices.Contains(l, v) }

var (
	toUser   = Action{Op: OpSendMessage, Role: "r", ReceiverType: ReceiverUser, ReceiverRole: "b", Category: CategoryMessage, Type: "text", Friend: notFriend}
	toGroup  = Action{Op: OpSendMessage, Role: "r", ReceiverType: ReceiverGroup, GUID: "g", Scope: ScopeParticipant, Category: CategoryMessage, Type: "text"}
	inThread = Action{Op: OpSendThreadMessage, Role: "r", ReceiverType: ReceiverGroup, GUID: "g", Scope: ScopeParticipant, Category: CategoryMessage, Type: "text"}
	custom   = Action{Op: OpSendMessage, Role: "r", ReceiverType: ReceiverUser, ReceiverRole: "b", Category: CategoryCustom, Type: "poll", Friend: notFriend}
	image    = Action{Op: OpSendMessage, Role: "r", ReceiverType: ReceiverUser, ReceiverRole: "b", Category: CategoryMessage, Type: "image", Data: mime("image/png"), Friend: notFriend}
	edit     = Action{Op: OpEditMessage, Role: "r", GUID: "g", Scope: ScopeModerator}
	del      = Action{Op: OpDeleteMessage, Role: "r", GUID: "g", Scope: ScopeModerator}
	callUser = Action{Op: OpInitiateCall, Role: "r", ReceiverType: ReceiverUser, ReceiverRole: "b", Type: CallAudio, Friend: notFriend}
	callGrp  = Action{Op: OpInitiateCall, Role: "r", ReceiverType: ReceiverGroup, GUID: "g", Scope: ScopeParticipant, Type: CallAudio}
)

// permCases has a case for every enforced permission key (TestPermissionsCovered).
var permCases = []permCase{
	{t: RolePermission, key: "listUsers", a: Action{Op: OpListUsers, Role: "r"}, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "listUsers.mode", a: Action{Op: OpListUsers, Role: "r"}, allow: str(ModeAll), deny: str(ModeFriends),
		narrowed: func(g Grant) bool { return g.FriendsOnly }},
	{t: RolePermission, key: "listUsers.allowedRoles", a: Action{Op: OpListUsers, Role: "r"}, allow: items(), deny: items("b"),
		narrowed: func(g Grant) bool { return hasList(g.Roles, "b") }},
	{t: RolePermission, key: "getUserDetails.mode", a: Action{Op: OpGetUser, Role: "r", TargetRole: "b", Friend: notFriend},
		allow: str(ModeAll), deny: str(ModeFriends)},
	{t: RolePermission, key: "getUserDetails.allowedRoles", a: Action{Op: OpGetUser, Role: "r", TargetRole: "b"},
		allow: items("b"), deny: items("c"), notForFriend: true},
	{t: RolePermission, key: "sendMessage", a: toUser, allow: str(Allow), deny: str(Deny), notForFriend: true},
	{t: RolePermission, key: "sendMessage.mode", a: toUser, allow: str(ModeAll), deny: str(ModeFriends)},
	{t: RolePermission, key: "sendMessage.allowedReceiverTypes", a: toGroup, allow: items(ReceiverGroup), deny: items(ReceiverUser), notForFriend: true},
	{t: RolePermission, key: "sendMessage.allowedReceiverRoles", a: toUser, allow: items("b"), deny: items("c"), notForFriend: true},
	{t: RolePermission, key: "sendMessage.allowedMessageTypes", a: image, allow: items("image"), deny: items("text"), notForFriend: true},
	{t: RolePermission, key: "sendMessage.allowedMessageCategories", a: custom, allow: items(CategoryCustom), deny: items(CategoryMessage), notForFriend: true},
	{t: RolePermission, key: "sendMessage.allowedCustomTypes", a: custom, allow: items("poll"), deny: items("vote"), notForFriend: true},
	{t: RolePermission, key: "sendMessage.allowedMimeTypes", a: image, allow: items("image/*"), deny: items("image/jpeg"), notForFriend: true},
	{t: RolePermission, key: "editMessage", a: edit, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "editMessage.denyForScopes", a: edit, allow: items(ScopeParticipant), deny: items(ScopeModerator)},
	{t: RolePermission, key: "deleteMessage", a: del, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "deleteMessage.denyForScopes", a: del, allow: items(ScopeAdmin), deny: items(ScopeModerator)},
	{t: RolePermission, key: "createGroup", a: Action{Op: OpCreateGroup, Role: "r", GroupType: GroupPrivate}, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "createGroup.allowedGroupTypes", a: Action{Op: OpCreateGroup, Role: "r", GroupType: GroupPrivate},
		allow: items(GroupPrivate), deny: items(GroupPublic)},
	{t: RolePermission, key: "listGroups", a: Action{Op: OpListGroups, Role: "r"}, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "listGroups.allowedGroupTypes", a: Action{Op: OpListGroups, Role: "r"}, allow: items(), deny: items(GroupPublic),
		narrowed: func(g Grant) bool { return hasList(g.GroupTypes, GroupPublic) }},
	{t: RolePermission, key: "joinGroup", a: Action{Op: OpJoinGroup, Role: "r", GroupType: GroupPassword}, allow: str(Allow), deny: str(Deny)},
	{t: RolePermission, key: "joinGroup.allowedGroupTypes", a: Action{Op: OpJoinGroup, Role: "r", GroupType: GroupPassword},
		allow: items(GroupPassword), deny: items(GroupPublic)},
	{t: RolePermission, key: "listMessages.allowedMessageCategories", a: Action{Op: OpListGroupMessages, Role: "r"}, allow: items(), deny: items(CategoryCustom),
		narrowed: func(g Grant) bool { return hasList(g.Categories, CategoryCustom) }},
	{t: RolePermission, key: "listMessages.allowedMessageTypes", a: Action{Op: OpListThread, Role: "r"}, allow: items(), deny: items("text"),
		narrowed: func(g Grant) bool { return hasList(g.Types, "text") }},

	{t: ScopePermission, key: "sendMessage", a: toGroup, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "listMembers", a: Action{Op: OpListMembers, Role: "r", GUID: "g", Scope: ScopeParticipant}, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "listMembers.allowedScopes", a: Action{Op: OpListMembers, Role: "r", GUID: "g", Scope: ScopeParticipant},
		allow: items(), deny: items(ScopeAdmin), narrowed: func(g Grant) bool { return hasList(g.Scopes, ScopeAdmin) }},
	{t: ScopePermission, key: "addReaction", a: Action{Op: OpAddReaction, GUID: "g", Scope: ScopeParticipant}, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "listReactions", a: Action{Op: OpListReactions, Role: "r", GUID: "g", Scope: ScopeParticipant}, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "listReactions.allowedScopes", a: Action{Op: OpListReactions, Role: "r", GUID: "g", Scope: ScopeParticipant},
		allow: items(), deny: items(ScopeModerator), narrowed: func(g Grant) bool { return hasList(g.Scopes, ScopeModerator) }},
	{t: ScopePermission, key: "sendThreadedMessage", a: inThread, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "editMessage", a: Action{Op: OpEditMessage, Role: "r", GUID: "g", Scope: ScopeParticipant}, allow: str(Allow), deny: str(Deny)},

	{t: RolePermission, key: "initiateCall", a: callUser, allow: str(Allow), deny: str(Deny), notForFriend: true},
	{t: RolePermission, key: "initiateCall.mode", a: callUser, allow: str(ModeAll), deny: str(ModeFriends)},
	{t: RolePermission, key: "initiateCall.allowedReceiverRoles", a: callUser, allow: items("b"), deny: items("c"), notForFriend: true},
	{t: ScopePermission, key: "initiateCall", a: callGrp, allow: str(Allow), deny: str(Deny)},
	{t: ScopePermission, key: "initiateCall.allowedScopes", a: callGrp, allow: items(ScopeParticipant), deny: items(ScopeAdmin)},
	{t: ScopePermission, key: "initiateCall.allowedType", a: callGrp, allow: items(CallAudio), deny: items(CallVideo)},
}

// policyWith is a policy where role "r" (a role permission) or the participant and
// moderator scopes of group g (a scope permission) have key set to v.
func policyWith(t PermissionType, key string, v PermissionValue) (*Policy, ScopeRules) {
	if t == RolePermission {
		return newPolicy(map[string]*RolePolicy{"r": {Permissions: map[string]PermissionValue{key: v}}}, false), nil
	}
	set := map[string]PermissionValue{key: v}
	return newPolicy(nil, true), ScopeRules{ScopeParticipant: set, ScopeModerator: set}
}

// deniedBy checks that err is the check's refusal naming key.
func deniedBy(t *testing.T, err error, key string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != CodePermissionDenied || len(e.Details["permission"]) != 1 || e.Details["permission"][0] != key {
		t.Fatalf("got %v, want ERR_PERMISSION_DENIED naming %s", err, key)
	}
	if e.Code.Kind() != KindForbidden {
		t.Fatalf("kind %v, want forbidden", e.Code.Kind())
	}
}

// TestPermissionCheck walks every permission key, allowed and denied, through the one
// check.
func TestPermissionCheck(t *testing.T) {
	for _, tc := range permCases {
		t.Run(string(tc.t)+"/"+tc.key, func(t *testing.T) {
			d, ok := permissionDef(tc.t, tc.key)
			if !ok {
				t.Fatalf("no such permission")
			}
			for _, v := range []PermissionValue{tc.allow, tc.deny} {
				if _, msg := d.parseValue(json.RawMessage(v.encode(d))); msg != "" {
					t.Fatalf("the test's value %v is not valid: %s", v, msg)
				}
			}
			// The default lets it through.
			if g, err := newPolicy(nil, false).decide(tc.a, nil); err != nil || tc.narrowed != nil && tc.narrowed(g) {
				t.Fatalf("default: %+v, %v", g, err)
			}
			pol, rules := policyWith(tc.t, tc.key, tc.allow)
			if g, err := pol.decide(tc.a, rules); err != nil || tc.narrowed != nil && tc.narrowed(g) {
				t.Fatalf("allowed: %+v, %v", g, err)
			}
			pol, rules = policyWith(tc.t, tc.key, tc.deny)
			g, err := pol.decide(tc.a, rules)
			if tc.narrowed != nil {
				if err != nil || !tc.narrowed(g) {
					t.Fatalf("denied: the list is not narrowed: %+v, %v", g, err)
				}
				return
			}
			deniedBy(t, err, tc.key)
			// A friend passes a friends-only rule; the other rules do not care.
			a := tc.a
			a.Friend = func() (bool, error) { return true, nil }
			_, err = pol.decide(a, rules)
			switch {
			case tc.notForFriend || tc.a.Friend == nil:
				deniedBy(t, err, tc.key)
			case err != nil:
				t.Fatalf("a friend is refused: %v", err)
			}
			// The app acting as itself is never checked.
			if _, err := (&Service{}).permit(t.Context(), Principal{}, tc.a); err != nil {
				t.Fatalf("the app is refused: %v", err)
			}
		})
	}
}

// TestPermissionsCovered: every key of the table has a case above, or is one natter does
// not enforce yet (calls).
func TestPermissionsCovered(t *testing.T) {
	for _, d := range permissionDefs {
		has := slices.ContainsFunc(permCases, func(c permCase) bool { return c.t == d.Type && c.key == d.Key })
		switch {
		case d.Enforced && !has:
			t.Errorf("%s %s: no case in permCases", d.Type, d.Key)
		case !d.Enforced && has:
			t.Errorf("%s %s: a case, but not enforced", d.Type, d.Key)
		case !d.Enforced && d.Key != "initiateCall" && !slices.Contains([]string{"initiateCall.mode", "initiateCall.allowedReceiverRoles",
			"initiateCall.allowedScopes", "initiateCall.allowedType"}, d.Key):
			t.Errorf("%s %s: not enforced, and not a call's", d.Type, d.Key)
		}
	}
	if n := len(PermissionDefs(RolePermission)); n != 28 {
		t.Errorf("%d role permissions, want the hosted service's 28", n)
	}
	if n := len(PermissionDefs(ScopePermission)); n != 11 {
		t.Errorf("%d scope permissions, want the hosted service's 11", n)
	}
}

// TestRoleSettings: a role's settings restrict listing users and sending to friends only.
func TestRoleSettings(t *testing.T) {
	pol := newPolicy(map[string]*RolePolicy{"r": {Settings: RoleSettings{ListUsers: SettingFriendsOnly, SendMessagesTo: SettingFriendsOnly}}}, false)
	if g, err := pol.decide(Action{Op: OpListUsers, Role: "r"}, nil); err != nil || !g.FriendsOnly {
		t.Errorf("listUsers friendsOnly: %+v, %v", g, err)
	}
	_, err := pol.decide(toUser, nil)
	deniedBy(t, err, "settings.sendMessagesTo")
	a := toUser
	a.Friend = func() (bool, error) { return true, nil }
	if _, err := pol.decide(a, nil); err != nil {
		t.Errorf("to a friend: %v", err)
	}
	if _, err := pol.decide(toGroup, nil); err != nil {
		t.Errorf("to a group: %v", err)
	}
	// Another role, and settings of all, restrict nothing.
	if _, err := pol.decide(Action{Op: OpSendMessage, Role: "other", ReceiverType: ReceiverUser, Friend: notFriend}, nil); err != nil {
		t.Errorf("another role: %v", err)
	}
	all := newPolicy(map[string]*RolePolicy{"r": {Settings: RoleSettings{ListUsers: SettingAll, SendMessagesTo: SettingAll}}}, false)
	if !all.open() {
		t.Error("settings of all: the policy is not open")
	}
}

// featureActions is an operation of every feature a user does.
var featureActions = map[string]Action{
	"u.addMember":                 {Op: OpAddMembers, Count: 1},
	"u.massMemberOperate":         {Op: OpAddMembers, Count: 2},
	"u.ban":                       {Op: OpBanMember},
	"u.changeScope":               {Op: OpChangeScope},
	"u.createGroup":               {Op: OpCreateGroup, GroupType: GroupPublic},
	"u.createMessage":             toUser,
	"u.createMessageThread":       inThread,
	"u.deleteConversationForUser": {Op: OpDeleteConversation},
	"u.deleteGroup":               {Op: OpDeleteGroup},
	"u.deleteGroupMessages":       del,
	"u.deleteMessage":             {Op: OpDeleteMessage},
	"u.getConversation":           {Op: OpGetConversation},
	"u.getGroup":                  {Op: OpGetGroup},
	"u.getGroupMessages":          {Op: OpListGroupMessages},
	"u.getMessage":                {Op: OpGetMessage},
	"u.getMyDetails":              {Op: OpGetUser, Self: true},
	"u.getUser":                   {Op: OpGetUser, TargetRole: "b"},
	"u.getUserMessages":           {Op: OpListUserMessages},
	"u.joinGroup":                 {Op: OpJoinGroup, GroupType: GroupPublic},
	"u.kickMember":                {Op: OpKickMember},
	"u.leaveGroup":                {Op: OpLeaveGroup},
	"u.listBannedUsers":           {Op: OpListBanned},
	"u.listConversations":         {Op: OpListConversations},
	"u.listGroupMembers":          {Op: OpListMembers},
	"u.listGroups":                {Op: OpListGroups},
	"u.listMessages":              {Op: OpListMessages},
	"u.listThreadedMessages":      {Op: OpListThread},
	"u.listUsers":                 {Op: OpListUsers},
	"u.patchOwner":                {Op: OpTransferOwner},
	"u.unban":                     {Op: OpUnbanMember},
	"u.updateGroup":               {Op: OpUpdateGroup},
	"u.updateMessage":             {Op: OpEditMessage},
	"u.updateAuthToken":           {Op: OpUpdateProfile},
	"u.createCall":                {Op: OpInitiateCall, ReceiverType: ReceiverUser},
	"u.updateCall":                {Op: OpUpdateCall},
	"u.getCall":                   {Op: OpGetCall},
	"u.listCalls":                 {Op: OpListCalls},
	"u.blockUser":                 {Op: OpBlockUsers},
	"u.unblockUser":               {Op: OpUnblockUsers},
	"u.getBlockedUsers":           {Op: OpListBlocked},
}

// TestRestrictedFeatures: restricting a feature refuses its operation, naming it, and no
// other feature's.
func TestRestrictedFeatures(t *testing.T) {
	for _, f := range features {
		a, ok := featureActions[f.Key]
		if ok != f.Enforced {
			t.Errorf("%s: enforced %v, but an operation in the test: %v", f.Key, f.Enforced, ok)
			continue
		}
		if !ok {
			continue
		}
		t.Run(f.Key, func(t *testing.T) {
			a.Role = "r"
			restricted := newPolicy(map[string]*RolePolicy{"r": {Features: map[string]bool{f.Key: true}}}, false)
			_, err := restricted.decide(a, nil)
			deniedBy(t, err, f.Key)
			other := newPolicy(map[string]*RolePolicy{"r": {Features: map[string]bool{"u.logout": true}}}, false)
			if _, err := other.decide(a, nil); err != nil {
				t.Errorf("another feature restricted: %v", err)
			}
			a.Role = "other"
			if _, err := restricted.decide(a, nil); err != nil {
				t.Errorf("another role: %v", err)
			}
		})
	}
}

// TestParseValue: values of the wrong type or out of their values are refused; lists are
// normalised.
func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		t    PermissionType
		key  string
		raw  string
		want string // the stored JSON; "" refuses
	}{
		{RolePermission, "sendMessage", `"deny"`, `"deny"`},
		{RolePermission, "sendMessage", `"maybe"`, ""},
		{RolePermission, "sendMessage", `false`, ""},
		{RolePermission, "sendMessage", `["deny"]`, ""},
		{RolePermission, "sendMessage", `null`, ""},
		{RolePermission, "listUsers.mode", `"friends"`, `"friends"`},
		{RolePermission, "listUsers.mode", `"allow"`, ""},
		{RolePermission, "sendMessage.allowedMessageTypes", `["text","image","text"]`, `["text","image"]`},
		{RolePermission, "sendMessage.allowedMessageTypes", `["sticker"]`, ""},
		{RolePermission, "sendMessage.allowedMessageTypes", `"text"`, `["text"]`},
		{RolePermission, "sendMessage.allowedMessageTypes", `null`, `[]`},
		{RolePermission, "sendMessage.allowedMessageTypes", `[1]`, ""},
		{RolePermission, "sendMessage.allowedMessageTypes", `{}`, ""},
		{RolePermission, "listUsers.allowedRoles", `["VIP","default"]`, `["vip","default"]`},
		{RolePermission, "listUsers.allowedRoles", `["a b"]`, ""},
		{RolePermission, "sendMessage.allowedMimeTypes", `["Image/PNG","video/*"]`, `["image/png","video/*"]`},
		{RolePermission, "sendMessage.allowedMimeTypes", `["png"]`, ""},
		{RolePermission, "sendMessage.allowedMimeTypes", `["*/*"]`, ""},
		{RolePermission, "sendMessage.allowedCustomTypes", `["poll","a b"]`, ""},
		{ScopePermission, "listMembers.allowedScopes", `"participant"`, `["participant"]`},
		{ScopePermission, "listMembers.allowedScopes", `["owner"]`, ""},
	} {
		d, ok := permissionDef(tc.t, tc.key)
		if !ok {
			t.Fatalf("%s: unknown", tc.key)
		}
		v, msg := d.parseValue(json.RawMessage(tc.raw))
		got := ""
		if msg == "" {
			got = v.encode(d)
		}
		if got != tc.want {
			t.Errorf("%s %s: got %q (%s), want %q", tc.key, tc.raw, got, msg, tc.want)
		}
	}
	if _, ok := permissionDef(ScopePermission, "listUsers"); ok {
		t.Error("listUsers is not a scope permission")
	}
}

// TestMimeAllowed: exact types and type/* wildcards, case-insensitively.
func TestMimeAllowed(t *testing.T) {
	allowed := []string{"image/png", "video/*"}
	for m, want := range map[string]bool{"image/png": true, "IMAGE/PNG": true, "image/jpeg": false, "video/mp4": true, "videos/mp4": false, "": false} {
		if got := mimeAllowed(allowed, m); got != want {
			t.Errorf("%q: %v, want %v", m, got, want)
		}
	}
	// A media message whose attachments do not all state a type is refused under a list.
	pol := newPolicy(map[string]*RolePolicy{"r": {Permissions: map[string]PermissionValue{"sendMessage.allowedMimeTypes": items("image/*")}}}, false)
	a := image
	a.Data = withData(`{"url":"https://x.example/a.png"}`)
	_, err := pol.decide(a, nil)
	deniedBy(t, err, "sendMessage.allowedMimeTypes")
	a.Data = mime("image/png", "")
	_, err = pol.decide(a, nil)
	deniedBy(t, err, "sendMessage.allowedMimeTypes")
}

// TestNewPolicy: a stored policy is decoded; what natter no longer reads is left out, and a
// role that sets nothing leaves the policy open.
func TestNewPolicy(t *testing.T) {
	pol := NewPolicy(PolicyData{Roles: map[string]*StoredRolePolicy{
		"r":     {Permissions: map[string]string{"sendMessage": `"deny"`, "gone": `"deny"`, "listUsers.mode": `5`}, Features: []string{"u.listUsers"}},
		"quiet": {Settings: RoleSettings{ListUsers: SettingAll, SendMessagesTo: SettingAll}},
	}})
	rp := pol.roles["r"]
	if rp == nil || len(rp.Permissions) != 1 || rp.Permissions["sendMessage"].Str != Deny || !rp.Features["u.listUsers"] {
		t.Fatalf("decoded: %+v", rp)
	}
	if _, ok := pol.roles["quiet"]; ok {
		t.Error("a role that sets nothing is kept")
	}
	if NewPolicy(PolicyData{Roles: map[string]*StoredRolePolicy{"quiet": {}}}).open() != true {
		t.Error("an app that sets nothing is not open")
	}
}

// BenchmarkPermitDefaultPolicy is what the check adds to a request in an app that has set no
// permissions (the hot path's case): the reaction's check, and a send's, from a warm cache.
//
//	go test ./chat -run '^$' -bench PermitDefaultPolicy -benchmem
func BenchmarkPermitDefaultPolicy(b *testing.B) {
	s := New(nil, Config{KeyCacheTTL: time.Hour}) // the cache stays warm
	s.keys.policies.put("a", NewPolicy(PolicyData{}), s.keys.policies.generation())
	p := Principal{App: App{ID: "a"}, Actor: "u"}
	b.Run("reaction", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.reactionPermitted(b.Context(), p, "u", 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("send", func(b *testing.B) {
		b.ReportAllocs()
		a := Action{Op: OpSendMessage, Role: DefaultRole, ReceiverType: ReceiverUser, Category: CategoryMessage, Type: "text"}
		for b.Loop() {
			if _, err := s.permit(b.Context(), p, a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
