package sqlstore

import (
	"context"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestLeaseQuota: concurrent leases never take the count past the limit, and together are granted exactly
// the limit; each window and class has a count of its own; old windows are dropped.
func TestLeaseQuota(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := openWithApp(t, backend)
			ctx := context.Background()
			if got := db.SharesQuota(); got != (backend == "postgres") {
				t.Errorf("SharesQuota = %v", got)
			}
			const window, limit = 1_700_000_040, 100
			var mu sync.Mutex
			total := 0
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 10 {
						g, used, err := db.LeaseQuota(ctx, "a", chat.RateCore, window, 7, limit)
						if err != nil || g < 0 || g > 7 || used > limit {
							t.Errorf("lease: %d, %d, %v", g, used, err)
							return
						}
						mu.Lock()
						total += g
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if total != limit {
				t.Errorf("granted %d in all, want %d", total, limit)
			}
			g, used, err := db.LeaseQuota(ctx, "a", chat.RateCore, window, 5, limit)
			if g != 0 || used != limit || err != nil {
				t.Errorf("lease past the limit: %d, %d, %v", g, used, err)
			}
			if g, used, _ := db.LeaseQuota(ctx, "a", chat.RateStandard, window, 500, limit); g != limit || used != limit {
				t.Errorf("another class has a count of its own: granted %d, count %d", g, used)
			}
			if g, _, _ := db.LeaseQuota(ctx, "a", chat.RateCore, window+7200, 5, limit); g != 5 {
				t.Errorf("a later window: granted %d", g)
			}
			var n int
			if err := db.read(ctx).row(`SELECT COUNT(*) FROM rate_counters`).Scan(&n); err != nil || n != 2 {
				t.Errorf("%d counters left after a window two hours on (%v), want its own and the other class's", n, err)
			}
		})
	}
}
