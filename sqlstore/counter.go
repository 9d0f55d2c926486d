package sqlstore

import (
	"sync"
	"sync/atomic"
)

// Counter counts what a store asks of its database through the runners (sql.go): the
// statements it runs and the rows it reads back, and keeps the read pool's statements so
// that a test can ask the database what each one read (EXPLAIN ANALYZE, page counts). It is
// for tests that prove a read costs the same at two data sizes (issue 29): give one in
// Options.Counter; a store without one counts nothing and pays a nil check per statement.
// The engines' own paths (the SQLite group commit's prepared batch, PostgreSQL's pipelined
// send and reaction statements) bypass the runners and are not counted.
type Counter struct {
	statements atomic.Int64
	rows       atomic.Int64

	mu  sync.Mutex
	all []Statement
}

// Statement is one statement the store ran, in the database's own placeholder syntax,
// with its arguments; Read when it ran on the read pool.
type Statement struct {
	Query string
	Args  []any
	Read  bool
}

// Reset forgets everything counted so far.
func (c *Counter) Reset() {
	c.statements.Store(0)
	c.rows.Store(0)
	c.mu.Lock()
	c.all = nil
	c.mu.Unlock()
}

// Statements is how many statements ran since the last Reset.
func (c *Counter) Statements() int64 { return c.statements.Load() }

// Rows is how many rows the store read back since the last Reset.
func (c *Counter) Rows() int64 { return c.rows.Load() }

// All are the statements since the last Reset, in the order they ran.
func (c *Counter) All() []Statement {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Statement(nil), c.all...)
}

// Reads are the read pool's statements since the last Reset, in the order they ran.
func (c *Counter) Reads() []Statement {
	var out []Statement
	for _, s := range c.All() {
		if s.Read {
			out = append(out, s)
		}
	}
	return out
}

func (c *Counter) ran(query string, args []any, read bool) {
	c.statements.Add(1)
	c.mu.Lock()
	c.all = append(c.all, Statement{query, append([]any(nil), args...), read})
	c.mu.Unlock()
}

// countedRow counts a one-row query's row when it scans.
type countedRow struct {
	s scanner
	c *Counter
}

func (r countedRow) Scan(dest ...any) error {
	err := r.s.Scan(dest...)
	if err == nil {
		r.c.rows.Add(1)
	}
	return err
}

// row counts a one-row query's row, when c is set.
func (c *Counter) row(s scanner) scanner {
	if c == nil {
		return s
	}
	return countedRow{s, c}
}
