// Package jobloop is the claim loop that natter's background workers share (webhook
// deliveries, notification sends, agent calls): claim what is due, up to the free slots; run
// each job in a goroutine of its own; and, when a round found less than it could take, sleep
// until woken or until the poll interval passes (doubling, up to MaxIdlePolls polls, while
// the rounds find nothing). The jobs' leases, retries and records are
// the callers'.
//
// A job reports an outcome (R), and the loop hands the outcomes of every job finished since
// the last round to the next round's Claim, which records them all and claims more in one
// write: one transaction per round, however many attempts it settles, rather than one per
// attempt. A worker whose jobs record themselves uses struct{} and ignores them.
package jobloop

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// flushWithin bounds the last round's record of outcomes once Run's ctx has ended.
const flushWithin = 10 * time.Second

// Loop runs jobs of type J, each reporting an outcome of type R.
type Loop[J, R any] struct {
	// Workers is how many jobs run at once; Poll how often an idle loop looks for due jobs.
	Workers int
	Poll    time.Duration
	// Claim records the outcomes of the jobs finished since the last round (done; often
	// empty), then claims at most limit due jobs (none when limit is 0). It logs its own
	// errors; ok false says that done was not recorded, and the loop hands it again at the
	// next round. The jobs' leases must outlast that wait.
	Claim func(ctx context.Context, limit int, done []R) (claimed []J, ok bool)
	// Do runs one job and reports its outcome. Its ctx ends with Run's: a job that must
	// finish after that detaches itself (context.WithoutCancel).
	Do func(ctx context.Context, job J) R
	// Round, when set, runs first in every round (expanding events, purging old rows);
	// busy asks for the next round at once.
	Round func(ctx context.Context) (busy bool)

	wake chan struct{}
	mu   sync.Mutex
	done []R
}

// New returns a loop of workers jobs at once, polling every poll.
func New[J, R any](workers int, poll time.Duration) *Loop[J, R] {
	return &Loop[J, R]{Workers: workers, Poll: poll, wake: make(chan struct{}, 1)}
}

// Wake makes a sleeping loop look for due jobs at once; it never blocks.
func (l *Loop[J, R]) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run claims and runs jobs until ctx ends, then waits for the jobs in flight and records
// their outcomes (with a context of its own, bounded by flushWithin).
func (l *Loop[J, R]) Run(ctx context.Context) {
	slots := make(chan struct{}, l.Workers)
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		if done := l.take(); len(done) > 0 {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushWithin)
			l.Claim(fctx, 0, done)
			cancel()
		}
	}()
	idle := l.Poll // the next idle wait: Poll, doubling while rounds find nothing
	for ctx.Err() == nil {
		busy := l.Round != nil && l.Round(ctx)
		free := l.Workers - len(slots)
		done := l.take()
		var claimed []J
		if free > 0 || len(done) > 0 {
			var ok bool
			if claimed, ok = l.Claim(ctx, free, done); !ok {
				l.putBack(done)
			}
		}
		for _, job := range claimed {
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done(); l.Wake() }() // a freed slot may take more
				r := l.Do(ctx, job)
				l.mu.Lock()
				l.done = append(l.done, r)
				l.mu.Unlock()
			}()
		}
		if busy || len(claimed) == free && free > 0 {
			idle = l.Poll
			continue // there may be more due
		}
		if len(claimed) > 0 || len(done) > 0 {
			idle = l.Poll
		}
		select {
		case <-ctx.Done():
		case <-l.wake:
			idle = l.Poll
		case <-time.After(idle):
			idle = IdleBackoff(idle, l.Poll)
		}
	}
}

// IdleBackoff is the wait after an idle look that found nothing and waited last: double
// it, up to MaxIdlePolls times poll. New work wakes a loop (the change feed), so the poll
// is only the bound on work whose wake was lost and on retries coming due; an idle node
// looks a few times a minute rather than twice a second.
func IdleBackoff(last, poll time.Duration) time.Duration { return min(2*last, MaxIdlePolls*poll) }

// MaxIdlePolls bounds an idle loop's wait, in polls.
const MaxIdlePolls = 8

// take returns the outcomes reported since it last ran.
func (l *Loop[J, R]) take() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	done := l.done
	l.done = nil
	return done
}

// putBack keeps outcomes that a round could not record for the next one.
func (l *Loop[J, R]) putBack(done []R) {
	if len(done) == 0 {
		return
	}
	l.mu.Lock()
	l.done = append(done, l.done...)
	l.mu.Unlock()
}

// NodeName is a random name for this process in the leases it takes.
func NodeName() string {
	b := make([]byte, 6)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Default sets *d to v when it is not positive.
func Default(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}
