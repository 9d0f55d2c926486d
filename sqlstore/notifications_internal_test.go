package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
)

// TestNotificationRecipients is the rule engine's read: every uid asked for comes back, in
// chunks past the first, with its own row and its mute of the conversation asked about only.
func TestNotificationRecipients(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := openWithApp(t, backend)
			for _, uid := range []string{"u0", "u700", "u1100"} {
				if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: "default", Status: "offline"}); err != nil {
					t.Fatal(err)
				}
			}
			three := 3
			team := chat.ConversationRef{Type: chat.MuteGroup, ID: "team"}
			err := db.Transact(ctx, func(tx chat.Tx) error {
				for _, step := range []func() error{
					func() error {
						return tx.SaveNotificationOverrides("a", "u0", chat.NotificationOverrides{Group: chat.GroupOverrides{Messages: &three}}, 1)
					},
					func() error { return tx.SaveNotificationTimezone("a", "u700", "Asia/Tokyo", 1) },
					func() error {
						return tx.SaveContactDetails("a", "u1100", chat.ContactDetails{Email: "x@example.com", Phone: "+14155550123"}, 1)
					},
					func() error {
						return tx.MuteConversations("a", "u700", []chat.MutedConversation{{ConversationRef: team, Until: 9000},
							{ConversationRef: chat.ConversationRef{Type: chat.MuteOneOnOne, ID: "u0"}, Until: 8000}}, 1)
					},
					func() error {
						return tx.MuteConversations("a", "u1100", []chat.MutedConversation{{ConversationRef: chat.ConversationRef{Type: chat.MuteGroup, ID: "other"}, Until: 9000}}, 1)
					},
				} {
					if err := step(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			uids := make([]string, 1200)
			for i := range uids {
				uids[i] = fmt.Sprintf("u%d", i)
			}
			got, err := db.NotificationRecipients(ctx, "a", team, uids)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(uids) {
				t.Fatalf("%d recipients for %d uids", len(got), len(uids))
			}
			want := map[string]chat.NotificationRecipient{
				"u0":    {UID: "u0", Overrides: chat.NotificationOverrides{Group: chat.GroupOverrides{Messages: &three}}},
				"u700":  {UID: "u700", Timezone: "Asia/Tokyo", MutedUntil: 9000},
				"u1100": {UID: "u1100", Email: "x@example.com", Phone: "+14155550123"},
				"u5":    {UID: "u5"},
			}
			for uid, w := range want {
				if diff := cmp.Diff(w, got[uid]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", uid, diff)
				}
			}
			// A user that clears everything leaves no row; ended mutes go when its mutes change.
			err = db.Transact(ctx, func(tx chat.Tx) error {
				if err := tx.SaveContactDetails("a", "u1100", chat.ContactDetails{}, 2); err != nil {
					return err
				}
				return tx.UnmuteConversations("a", "u700", []chat.ConversationRef{team}, 8000)
			})
			if err != nil {
				t.Fatal(err)
			}
			for q, want := range map[string]int{
				`SELECT COUNT(*) FROM notification_users WHERE uid = 'u1100'`: 0,
				`SELECT COUNT(*) FROM notification_mutes WHERE uid = 'u700'`:  0,
			} {
				var n int
				if err := db.r.QueryRowContext(ctx, q).Scan(&n); err != nil || n != want {
					t.Errorf("%s: %d, %v; want %d", q, n, err, want)
				}
			}
			// Purging a user takes its rows, and others' mutes of it.
			if err := db.Transact(ctx, func(tx chat.Tx) error {
				return tx.MuteConversations("a", "u1100", []chat.MutedConversation{{ConversationRef: chat.ConversationRef{Type: chat.MuteOneOnOne, ID: "u0"}, Until: 9000}}, 1)
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.PurgeUser(ctx, "a", "u0"); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM notification_users WHERE uid = 'u0'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("u0's row outlives it: %d %v", n, err)
			}
			if err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM notification_mutes WHERE conversation_id = 'u0'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("mutes of u0 outlive it: %d %v", n, err)
			}
		})
	}
}
