package chat

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sharedCount is the shared counter of a database, in memory: LeaseQuota as sqlstore does it.
type sharedCount struct {
	mu     sync.Mutex
	used   map[string]int
	leases atomic.Int64
	fail   atomic.Bool
}

func (c *sharedCount) SharesQuota() bool { return true }

func (c *sharedCount) LeaseQuota(_ context.Context, app string, class RateClass, window int64, want, limit int) (int, int, error) {
	if c.fail.Load() {
		return 0, 0, errors.New("database down")
	}
	c.leases.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	k := app + "/" + class.String() + "/" + time.Unix(window, 0).UTC().Format(time.RFC3339)
	g := max(min(want, limit-c.used[k]), 0)
	c.used[k] += g
	return g, c.used[k], nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func newTestLimiter(lim RateLimits, perApp map[string]RateLimits, shared QuotaStore, now func() time.Time) *limiter {
	return &limiter{global: lim, perApp: perApp, shared: shared, now: now, buckets: map[bucketKey]*bucket{}}
}

// burst sends n requests from par goroutines to the limiters in turn and counts those let
// through.
func burst(t *testing.T, ls []*limiter, app string, class RateClass, n, par int) (allowed int) {
	t.Helper()
	var ok atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for g := 0; g < par; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				d, err := ls[int(i)%len(ls)].take(context.Background(), app, class)
				if err != nil {
					t.Error(err)
				}
				if d.Allowed {
					ok.Add(1)
				} else if d.Remaining != 0 || d.RetryAfter < 1 || d.Limit == 0 {
					t.Errorf("refusal %+v", d)
				}
			}
		}()
	}
	wg.Wait()
	return int(ok.Load())
}

func TestLimiterOneNodeIsExact(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 1, 12, 0, 30, 0, time.UTC)}
	l := newTestLimiter(RateLimits{Core: 100, Standard: 250}, map[string]RateLimits{"small": {Standard: 7}}, nil, c.now)
	if got := burst(t, []*limiter{l}, "a", RateStandard, 400, 8); got != 250 {
		t.Errorf("standard: %d allowed, want 250", got)
	}
	if got := burst(t, []*limiter{l}, "a", RateCore, 150, 8); got != 100 {
		t.Errorf("core: %d allowed, want 100 (its own limit, apart from standard)", got)
	}
	if got := burst(t, []*limiter{l}, "b", RateStandard, 300, 8); got != 250 {
		t.Errorf("another app: %d allowed, want 250", got)
	}
	if got := burst(t, []*limiter{l}, "small", RateStandard, 20, 4); got != 7 {
		t.Errorf("per-app limit: %d allowed, want 7", got)
	}
	if d, _ := l.take(context.Background(), "a", RateImport); !d.Allowed || d.Limit != 0 {
		t.Errorf("a class without a limit: %+v", d)
	}
	d, _ := l.take(context.Background(), "a", RateStandard)
	if want := time.Date(2026, 11, 1, 12, 1, 0, 0, time.UTC).Unix(); d.Allowed || d.Reset != want || d.RetryAfter != 30 {
		t.Errorf("over the limit: %+v, want reset %d and retry after 30", d, want)
	}
	// The next minute starts afresh.
	c.set(time.Date(2026, 11, 1, 12, 1, 0, 0, time.UTC))
	d, _ = l.take(context.Background(), "a", RateStandard)
	if !d.Allowed || d.Remaining != 249 || d.Limit != 250 {
		t.Errorf("new window: %+v", d)
	}
	// A clock stepping back counts in the newer window, not in a fresh old one.
	c.set(time.Date(2026, 11, 1, 12, 0, 59, 0, time.UTC))
	d, _ = l.take(context.Background(), "a", RateStandard)
	if !d.Allowed || d.Remaining != 248 {
		t.Errorf("clock stepped back: %+v", d)
	}
}

// Two nodes leasing from one shared count let through the limit to within 1 %, never more,
// and pay a lease for a block of requests, not for each.
func TestLimiterNodesShareTheLimit(t *testing.T) {
	for _, limit := range []int{50, 1000, 20_000} {
		c := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
		shared := &sharedCount{used: map[string]int{}}
		nodes := []*limiter{
			newTestLimiter(RateLimits{Standard: limit}, nil, shared, c.now),
			newTestLimiter(RateLimits{Standard: limit}, nil, shared, c.now),
		}
		got := burst(t, nodes, "a", RateStandard, 2*limit, 16)
		if got > limit || float64(got) < 0.99*float64(limit) {
			t.Errorf("limit %d: %d allowed, want within 1%% below", limit, got)
		}
		if n := shared.leases.Load(); limit >= 1000 && n > int64(limit/4) {
			t.Errorf("limit %d: %d leases for %d requests", limit, n, 2*limit)
		}
	}
}

func TestLimiterFailsOpen(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	shared := &sharedCount{used: map[string]int{}}
	shared.fail.Store(true)
	l := newTestLimiter(RateLimits{Standard: 10}, nil, shared, c.now)
	d, err := l.take(context.Background(), "a", RateStandard)
	if !d.Allowed || err == nil {
		t.Fatalf("got %+v, %v; want allowed with the error", d, err)
	}
	// Within the next second, no more attempts.
	for range 20 {
		if d, err := l.take(context.Background(), "a", RateStandard); !d.Allowed || err != nil {
			t.Fatalf("got %+v, %v", d, err)
		}
	}
	if n := shared.leases.Load(); n != 0 {
		t.Fatalf("%d leases", n)
	}
	shared.fail.Store(false)
	c.set(c.now().Add(2 * time.Second))
	if got := burst(t, []*limiter{l}, "a", RateStandard, 20, 2); got != 10 {
		t.Errorf("after recovery: %d allowed, want 10", got)
	}
}

func TestLeaseBlock(t *testing.T) {
	for _, tc := range []struct{ limit, used, want int }{
		{10, 0, 1}, {20_000, 0, 100}, {20_000, 19_900, 12}, {20_000, 19_999, 1}, {1_000_000, 0, 5000},
	} {
		if got := leaseBlock(tc.limit, tc.used); got != tc.want {
			t.Errorf("leaseBlock(%d, %d) = %d, want %d", tc.limit, tc.used, got, tc.want)
		}
	}
}

// Counting a request allocates nothing: it runs on every request.
func TestLimiterTakeDoesNotAllocate(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	l := newTestLimiter(RateLimits{Standard: 1 << 40}, nil, nil, c.now)
	ctx := context.Background()
	l.take(ctx, "a", RateStandard)
	if n := testing.AllocsPerRun(100, func() { l.take(ctx, "a", RateStandard) }); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
	shared := newTestLimiter(RateLimits{Standard: 1 << 40}, nil, &sharedCount{used: map[string]int{}}, c.now)
	shared.take(ctx, "a", RateStandard)
	if n := testing.AllocsPerRun(100, func() { shared.take(ctx, "a", RateStandard) }); n != 0 {
		t.Errorf("shared: %v allocations per request between leases", n)
	}
}
