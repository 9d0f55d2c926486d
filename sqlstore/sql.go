package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/commit"
)

// Every statement natter runs goes through one of two runners, so that no query forgets to be
// rebound for its dialect: reader on the read pool, and wtx inside a write transaction.

// runner runs statements written in PostgreSQL's $n style. fixed is row for a constant query
// string, which an engine may keep prepared; queries built per request use row, so that what
// is kept stays small.
type runner interface {
	row(query string, args ...any) scanner
	fixed(query string, args ...any) scanner
	rows(query string, args ...any) results
	// fixedRows is rows for a constant query string, which the engine may keep prepared.
	fixedRows(query string, args ...any) results
	// store is the store it runs in, for its dialect.
	store() *DB
}

func (r reader) store() *DB { return r.db }
func (t *wtx) store() *DB   { return t.db }

// results are a query's rows, or the error that kept it from running; collect and each
// read them.
type results struct {
	rows rowSource
	err  error
	c    *Counter // counts the rows read, or nil
}

// reader runs statements on the read pool with the request's context.
type reader struct {
	db  *DB
	ctx context.Context
}

func (db *DB) read(ctx context.Context) reader { return reader{db, ctx} }

func (r reader) row(query string, args ...any) scanner {
	query = r.db.q(query)
	if c := r.db.counter; c != nil {
		c.ran(query, args, true)
		return c.row(r.db.r.QueryRowContext(r.ctx, query, args...))
	}
	return r.db.r.QueryRowContext(r.ctx, query, args...)
}

func (r reader) fixed(query string, args ...any) scanner {
	query = r.db.q(query)
	if c := r.db.counter; c != nil {
		c.ran(query, args, true)
		return c.row(r.db.eng.readRow(r.ctx, query, args...))
	}
	return r.db.eng.readRow(r.ctx, query, args...)
}

func (r reader) rows(query string, args ...any) results {
	query = r.db.q(query)
	if c := r.db.counter; c != nil {
		c.ran(query, args, true)
	}
	rows, err := r.db.r.QueryContext(r.ctx, query, args...)
	if err != nil {
		return results{nil, err, r.db.counter}
	}
	return results{rows, nil, r.db.counter}
}

func (r reader) fixedRows(query string, args ...any) results {
	query = r.db.q(query)
	if c := r.db.counter; c != nil {
		c.ran(query, args, true)
	}
	rows, err := r.db.eng.readRows(r.ctx, query, args...)
	return results{rows, err, r.db.counter}
}

// wtx is a write transaction. Its statements run with the write context, which a caller's
// hang-up does not end: once a write has started it runs to its end, so that a cancelled
// request can never abort a transaction it shares with others (SQLite's group commit) or
// leave its own half done. The caller's deadline, where the engine keeps one, still bounds it.
type wtx struct {
	db  *DB
	tx  *sql.Tx
	ctx context.Context
}

