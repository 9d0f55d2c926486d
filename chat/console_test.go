package chat

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestConsoleSessionLive: a console session lives while used within the idle time and begun
// within the absolute time; one from the future or missing a field does not.
func TestConsoleSessionLive(t *testing.T) {
	const idle, max = 30 * time.Minute, 12 * time.Hour
	const t0 = int64(1_800_000_000)
	s := func(iat, seen int64) ConsoleSession {
		return ConsoleSession{App: "demo", Key: "k", ID: "i", Iat: iat, Seen: seen}
	}
	for _, tc := range []struct {
		name string
		cs   ConsoleSession
		now  int64
		want bool
	}{
		{"just signed in", s(t0, t0), t0, true},
		{"idle 30 minutes to the second", s(t0, t0), t0 + 1800, true},
		{"idle a second more", s(t0, t0), t0 + 1801, false},
		{"used a minute ago, 11h59 in", s(t0, t0+11*3600+58*60), t0 + 11*3600 + 59*60, true},
		{"12 hours to the second", s(t0, t0+12*3600-60), t0 + 12*3600, true},
		{"past 12 hours however busy", s(t0, t0+12*3600), t0 + 12*3600 + 1, false},
		{"seen a minute ahead (clock skew)", s(t0, t0+60), t0, true},
		{"seen from the future", s(t0, t0+61), t0, false},
		{"seen before it began", s(t0, t0-1), t0, false},
		{"no app", ConsoleSession{Key: "k", ID: "i", Iat: t0, Seen: t0}, t0, false},
		{"no key", ConsoleSession{App: "demo", ID: "i", Iat: t0, Seen: t0}, t0, false},
		{"no id", ConsoleSession{App: "demo", Key: "k", Iat: t0, Seen: t0}, t0, false},
	} {
		if got := tc.cs.live(tc.now, idle, max); got != tc.want {
			t.Errorf("%s: live = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDailyCounts: 5-minute buckets add up into their UTC days; buckets outside the days are
// left out, and days without any count 0.
func TestDailyCounts(t *testing.T) {
	const day0 = int64(20000 * 86400)
	got := dailyCounts([]UsageCount{
		{Bucket: day0 - StatsBucket, Messages: 100}, // the day before
		{Bucket: day0, Messages: 1},
		{Bucket: day0 + 86400 - StatsBucket, Messages: 2, RateLimited: 4},
		{Bucket: day0 + 2*86400 + 600, Messages: 5},
		{Bucket: day0 + 3*86400, Messages: 100}, // the day after
	}, day0, 3)
	want := []DayCount{{day0, 3, 4}, {day0 + 86400, 0, 0}, {day0 + 2*86400, 5, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
