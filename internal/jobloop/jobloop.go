// Package jobloop is the claim loop that natter's background workers share (webhook
// deliveries, notification sends, agent calls): claim what is due, up to the free slots; run
// each job in a goroutine of its own; and, when a round found less than it could take, sleep
// until woken or until the poll interval passes. The jobs' leases, retries and records are
// the callers'.
package jobloop

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// Loop runs jobs of type J.
type Loop[J any] struct {
	// Workers is how many jobs run at once; Poll how often an idle loop looks for due jobs.
	Workers int
	Poll    time.Duration
	// Claim claims at most limit due jobs. It logs its own errors: the loop tries again at
	// its next round.
	Claim func(ctx context.Context, limit int) []J
	// Do runs one job. Its ctx ends with Run's: a job that must finish its record after
	// that detaches itself (context.WithoutCancel).
	Do func(ctx context.Context, job J)
	// Round, when set, runs first in every round (expanding events, purging old rows);
	// busy asks for the next round at once.
	Round func(ctx context.Context) (busy bool)

	wake chan struct{}
}

// New returns a loop of workers jobs at once, polling every poll.
func New[J any](workers int, poll time.Duration) *Loop[J] {
	return &Loop[J]{Workers: workers, Poll: poll, wake: make(chan struct{}, 1)}
}

// Wake makes a sleeping loop look for due jobs at once; it never blocks.
func (l *Loop[J]) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run claims and runs jobs until ctx ends, then waits for the jobs in flight.
func (l *Loop[J]) Run(ctx context.Context) {
	slots := make(chan struct{}, l.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		busy := l.Round != nil && l.Round(ctx)
		free := l.Workers - len(slots)
		var claimed []J
		if free > 0 {
			claimed = l.Claim(ctx, free)
		}
		for _, job := range claimed {
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done(); l.Wake() }() // a freed slot may take more
				l.Do(ctx, job)
			}()
		}
		if busy || len(claimed) == free && free > 0 {
			continue // there may be more due
		}
		select {
		case <-ctx.Done():
		case <-l.wake:
		case <-time.After(l.Poll):
		}
	}
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
