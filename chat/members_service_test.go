package chat_test

import (
	"context"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
)

// TestMemberRules: who may add, kick, ban, unban and rescope whom in a group, decided by the
// service against a real store on both databases (chat's TestDecideMember is the rule as a
// function; this is the rule as the service applies it). Each refusal answers its code and
// announces nothing. httpapi's TestMemberChanges keeps a row per code, for the status.
func TestMemberRules(t *testing.T) {
	t.Parallel()
	chattest.Each(t, chat.Config{}, func(t *testing.T, r *chattest.Rig) {
		ctx := context.Background()
		r.Users(t, "olga", "ann", "mo", "pat", "eve")
		if _, _, err := r.Svc.CreateGroup(ctx, r.Principal(t, "olga"), chat.GroupCreate{GUID: "g", Name: "G", Type: "public",
			Members: chat.MemberLists{Moderators: []string{"mo"}, Participants: []string{"ann"}, UsersToBan: []string{"pat"}}}); err != nil {
			t.Fatal(err)
		}
		s := r.Svc
		refused(t, r, []refusal{
			{"a moderator promotes to admin", "mo", func(p chat.Principal) error { _, err := s.ChangeScope(ctx, p, "g", "ann", "admin"); return err }, chat.CodeGroupNoScopeClearance},
			{"a participant kicks", "ann", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "g", "mo"); return err }, chat.CodeGroupNoClearance},
			{"a moderator kicks itself", "mo", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "g", "mo"); return err }, chat.CodeGroupNoSelfAction},
			{"the owner bans itself", "olga", func(p chat.Principal) error { _, err := s.Ban(ctx, p, "g", "olga"); return err }, chat.CodeGroupNoSelfAction},
			{"the app kicks the owner", "", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "g", "olga"); return err }, chat.CodeGroupNoScopeClearance},
			{"the app bans the owner", "", func(p chat.Principal) error { _, err := s.Ban(ctx, p, "g", "olga"); return err }, chat.CodeGroupNoScopeClearance},
			{"the app demotes the owner", "", func(p chat.Principal) error { _, err := s.ChangeScope(ctx, p, "g", "olga", "moderator"); return err }, chat.CodeGroupNoScopeClearance},
			{"the same scope", "", func(p chat.Principal) error { _, err := s.ChangeScope(ctx, p, "g", "mo", "moderator"); return err }, chat.CodeSameScope},
			{"a scope that is none", "", func(p chat.Principal) error { _, err := s.ChangeScope(ctx, p, "g", "mo", "owner"); return err }, chat.CodeBadRequest},
			{"the scope of a non-member", "", func(p chat.Principal) error { _, err := s.ChangeScope(ctx, p, "g", "eve", "admin"); return err }, chat.CodeNotAMember},
			{"kick a non-member", "", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "g", "eve"); return err }, chat.CodeNotAMember},
			{"kick an unknown user", "", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "g", "ghost"); return err }, chat.CodeUIDNotFound},
			{"kick in an unknown group", "", func(p chat.Principal) error { _, err := s.Kick(ctx, p, "nope", "mo"); return err }, chat.CodeGUIDNotFound},
			{"ban twice", "", func(p chat.Principal) error { _, err := s.Ban(ctx, p, "g", "pat"); return err }, chat.CodeAlreadyBanned},
			{"unban a user not banned", "", func(p chat.Principal) error { _, err := s.Unban(ctx, p, "g", "eve"); return err }, chat.CodeNotABannedUser},
			{"a banned user rejoins", "pat", func(p chat.Principal) error { _, err := s.Join(ctx, p, "g", ""); return err }, chat.CodeBannedGroupMember},
			{"add: by a participant", "ann", func(p chat.Principal) error {
				_, err := s.AddMembers(ctx, p, "g", chat.MemberLists{Participants: []string{"eve"}})
				return err
			}, chat.CodeGroupNoClearance},
			{"add: by a non-member", "eve", func(p chat.Principal) error {
				_, err := s.AddMembers(ctx, p, "g", chat.MemberLists{Participants: []string{"eve"}})
				return err
			}, chat.CodeNotAMember},
			{"add: no lists", "", func(p chat.Principal) error { _, err := s.AddMembers(ctx, p, "g", chat.MemberLists{}); return err }, chat.CodeBadRequest},
		})
	})
}
