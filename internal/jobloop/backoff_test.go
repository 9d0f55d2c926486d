package jobloop

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Backoff
		n    int
		want time.Duration
	}{
		{"first", Backoff{First: 5 * time.Second, Max: time.Hour}, 1, 5 * time.Second},
		{"n 0 is the first", Backoff{First: 5 * time.Second, Max: time.Hour}, 0, 5 * time.Second},
		{"doubles", Backoff{First: 5 * time.Second, Max: time.Hour}, 4, 40 * time.Second},
		{"capped", Backoff{First: 5 * time.Second, Max: time.Hour}, 20, time.Hour},
		{"capped past the cap", Backoff{First: 5 * time.Second, Max: 7 * time.Second}, 2, 7 * time.Second},
		{"no cap", Backoff{First: time.Second}, 3, 4 * time.Second},
		{"no cap, no overflow", Backoff{First: time.Second}, 200, time.Second << 33}, // the last doubling that fits
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Delay(tc.n); got != tc.want {
				t.Errorf("Delay(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
}

// TestBackoffJitter: a jittered delay lies between half and all of the unjittered one, and
// varies.
func TestBackoffJitter(t *testing.T) {
	b := Backoff{First: 5 * time.Second, Max: time.Hour, Jitter: true}
	seen := map[time.Duration]bool{}
	for n := 1; n <= 12; n++ {
		whole := Backoff{First: b.First, Max: b.Max}.Delay(n)
		for range 20 {
			got := b.Delay(n)
			if got < whole/2 || got > whole {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", n, got, whole/2, whole)
			}
			seen[got] = true
		}
	}
	if len(seen) < 100 {
		t.Errorf("%d distinct delays in 240 draws: not jittered", len(seen))
	}
}

func TestNewRetry(t *testing.T) {
	got := NewRetry(0, 0, 0)
	want := Retry{For: DefaultRetryFor, Backoff: Backoff{First: DefaultBackoff, Max: DefaultMaxBackoff, Jitter: true}}
	if got != want {
		t.Errorf("NewRetry(0, 0, 0) = %+v, want %+v", got, want)
	}
	if got := NewRetry(time.Minute, time.Second, 10*time.Second); got.For != time.Minute || got.First != time.Second || got.Max != 10*time.Second {
		t.Errorf("NewRetry kept %+v", got)
	}
	now := time.UnixMilli(1_000_000_000)
	r := NewRetry(time.Hour, 0, 0)
	for _, tc := range []struct {
		created time.Time
		want    bool
	}{
		{now, false},
		{now.Add(-time.Hour + time.Millisecond), false},
		{now.Add(-time.Hour), true},
		{now.Add(-2 * time.Hour), true},
	} {
		if got := r.Over(tc.created.UnixMilli(), now); got != tc.want {
			t.Errorf("Over(made %v before) = %v, want %v", now.Sub(tc.created), got, tc.want)
		}
	}
}
