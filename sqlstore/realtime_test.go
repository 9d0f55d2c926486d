package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestMemberUIDsAmong: a node asks which of its socket users belong to a group, in chunks
// of at most 500 parameters, and gets exactly those; without a list, every member.
func TestMemberUIDsAmong(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := open(t, backend)
			ctx := context.Background()
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			seedGroupB(t, db, "big", 1200)
			all, err := db.MemberUIDs(ctx, "a", "big", nil)
			if err != nil || len(all) != 1200 {
				t.Fatalf("every member: %d, %v", len(all), err)
			}
			var among, want []string
			for i := 100; i < 1300; i++ { // 1 100 members and 100 strangers, over three chunks
				uid := fmt.Sprintf("u%05d", i)
				among = append(among, uid)
				if i < 1200 {
					want = append(want, uid)
				}
			}
			got, err := db.MemberUIDs(ctx, "a", "big", among)
			slices.Sort(got)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("members among %d users: %d (%v), want %d", len(among), len(got), err, len(want))
			}
			if got, err := db.MemberUIDs(ctx, "a", "big", []string{}); err != nil || len(got) != 0 {
				t.Fatalf("members among nobody: %v %v", got, err)
			}
		})
	}
}
