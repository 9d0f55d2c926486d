package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/natter-chat/natter/chat"
)

// postgresEngine is PostgreSQL's way: a transaction per write on the shared pool, messages
// locked by advisory locks, a new message in one round trip, and reaction changes batched
// into shared transactions (postgres_reactions.go).
type postgresEngine struct {
	db     *DB
	batch  *pgBatcher
	log    *changeLog // the change log's writer side (changelog.go)
	logger *slog.Logger
}

func openPostgres(ctx context.Context, dbURL string, opt Options) (*DB, error) {
	// A server that stopped answering (rather than refusing) would otherwise hold each new
	// connection attempt until the request's deadline; 503 should come sooner.
	if u, err := url.Parse(dbURL); err == nil && !u.Query().Has("connect_timeout") {
		q := u.Query()
		q.Set("connect_timeout", "3")
		u.RawQuery = q.Encode()
		dbURL = u.String()
	}
	pool, err := sql.Open("pgx", dbURL)
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
	pool.SetMaxOpenConns(conns)
	pool.SetMaxIdleConns(idle)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{w: pool, r: pool, dialect: postgresDialect, url: dbURL}
	logger := opt.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &postgresEngine{db: db, logger: logger}
	db.eng = e
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if e.batch, err = newPGBatcher(ctx, db); err != nil {
		pool.Close()
		return nil, err
	}
	e.log = newChangeLog(db, logger)
	return db, nil
}

// transact runs fn in a transaction of its own. A caller's hang-up does not end it (wtx);
// the caller's deadline does, so a database that stopped answering still costs a request
// no more than its deadline.
func (e *postgresEngine) transact(ctx context.Context, fn func(tx *wtx) error) (err error) {
	wctx, cancel := writeContext(ctx)
	defer cancel()
	// A deadlock (two membership changes locking the same users in another order, say) or
	// a serialization failure wrote nothing; fn may run again (chat.Store.Transact).
	for range pgAttempts {
		if err = e.transactOnce(wctx, fn); !retryable(err) {
			break
		}
	}
	return err
}

// transactUncached is transact: PostgreSQL's engine caches nothing a transaction changes.
func (e *postgresEngine) transactUncached(ctx context.Context, fn func(tx *wtx) error) error {
	return e.transact(ctx, fn)
}

func (e *postgresEngine) transactOnce(wctx context.Context, fn func(tx *wtx) error) (err error) {
	tx, err := e.db.w.BeginTx(wctx, nil)
	if err != nil {
		return err
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
	t := &wtx{db: e.db, tx: tx, ctx: wctx}
	if err = fn(t); err != nil {
		return err
	}
	changes := chat.LoggedChanges(wctx)
	if len(changes) > 0 {
		if err = e.log.logChanges(t, changes); err != nil {
			return err
		}
	}
	if err = tx.Commit(); err == nil && len(changes) > 0 {
		e.log.committed()
	}
	return err
}

// writeContext is ctx without its cancellation but with its deadline.
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	wctx := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(wctx, d)
	}
	return wctx, func() {}
}

// createMessage is insertMessage's transaction in one round trip: its statements go to
// PostgreSQL as one pipelined batch (BEGIN, the conversation upsert that takes the row's lock,
// the insert that takes its seq from the row and moves its last message, COMMIT).
func (e *postgresEngine) createMessage(ctx context.Context, m *chat.Message, events []chat.OutboxEvent) error {
	// A lone notification event rides in the pipelined statement (pgSendNotifyQuery); with
	// webhook events the send is an ordinary transaction: their fan-out needs the id.
	notifyOnly := len(events) == 1 && events[0].Kind == chat.EventNotification
	// A message carrying files attaches them in the transaction too (attachFiles); a quoted
	// reply is one too: the pipelined statement has no place for its quoted_id, and quoting
	// is rare enough not to earn a statement of its own; so is an interactive message, for
	// its search_text (migration 0062).
	if m.ParentID != 0 || m.QuotedID != 0 || m.Category == chat.CategoryInteractive || !movesConversation(m) || len(events) > 0 && !notifyOnly || len(m.Files) > 0 {
		// mapErr, as DB.transact does: a database gone mid-send is ErrUnavailable (503), not a 500.
		return mapErr(e.transact(ctx, func(tx *wtx) error { return insertMessageWithEvents(tx, m, events) }))
	}
	changes := chat.LoggedChanges(ctx)
	ctx, cancel := writeContext(ctx)
	defer cancel()
	conn, err := e.db.w.Conn(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer conn.Close()
	return mapErr(conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		b.Queue(upsertConversationQuery, upsertConversationArgs(m)...)
		args := insertMessageArgs(m, 0)
		var mentioned []string
		for _, e := range m.Mentions {
			mentioned = append(mentioned, e.UID)
		}
		args = append(args[:14], m.Counts(), m.ParentID, mentioned)
		query := pgSendQuery
		if notifyOnly {
			query, args = pgSendNotifyQuery, append(args, events[0].Trigger, events[0].At)
		}
		if len(changes) > 0 {
			// Logged with the new message's id, which only the statement knows.
			_, bodies, err := changeRows(changes)
			if err != nil {
				return err
			}
			query = pgSendLogQuery
			if notifyOnly {
				query = pgSendNotifyLogQuery
			}
			args = append(args, e.log.node, bodies)
		}
		b.Queue(query, args...)
		b.Queue("COMMIT")
		br := pc.SendBatch(ctx, b)
		_, err := br.Exec()
		if err == nil {
			_, err = br.Exec()
		}
		if err == nil {
			err = br.QueryRow().Scan(&m.ID)
		}
		if err == nil {
			_, err = br.Exec()
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err == nil && len(changes) > 0 {
			e.log.committed()
		}
		if err != nil && !pc.IsClosed() {
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, rerr := pc.Exec(rctx, "ROLLBACK"); rerr != nil {
				pc.Close(rctx)
			}
		}
		return err
	}))
}

