package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore/internal/commit"
)

// On PostgreSQL, reaction changes that arrive together share one transaction and two round
// trips (group commit, as on SQLite's writer, but for many nodes on one server):
//
//  1. BEGIN; lock the batch's messages in id order and read them with their parties; read
//     their counts, the rows of each (message, user) pair in the batch, and enough new ids;
//  2. the net writes — rows deleted and inserted, count rows deleted, inserted and updated,
//     each one statement over arrays — and COMMIT.
//
// Between the two, Go applies the rules and the changes one after the other to what it read,
// so each caller gets the message as its own change left it, summary included, with nothing
// read back. The messages stay locked until COMMIT (lockMessagesQuery) and every transaction
// that changes a message or its reactions takes its lock first — reaction batches, message
// deletion, user purges — so what was read cannot change underneath; locking in id order
// keeps batches on different nodes from deadlocking each other (should another transaction
// deadlock with one anyway, the batch runs again).
//
// A change on its own pays the same two round trips, against six or seven for a transaction
// of its own; under load a batch of dozens costs PostgreSQL about what one did.
type pgBatcher struct {
	db    *DB
	seq   string // the reactions id sequence
	queue *commit.Queue[*pgJob]
	wg    sync.WaitGroup
}

type pgJob struct {
	ctx context.Context
	c   chat.ReactionChange
	// Set by the batch before done closes.
	msg   chat.Message
	err   error
	panic any
	done  chan struct{}
}

const (
	// pgMaxBatch bounds a batch; up to pgWorkers are in flight (loop).
	pgMaxBatch = 64
	pgWorkers  = 2
	// pgBatchTimeout bounds a batch that found no deadline among its callers.
	pgBatchTimeout = 30 * time.Second
	// pgAttempts is how often a batch runs when PostgreSQL reports a deadlock or a
	// serialization failure.
	pgAttempts = 3
)

func newPGBatcher(ctx context.Context, db *DB) (*pgBatcher, error) {
	b := &pgBatcher{db: db, queue: commit.NewQueue[*pgJob](4 * pgMaxBatch)}
	if err := db.w.QueryRowContext(ctx, `SELECT pg_get_serial_sequence('reactions', 'id')`).Scan(&b.seq); err != nil {
		return nil, fmt.Errorf("reactions id sequence: %w", mapErr(err))
	}
	for range pgWorkers {
		b.wg.Add(1)
		go b.loop()
	}
	return b, nil
}

// close answers what is still queued with sql.ErrConnDone once the workers have stopped.
func (b *pgBatcher) close() {
	b.queue.Close()
	b.wg.Wait()
	b.queue.Drain(func(j *pgJob) {
		j.err = sql.ErrConnDone
		close(j.done)
	})
}

// do queues a change and waits for its batch. Once queued it waits for the outcome even if
// ctx ends: the batch may be committing, and the caller must not report a failure for a
// change that landed.
func (b *pgBatcher) do(ctx context.Context, c chat.ReactionChange) (chat.Message, error) {
	j := &pgJob{ctx: ctx, c: c, done: make(chan struct{})}
	if err := b.queue.Put(ctx, j); err != nil {
		return chat.Message{}, mapErr(err)
	}
	<-j.done
	if j.panic != nil {
		panic(j.panic)
	}
	return j.msg, mapErr(commit.Unrefuse(j.err))
}

// loop forms and runs batches. Each worker takes what is queued when it comes free, so two
// batches are in flight and PostgreSQL works on one while natter answers the other's
// callers and their next requests arrive.
func (b *pgBatcher) loop() {
	defer b.wg.Done()
	batch := make([]*pgJob, 0, pgMaxBatch)
	for {
		var ok bool
		if batch, ok = b.queue.Next(batch, pgMaxBatch); !ok {
			return
		}
		b.run(batch)
	}
}

// run answers every job of the batch.
func (b *pgBatcher) run(batch []*pgJob) {
	live := batch[:0:0]
	deadline := time.Now().Add(pgBatchTimeout)
	latest := time.Time{}
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.err = err // gave up while queued: skipped, nothing written
			close(j.done)
			continue
		}
		if d, ok := j.ctx.Deadline(); ok && d.After(latest) {
			latest = d
		}
		live = append(live, j)
	}
	if len(live) == 0 {
		return
	}
	if !latest.IsZero() {
		deadline = latest
	}
	// The batch is not any one request's: a caller that gives up must not abort the others.
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var err error
	for range pgAttempts {
		if err = b.attempt(ctx, live); !retryable(err) {
			break
		}
	}
	for _, j := range live {
		if err != nil {
			j.msg, j.err = chat.Message{}, err
		}
		close(j.done)
	}
}

// retryable is a deadlock or a serialization failure: nothing was written, and the same
// batch may well succeed now.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