func (t *wtx) exec(query string, args ...any) (sql.Result, error) {
	query = t.db.q(query)
	if c := t.db.counter; c != nil {
		c.ran(query, args, false)
	}
	if s := t.stmt(query); s != nil {
		return s.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *wtx) row(query string, args ...any) scanner {
	query = t.db.q(query)
	if c := t.db.counter; c != nil {
		c.ran(query, args, false)
	}
	if s := t.stmt(query); s != nil {
		return t.db.counter.row(s.QueryRowContext(t.ctx, args...))
	}
	return t.db.counter.row(t.tx.QueryRowContext(t.ctx, query, args...))
}

// fixed is row: a transaction only ever uses the statements its engine prepared beforehand.
func (t *wtx) fixed(query string, args ...any) scanner { return t.row(query, args...) }

// fixedRows is rows, as fixed is row.
func (t *wtx) fixedRows(query string, args ...any) results { return t.rows(query, args...) }

func (t *wtx) rows(query string, args ...any) results {
	query = t.db.q(query)
	if c := t.db.counter; c != nil {
		c.ran(query, args, false)
	}
	var rows *sql.Rows
	var err error
	if s := t.stmt(query); s != nil {
		rows, err = s.QueryContext(t.ctx, args...)
	} else {
		rows, err = t.tx.QueryContext(t.ctx, query, args...)
	}
	if err != nil {
		return results{nil, err, t.db.counter}
	}
	return results{rows, nil, t.db.counter}
}

// execRaw and rowsRaw run a query already in the dialect's placeholder syntax, bypassing
// the rebind cache and the prepared statements: for statements built per batch, whose text
// differs with the batch (dataimport.go), and which must not fill a cache.
func (t *wtx) execRaw(query string, args ...any) (sql.Result, error) {
	if c := t.db.counter; c != nil {
		c.ran(query, args, false)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *wtx) rowsRaw(query string, args ...any) results {
	if c := t.db.counter; c != nil {
		c.ran(query, args, false)
	}
	rows, err := t.tx.QueryContext(t.ctx, query, args...)
	if err != nil {
		return results{nil, err, t.db.counter}
	}
	return results{rows, nil, t.db.counter}
}

// stmt is the engine's prepared statement for an already rebound query, bound to the
// transaction, or nil.
func (t *wtx) stmt(query string) *sql.Stmt {
	s := t.db.eng.writeStmt(query)
	if s == nil {
		return nil
	}
	return t.tx.StmtContext(t.ctx, s)
}

// transact runs fn in a write transaction: committed if fn returns nil, rolled back if it
// returns an error or panics. Every statement of fn goes through tx (see wtx). On SQLite fn
// shares a group commit with other writers; it runs inside a savepoint there, so its error
// undoes only its own statements, and it may run more than once: fn must do nothing but its
// statements and set its results afresh each time.
func (db *DB) transact(ctx context.Context, fn func(tx *wtx) error) error {
	return mapErr(db.eng.transact(ctx, fn))
}

// Transact runs fn in one write transaction (chat.Store): see transact.
func (db *DB) Transact(ctx context.Context, fn func(tx chat.Tx) error) error {
	return db.transact(ctx, func(tx *wtx) error { return fn(txStore{tx}) })
}

// txStore is chat's view of a write transaction (chat.Tx); its methods live with their
// aggregate's queries.
type txStore struct{ *wtx }

// inSavepoint runs fn so that an error from it undoes its statements and leaves the rest of
// the transaction as it was: a clean refusal to the group commit. Should the database not
// manage that, the error fails the whole transaction instead.
func inSavepoint(tx *wtx, fn func(tx *wtx) error) error {
	if _, err := tx.exec(`SAVEPOINT job`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if _, rerr := tx.exec(`ROLLBACK TO job`); rerr != nil {
			return err
		}
		if _, rerr := tx.exec(`RELEASE job`); rerr != nil {
			return err
		}
		return commit.Refuse(err)
	}
	_, err := tx.exec(`RELEASE job`)
	return err
}

type scanner interface{ Scan(...any) error }

// rowSource is a query's rows: *sql.Rows, or on SQLite the direct reader's
// (sqliteread.Rows).
type rowSource interface {
	scanner
	Next() bool
	Err() error
	Close() error
}

// errRow is a row whose query failed before it ran.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// prefix scans some leading columns into its own destinations before the rest.
type prefix struct {
	s    scanner
	dest []any
}

func (p prefix) Scan(dest ...any) error { return p.s.Scan(append(p.dest, dest...)...) }

// suffix scans some trailing columns into its own destinations after the rest.
type suffix struct {
	s    scanner
	dest []any
}

func (p suffix) Scan(dest ...any) error { return p.s.Scan(append(dest, p.dest...)...) }

// collect scans every row of a query with scan.
func collect[T any](r results, scan func(scanner) (T, error)) ([]T, error) {
	var out []T
	err := each(r, func(s scanner) error {
		v, err := scan(s)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// each calls fn for every row of a query, and closes the rows.
func each(r results, fn func(scanner) error) error {
	if r.err != nil {
		return mapErr(r.err)
	}
	defer r.rows.Close()
	for r.rows.Next() {
		if r.c != nil {
			r.c.rows.Add(1)
		}
		if err := fn(r.rows); err != nil {
			return mapErr(err)
		}
	}
	return mapErr(r.rows.Err())
}

// affected turns "no row changed" into ErrNotFound.
func affected(res sql.Result, err error) error {
	if err != nil {
		return mapErr(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(err)
	}
	if n == 0 {
		return chat.ErrNotFound
	}
	return nil
}

// prefixed qualifies each column in a comma-separated list.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// placeholders returns "$from, $from+1, …" for n arguments.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