// pgSendQuery inserts a top-level message with its conversation's seq (when $15) and whom it
// mentions ($17), counts it on the kept unread counts of its sender and of whom it mentions
// when it counts (unread.go; a new message follows every read marker of its conversation,
// whose lock the upsert took), and makes it the conversation's last message, in one
// statement after the upsert.
const pgSendQuery = `WITH m AS (INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at, target_uid, seq, parent_id)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, CASE WHEN $15::boolean THEN c.last_seq ELSE 0 END, $16
		FROM conversations c WHERE c.app_id = $1 AND c.conversation_id = $2 RETURNING id),
	mentions AS (INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos)
		SELECT $1, u.uid, $2, m.id, u.pos - 1 FROM m, unnest($17::text[]) WITH ORDINALITY AS u(uid, pos)),
	counted AS (INSERT INTO conversation_markers AS k (app_id, uid, conversation_id, updated_at, unread_own, unread_mentions)
		SELECT $1, u.uid, $2, 0, CASE WHEN u.uid = $3 THEN 1 ELSE 0 END, CASE WHEN u.uid = $3 THEN 0 ELSE 1 END
		FROM m, (SELECT $3::text AS uid UNION SELECT unnest($17::text[])) AS u WHERE $15::boolean
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET unread_own = k.unread_own + excluded.unread_own,
		unread_mentions = k.unread_mentions + excluded.unread_mentions)
	UPDATE conversations c SET last_message_id = m.id FROM m WHERE c.app_id = $1 AND c.conversation_id = $2 RETURNING m.id`

// pgSendNotifyQuery is pgSendQuery that also writes the message's notification event
// (trigger $18, at $19), so that a send in an app with providers stays one round trip.
var pgSendNotifyQuery = func() string {
	mustNextParam(pgSendQuery, 18)
	return splice(pgSendQuery, "\n\tUPDATE conversations", `,
	notify AS (INSERT INTO notification_events (app_id, trigger, conversation_id, message_id, ref, created_at)
		SELECT $1, $18, $2, m.id, '{}', $19 FROM m)
	UPDATE conversations`)
}()

// pgSendLogQuery and pgSendNotifyLogQuery are the send statements that also log the send's
// changes (withChangeLog).
var (
	pgSendLogQuery       = withChangeLog(pgSendQuery, 18)
	pgSendNotifyLogQuery = withChangeLog(pgSendNotifyQuery, 20)
)

func (e *postgresEngine) changeReaction(ctx context.Context, c chat.ReactionChange) (chat.Message, error) {
	return e.batch.do(ctx, c)
}

// lockConversation takes the conversation row's lock, as the pipelined send's upsert does:
// a message that moves its conversation creates the row if need be (the upsert counting
// nothing; insertMessageRow counts it), any other message locks the row if there is one.
// A send through a transaction (one with webhook events, a thread reply, an action) thus
// takes its id after every message committed into the conversation before it.
func (e *postgresEngine) lockConversation(tx *wtx, m *chat.Message) error {
	if m.ParentID == 0 && movesConversation(m) {
		args := upsertConversationArgs(m)
		args[6] = 0
		_, err := tx.exec(upsertConversationQuery, args...)
		return err
	}
	_, err := tx.exec(`SELECT 1 FROM conversations WHERE app_id = $1 AND conversation_id = $2 FOR UPDATE`, m.AppID, m.ConversationID)
	return err
}

// lockMessages takes each message's lock (lockMessagesQuery), as reaction batches do.
func (e *postgresEngine) lockMessages(tx *wtx, ids []int64) error {
	_, err := tx.exec(lockMessagesQuery, ids)
	return err
}

func (e *postgresEngine) readRow(ctx context.Context, query string, args ...any) scanner {
	return e.db.r.QueryRowContext(ctx, query, args...)
}

func (e *postgresEngine) readRows(ctx context.Context, query string, args ...any) (rowSource, error) {
	rows, err := e.db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (e *postgresEngine) writeStmt(string) *sql.Stmt { return nil }

func (e *postgresEngine) close() error {
	if e.batch != nil {
		e.batch.close()
	}
	if e.log != nil {
		e.log.close()
	}
	return e.db.w.Close()
}
