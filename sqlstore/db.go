// Package sqlstore implements chat.Store on database/sql, for SQLite (modernc.org/sqlite,
// pure Go, the embedded default) and PostgreSQL (pgx). Queries are written once, in
// PostgreSQL's $n style, in one file per aggregate; dialect.go rewrites them for SQLite, and
// each database's engine (sqlite_*.go, postgres_*.go) does what that database does its own
// way.
package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"

	"github.com/natter-chat/natter/chat"
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
	// Counter, when set, counts the statements the store runs and the rows it reads
	// (counter.go): for tests.
	Counter *Counter
	// MustExist refuses a SQLite file that does not exist (a *MissingError) rather than
	// creating and migrating an empty one: for commands that add to a database natter serve
	// made, where a mistyped path would otherwise succeed on a new, empty file.
	MustExist bool
	// Logger takes what the store's background work (the change log, PostgreSQL) has to
	// say; nil: nothing is logged.
	Logger *slog.Logger
}

// DB is a Store over one database. The queries are shared; what each database does its own
// way — how writes commit, the caches, the reaction hot path — is its engine's
// (sqlite_engine.go, postgres_engine.go). For SQLite, w is a single-connection pool that
// takes every write and r a pool of read-only connections; for PostgreSQL both are the same
// pool.
type DB struct {
	w, r    *sql.DB
	dialect dialect
	eng     engine
	url     string // PostgreSQL's, for the connection the event bus listens on
	counter *Counter

	memberPages memberPages // where member pages ended (members.go)
}

// engine is what one database does its own way.
type engine interface {
	// transact runs fn in a write transaction (DB.transact).
	transact(ctx context.Context, fn func(tx *wtx) error) error
	// transactUncached is transact for fn that writes none of what the engine caches
	// (messages, reactions, users): the usage roll-up. Caches stay as they are.
	transactUncached(ctx context.Context, fn func(tx *wtx) error) error
	// createMessage stores a new message and sets its id: the send path.
	createMessage(ctx context.Context, m *chat.Message, events []chat.OutboxEvent) error
	// changeReaction is the reaction path (ChangeReaction).
	changeReaction(ctx context.Context, c chat.ReactionChange) (chat.Message, error)
	// lockMessages holds the listed messages, ids ascending, against concurrent changes to
	// them and their reactions until tx ends.
	lockMessages(tx *wtx, ids []int64) error
	// lockConversation holds m's conversation against other messages into it until tx
	// ends, before m takes its id: a conversation's messages then commit, and reach the
	// change log, in their id order.
	lockConversation(tx *wtx, m *chat.Message) error
	// readRow runs a rebound one-row query on the read pool; writeStmt is the writer's
	// prepared statement for a rebound query, or nil.
	readRow(ctx context.Context, query string, args ...any) scanner
	// readRows is readRow for a constant query of many rows.
	readRows(ctx context.Context, query string, args ...any) (rowSource, error)
	writeStmt(query string) *sql.Stmt
	// close stops the engine and closes the pools.
	close() error
}

// Open connects to url ("sqlite:PATH" or "postgres://…"), and runs the embedded migrations.
func Open(ctx context.Context, dbURL string, opt Options) (*DB, error) {
	var db *DB
	var err error
	switch {
	case strings.HasPrefix(dbURL, "sqlite:"):
		db, err = openSQLiteLocked(ctx, strings.TrimPrefix(strings.TrimPrefix(dbURL, "sqlite:"), "//"), opt)
	case strings.HasPrefix(dbURL, "postgres://"), strings.HasPrefix(dbURL, "postgresql://"):
		db, err = openPostgres(ctx, dbURL, opt)
	default:
		return nil, fmt.Errorf("database %q: want sqlite:PATH or postgres://…", redact(dbURL))
	}
	if err != nil {
		return nil, err
	}
	db.counter = opt.Counter
	return db, nil
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

// Close stops the engine and closes the pools.
func (db *DB) Close() error { return db.eng.close() }

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

// Pools names the connection pools, for their figures (database/sql's DBStats): PostgreSQL's
// one pool; SQLite's single writer and its readers.
func (db *DB) Pools() map[string]*sql.DB {
	if db.w == db.r {
		return map[string]*sql.DB{"pool": db.w}
	}
	return map[string]*sql.DB{"writer": db.w, "reader": db.r}
}
