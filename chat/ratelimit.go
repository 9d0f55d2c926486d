package chat

import (
	"context"
	"sync"
	"time"
)

// Rate limits, as the hosted service applies them: per app, per class of operation, per
// minute. The window is the calendar minute (it resets at hh:mm:00), so every node agrees on
// it without talking. docs/ratelimits.md has the design.

// RateClass is a class of operation that shares one limit.
type RateClass uint8

// The classes; httpapi's route table says which operation is which.
const (
	RateStandard RateClass = iota // everything not named otherwise
	RateCore                      // create and delete user, create and join group, create auth token
	RateImport                    // data import
	rateClasses
)

func (c RateClass) String() string {
	switch c {
	case RateCore:
		return "core"
	case RateImport:
		return "import"
	}
	return "standard"
}

// RateLimits are requests per minute for each class; 0 is no limit.
type RateLimits struct {
	Core, Standard, Import int
}

// DefaultRateLimits are the hosted service's figures.
var DefaultRateLimits = RateLimits{Core: 10_000, Standard: 20_000, Import: 60}

func (l RateLimits) of(c RateClass) int {
	switch c {
	case RateCore:
		return l.Core
	case RateImport:
		return l.Import
	}
	return l.Standard
}

// RateWindow is the length of a rate-limit window.
const RateWindow = time.Minute

// QuotaStore is the shared count of requests per app, class and window, for nodes that share
// a database.
type QuotaStore interface {
	// SharesQuota reports whether other processes count against the same limits (a
	// PostgreSQL shared by nodes). When it does not, the service counts in memory, exactly.
	SharesQuota() bool
	// LeaseQuota adds up to want to the count of (app, class, window), never past limit, and
	// returns how many it added and the count after.
	LeaseQuota(ctx context.Context, appID string, class RateClass, window int64, want, limit int) (granted, used int, err error)
}

// RateDecision is the answer for one request.
type RateDecision struct {
	Allowed   bool
	Limit     int   // the class's limit for the app; 0 when the class has none
	Remaining int   // how many more this window, as far as this node knows
	Reset     int64 // unix second the window ends
	// RetryAfter is, for a refused request, how many whole seconds remain until the window
	// resets (at least 1).
	RetryAfter int64
}

// limiter counts requests per app and class. On one node it counts every request itself; on
// a shared database it leases blocks of quota from the shared count and spends them locally,
// so a request pays a database round trip only once per block.
type limiter struct {
	global RateLimits
	perApp map[string]RateLimits
	shared QuotaStore // nil: this process is the only one counting
	now    func() time.Time

	// A bucket per app and class in use; read-mostly. A plain map under a read lock, not a
	// sync.Map, whose any keys would cost an allocation per request.
	mu      sync.RWMutex
	buckets map[bucketKey]*bucket
}

type bucketKey struct {
	app   string
	class RateClass
}

// bucket is one app's class in the current window on this node.
type bucket struct {
	mu      sync.Mutex
	window  int64 // unix second the window started
	local   int   // leased from the shared count and not yet spent
	used    int   // the count: shared, as of the last lease, or this node's own
	full    bool  // the shared count reached the limit this window
	failed  time.Time
	leasing chan struct{} // closed when the lease under way ends
}

func newLimiter(cfg Config, store Store) *limiter {
	l := &limiter{global: cfg.RateLimits, perApp: cfg.AppRateLimits, now: cfg.Now, buckets: map[bucketKey]*bucket{}}
	if store != nil && store.SharesQuota() {
		l.shared = store
	}
	return l
}

func (l *limiter) limit(app string, c RateClass) int {
	if lim, ok := l.perApp[app]; ok {
		return lim.of(c)
	}
	return l.global.of(c)
}

