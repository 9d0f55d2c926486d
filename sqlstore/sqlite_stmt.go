package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps prepared statements for the writer's hot-path queries (hotWrites).
// database/sql would otherwise prepare, run and finalise each statement on every call, and
// preparing is most of a small SQLite query's cost. The constant reads keep theirs on their
// own connections (sqliteread); PostgreSQL needs no such cache: pgx already caches prepared
// statements per connection. maxStmts bounds it all the same: past it, a new text runs
// unprepared rather than growing the cache without end.
type stmtCache struct {
	pool *sql.DB
	mu   sync.Mutex
	m    map[string]*sql.Stmt
}

// maxStmts is how many statements a cache keeps; the fixed queries are a few dozen.
const maxStmts = 512

func newStmtCache(pool *sql.DB) *stmtCache { return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}} }

// get is query's prepared statement, prepared now if need be; nil when the cache is full.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[query]; ok {
		return s, nil
	}
	if len(c.m) >= maxStmts {
		return nil, nil // the caller runs query on the pool, unprepared
	}
	s, err := c.pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.m[query] = s
	return s, nil
}

// lookup never prepares: inside a write transaction the transaction holds the writer's only
// connection, so preparing on the pool would wait for that connection forever.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}