func (b *pgBatcher) attempt(ctx context.Context, jobs []*pgJob) error {
	conn, err := b.db.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		err := b.exchange(ctx, pc, jobs)
		if err != nil && !pc.IsClosed() {
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, rerr := pc.Exec(rctx, "ROLLBACK"); rerr != nil {
				pc.Close(rctx) // in an unknown state: database/sql drops a closed connection
			}
		}
		return err
	})
}

// The batch's queries. $1 is the batch's message ids, or its (message, user) pairs.
var (
	pgMessagesQuery = `SELECT m.app_id, ` + strings.TrimPrefix(messageSelect, "SELECT ") +
		` WHERE m.id = ANY($1) AND m.category <> 'action'`
)

const (
	// lockMessagesQuery takes a message's lock: a transaction-level advisory lock keyed by
	// its id, which unlike a row lock writes nothing (a row lock rewrites the row's header
	// and logs it). Ids come sorted, and unnest keeps their order, so every transaction
	// takes its locks in the same order and batches never deadlock one another. The
	// migration lock (migrate.go) shares the key space; a message whose id equals it at most
	// waits for a migration to finish.
	lockMessagesQuery   = `SELECT pg_advisory_xact_lock(id) FROM unnest($1::bigint[]) AS id`
	reactionCountsQuery = `SELECT message_id, reaction, count, first_id, first_at FROM reaction_counts
		WHERE message_id = ANY($1) ORDER BY message_id, first_id`
	// pgMentionsQuery reads whom the batch's messages mention, in the order named.
	pgMentionsQuery = `SELECT mm.message_id, u.uid, u.name, u.avatar, u.role, u.status, u.created_at, u.last_active_at
		FROM message_mentions mm JOIN users u ON u.app_id = mm.app_id AND u.uid = mm.uid
		WHERE mm.message_id = ANY($1) ORDER BY mm.message_id, mm.pos`
	pgPairRowsQuery = `SELECT r.message_id, r.uid, r.reaction FROM reactions r
		JOIN unnest($1::bigint[], $2::text[]) AS p(mid, uid) ON r.message_id = p.mid AND r.uid = p.uid`
	pgUsersQuery = `SELECT u.app_id, u.uid, u.deactivated_at, u.deleted_at FROM users u
		JOIN unnest($1::text[], $2::text[]) AS p(app, uid) ON u.app_id = p.app AND u.uid = p.uid`
	pgMembersQuery = `SELECT p.mid, p.uid FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS p(mid, app, guid, uid)
		JOIN group_members gm ON gm.app_id = p.app AND gm.guid = p.guid AND gm.uid = p.uid`
	pgGroupsQuery = `SELECT g.app_id, ` + groupColumns + ` FROM groups g
		JOIN unnest($1::text[], $2::text[]) AS p(app, guid) ON g.app_id = p.app AND g.guid = p.guid`
	pgGroupTagsQuery = `SELECT t.app_id, t.guid, t.tag FROM group_tags t
		JOIN unnest($1::text[], $2::text[]) AS p(app, guid) ON t.app_id = p.app AND t.guid = p.guid ORDER BY t.app_id, t.guid, t.pos`
	pgDeleteRowsQuery = `DELETE FROM reactions r USING unnest($1::bigint[], $2::text[], $3::text[]) AS d(mid, uid, reaction)
		WHERE r.message_id = d.mid AND r.uid = d.uid AND r.reaction = d.reaction`
	pgInsertRowsQuery = `INSERT INTO reactions (id, app_id, message_id, uid, reaction, reacted_at)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[])`
	pgDeleteCountsQuery = `DELETE FROM reaction_counts c USING unnest($1::bigint[], $2::bigint[]) AS d(mid, fid)
		WHERE c.message_id = d.mid AND c.first_id = d.fid`
	pgInsertCountsQuery = `INSERT INTO reaction_counts (message_id, first_id, reaction, count, first_at)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[])`
	pgUpdateCountsQuery = `UPDATE reaction_counts c SET count = c.count + u.delta
		FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(mid, fid, delta)
		WHERE c.message_id = u.mid AND c.first_id = u.fid`
)

