package sqlstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
)

// The change log (PostgreSQL): how a node hears of the changes other nodes commit
// (chat.ChangeLog). A write's changes (chat.LoggedChanges) are inserted into change_log in
// the write's own transaction, so a change is logged if and only if it committed. After the
// commit the node sends one NOTIFY on changesChannel, coalesced with the others of the next
// few milliseconds; the notice carries nothing, it only wakes the followers, which read the
// log from where they stopped. A follower whose listening connection dropped reads when it is
// back, so it misses nothing committed meanwhile; one that falls further behind than the
// log's retention is told so (chat.ChangeResync).
//
// Reading in order without skipping. Rows take pos from a sequence when inserted, but commit
// in another order, so a row below what a follower has read may still appear: one whose
// transaction was running when the follower read. Each row carries its transaction's id
// (xid), and each read also returns the oldest transaction still running (the snapshot's
// xmin): every transaction older than that has ended and its rows are in the read. A
// follower therefore reads the rows of transactions from its floor (the previous read's xmin)
// on, skips those it applied already, and moves its floor to this read's xmin. What a read
// returns is applied in pos order; a conversation's messages are inserted under the
// conversation's row lock (the send's upsert), so they are logged, committed and read in
// their id order.

const (
	changesChannel = "natter_changes"
	// changesNotifyEvery coalesces a node's notices: at most one per interval, however
	// many of its writes committed meanwhile.
	changesNotifyEvery = 5 * time.Millisecond
	// changesPoll is how often a follower reads without a notice: what it catches is a
	// notice lost to a node that died between its commit and its NOTIFY.
	changesPoll = 2 * time.Second
	// changesPage bounds the rows of one read.
	changesPage = 1000
)

// ChangeRetention is how long the change log keeps a row. A node that could not read the
// log for longer than half of it (its database connection down) resyncs its listeners
// instead of reading on. A variable for tests.
var ChangeRetention = 5 * time.Minute

// changeLog is an engine's side of the log: the node id its rows carry, and the notices.
type changeLog struct {
	node string
	poke chan struct{}
	stop chan struct{}
	done chan struct{}
}

func newChangeLog(db *DB, log *slog.Logger) *changeLog {
	var id [8]byte
	_, _ = rand.Read(id[:])
	c := &changeLog{node: hex.EncodeToString(id[:]), poke: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.notifier(db, log)
	return c
}

// committed says that a transaction with logged changes committed: the other nodes are
// told soon. It never waits.
func (c *changeLog) committed() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// notifier sends the coalesced notices, outside the writes' transactions: a NOTIFY inside
// them would take PostgreSQL's notify queue lock in each of their commits.
func (c *changeLog) notifier(db *DB, log *slog.Logger) {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.poke:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := db.w.ExecContext(ctx, `SELECT pg_notify($1, $2)`, changesChannel, c.node); err != nil {
			log.Warn("change log: notify the other nodes", "err", err)
		}
		cancel()
		select {
		case <-c.stop:
			return
		case <-time.After(changesNotifyEvery):
		}
	}
}

func (c *changeLog) close() {
	close(c.stop)
	<-c.done
}

// logChangesQuery inserts a write's changes: $1 the node, $2 each change's message id (0:
// none), $3 its body.
const logChangesQuery = `INSERT INTO change_log (node, message_id, body)
	SELECT $1, * FROM unnest($2::bigint[], $3::text[])`

// changeRows encodes changes for logChangesQuery.
func changeRows(changes []chat.Change) (mids []int64, bodies []string, err error) {
	mids, bodies = make([]int64, len(changes)), make([]string, len(changes))
	for i, c := range changes {
		mids[i] = c.MessageID
		c.MessageID = 0 // the column keeps it
		b, err := json.Marshal(c)
		if err != nil {
			return nil, nil, fmt.Errorf("change log: %w", err)
		}
		bodies[i] = string(b)
	}
	return mids, bodies, nil
}

// logChanges writes changes in tx.
func (c *changeLog) logChanges(tx *wtx, changes []chat.Change) error {
	mids, bodies, err := changeRows(changes)
	if err != nil {
		return err
	}
	_, err = tx.exec(logChangesQuery, c.node, mids, bodies)
	return err
}

