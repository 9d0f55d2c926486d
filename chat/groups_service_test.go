package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
)

func ptr[T any](v T) *T { return &v }

// TestGroupRules: what a group operation refuses, and to whom, decided by the service against
// a real store on both databases. Each refusal answers its code and announces no change (a
// write that committed would have). httpapi's TestGroupRefusals keeps a row per code, for
// the status and the envelope.
func TestGroupRules(t *testing.T) {
	t.Parallel()
	chattest.Each(t, chat.Config{}, func(t *testing.T, r *chattest.Rig) {
		ctx := context.Background()
		r.Users(t, "olga", "ann", "mo", "pat", "eve", "bob")
		if _, _, err := r.Svc.CreateGroup(ctx, r.Principal(t, "olga"), chat.GroupCreate{GUID: "g", Name: "G", Type: "public",
			Members: chat.MemberLists{Admins: []string{"ann"}, Moderators: []string{"mo"}, Participants: []string{"pat"}, UsersToBan: []string{"bob"}}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.Svc.CreateGroup(ctx, r.Principal(t, ""), chat.GroupCreate{GUID: "priv", Name: "P", Type: "private"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.Svc.CreateGroup(ctx, r.Principal(t, ""), chat.GroupCreate{GUID: "pw", Name: "P", Type: "password", Password: "secret"}); err != nil {
			t.Fatal(err)
		}
		refused(t, r, []refusal{
			{"create: taken guid, in another case", "", func(p chat.Principal) error {
				_, _, err := r.Svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "G", Name: "X", Type: "public"})
				return err
			}, chat.CodeGUIDAlreadyExists},
			{"create: password group without one", "", func(p chat.Principal) error {
				_, _, err := r.Svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "x", Name: "X", Type: "password"})
				return err
			}, chat.CodeEmptyGroupPass},
			{"create: long name", "", func(p chat.Principal) error {
				_, _, err := r.Svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "x", Name: strings.Repeat("n", 101), Type: "public"})
				return err
			}, chat.CodeBadRequest},
			{"create: unknown owner", "", func(p chat.Principal) error {
				_, _, err := r.Svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "x", Name: "X", Type: "public", Owner: "ghost"})
				return err
			}, chat.CodeUIDNotFound},
			{"create: as an unknown user", "ghost", func(p chat.Principal) error {
				_, _, err := r.Svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "x", Name: "X", Type: "public"})
				return err
			}, chat.CodeUIDNotFound},
			{"get: unknown", "", func(p chat.Principal) error { _, err := r.Svc.Group(ctx, p, "nope"); return err }, chat.CodeGUIDNotFound},
			{"update: unknown", "", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "nope", chat.GroupChange{Name: ptr("N")})
				return err
			}, chat.CodeGUIDNotFound},
			{"update: by a moderator", "mo", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Name: ptr("N")})
				return err
			}, chat.CodeGroupNoClearance},
			{"update: by a non-member", "eve", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Name: ptr("N")})
				return err
			}, chat.CodeNotAMember},
			{"update: by a banned user", "bob", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Name: ptr("N")})
				return err
			}, chat.CodeNotAMember},
			{"update: to password without one", "", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Type: ptr("password")})
				return err
			}, chat.CodeEmptyGroupPass},
			{"update: unset name", "", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Unset: []string{"name"}})
				return err
			}, chat.CodeBadRequest},
			{"update: unknown owner", "", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Owner: ptr("ghost")})
				return err
			}, chat.CodeUIDNotFound},
			{"update: banned owner", "", func(p chat.Principal) error {
				_, err := r.Svc.UpdateGroup(ctx, p, "g", chat.GroupChange{Owner: ptr("bob")})
				return err
			}, chat.CodeBannedGroupMember},
			{"transfer: by an admin", "ann", func(p chat.Principal) error {
				_, err := r.Svc.TransferOwner(ctx, p, "g", "ann")
				return err
			}, chat.CodeGroupNoClearance},
			{"delete: unknown", "", func(p chat.Principal) error { return r.Svc.DeleteGroup(ctx, p, "nope") }, chat.CodeGUIDNotFound},
			{"delete: by a participant", "pat", func(p chat.Principal) error { return r.Svc.DeleteGroup(ctx, p, "g") }, chat.CodeGroupNoClearance},
			{"join: private", "eve", func(p chat.Principal) error { _, err := r.Svc.Join(ctx, p, "priv", ""); return err }, chat.CodeGroupJoinNotAllowed},
			{"join: wrong password", "eve", func(p chat.Principal) error { _, err := r.Svc.Join(ctx, p, "pw", "guess"); return err }, chat.CodeWrongGroupPass},
			{"join: already", "pat", func(p chat.Principal) error { _, err := r.Svc.Join(ctx, p, "g", ""); return err }, chat.CodeAlreadyJoined},
			{"join: banned", "bob", func(p chat.Principal) error { _, err := r.Svc.Join(ctx, p, "g", ""); return err }, chat.CodeBannedGroupMember},
			{"join: unknown group", "eve", func(p chat.Principal) error { _, err := r.Svc.Join(ctx, p, "nope", ""); return err }, chat.CodeGUIDNotFound},
			{"leave: not a member", "eve", func(p chat.Principal) error { return r.Svc.Leave(ctx, p, "g") }, chat.CodeNotAMember},
			{"leave: as the app", "", func(p chat.Principal) error { return r.Svc.Leave(ctx, p, "g") }, chat.CodeBadRequest},
			{"kick: the owner, by an admin", "ann", func(p chat.Principal) error { _, err := r.Svc.Kick(ctx, p, "g", "olga"); return err }, chat.CodeGroupNoScopeClearance},
			{"kick: by a participant", "pat", func(p chat.Principal) error { _, err := r.Svc.Kick(ctx, p, "g", "mo"); return err }, chat.CodeGroupNoClearance},
			{"ban: by a non-member", "eve", func(p chat.Principal) error { _, err := r.Svc.Ban(ctx, p, "g", "pat"); return err }, chat.CodeNotAMember},
			{"scope: the owner demoted by the app", "", func(p chat.Principal) error {
				_, err := r.Svc.ChangeScope(ctx, p, "g", "olga", "participant")
				return err
			}, chat.CodeGroupNoScopeClearance},
		})
	})
}
