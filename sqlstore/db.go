// Package sqlstore implements chat.Store on database/sql, for SQLite (modernc.org/sqlite,
// pure Go, the embedded default) and PostgreSQL (pgx). Queries are written once in
// PostgreSQL's $n style; dialect.go rewrites them for SQLite.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

// Options tunes the connection pools; zero values pick defaults per dialect.
type Options struct {
	// MaxConns caps PostgreSQL connections, or SQLite reader connections (SQLite always has
	// exactly one writer).
	MaxConns int
	// MaxIdleConns keeps this many connections open while idle (PostgreSQL).
	MaxIdleConns int
	// Shared opens a SQLite file without its writer lock (sqlite_lock.go), for commands that
	// only add apps and keys and so may run beside the natter serve that holds it.
	Shared bool
}

// DB is a Store over one database. For SQLite, w is a single-connection pool that takes every
// write, so writers queue in Go instead of failing with "database is locked", and r is a pool
// of read-only connections; WAL lets them read while the writer writes. For PostgreSQL both
// are the same pool.
type DB struct {
	w, r    *sql.DB
	dialect dialect
	// SQLite only: prepared statements of the hot path, per pool, and the group-commit
	// writer that every write transaction goes through.
	readStmts, writeStmts *stmtCache
	batch                 *batcher
	checkpoint            *checkpointer
	// SQLite only: the writer's cache of messages it changes reactions on (hot.go).
	hot *hotMessages
	// PostgreSQL only: reaction changes in shared transactions (reactions_pg.go).
	pgBatch *pgBatcher
	// SQLite only: the file, and this process's writer lock on it (nil if Options.Shared).
	path string
	lock *sqliteLock
}

// Open connects to url ("sqlite:PATH" or "postgres://…"), and runs the embedded migrations.
func Open(ctx context.Context, dbURL string, opt Options) (*DB, error) {
	var db *DB
	var err error
	switch {
	case strings.HasPrefix(dbURL, "sqlite:"):
		db, err = openSQLiteLocked(strings.TrimPrefix(strings.TrimPrefix(dbURL, "sqlite:"), "//"), opt)
	case strings.HasPrefix(dbURL, "postgres://"), strings.HasPrefix(dbURL, "postgresql://"):
		db, err = openPostgres(dbURL, opt)
	default:
		return nil, fmt.Errorf("database %q: want sqlite:PATH or postgres://…", redact(dbURL))
	}
	if err != nil {
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		if db.dialect.name == "sqlite" {
			err = fmt.Errorf("sqlite database %s: %w", absPath(db.path), err)
		}
		return nil, err
	}
	if db.writeStmts != nil {
		if err := db.prepareWrites(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	if db.dialect.name == "postgres" {
		if db.pgBatch, err = newPGBatcher(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

func openSQLite(path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	// Pragmas go in the DSN so every pooled connection gets them; busy_timeout comes first so
	// that switching to WAL waits for other processes instead of failing.
	base := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	// The writer keeps a large page cache: a reaction touches a few random index pages,
	// and a miss costs a pread and a WAL-index lookup on the one goroutine every write waits
	// for. It never checkpoints; checkpoint.go does that on its own connection.
	w, err := sql.Open("sqlite", base+"&_pragma=cache_size(-65536)&_pragma=wal_autocheckpoint(0)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", base+"&_pragma=query_only(1)&_pragma=cache_size(-16384)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	cp, err := sql.Open("sqlite", base)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	cp.SetMaxOpenConns(1)
	readers := opt.MaxConns
	if readers <= 0 {
		readers = max(4, 2*runtime.NumCPU())
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	r.SetConnMaxLifetime(0)
	db := &DB{w: w, r: r, dialect: sqliteDialect, readStmts: newStmtCache(r), writeStmts: newStmtCache(w)}
	db.hot = newHotMessages(maxHotMessages)
	db.checkpoint = newCheckpointer(cp, w, checkpointEvery)
	db.batch = newBatcher(w, db.hot.reset, db.checkpoint.flushTail)
	return db, nil
}

func openPostgres(dbURL string, opt Options) (*DB, error) {
	// A server that stopped answering (rather than refusing) would otherwise hold each new
	// connection attempt until the request's deadline; 503 should come sooner.
	if u, err := url.Parse(dbURL); err == nil && !u.Query().Has("connect_timeout") {
		q := u.Query()
		q.Set("connect_timeout", "3")
		u.RawQuery = q.Encode()
		dbURL = u.String()
	}
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", redact(dbURL), err)
	}
	conns := opt.MaxConns
	if conns <= 0 {
		conns = 4 * runtime.NumCPU()
	}
	idle := opt.MaxIdleConns
	if idle <= 0 || idle > conns {
		idle = conns
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(idle)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{w: db, r: db, dialect: postgresDialect}, nil
}

// Dialect names the database: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect.name }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.r.PingContext(ctx); err != nil {
		return mapErr(err)
	}
	// A query, not just a connection: a PostgreSQL pool can hand out a dead connection.
	var one int
	return mapErr(db.r.QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// Close closes the pools.
func (db *DB) Close() error {
	if db.batch != nil {
		db.batch.close()
	}
	if db.pgBatch != nil {
		db.pgBatch.close()
	}
	if db.readStmts != nil {
		db.readStmts.close()
		db.writeStmts.close()
	}
	var err error
	if db.checkpoint != nil {
		err = db.checkpoint.close()
	}
	err = errors.Join(err, db.w.Close())
	if db.r != db.w {
		err = errors.Join(err, db.r.Close())
	}
	// Last: the file is free for another writer only once this one has let go of it.
	return errors.Join(err, db.lock.release())
}

// transact runs fn in a write transaction, committing if fn returns nil and rolling back on
// an error or a panic. On SQLite, fn shares a group commit with other writers (batch.go), so
// fn must do nothing but its statements on tx, may run more than once, and should return
// refuse(err) for a refusal that wrote nothing.
//
// On SQLite the writer's message cache (hot.go) is emptied before fn runs, since fn may change
// what it holds; writes that only add a message use transactNew, which keeps it.
func (db *DB) transact(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	if db.batch != nil {
		return mapErr(db.batch.do(ctx, func(tx *sql.Tx) error {
			db.hot.reset()
			return fn(tx)
		}))
	}
	return db.transactNew(ctx, fn)
}

// transactNew is transact for writes that only add rows the writer's message cache does
// not hold — a new message — and so leave the cache as it is.
func (db *DB) transactNew(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	if db.batch != nil {
		return mapErr(db.batch.do(ctx, fn))
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	defer func() {
		if p := recover(); p != nil {
			tx.Rollback()
			panic(p)
		}
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return mapErr(unrefuse(err))
	}
	return mapErr(tx.Commit())
}

// redact hides a password in a database URL for error messages and logs.
func redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil || u.User == nil {
		return dbURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
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
