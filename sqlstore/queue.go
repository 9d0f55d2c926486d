package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// jobQueue is what both batchers (batch.go, reactions_pg.go) queue their callers on: callers
// put jobs, a loop takes them in batches, and close makes sure that no job is queued after
// the loop has drained the queue for the last time.
type jobQueue[J any] struct {
	jobs chan J
	stop chan struct{}
	// closing is held shared while a job is queued and exclusively to close: a select with
	// the queue and the stop both ready picks at random, and could queue after the drain.
	closing sync.RWMutex
	closed  bool
}

func newJobQueue[J any](size int) *jobQueue[J] {
	return &jobQueue[J]{jobs: make(chan J, size), stop: make(chan struct{})}
}

// put queues j, unless ctx ends first or the queue is closed (sql.ErrConnDone).
func (q *jobQueue[J]) put(ctx context.Context, j J) error {
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
func (q *jobQueue[J]) next(batch []J, max int) (_ []J, ok bool) {
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
func (q *jobQueue[J]) close() {
	q.closing.Lock()
	q.closed = true
	q.closing.Unlock()
	close(q.stop)
}

// drain hands what is still queued to fail, once the loops have stopped taking jobs.
func (q *jobQueue[J]) drain(fail func(J)) {
	for {
		select {
		case j := <-q.jobs:
			fail(j)
		default:
			return
		}
	}
}