func (b *pgBatcher) exchange(ctx context.Context, pc *pgx.Conn, jobs []*pgJob) error {
	var ids []int64
	var pairMIDs []int64
	var pairUIDs []string
	seenPair := map[pairKey]bool{}
	adds := 0
	for _, j := range jobs {
		ids = append(ids, j.c.MessageID)
		if k := (pairKey{j.c.MessageID, j.c.UID}); !seenPair[k] {
			seenPair[k] = true
			pairMIDs, pairUIDs = append(pairMIDs, k.mid), append(pairUIDs, k.uid)
		}
		if j.c.Add {
			adds++
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	// Round trip 1: lock, read, and reserve ids.
	read := &pgx.Batch{}
	read.Queue("BEGIN")
	// The batch's statements are prepared, and their array parameters would have
	// PostgreSQL plan each execution afresh (a custom plan per set of values) at a cost
	// several times the execution's. Their generic plans are kept instead, and made
	// without sequential scans: every statement here looks rows up by key, one per array
	// element, but a generic plan made while a table was small (a new database) would
	// scan it, and keep scanning it as it grows until the table is next analyzed.
	read.Queue("SET LOCAL plan_cache_mode = force_generic_plan")
	read.Queue("SET LOCAL enable_seqscan = off")
	read.Queue(lockMessagesQuery, ids)
	read.Queue(pgMessagesQuery, ids)
	read.Queue(reactionCountsQuery, ids)
	read.Queue(pgPairRowsQuery, pairMIDs, pairUIDs)
	read.Queue(pgMentionsQuery, ids)
	if adds > 0 {
		read.Queue(`SELECT nextval($1::regclass) FROM generate_series(1, $2)`, b.seq, adds)
	}
	msgs := map[int64]*pgMessage{}
	pairs := map[pairKey]map[string]*pgRow{}
	var newIDs []int64
	err := func() error {
		br := pc.SendBatch(ctx, read)
		defer br.Close()
		for range 4 { // BEGIN, SET, SET, lock
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := scanAll(br, func(rows pgx.Rows) error {
			var appID string
			m, p, err := scanMessage(prefix{rows, []any{&appID}}, "")
			m.AppID = appID
			msgs[m.ID] = &pgMessage{msg: m, p: p}
			return err
		}); err != nil {
			return err
		}
		if err := scanAll(br, func(rows pgx.Rows) error {
			var mid int64
			var c reactionCount
			if err := rows.Scan(&mid, &c.reaction, &c.count, &c.firstID, &c.firstAt); err != nil {
				return err
			}
			if m := msgs[mid]; m != nil {
				m.initial = append(m.initial, c)
			}
			return nil
		}); err != nil {
			return err
		}
		for k := range seenPair {
			pairs[k] = map[string]*pgRow{}
		}
		if err := scanAll(br, func(rows pgx.Rows) error {
			var k pairKey
			var reaction string
			if err := rows.Scan(&k.mid, &k.uid, &reaction); err != nil {
				return err
			}
			pairs[k][reaction] = &pgRow{initial: true, final: true}
			return nil
		}); err != nil {
			return err
		}
		if err := scanAll(br, func(rows pgx.Rows) error {
			var mid int64
			var u chat.User
			if err := rows.Scan(&mid, &u.UID, &u.Name, &u.Avatar, &u.Role, &u.Status, &u.CreatedAt, &u.LastActiveAt); err != nil {
				return err
			}
			if m := msgs[mid]; m != nil {
				m.msg.Mentions = append(m.msg.Mentions, u.Entity())
			}
			return nil
		}); err != nil {
			return err
		}
		if adds > 0 {
			return scanAll(br, func(rows pgx.Rows) error {
				var id int64
				err := rows.Scan(&id)
				newIDs = append(newIDs, id)
				return err
			})
		}
		return nil
	}()
	if err != nil {
		return err
	}
	for _, m := range msgs {
		m.counts = slices.Clone(m.initial)
	}

	// Actors who are not a party of their message (or whose message is missing) are looked
	// up: rare, since only a participant may react to a one-to-one message.
	actors, members, err := b.lookUp(ctx, pc, jobs, msgs)
	if err != nil {
		return err
	}

	// The rules and the changes, in order.
	for _, j := range jobs {
		j.msg, j.err, j.panic = chat.Message{}, nil, nil
		k := pairKey{j.c.MessageID, j.c.UID}
		j.err = apply(j, msgs[j.c.MessageID], actors, members[k], pairs[k], &newIDs)
		if j.err == nil {
			continue
		}
		if !commit.Refused(j.err) {
			return j.err
		}
	}

	// Round trip 2: the net writes, and COMMIT.
	write := &pgx.Batch{}
	queueWrites(write, jobs, msgs, pairs)
	for _, j := range jobs {
		if j.err != nil {
			continue
		}
		for _, ev := range j.c.EventsFor(j.msg) {
			if err := queueOutbox(write, ev); err != nil {
				return err
			}
		}
	}
	var changes []chat.Change
	for _, j := range jobs {
		if j.err == nil {
			changes = append(changes, reactionChanges(j)...)
		}
	}
	if len(changes) > 0 {
		if err := b.db.eng.(*postgresEngine).log.queueChanges(write, changes); err != nil {
			return err
		}
	}
	write.Queue("COMMIT")
	br := pc.SendBatch(ctx, write)
	for range write.Len() {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	err = br.Close()
	if err == nil && len(changes) > 0 {
		b.db.eng.(*postgresEngine).log.committed()
	}
	return err
}

// reactionChanges are a job's logged changes, completed with what the batch decided: its
// effect and the reaction's row.
func reactionChanges(j *pgJob) []chat.Change {
	changes := chat.LoggedChanges(j.ctx)
	for i := range changes {
		c := &changes[i]
		if c.Kind != chat.ChangeReaction {
			continue
		}
		c.MessageID, c.Conversation = j.c.MessageID, j.msg.ConversationID
		c.Effect, c.ReactionID = j.msg.ReactionEffect, j.msg.ReactionID
	}
	return changes
}

// scanAll reads the next query's rows of a batch.
func scanAll(br pgx.BatchResults, scan func(pgx.Rows) error) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// lookUp reads, in one round trip, what round trip 1 left open: the actors who are not a
// party of their message (or whose message is missing), and for group messages the
// actors' memberships and the groups' entities. Only a participant may react to a
// one-to-one message, so a batch of those usually needs none of it.
func (b *pgBatcher) lookUp(ctx context.Context, pc *pgx.Conn, jobs []*pgJob, msgs map[int64]*pgMessage) (map[userKey]chat.User, map[pairKey]bool, error) {
	var apps, uids []string
	var mMIDs []int64
	var mApps, mGUIDs, mUIDs []string
	var gApps, gGUIDs []string
	seen := map[userKey]bool{}
	seenPair := map[pairKey]bool{}
	seenGroup := map[userKey]bool{}
	for _, j := range jobs {
		m := msgs[j.c.MessageID]
		if m != nil && m.msg.AppID == j.c.AppID {
			if _, party := partyActor(j.c.AppID, j.c.UID, m.msg, m.p); party {
				continue
			}
			if m.msg.ReceiverType == chat.ReceiverGroup {
				if k := (pairKey{m.msg.ID, j.c.UID}); !seenPair[k] {
					seenPair[k] = true
					mMIDs, mApps, mGUIDs, mUIDs = append(mMIDs, k.mid), append(mApps, m.msg.AppID), append(mGUIDs, m.msg.Receiver), append(mUIDs, k.uid)
				}
				if k := (userKey{m.msg.AppID, m.msg.Receiver}); !seenGroup[k] {
					seenGroup[k] = true
					gApps, gGUIDs = append(gApps, k.app), append(gGUIDs, k.uid)
				}
			}
		}
		if k := (userKey{j.c.AppID, j.c.UID}); !seen[k] {
			seen[k] = true
			apps, uids = append(apps, k.app), append(uids, k.uid)
		}
	}
	actors := map[userKey]chat.User{}
	members := map[pairKey]bool{}
	if len(apps) == 0 {
		return actors, members, nil
	}
	q := &pgx.Batch{}
	q.Queue(pgUsersQuery, apps, uids)
	if len(mMIDs) > 0 {
		q.Queue(pgMembersQuery, mMIDs, mApps, mGUIDs, mUIDs)
		q.Queue(pgGroupsQuery, gApps, gGUIDs)
		q.Queue(pgGroupTagsQuery, gApps, gGUIDs)
	}
	br := pc.SendBatch(ctx, q)
	defer br.Close()
	if err := scanAll(br, func(rows pgx.Rows) error {
		var u chat.User
		if err := rows.Scan(&u.AppID, &u.UID, &u.DeactivatedAt, &u.DeletedAt); err != nil {
			return err
		}
		actors[userKey{u.AppID, u.UID}] = u
		return nil
	}); err != nil || len(mMIDs) == 0 {
		return actors, members, err
	}
	if err := scanAll(br, func(rows pgx.Rows) error {
		var k pairKey
		err := rows.Scan(&k.mid, &k.uid)
		members[k] = true
		return err
	}); err != nil {
		return nil, nil, err
	}
	groups := map[userKey]*chat.Group{}
	if err := scanAll(br, func(rows pgx.Rows) error {
		var appID string
		g, err := scanGroup(prefix{rows, []any{&appID}}, "", false)
		g.AppID = appID
		groups[userKey{appID, g.GUID}] = &g
		return err
	}); err != nil {
		return nil, nil, err
	}
	if err := scanAll(br, func(rows pgx.Rows) error {
		var appID, guid, tag string
		err := rows.Scan(&appID, &guid, &tag)
		if g := groups[userKey{appID, guid}]; g != nil {
			g.Tags = append(g.Tags, tag)
		}
		return err
	}); err != nil {
		return nil, nil, err
	}
	for _, m := range msgs {
		if m.msg.ReceiverType == chat.ReceiverGroup {
			m.msg.ReceiverGroup = groups[userKey{m.msg.AppID, m.msg.Receiver}]
		}
	}
	return actors, members, nil
}