func (l *limiter) bucket(k bucketKey) *bucket {
	l.mu.RLock()
	b := l.buckets[k]
	l.mu.RUnlock()
	if b != nil {
		return b
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b = l.buckets[k]; b == nil {
		b = &bucket{}
		l.buckets[k] = b
	}
	return b
}

// leaseBlock is the most quota a node leases at once: 0.5 % of the limit, and less as the
// window fills (an eighth of what is left), so that quota leased by a node that then falls
// quiet strands little: at most 0.5 % of the limit per quiet node.
func leaseBlock(limit, used int) int {
	n := min(limit/200, (limit-used)/8)
	return max(n, 1)
}

// failOpenFor is how long a node lets requests through without counting after the shared
// count could not be reached, rather than trying again for every request.
const failOpenFor = time.Second

// take counts one request of app's class and says whether it may proceed. err is set only
// when the shared count could not be reached; the request is then allowed (the limit fails
// open: the database's own trouble is answered by the operation itself).
func (l *limiter) take(ctx context.Context, app string, class RateClass) (RateDecision, error) {
	limit := l.limit(app, class)
	if limit <= 0 {
		return RateDecision{Allowed: true}, nil
	}
	now := l.now()
	window := now.Truncate(RateWindow).Unix()
	d := RateDecision{Limit: limit, Reset: window + int64(RateWindow/time.Second)}
	b := l.bucket(bucketKey{app, class})
	b.mu.Lock()
	for {
		switch {
		case window < b.window:
			// The clock stepped back: count this request in the newer window.
			window = b.window
			d.Reset = window + int64(RateWindow/time.Second)
		case window > b.window:
			b.window, b.local, b.used, b.full = window, 0, 0, false
		}
		if l.shared == nil {
			if b.used >= limit {
				break
			}
			b.used++
			d.Allowed, d.Remaining = true, limit-b.used
			b.mu.Unlock()
			return d, nil
		}
		if b.local > 0 {
			b.local--
			d.Allowed, d.Remaining = true, max(limit-(b.used-b.local), 0)
			b.mu.Unlock()
			return d, nil
		}
		if b.full {
			break
		}
		if now.Before(b.failed) {
			b.mu.Unlock()
			return RateDecision{Allowed: true}, nil
		}
		if wait := b.leasing; wait != nil {
			b.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return RateDecision{Allowed: true}, ctx.Err()
			}
			b.mu.Lock()
			continue
		}
		done := make(chan struct{})
		b.leasing = done
		want := leaseBlock(limit, b.used)
		b.mu.Unlock()
		granted, used, err := l.shared.LeaseQuota(context.WithoutCancel(ctx), app, class, window, want, limit)
		b.mu.Lock()
		b.leasing = nil
		close(done)
		if err != nil {
			b.failed = l.now().Add(failOpenFor)
			b.mu.Unlock()
			return RateDecision{Allowed: true}, err
		}
		if b.window == window {
			b.local += granted
			b.used = max(b.used, used)
			b.full = granted == 0 || used >= limit
		}
	}
	d.Remaining = 0
	b.mu.Unlock()
	d.RetryAfter = max(d.Reset-now.Unix(), 1)
	return d, nil
}

// TakeRate counts one request of the class for the principal's app and says whether it may
// proceed. Without limits configured it always may, and the decision's Limit is 0.
func (s *Service) TakeRate(ctx context.Context, p Principal, class RateClass) (RateDecision, error) {
	if s == nil || s.limits == nil {
		return RateDecision{Allowed: true}, nil
	}
	d, err := s.limits.take(ctx, p.App.ID, class)
	if !d.Allowed {
		s.rollup.refused(p.App.ID, s.now())
	}
	return d, err
}

// RateLimited is the error for a request over its app's limit.
func RateLimited() *Error {
	return &Error{Code: CodeTooManyRequests,
		Message:    "Too many requests. Please retry after the time in the Retry-After header.",
		DevMessage: "The app exceeded its rate limit for this class of operation in the current minute; the request was not processed. Retry after Retry-After seconds."}
}