// queueChanges adds changes to a pipelined transaction.
func (c *changeLog) queueChanges(b *pgx.Batch, changes []chat.Change) error {
	mids, bodies, err := changeRows(changes)
	if err != nil {
		return err
	}
	b.Queue(logChangesQuery, c.node, mids, bodies)
	return nil
}

// withChangeLog is a send statement (pgSendQuery and its variants) that also logs the
// write's changes, each with the new message's id, from parameters $n (the node) and $n+1
// (their bodies).
func withChangeLog(query string, n int) string {
	mustNextParam(query, n)
	return splice(query, "\n\tUPDATE conversations", fmt.Sprintf(`,
	logged AS (INSERT INTO change_log (node, message_id, body) SELECT $%d, m.id, b FROM m, unnest($%d::text[]) AS b)
	UPDATE conversations`, n, n+1))
}

// follower is one node's reading position in the log.
type follower struct {
	db      *DB
	node    string
	floor   int64           // every transaction below it was read
	applied map[int64]int64 // pos → xid of rows read at or above floor
	read    time.Time       // the last complete read
	// sweep is, for the retention sweep, the floor of each minute: rows below the floor of
	// ChangeRetention ago are dropped.
	sweep     []sweepMark
	lastSweep time.Time
}

type sweepMark struct {
	at    time.Time
	floor int64
}

