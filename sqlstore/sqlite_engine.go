package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/commit"
	"github.com/natter-chat/natter/sqlstore/internal/sqliteread"
)

// sqliteEngine is SQLite's way: one writer connection whose transactions are group commits
// (commit.Batcher), the messages it changes reactions on kept in memory (sqlite_hot.go), its
// WAL checkpointed on a connection of its own (sqlite_checkpoint.go), the writer's hot
// statements prepared once (sqlite_stmt.go), and the constant reads (reader.fixed and
// fixedRows: every page's) run on connections of SQLite's own API (sqliteread), which keep
// their statements prepared and read a row for half what database/sql spends.
type sqliteEngine struct {
	db         *DB
	lock       *sqliteLock // nil when opened Shared
	batch      *commit.Batcher
	hot        *hotMessages
	checkpoint *checkpointer
	writeStmts *stmtCache
	direct     *sqliteread.Pool
}

func openSQLite(ctx context.Context, path string, opt Options, lock *sqliteLock) (*DB, error) {
	// Pragmas go in the DSN so every pooled connection gets them; busy_timeout comes first so
	// that switching to WAL waits for other processes instead of failing.
	base := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	// The writer keeps a large page cache: a reaction touches a few random index pages,
	// and a miss costs a pread and a WAL-index lookup on the one goroutine every write waits
	// for. It never checkpoints; sqlite_checkpoint.go does that on its own connection.
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
	readers := opt.MaxConns
	if readers <= 0 {
		readers = max(4, 2*runtime.NumCPU())
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	r.SetConnMaxLifetime(0)
	cp, err := sql.Open("sqlite", base)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	cp.SetMaxOpenConns(1)
	db := &DB{w: w, r: r, dialect: sqliteDialect}
	e := &sqliteEngine{db: db, lock: lock, writeStmts: newStmtCache(w), hot: newHotMessages(maxHotMessages)}
	db.eng = e
	fail := func(err error) (*DB, error) {
		if e.direct != nil {
			e.direct.Close()
		}
		e.writeStmts.close()
		cp.Close()
		db.w.Close()
		db.r.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		return fail(err)
	}
	// Opened after the migrations, which create the file and switch it to WAL.
	if e.direct, err = sqliteread.Open(path, readers, "busy_timeout(10000)", "cache_size(-16384)"); err != nil {
		return fail(fmt.Errorf("open sqlite: %w", err))
	}
	// Prepared before any transaction can hold the writer's only connection.
	for _, q := range hotWrites {
		if _, err := e.writeStmts.get(ctx, db.q(q)); err != nil {
			return fail(fmt.Errorf("prepare %q: %w", q, err))
		}
	}
	e.checkpoint = newCheckpointer(cp, w, checkpointEvery)
	e.batch = commit.NewBatcher(w, e.hot.reset, e.checkpoint.flushTail)
	return db, nil
}

// hotWrites are the statements of the write hot path, prepared on the writer when it opens.
var hotWrites = []string{
	userQuery, actableMessageQuery, summaryQuerySQLite, insertMessageQuery, insertSeqQuery, countConversationQuery, countSentQuery, insertMentionQuery, countMentionedQuery,
	countsQuery, addRowQuery, insertCountQuery, bumpCountQuery,
	deleteReactionQuery, dropCountRowQuery, mineQuery, rowsQuery, memberQuery,
}

// transact runs fn as a job of the writer's group commit, in a savepoint of its own. The
// message cache is emptied first, since fn may change what it holds.
func (e *sqliteEngine) transact(ctx context.Context, fn func(tx *wtx) error) error {
	return e.batch.Do(ctx, func(tx *sql.Tx) error {
		e.hot.reset()
		return inSavepoint(e.tx(ctx, tx), fn)
	})
}

// transactUncached is transact without emptying the message cache, for fn that writes
// nothing it holds (the usage roll-up, every few seconds: emptying the cache each time made
// every reaction after it read its message back, some 30% more CPU per reaction).
func (e *sqliteEngine) transactUncached(ctx context.Context, fn func(tx *wtx) error) error {
	return e.batch.Do(ctx, func(tx *sql.Tx) error { return inSavepoint(e.tx(ctx, tx), fn) })
}

// tx wraps a job's transaction. The write context has no cancellation and, for the job
// runs to its end once started, no deadline either: for a context that can end the driver
// would watch it from a goroutine per statement, a large share of a small statement's cost.
func (e *sqliteEngine) tx(ctx context.Context, tx *sql.Tx) *wtx {
	return &wtx{db: e.db, tx: tx, ctx: context.WithoutCancel(ctx)}
}

// createMessage adds a message in the group commit. It leaves the message cache as it is:
// a new message is in no one's cache.
func (e *sqliteEngine) createMessage(ctx context.Context, m *chat.Message, events []chat.OutboxEvent) error {
	return mapErr(e.batch.Do(ctx, func(tx *sql.Tx) error { return insertMessageWithEvents(e.tx(ctx, tx), m, events) }))
}

// lockMessages has nothing to do: the single writer already serialises every write.
func (e *sqliteEngine) lockMessages(*wtx, []int64) error { return nil }

// lockConversation has nothing to do either.
func (e *sqliteEngine) lockConversation(*wtx, *chat.Message) error { return nil }

func (e *sqliteEngine) readRow(ctx context.Context, query string, args ...any) scanner {
	return e.direct.QueryRow(ctx, query, args...)
}

func (e *sqliteEngine) readRows(ctx context.Context, query string, args ...any) (rowSource, error) {
	rows, err := e.direct.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (e *sqliteEngine) writeStmt(query string) *sql.Stmt { return e.writeStmts.lookup(query) }

func (e *sqliteEngine) close() error {
	if e.batch != nil {
		e.batch.Close()
	}
	if e.direct != nil {
		e.direct.Close()
	}
	e.writeStmts.close()
	var err error
	if e.checkpoint != nil {
		err = e.checkpoint.close()
	}
	err = errors.Join(err, e.db.w.Close(), e.db.r.Close())
	// Last: the file is free for another writer only once this one has let go of it.
	return errors.Join(err, e.lock.release())
}
