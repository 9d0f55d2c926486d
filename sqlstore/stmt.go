package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmtCache keeps prepared statements for the fixed hot-path queries of one SQLite pool.
// database/sql would otherwise prepare, run and finalise each statement on every call, and
// preparing is most of a small SQLite query's cost. PostgreSQL needs no such cache: pgx
// already caches prepared statements per connection.
type stmtCache struct {
	pool *sql.DB
	mu   sync.Mutex
	m    map[string]*sql.Stmt
}

func newStmtCache(pool *sql.DB) *stmtCache { return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}} }

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[query]; ok {
		return s, nil
	}
	s, err := c.pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.m[query] = s
	return s, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}

// errRow is a row whose query failed before it ran.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// readRow runs a fixed query on the read pool. Only constant query strings go through the
// cached helpers; queries built per request use the pools directly, so the cache stays small.
func (db *DB) readRow(ctx context.Context, query string, args ...any) scanner {
	query = db.q(query)
	if db.readStmts == nil {
		return db.r.QueryRowContext(ctx, query, args...)
	}
	s, err := db.readStmts.get(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return s.QueryRowContext(ctx, args...)
}

// txStmt returns query prepared for tx when it is one of the writer's prepared statements,
// else nil. It never prepares: on SQLite the transaction holds the writer's only connection,
// so preparing on the pool here would wait for that connection forever.
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if db.writeStmts == nil {
		return nil, nil
	}
	s := db.writeStmts.lookup(db.q(query))
	if s == nil {
		return nil, nil
	}
	return tx.StmtContext(ctx, s), nil
}

// hotWrites are the statements of the write hot path, prepared on the writer when it opens.
var hotWrites = []string{
	userQuery, actableMessageQuery, summaryQuerySQLite, insertMessageQuery,
	countsQuery, addRowQuery, insertCountQuery, bumpCountQuery,
	deleteReactionQuery, dropCountRowQuery, mineQuery, rowsQuery,
}

func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

// prepareWrites prepares hotWrites on the writer, before any transaction can hold it.
func (db *DB) prepareWrites(ctx context.Context) error {
	for _, q := range hotWrites {
		if _, err := db.writeStmts.get(ctx, db.q(q)); err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
	}
	return nil
}

// txCtx is the context for a statement inside a write transaction. On SQLite that is a
// group-commit job, which runs to its end once started (batch.go): interrupting one
// statement would roll back everyone's batch. And for a context that can end, the driver
// starts a goroutine per statement to watch it — a large share of a small statement's cost.
func (db *DB) txCtx(ctx context.Context) context.Context {
	if db.batch != nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (db *DB) txRow(ctx context.Context, tx *sql.Tx, query string, args ...any) scanner {
	ctx = db.txCtx(ctx)
	s, err := db.txStmt(ctx, tx, query)
	if err != nil {
		return errRow{err}
	}
	if s == nil {
		return tx.QueryRowContext(ctx, db.q(query), args...)
	}
	return s.QueryRowContext(ctx, args...)
}

func (db *DB) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	ctx = db.txCtx(ctx)
	s, err := db.txStmt(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return tx.ExecContext(ctx, db.q(query), args...)
	}
	return s.ExecContext(ctx, args...)
}

func (db *DB) txRows(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	ctx = db.txCtx(ctx)
	s, err := db.txStmt(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return tx.QueryContext(ctx, db.q(query), args...)
	}
	return s.QueryContext(ctx, args...)
}

// runner runs a fixed one-row query on the read pool, or inside a write transaction, so one
// read function serves both.
type runner interface {
	row(ctx context.Context, query string, args ...any) scanner
}

type poolRunner struct{ db *DB }

func (p poolRunner) row(ctx context.Context, q string, args ...any) scanner {
	return p.db.readRow(ctx, q, args...)
}

type txRunner struct {
	db *DB
	tx *sql.Tx
}

func (t txRunner) row(ctx context.Context, q string, args ...any) scanner {
	return t.db.txRow(ctx, t.tx, q, args...)
}
