package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// SQLite has one writer, so natter's write transactions queue for it anyway. batcher runs
// whatever is queued in one real transaction (group commit): the fixed cost of a commit —
// WAL frames, checksums, locks — is paid once per batch, and rows written together share
// pages. Each job runs inside its own SAVEPOINT, so a job that fails (a rule says no, a
// unique key collides) rolls back alone and the others still commit; each caller gets its
// own result only after the batch has committed. A lone job pays no wait: a batch is what
// is queued when the writer comes free, never more.
type batcher struct {
	db   *DB
	w    *sql.DB
	jobs chan *job
	done chan struct{}
}

type job struct {
	ctx    context.Context
	fn     func(tx *sql.Tx) error
	result chan error
	panic  any
}

// maxBatch bounds a batch so one commit never holds the writer for long.
const maxBatch = 64

const (
	savepointQuery  = `SAVEPOINT job`
	rollbackToQuery = `ROLLBACK TO job`
	releaseQuery    = `RELEASE job`
)

func newBatcher(db *DB) *batcher {
	b := &batcher{db: db, w: db.w, jobs: make(chan *job, 4*maxBatch), done: make(chan struct{})}
	go b.loop()
	return b
}

// do queues fn and waits for its batch to commit.
func (b *batcher) do(ctx context.Context, fn func(tx *sql.Tx) error) error {
	j := &job{ctx: ctx, fn: fn, result: make(chan error, 1)}
	select {
	case b.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-b.done:
		return sql.ErrConnDone
	}
	// Once queued, wait for the outcome even if ctx ends: the job may be committing, and
	// the caller must not report a failure for a write that landed.
	err := <-j.result
	if j.panic != nil {
		panic(j.panic)
	}
	return err
}

func (b *batcher) close() {
	close(b.done)
}

func (b *batcher) loop() {
	batch := make([]*job, 0, maxBatch)
	for {
		select {
		case j := <-b.jobs:
			batch = append(batch[:0], j)
		case <-b.done:
			b.drain()
			return
		}
	more:
		for len(batch) < maxBatch {
			select {
			case j := <-b.jobs:
				batch = append(batch, j)
			default:
				break more
			}
		}
		b.run(batch)
	}
}

// drain fails what is still queued at close.
func (b *batcher) drain() {
	for {
		select {
		case j := <-b.jobs:
			j.result <- sql.ErrConnDone
		default:
			return
		}
	}
}

func (b *batcher) run(batch []*job) {
	results := make([]error, len(batch))
	err := func() error {
		// The batch is not any one request's: a caller that gives up must not abort the
		// others' commit.
		ctx := context.Background()
		tx, err := b.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for i, j := range batch {
			if err := j.ctx.Err(); err != nil {
				results[i] = err // gave up while queued: skip, nothing written
				continue
			}
			var batchErr error
			results[i], batchErr = b.runOne(ctx, tx, j)
			if batchErr != nil {
				// The transaction itself is broken (SQLite may have rolled it back on an I/O
				// error): nothing of this batch is committed, and nothing more may run in it.
				return batchErr
			}
		}
		return tx.Commit()
	}()
	for i, j := range batch {
		if err != nil {
			results[i] = err
		}
		j.result <- results[i]
	}
}

// runOne runs a job inside a savepoint, rolling back to it if the job fails or panics.
// jobErr is the job's own failure; batchErr means the savepoint could not be handled and the
// whole transaction must be abandoned.
func (b *batcher) runOne(ctx context.Context, tx *sql.Tx, j *job) (jobErr, batchErr error) {
	if _, err := b.db.txExec(ctx, tx, savepointQuery); err != nil {
		return err, err
	}
	defer func() {
		if p := recover(); p != nil {
			j.panic = p
			jobErr = fmt.Errorf("panic in write transaction: %v", p)
		}
		if jobErr != nil {
			if _, err := b.db.txExec(ctx, tx, rollbackToQuery); err != nil {
				batchErr = fmt.Errorf("roll back to savepoint after %v: %w", jobErr, err)
				return
			}
		}
		if _, err := b.db.txExec(ctx, tx, releaseQuery); err != nil {
			batchErr = fmt.Errorf("release savepoint: %w", err)
		}
	}()
	return j.fn(tx), nil
}
