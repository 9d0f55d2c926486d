package chat

import "testing"

// TestDecideMember walks the membership rule: who may act on whom, and what state each
// change needs.
func TestDecideMember(t *testing.T) {
	const owner = "olga"
	for _, tc := range []struct {
		name string
		r    MemberRule
		want Code // "" allows
	}{
		// The app may do anything but remove or demote the owner.
		{"app adds", MemberRule{Op: OpAdd, Target: "u", Scope: ScopeAdmin}, ""},
		{"app kicks an admin", MemberRule{Op: OpKick, Target: "u", TargetScope: ScopeAdmin}, ""},
		{"app kicks the owner", MemberRule{Op: OpKick, Target: owner, TargetScope: ScopeAdmin}, CodeGroupNoScopeClearance},
		{"app bans the owner", MemberRule{Op: OpBan, Target: owner, TargetScope: ScopeAdmin}, CodeGroupNoScopeClearance},
		{"app demotes the owner", MemberRule{Op: OpScope, Target: owner, TargetScope: ScopeAdmin, Scope: ScopeParticipant}, CodeGroupNoScopeClearance},
		{"app bans a non-member", MemberRule{Op: OpBan, Target: "u"}, ""},

		// Nobody acts on itself.
		{"admin kicks itself", MemberRule{Op: OpKick, Actor: "a", ActorScope: ScopeAdmin, Target: "a", TargetScope: ScopeAdmin}, CodeGroupNoSelfAction},
		{"admin bans itself", MemberRule{Op: OpBan, Actor: "a", ActorScope: ScopeAdmin, Target: "a", TargetScope: ScopeAdmin}, CodeGroupNoSelfAction},
		{"moderator promotes itself", MemberRule{Op: OpScope, Actor: "m", ActorScope: ScopeModerator, Target: "m", TargetScope: ScopeModerator, Scope: ScopeAdmin}, CodeGroupNoSelfAction},

		// An acting user must be a member, and more than a participant.
		{"non-member adds", MemberRule{Op: OpAdd, Actor: "x", Target: "u", Scope: ScopeParticipant}, CodeNotAMember},
		{"participant adds", MemberRule{Op: OpAdd, Actor: "p", ActorScope: ScopeParticipant, Target: "u", Scope: ScopeParticipant}, CodeGroupNoClearance},
		{"participant kicks", MemberRule{Op: OpKick, Actor: "p", ActorScope: ScopeParticipant, Target: "u", TargetScope: ScopeParticipant}, CodeGroupNoClearance},

		// Moderators manage participants, and give no more than participant.
		{"moderator adds a participant", MemberRule{Op: OpAdd, Actor: "m", ActorScope: ScopeModerator, Target: "u", Scope: ScopeParticipant}, ""},
		{"moderator adds a moderator", MemberRule{Op: OpAdd, Actor: "m", ActorScope: ScopeModerator, Target: "u", Scope: ScopeModerator}, CodeGroupNoScopeClearance},
		{"moderator adds an admin", MemberRule{Op: OpAdd, Actor: "m", ActorScope: ScopeModerator, Target: "u", Scope: ScopeAdmin}, CodeGroupNoScopeClearance},
		{"moderator kicks a participant", MemberRule{Op: OpKick, Actor: "m", ActorScope: ScopeModerator, Target: "u", TargetScope: ScopeParticipant}, ""},
		{"moderator kicks a moderator", MemberRule{Op: OpKick, Actor: "m", ActorScope: ScopeModerator, Target: "u", TargetScope: ScopeModerator}, CodeGroupNoScopeClearance},
		{"moderator bans an admin", MemberRule{Op: OpBan, Actor: "m", ActorScope: ScopeModerator, Target: "u", TargetScope: ScopeAdmin}, CodeGroupNoScopeClearance},
		{"moderator bans a non-member", MemberRule{Op: OpBan, Actor: "m", ActorScope: ScopeModerator, Target: "u"}, ""},
		{"moderator unbans", MemberRule{Op: OpUnban, Actor: "m", ActorScope: ScopeModerator, Target: "u", TargetBanned: true}, ""},
		{"moderator promotes a participant", MemberRule{Op: OpScope, Actor: "m", ActorScope: ScopeModerator, Target: "u", TargetScope: ScopeParticipant, Scope: ScopeModerator}, CodeGroupNoScopeClearance},

		// Admins manage everyone but the owner.
		{"admin kicks an admin", MemberRule{Op: OpKick, Actor: "a", ActorScope: ScopeAdmin, Target: "u", TargetScope: ScopeAdmin}, ""},
		{"admin demotes an admin", MemberRule{Op: OpScope, Actor: "a", ActorScope: ScopeAdmin, Target: "u", TargetScope: ScopeAdmin, Scope: ScopeModerator}, ""},
		{"admin kicks the owner", MemberRule{Op: OpKick, Actor: "a", ActorScope: ScopeAdmin, Target: owner, TargetScope: ScopeAdmin}, CodeGroupNoScopeClearance},
		{"owner kicks an admin", MemberRule{Op: OpKick, Actor: owner, ActorScope: ScopeAdmin, Target: "u", TargetScope: ScopeAdmin}, ""},

		// The target's state.
		{"add a member", MemberRule{Op: OpAdd, Target: "u", TargetScope: ScopeParticipant, Scope: ScopeAdmin}, CodeAlreadyJoined},
		{"add a banned user", MemberRule{Op: OpAdd, Target: "u", TargetBanned: true, Scope: ScopeParticipant}, CodeBannedGroupMember},
		{"kick a non-member", MemberRule{Op: OpKick, Target: "u"}, CodeNotAMember},
		{"ban twice", MemberRule{Op: OpBan, Target: "u", TargetBanned: true}, CodeAlreadyBanned},
		{"unban a user not banned", MemberRule{Op: OpUnban, Target: "u"}, CodeNotABannedUser},
		{"scope of a non-member", MemberRule{Op: OpScope, Target: "u", Scope: ScopeAdmin}, CodeNotAMember},
		{"same scope", MemberRule{Op: OpScope, Target: "u", TargetScope: ScopeModerator, Scope: ScopeModerator}, CodeSameScope},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.Owner = owner
			err := DecideMember(tc.r)
			if got := ErrorCode(err); got != tc.want {
				t.Fatalf("DecideMember(%+v) = %v, want %q", tc.r, err, tc.want)
			}
		})
	}
}

