package commit

import (
	"context"
	"database/sql"
	"sync"
)

// Queue is what both engines' batchers (Batcher, and sqlstore's PostgreSQL reaction batcher) queue
// their callers on: callers
// put jobs, a loop takes them in batches, and Close makes sure that no job is queued after
// the loop has drained the queue for the last time.
type Queue[J any] struct {
	jobs chan J
	stop chan struct{}
	// closing is held shared while a job is queued and exclusively to close: a select with
	// the queue and the stop both ready picks at random, and could queue after the drain.
	closing sync.RWMutex
	closed  bool
}

func NewQueue[J any](size int) *Queue[J] {
	return &Queue[J]{jobs: make(chan J, size), stop: make(chan struct{})}
}

// put queues j, unless ctx ends first or the queue is closed (sql.ErrConnDone).
func (q *Queue[J]) Put(ctx context.Context, j J) error {
	q.closing.RLock()
	defer q.closing.RUnlock()
	if q.closed {
		return sql.ErrConnDone
	}
	select {
	case q.jobs <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next waits for a job, then takes whatever else is queued, up to max in all, into batch;
// ok is false once the queue is closed.
func (q *Queue[J]) Next(batch []J, max int) (_ []J, ok bool) {
	select {
	case j := <-q.jobs:
		batch = append(batch[:0], j)
	case <-q.stop:
		return batch[:0], false
	}
	for len(batch) < max {
		select {
		case j := <-q.jobs:
			batch = append(batch, j)
		default:
			return batch, true
		}
	}
	return batch, true
}

// close stops puts and wakes the loops waiting in next.
func (q *Queue[J]) Close() {
	q.closing.Lock()
	q.closed = true
	q.closing.Unlock()
	close(q.stop)
}

// drain hands what is still queued to fail, once the loops have stopped taking jobs.
func (q *Queue[J]) Drain(fail func(J)) {
	for {
		select {
		case j := <-q.jobs:
			fail(j)
		default:
			return
		}
	}
}
