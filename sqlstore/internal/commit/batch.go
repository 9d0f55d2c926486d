// Package commit holds the write machinery of sqlstore's engines: a group-commit batcher for
// SQLite's single writer and the job queue that both engines' batchers take work from. It
// knows database/sql and nothing of chat.
package commit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SQLite has one writer, so natter's write transactions queue for it anyway. Batcher runs
// whatever is queued in one real transaction (group commit): the fixed cost of a commit —
// WAL frames, checksums, locks — is paid once per batch, and rows written together share
// pages. A lone job pays no wait: a batch is what is queued when the writer comes free.
//
// Each caller gets its own result only after the batch has committed. A job that refuses
// cleanly — it wrote nothing, and says so by returning Refuse(err) — costs the others
// nothing. Any other failure (or a panic) rolls the whole transaction back, and the other
// jobs run again in a new one: rare, and cheaper on the common path than a savepoint
// around every job.
type Batcher struct {
	w     *sql.DB
	queue *Queue[*job]
	// aborted runs after a transaction is rolled back, so that state the jobs keep beside
	// the database (sqlstore's message cache) forgets what did not commit.
	aborted func()
	// between runs after each batch, with the writer free (sqlstore's checkpointer).
	between func()
	done    chan struct{} // closed when the loop has answered its last job
}

type job struct {
	ctx    context.Context
	fn     func(tx *sql.Tx) error
	result chan error
	panic  any
}

// cleanRefusal is a job's error that left nothing written.
type cleanRefusal struct{ err error }

func (c cleanRefusal) Error() string { return c.err.Error() }
func (c cleanRefusal) Unwrap() error { return c.err }

// Refuse marks err as a refusal made before the job wrote anything (or after it undid what it
// wrote), so the rest of its transaction can still commit.
func Refuse(err error) error { return cleanRefusal{err} }

// Refused reports whether err is a clean refusal.
func Refused(err error) bool {
	var c cleanRefusal
	return errors.As(err, &c)
}

// Unrefuse strips the marker for callers.
func Unrefuse(err error) error {
	var c cleanRefusal
	if errors.As(err, &c) {
		return c.err
	}
	return err
}

// maxBatch bounds a batch so one commit never holds the writer for long.
const maxBatch = 64

func NewBatcher(w *sql.DB, aborted, between func()) *Batcher {
	b := &Batcher{w: w, queue: NewQueue[*job](4 * maxBatch), done: make(chan struct{}), aborted: aborted, between: between}
	go b.loop()
	return b
}

// do queues fn and waits for its batch to commit.
func (b *Batcher) Do(ctx context.Context, fn func(tx *sql.Tx) error) error {
	j := &job{ctx: ctx, fn: fn, result: make(chan error, 1)}
	if err := b.queue.Put(ctx, j); err != nil {
		return err
	}
	// Once queued, wait for the outcome even if ctx ends: the job may be committing, and
	// the caller must not report a failure for a write that landed.
	err := <-j.result
	if j.panic != nil {
		panic(j.panic)
	}
	return Unrefuse(err)
}

// Queued is how many jobs wait for the writer.
func (b *Batcher) Queued() int { return len(b.queue.jobs) }

// close answers what is still queued with sql.ErrConnDone once the loop has stopped.
func (b *Batcher) Close() {
	b.queue.Close()
	<-b.done
}

func (b *Batcher) loop() {
	defer close(b.done)
	defer b.queue.Drain(func(j *job) { j.result <- sql.ErrConnDone })
	batch := make([]*job, 0, maxBatch)
	for {
		var ok bool
		if batch, ok = b.queue.Next(batch, maxBatch); !ok {
			return
		}
		b.run(batch)
		b.between()
	}
}

// run commits as many of the batch's jobs as succeed or refuse cleanly. A job that fails
// otherwise is answered with its error and dropped, and the rest run again.
func (b *Batcher) run(batch []*job) {
	pending := batch
	for len(pending) > 0 {
		failed, err := b.attempt(pending)
		if failed < 0 { // committed, or the transaction itself failed: everyone has an answer
			for _, j := range pending {
				if err != nil {
					j.result <- err
				}
			}
			return
		}
		pending = append(pending[:failed:failed], pending[failed+1:]...)
	}
}

// attempt runs jobs in one transaction. If job i fails uncleanly it is answered, the
// transaction is rolled back, and attempt returns i. Otherwise it commits, answers every
// job, and returns -1; if the commit (or begin) fails, it returns -1 and that error for
// run to give everyone.
func (b *Batcher) attempt(jobs []*job) (failed int, err error) {
	// The batch is not any one request's: a caller that gives up must not abort the others.
	ctx := context.Background()
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return -1, err
	}
	results := make([]error, len(jobs))
	for i, j := range jobs {
		if err := j.ctx.Err(); err != nil {
			results[i] = Refuse(err) // gave up while queued: skipped, nothing written
			continue
		}
		err := runJob(tx, j)
		var clean cleanRefusal
		if err != nil && !errors.As(err, &clean) {
			tx.Rollback()
			b.aborted()
			j.result <- err
			return i, nil
		}
		results[i] = err
	}
	if err := tx.Commit(); err != nil {
		tx.Rollback()
		b.aborted()
		return -1, err
	}
	for i, j := range jobs {
		j.result <- results[i]
	}
	return -1, nil
}

// runJob runs one job, turning a panic into an unclean failure that the caller re-panics.
func runJob(tx *sql.Tx, j *job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			j.panic = p
			err = fmt.Errorf("panic in write transaction: %v", p)
		}
	}()
	return j.fn(tx)
}