func TestMemberListsPrecedence(t *testing.T) {
	fe := fieldErrors{}
	r, _ := MemberLists{
		Admins:       []string{"A", "b"},
		Moderators:   []string{"a", "c"},
		Participants: []string{"c", "d", "d", "bad uid", "bad uid"},
		UsersToBan:   []string{"b", "e"},
	}.normalize(fe)
	if len(fe) != 0 {
		t.Fatal(fe)
	}
	got := map[string][]string{}
	for _, b := range r.buckets {
		got[b.name] = b.uids
	}
	want := map[string][]string{"usersToBan": {"e"}, "admins": {"a", "b"}, "moderators": {"c"}, "participants": {"d"}}
	for k, v := range want {
		if len(got[k]) != len(v) || (len(v) > 0 && got[k][0] != v[0]) || len(v) > 1 && got[k][1] != v[1] {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// The lists a uid loses answer for it with a refusal; a malformed uid is not found.
	if e := r.early["moderators"]; len(e) != 1 || e[0].UID != "a" || ErrorCode(e[0].Err) != CodeBadRequest {
		t.Errorf("moderators early = %+v", e)
	}
	if e := r.early["usersToBan"]; len(e) != 1 || e[0].UID != "b" {
		t.Errorf("usersToBan early = %+v", e)
	}
	if e := r.early["participants"]; len(e) != 2 || e[0].UID != "c" || ErrorCode(e[1].Err) != CodeUIDNotFound {
		t.Errorf("participants early = %+v", e)
	}

	fe = fieldErrors{}
	many := make([]string, 26)
	for i := range many {
		many[i] = string(rune('a' + i%26))
	}
	MemberLists{Participants: many}.normalize(fe)
	if fe["members"] == nil {
		t.Fatal("26 uids passed")
	}
}

func TestGroupPassword(t *testing.T) {
	h := hashGroupPassword("s3cret")
	if !groupPasswordMatches(h, "s3cret") || groupPasswordMatches(h, "s3cret ") || groupPasswordMatches("", "") {
		t.Fatalf("password hash %q does not behave", h)
	}
	if h2 := hashGroupPassword("s3cret"); h2 == h {
		t.Fatal("two hashes of one password are equal: no salt")
	}
}