// FollowChanges reads the changes other nodes commit and hands them to apply, in the log's
// order, until ctx ends (chat.ChangeLog). On SQLite, one node, it returns at once.
func (db *DB) FollowChanges(ctx context.Context, apply func([]chat.Change), behind func(), live func(bool)) error {
	e, ok := db.eng.(*postgresEngine)
	if !ok {
		return nil
	}
	f := &follower{db: db, node: e.log.node, applied: map[int64]int64{}}
	var err error
	for {
		if err = f.start(ctx); err == nil || ctx.Err() != nil {
			break
		}
		select { // the database is not there yet: try again
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	// The node follows the log (live) from the first complete read that began after its
	// listener was in place, until the listener drops.
	var mu sync.Mutex
	var epoch int // LISTENs so far; odd while listening
	isLive := false
	listening := func(on bool) {
		mu.Lock()
		defer mu.Unlock()
		epoch++
		if !on && isLive {
			isLive = false
			live(false)
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		db.listenChanges(ctx, f.node, poke, listening, e.logger)
	}()
	defer wg.Wait()
	defer func() {
		mu.Lock()
		if isLive {
			isLive = false
			live(false)
		}
		mu.Unlock()
	}()
	poll := time.NewTicker(changesPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-poll.C:
		}
		mu.Lock()
		began := epoch
		mu.Unlock()
		if err := f.catchUp(ctx, apply, behind); err != nil {
			if ctx.Err() == nil {
				e.logger.Warn("change log: read", "err", err)
			}
		} else {
			mu.Lock()
			if began == epoch && epoch%2 == 1 && !isLive {
				isLive = true
				live(true)
			}
			mu.Unlock()
		}
		f.maybeSweep(ctx, e.logger)
	}
}

// start places the floor at the oldest running transaction: changes from now on.
func (f *follower) start(ctx context.Context) error {
	err := f.db.w.QueryRowContext(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&f.floor)
	if err == nil {
		f.read = time.Now()
	}
	return err
}

// readChangesQuery reads the rows of transactions from the floor $1 on that other nodes
// ($2 is this one) wrote, after pos $3, at most $4 of them, with the snapshot's xmin.
const readChangesQuery = `WITH s AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin)
	SELECT s.xmin, c.pos, c.xid, c.message_id, c.body FROM s
	LEFT JOIN LATERAL (SELECT pos, xid, message_id, body FROM change_log
		WHERE xid >= $1 AND node <> $2 AND pos > $3 ORDER BY pos LIMIT $4) c ON true
	ORDER BY c.pos`

// catchUp reads what other nodes logged since the last read and applies it.
func (f *follower) catchUp(ctx context.Context, apply func([]chat.Change), behind func()) error {
	if time.Since(f.read) > ChangeRetention/2 {
		// Rows this node never read may be gone: its listeners start afresh, and it reads on
		// from what is still there.
		behind()
	}
	var next int64 = -1
	var after int64
	for {
		var changes []chat.Change
		var xmin int64
		n := 0
		rows, err := f.db.w.QueryContext(ctx, readChangesQuery, f.floor, f.node, after, changesPage)
		if err != nil {
			return mapErr(err)
		}
		for rows.Next() {
			var pos, xid, mid *int64
			var body *string
			if err := rows.Scan(&xmin, &pos, &xid, &mid, &body); err != nil {
				rows.Close()
				return err
			}
			if pos == nil {
				continue
			}
			n++
			after = *pos
			if _, seen := f.applied[*pos]; seen {
				continue
			}
			f.applied[*pos] = *xid
			var c chat.Change
			if err := json.Unmarshal([]byte(*body), &c); err != nil {
				continue // not ours to fail on: a row another version wrote
			}
			if *mid != 0 {
				c.MessageID = *mid
			}
			changes = append(changes, c)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return mapErr(err)
		}
		if next < 0 {
			next = xmin // the first page's: every later page sees at least what it saw
		}
		if len(changes) > 0 {
			apply(changes)
		}
		if n < changesPage {
			break
		}
	}
	f.floor = next
	for pos, xid := range f.applied {
		if xid < f.floor {
			delete(f.applied, pos)
		}
	}
	f.read = time.Now()
	return nil
}

// maybeSweep drops, once a minute, the rows older than the retention window.
func (f *follower) maybeSweep(ctx context.Context, log *slog.Logger) {
	now := time.Now()
	if now.Sub(f.lastSweep) < time.Minute {
		return
	}
	f.lastSweep = now
	f.sweep = append(f.sweep, sweepMark{now, f.floor})
	var bound int64
	for len(f.sweep) > 0 && now.Sub(f.sweep[0].at) >= ChangeRetention {
		bound = f.sweep[0].floor
		f.sweep = f.sweep[1:]
	}
	if bound == 0 {
		return
	}
	if _, err := f.db.w.ExecContext(ctx, `DELETE FROM change_log WHERE xid < $1`, bound); err != nil && ctx.Err() == nil {
		log.Warn("change log: drop old rows", "err", err)
	}
}

// stableSession is how long a listening connection must have held for its loss to be
// reconnected at once again, rather than after the back-off of the losses before it.
const stableSession = 10 * time.Second

// listenChanges holds the listening connection until ctx ends, reconnecting after a
// failure; poke wakes the follower for each notice of another node, and once each time the
// connection is (back) in place, so that what committed while it was down is read.
// listening says when the connection listens and when it stopped.
func (db *DB) listenChanges(ctx context.Context, node string, poke func(), listening func(bool), log *slog.Logger) {
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		began := time.Now()
		err := db.changesSession(ctx, node, poke, listening)
		if time.Since(began) > stableSession { // it held: this loss is a first, not a repeat
			wait = 100 * time.Millisecond
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("change log: listener lost; reconnecting", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// ChangesListenerName is the application_name of a node's listening connection, for
// operators (and tests) that look for it in pg_stat_activity.
func ChangesListenerName(node string) string { return "natter-changes-" + node }

func (db *DB) changesSession(ctx context.Context, node string, poke func(), listening func(bool)) error {
	cfg, err := pgx.ParseConfig(db.url)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["application_name"] = ChangesListenerName(node)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return err
	}
	listening(true)
	defer listening(false)
	poke()
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if n.Payload != node {
				poke()
			}
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			if err := conn.Ping(ctx); err != nil { // quiet for a minute: is it alive?
				return err
			}
		default:
			return err
		}
	}
}

// Node is this process's id on the change log's rows (PostgreSQL); empty on SQLite.
func (db *DB) Node() string {
	if e, ok := db.eng.(*postgresEngine); ok {
		return e.log.node
	}
	return ""
}
