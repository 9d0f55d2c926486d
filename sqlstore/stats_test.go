package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
)

// TestSaveUsage: batches of two nodes add up; a batch saved again (its commit unheard) is
// skipped; a bucket's concurrent users are the nodes' sum, and its day's peak the largest
// such sum; figures of an app or a user that does not exist are dropped.
func TestSaveUsage(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := open(t, backend)
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: "u0", Name: "u0", Role: "default", Status: "offline"}); err != nil {
				t.Fatal(err)
			}
			const day = 1_793_491_200 // 2026-11-01
			b0, b1 := int64(day+43200), int64(day+43500)
			active := func(uid string, bit int64) chat.UsageActive {
				return chat.UsageActive{AppID: "a", UID: uid, Day: day, Month: day, Bits: [5]int64{0, 0, bit}, NewDay: true, MonthDay: 1}
			}
			one := chat.UsageBatch{Node: "n1", Seq: 1, At: day, Counts: []chat.UsageCount{
				{AppID: "a", Bucket: b0, Messages: 2, ReadReceipts: 1, Concurrent: 3},
				{AppID: "gone", Bucket: b0, Messages: 5, Concurrent: 9},
			}, Active: []chat.UsageActive{active("u0", 1), active("ghost", 1)}}
			two := chat.UsageBatch{Node: "n2", Seq: 1, At: day, Counts: []chat.UsageCount{
				{AppID: "a", Bucket: b0, Messages: 1, DeliveryReceipts: 4, Concurrent: 4, RateLimited: 2},
				{AppID: "a", Bucket: b1, Messages: 1, Concurrent: 5, RateLimited: 1},
			}, Active: []chat.UsageActive{active("u0", 2)}}
			for _, b := range []chat.UsageBatch{one, two, one} { // one again: skipped
				if err := db.SaveUsage(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.UsageCounts(ctx, "a", day, day+86400)
			if err != nil {
				t.Fatal(err)
			}
			want := []chat.UsageCount{
				{AppID: "a", Bucket: b0, Messages: 3, ReadReceipts: 1, DeliveryReceipts: 4, Concurrent: 7, RateLimited: 2},
				{AppID: "a", Bucket: b1, Messages: 1, Concurrent: 5, RateLimited: 1},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("buckets (-want +got):\n%s", diff)
			}
			if gone, _ := db.UsageCounts(ctx, "gone", day, day+86400); len(gone) != 0 {
				t.Errorf("figures of an app that does not exist were kept: %v", gone)
			}
			for _, tc := range []struct {
				name string
				span chat.PeakSpan
				want int64
			}{
				{"the whole day, from its peak", chat.PeakSpan{Days: chat.DayRange{From: day, To: day + 86400}}, 7},
				{"the second bucket only", chat.PeakSpan{Buckets: [2]chat.DayRange{{From: b1, To: b1 + 300}}}, 5},
				{"a day without any", chat.PeakSpan{Days: chat.DayRange{From: day - 86400, To: day}}, 0},
			} {
				if n, err := db.PeakConcurrent(ctx, "a", tc.span); err != nil || n != tc.want {
					t.Errorf("%s: peak %d, %v; want %d", tc.name, n, err, tc.want)
				}
			}
			for _, tc := range []struct {
				name string
				span chat.ActiveSpan
				want int64
			}{
				{"the month", chat.ActiveSpan{Months: chat.DayRange{From: day, To: day + 86400}}, 1},
				{"its first day, in the month", chat.ActiveSpan{EdgeMonths: [2]chat.PartialMonth{{Month: day, Days: 1}}}, 1},
				{"its second day, in the month", chat.ActiveSpan{EdgeMonths: [2]chat.PartialMonth{{Month: day, Days: 2}}}, 0},
				{"bucket 128 of the day", chat.ActiveSpan{PartialDays: [2]chat.PartialDay{{Day: day, Mask: [5]int64{0, 0, 1}}}}, 1},
				{"bucket 129 of the day (the other node's)", chat.ActiveSpan{PartialDays: [2]chat.PartialDay{{Day: day, Mask: [5]int64{0, 0, 2}}}}, 1},
				{"bucket 130 of the day", chat.ActiveSpan{PartialDays: [2]chat.PartialDay{{Day: day, Mask: [5]int64{0, 0, 4}}}}, 0},
			} {
				if n, err := db.ActiveUsers(ctx, "a", tc.span); err != nil || n != tc.want {
					t.Errorf("%s: active %d, %v; want %d", tc.name, n, err, tc.want)
				}
			}
		})
	}
}
