package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/natter-chat/natter/chat"
)

// The webhook outbox's deliveries (chat.DeliveryStore). A worker claims due deliveries by
// leasing them (lease_until, leased_by); the delivery before one, of the same webhook and
// conversation, must be done first, so each webhook gets a conversation's events in order
// (a lane per conversation: many conversations of one webhook are in flight at once). A
// worker's round records the outcomes of its finished attempts and claims more in one
// transaction (ClaimDeliveries).

// claimQuery leases due deliveries of enabled webhooks (disabling one pauses its
// deliveries; enabling it again resumes them, in order); $1 now, $2 lease end, $3 node, $4
// limit, $5 per-webhook cap, $6 per-app cap, $7 how many due rows are looked at (a few times
// the limit). SQLite's single writer runs one claim at a time; PostgreSQL runs the same
// claim as a few statements (claimPostgres).
//
// Fairness: the caps hold within one claim too: the held leases are counted once, before
// this statement leases anything, and each webhook's due rows are ranked, then each app's,
// so only as many are taken as its caps leave room for. (Filtering on the count alone let
// one claim of an idle node lease every due delivery of a hanging endpoint, up to all the
// node's workers.) Rows of a webhook or an app at its cap are left out before the LIMIT, so
// that they do not crowd out the others'; and more due rows are looked at than are taken
// ($7), so that a backlog of one webhook at the head of the queue leaves room in the same
// claim for the others behind it. A backlog of more lanes than that is left out by the
// claim's next pass (claimHeads), once this one has brought it to its cap. The leases held
// are read once, by the lease index (a few
// rows: at most the nodes' workers' batches), and counted by lane, which keeps a claim cheap
// with a backlog: per due row it probes one index (the order check) and scans that list.
//
// The order check (the row is the first pending one of its lane) is a scalar subquery, run
// per due row with the row's lane as the order index's key. Written as NOT EXISTS (an
// earlier pending one), PostgreSQL planned it, on a table grown faster than its statistics,
// as an anti join that scanned the whole pending part of the index for every due row:
// 190 ms a claim with a backlog of 3,000, and deliveries drained at 100/s.
const claimQuery = `WITH held AS MATERIALIZED (SELECT DISTINCT app_id, webhook_id, conversation_id FROM webhook_deliveries
		WHERE state = 0 AND lease_until >= $1),
	due AS (SELECT d.id, d.app_id, d.webhook_id, d.next_at,
		(SELECT count(*) FROM held h WHERE h.app_id = d.app_id AND h.webhook_id = d.webhook_id) AS held,
		(SELECT count(*) FROM held h WHERE h.app_id = d.app_id) AS held_app
		FROM webhook_deliveries d
		WHERE d.state = 0 AND d.next_at <= $1 AND d.lease_until < $1
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.app_id = d.app_id AND w.id = d.webhook_id AND w.enabled = 1)
		AND (SELECT count(*) FROM held h WHERE h.app_id = d.app_id AND h.webhook_id = d.webhook_id) < $5
		AND (SELECT count(*) FROM held h WHERE h.app_id = d.app_id) < $6
		AND d.event_id = (SELECT min(e.event_id) FROM webhook_deliveries e WHERE e.app_id = d.app_id AND e.webhook_id = d.webhook_id
			AND e.conversation_id = d.conversation_id AND e.state = 0)
		ORDER BY d.next_at, d.id LIMIT $7),
	ranked AS (SELECT id, app_id, next_at, held_app,
		held + row_number() OVER (PARTITION BY app_id, webhook_id ORDER BY next_at, id) AS slot FROM due),
	fair AS (SELECT id, next_at, held_app + row_number() OVER (PARTITION BY app_id ORDER BY next_at, id) AS app_slot
		FROM ranked WHERE slot <= $5)
	UPDATE webhook_deliveries SET ` + leaseSet + `
	WHERE id IN (SELECT id FROM fair WHERE app_slot <= $6 ORDER BY next_at, id LIMIT $4)
	RETURNING id, app_id, webhook_id, conversation_id, event_id`

// claimLookahead is how many due rows a pass of claimQuery (SQLite) looks at for each it
// may take.
const claimLookahead = 4

// Where statements are round trips to a planner working from statistics
// (dialect.roundTrips: PostgreSQL), a claim is a few plain statements rather than
// claimQuery (claimPostgres). PostgreSQL planned claimQuery on statistics of a queue that
// had since grown from nothing (a bitmap of every due row, the order check on each, or a
// nested loop joining every due row to every lane): 60 to 400 ms a claim with 2,000 due
// rows, and deliveries drained at 100/s. The statements below read rows by their keys (a lane's order
// index, the primary key), so no plan can go far wrong. SQLite, in process, runs claimQuery
// in a few µs a due row.
const (
	// $1 now, $2 how many, $3 the per-webhook cap, $4 the per-app cap: the lanes' heads
	// (the first pending delivery of each webhook and conversation) that are due, unleased
	// and of an enabled webhook, oldest first, as many of each webhook and app as their caps
	// leave room for beside the lanes held (leased, by any node).
	// The lanes are walked one index probe each (a loose index scan: each step the next
	// lane's first row by the order index), so a claim reads one row per lane however long
	// the lanes' backlogs: reading every pending row for DISTINCT ON, PostgreSQL's plan on
	// a queue's stale statistics (a bitmap of every pending row, then a sort) took 30-60 ms
	// a claim at a 2,500-row backlog on a loaded machine.
	//
	// The caps are applied before the LIMIT, over every due head (the walk has read them
	// all anyway): applied after it, in Go, a webhook at its cap whose backlog held the
	// oldest heads of more lanes than the LIMIT left nothing for the others (a slow
	// endpoint's webhook, with 48 lanes behind it, held back every other webhook, of its app
	// and of others, until its backlog was down to the LIMIT).
	headsQueryPostgres = `WITH RECURSIVE heads AS (
			(SELECT id, app_id, webhook_id, conversation_id, next_at, lease_until FROM webhook_deliveries
				WHERE state = 0 ORDER BY app_id, webhook_id, conversation_id, event_id LIMIT 1)
			UNION ALL
			SELECT n.* FROM heads h CROSS JOIN LATERAL (
				SELECT id, app_id, webhook_id, conversation_id, next_at, lease_until FROM webhook_deliveries d
				WHERE d.state = 0 AND (d.app_id, d.webhook_id, d.conversation_id) > (h.app_id, h.webhook_id, h.conversation_id)
				ORDER BY d.app_id, d.webhook_id, d.conversation_id, d.event_id LIMIT 1) n),
		held AS MATERIALIZED (SELECT app_id, webhook_id, count(DISTINCT conversation_id) AS n FROM webhook_deliveries
			WHERE state = 0 AND lease_until >= $1 GROUP BY app_id, webhook_id),
		due AS (SELECT id, app_id, next_at,
			coalesce((SELECT k.n FROM held k WHERE k.app_id = h.app_id AND k.webhook_id = h.webhook_id), 0)
				+ row_number() OVER (PARTITION BY app_id, webhook_id ORDER BY next_at, id) AS slot
			FROM heads h WHERE next_at <= $1 AND lease_until < $1
			AND EXISTS (SELECT 1 FROM webhooks w WHERE w.app_id = h.app_id AND w.id = h.webhook_id AND w.enabled = 1)),
		fair AS (SELECT id, next_at,
			coalesce((SELECT sum(k.n) FROM held k WHERE k.app_id = d.app_id), 0)
				+ row_number() OVER (PARTITION BY app_id ORDER BY next_at, id) AS app_slot
			FROM due d WHERE slot <= $3)
		SELECT id FROM fair WHERE app_slot <= $4 ORDER BY next_at, id LIMIT $2`
	// $4 the heads chosen, $5 how many more of each lane: the heads are leased, with each
	// one's lane's next deliveries up to the first that is not due or is leased (bool_and
	// over the lane's order: a batch skips none), and read with their events, in one
	// statement. The lease is taken only where none was taken since the heads were read
	// (the WHERE is checked again on the row's latest version). The ids as an array: as a
	// semi join, on a young queue's statistics, PostgreSQL scanned every pending row for
	// each id chosen.
	leaseQueryPostgres = `WITH h AS (SELECT id, app_id, webhook_id, conversation_id, event_id FROM webhook_deliveries
			WHERE id = ANY($4::bigint[]) AND state + 0 = 0 AND lease_until < $1),
		f AS (SELECT f.id FROM h CROSS JOIN LATERAL (
			SELECT id, bool_and(ok) OVER (ORDER BY event_id) AS ok FROM (
				SELECT d.id, d.event_id, d.next_at <= $1 AND d.lease_until < $1 AS ok FROM webhook_deliveries d
				WHERE d.app_id = h.app_id AND d.webhook_id = h.webhook_id AND d.conversation_id = h.conversation_id
				AND d.state = 0 AND d.event_id > h.event_id ORDER BY d.event_id LIMIT $5) c) f
			WHERE f.ok),
		l AS (UPDATE webhook_deliveries SET ` + leaseSet + `
			WHERE id = ANY(ARRAY(SELECT id FROM h UNION ALL SELECT id FROM f)) AND state + 0 = 0 AND lease_until < $1 RETURNING *)
		SELECT ` + deliveryColumns + ` FROM l d JOIN webhook_events e ON e.id = d.event_id ORDER BY d.id`
)

// planPostgres makes every statement of a round read rows by their keys (the primary key,
// a lane's order index) and join row by row: the queue grows from nothing to thousands in
// seconds, faster than its statistics, and on a few rows' statistics PostgreSQL joined a
// round's outcomes to the deliveries by a bitmap of every pending row and a hash (30-50 ms
// a round at a 2,500-row backlog on a loaded machine, where probing 64 ids by the primary
// key takes well under 1 ms). For the transaction only.
const planPostgres = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
	set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`

// claimLockPostgres has the nodes' claims take turns, as SQLite's single writer does:
// claiming at once, they chose the same oldest heads, and the leases each took blocked the
// other's, or crossed them (a deadlock, found after deadlock_timeout: a second's stall):
// with two nodes, a backlog drained at half the rate of one. A round takes a few ms.
// The two-key form: the one-key space locks messages (postgres_reactions.go).
const claimLockPostgres = `, pg_advisory_xact_lock(hashtext('natter-webhook-claims'), 0)`

// claimPostgres is claimQuery on PostgreSQL, the same rows, the same caps, with each lane's
// next ones (l.PerLane) as claimFollowers takes them, read with their events: two
// statements (on a database loaded by the writes the deliveries report, each round trip
// waits its turn: a round of nine took 100-600 ms while whbench sent).
func claimPostgres(tx *wtx, l chat.Lease) ([]chat.Delivery, error) {
	ids, err := collect(tx.rows(headsQueryPostgres, l.Now, l.Limit, l.PerWebhook, l.PerApp), scanID)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	got, err := collect(tx.rows(leaseQueryPostgres, l.Now, l.Until, l.Node, ids, max(l.PerLane, 1)-1), scanDelivery)
	if err != nil {
		return nil, err
	}
	// A lane whose head another claim took meanwhile (the WHERE checked again) gives back
	// the followers leased with it: they would go out before it.
	chosen := map[int64]bool{}
	for _, id := range ids {
		chosen[id] = true
	}
	lead := map[[3]string]bool{}
	for _, d := range got {
		if chosen[d.ID] {
			lead[[3]string{d.AppID, d.WebhookID, d.ConversationID}] = true
		}
	}
	var keep []chat.Delivery
	var back []int64
	for _, d := range got {
		if lead[[3]string{d.AppID, d.WebhookID, d.ConversationID}] {
			keep = append(keep, d)
		} else {
			back = append(back, d.ID)
		}
	}
	return keep, release(tx, l.Node, back)
}

// claimHeads runs claimQuery (SQLite) until the limit is reached or a pass takes nothing.
// A pass looks at a few times the limit's due rows, oldest first; where a webhook below its
// cap has the oldest heads of more lanes than that, the pass takes its cap's worth and
// nothing else, though the others' heads are due behind them (a slow endpoint's backlog
// held its app's other webhook and other apps' back until the workers' next round). The
// next pass counts those leases, leaves that webhook out before its look-ahead, and takes
// the others'. Each pass that takes something costs one more, which finds nothing when
// nothing else is due; SQLite runs them in process, µs a due row.
func claimHeads(tx *wtx, l chat.Lease) ([]laneRow, error) {
	var heads []laneRow
	for len(heads) < l.Limit {
		left := l.Limit - len(heads)
		got, err := collect(tx.rows(claimQuery, l.Now, l.Until, l.Node, left, l.PerWebhook, l.PerApp, claimLookahead*left), scanLaneRow)
		if err != nil || len(got) == 0 {
			return heads, err
		}
		heads = append(heads, got...)
	}
	return heads, nil
}

// laneRow is a delivery SQLite's claim leased, and its lane.
type laneRow struct {
	id                         int64
	app, webhook, conversation string
	event                      int64
}

func scanLaneRow(s scanner) (laneRow, error) {
	var r laneRow
	err := s.Scan(&r.id, &r.app, &r.webhook, &r.conversation, &r.event)
	return r, err
}

// A lane's next deliveries after its head, in order: $1..$3 the lane, $4 the head's event,
// $5 how many. Each reads the order index from the head on: a few rows a lane.
const (
	followersQuery = `SELECT id, next_at, lease_until FROM webhook_deliveries
		WHERE app_id = $1 AND webhook_id = $2 AND conversation_id = $3 AND state = 0 AND event_id > $4
		ORDER BY event_id LIMIT $5`
	leaseMoreQuery = `UPDATE webhook_deliveries SET ` + leaseSet + `
		WHERE id IN (%s) AND state = 0 AND lease_until < $1 RETURNING id`
	releaseQuery = `UPDATE webhook_deliveries SET lease_until = 0, leased_by = '', attempts = attempts - 1
		WHERE id IN (%s) AND leased_by = $1 AND state = 0`
	releaseQueryPostgres = `UPDATE webhook_deliveries SET lease_until = 0, leased_by = '', attempts = attempts - 1
		WHERE id = ANY($2::bigint[]) AND leased_by = $1 AND state + 0 = 0`
)

// claimFollowers leases, on SQLite (claimPostgres leases them with the heads), each lane's
// next deliveries after the heads just leased: those due and unleased, in order, up to the
// first that is not (a lane's batch skips none), at most l.PerLane with the head. SQLite's
// one writer runs one claim at a time, so no other node holds them; a follower that could
// not be leased all the same ends its lane's batch, and any leased after it are given back.
func claimFollowers(tx *wtx, l chat.Lease, heads []laneRow) ([]int64, error) {
	lanes := make([][]int64, len(heads)) // each lane's candidates, in order
	take := func(i int, id, nextAt, leaseUntil int64) {
		if nextAt > l.Now || leaseUntil >= l.Now {
			id = -1 // a gap: nothing after it goes with the head
		}
		lanes[i] = append(lanes[i], id)
	}
	for i, h := range heads {
		err := each(tx.rows(followersQuery, h.app, h.webhook, h.conversation, h.event, l.PerLane-1), func(s scanner) error {
			var id, nextAt, leaseUntil int64
			err := s.Scan(&id, &nextAt, &leaseUntil)
			take(i, id, nextAt, leaseUntil)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	var want []int64
	for i, c := range lanes {
		lanes[i] = c[:beforeGap(c)]
		want = append(want, lanes[i]...)
	}
	if len(want) == 0 {
		return nil, nil
	}
	got, err := collect(tx.rows(fmt.Sprintf(leaseMoreQuery, placeholders(4, len(want))), idArgs(want, l.Now, l.Until, l.Node)...), scanID)
	if err != nil {
		return nil, err
	}
	leased := map[int64]bool{}
	for _, id := range got {
		leased[id] = true
	}
	var keep, back []int64
	for _, c := range lanes {
		cut := false
		for _, id := range c {
			switch {
			case !leased[id]:
				cut = true
			case cut:
				back = append(back, id)
			default:
				keep = append(keep, id)
			}
		}
	}
	return keep, release(tx, l.Node, back)
}

// beforeGap is how many of a lane's candidates come before its first gap (-1).
func beforeGap(c []int64) int {
	for i, id := range c {
		if id < 0 {
			return i
		}
	}
	return len(c)
}

// release gives back leases that node took in this transaction but will not attempt,
// uncounting their attempt (settle gives back a batch's unattempted ones, fenced by their
// attempt: giveBackQuery).
func release(tx *wtx, node string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	var err error
	if tx.db.dialect.roundTrips {
		_, err = tx.exec(releaseQueryPostgres, node, ids)
	} else {
		_, err = tx.exec(fmt.Sprintf(releaseQuery, placeholders(2, len(ids))), idArgs(ids, node)...)
	}
	return err
}

// idArgs is the arguments first, then ids.
func idArgs(ids []int64, first ...any) []any {
	args := append([]any(nil), first...)
	for _, id := range ids {
		args = append(args, id)
	}
	return args
}

const deliveryColumns = `d.id, d.event_id, d.app_id, d.webhook_id, d.conversation_id, e.trigger, e.message_id, e.ref, e.payload,
	d.state, d.attempts, d.next_at, d.last_status, d.last_error, d.latency_ms, d.created_at, d.done_at`

func scanDelivery(s scanner) (chat.Delivery, error) {
	var d chat.Delivery
	var ref string
	var payload *string
	err := s.Scan(&d.ID, &d.EventID, &d.AppID, &d.WebhookID, &d.ConversationID, &d.Trigger, &d.MessageID, &ref, &payload,
		&d.State, &d.Attempts, &d.NextAt, &d.LastStatus, &d.LastError, &d.LatencyMS, &d.CreatedAt, &d.DoneAt)
	if err == nil {
		err = json.Unmarshal([]byte(ref), &d.Ref)
	}
	if payload != nil {
		d.Payload = []byte(*payload)
	}
	return d, err
}

func scanID(s scanner) (int64, error) {
	var id int64
	err := s.Scan(&id)
	return id, err
}

// Recording outcomes: where statements are round trips (dialect.roundTrips), one statement
// for the whole batch (arrays unnested); elsewhere (SQLite, in process) one prepared
// statement per row.
//
// PostgreSQL's statements that name their rows by id say "state + 0 = 0", which no partial
// index (WHERE state = 0) matches, and "id = ANY": so the rows are read by the primary key.
// On a young queue's statistics PostgreSQL took the partial indexes for a few rows and
// scanned every pending row through one of them, filtering on the ids: 10-100 ms a round
// at a 1,000-row backlog, where 64 primary-key probes take well under 1 ms.
//
// An outcome is recorded on the lease that made it only: the node's (leased_by) and of its
// attempt (attempts, which each lease of a delivery counts up, so it names the lease). By
// the time a batch's outcomes are recorded its node may hold a newer lease of the same
// delivery (the old one ended while the batch was starved, or a replay freed it and the node
// claimed it again): giving back the old lease's unattempted delivery uncounted the new
// lease's attempt and freed it while that attempt was in flight, and the next claim posted
// the same attempt number again; the old attempt's failure freed it the same way, and its
// delivery went out once more (TestDeliveryOutcomeOfAnEarlierLease).
const (
	finishQuery = `UPDATE webhook_deliveries SET state = $3, next_at = $4, lease_until = 0, leased_by = '', last_status = $5,
		last_error = $6, latency_ms = $7, done_at = $8 WHERE id = $1 AND leased_by = $2 AND attempts = $9 AND state = 0`
	giveBackQuery = `UPDATE webhook_deliveries SET lease_until = 0, leased_by = '', attempts = attempts - 1
		WHERE id = $1 AND leased_by = $2 AND attempts = $3 AND state = 0`
	// With, in the same statement, the leases given back ($9, their attempts $12) and the
	// data kept ($10, $11); $13 the outcomes' attempts.
	finishQueryPostgres = `WITH back AS (UPDATE webhook_deliveries AS d SET lease_until = 0, leased_by = '', attempts = d.attempts - 1
			FROM unnest($9::bigint[], $12::int[]) AS b(id, attempts)
			WHERE d.id = b.id AND d.id = ANY($9::bigint[]) AND d.leased_by = $1 AND d.attempts = b.attempts AND d.state + 0 = 0 RETURNING 1),
		kept AS (UPDATE webhook_events AS e SET payload = v.payload FROM unnest($10::bigint[], $11::text[]) AS v(id, payload)
			WHERE e.id = v.id AND e.payload IS NULL RETURNING 1)
		UPDATE webhook_deliveries AS d SET state = v.state, next_at = v.next_at, lease_until = 0, leased_by = '',
		last_status = v.status, last_error = v.err, latency_ms = v.latency, done_at = v.done_at
		FROM unnest($2::bigint[], $3::int[], $4::bigint[], $5::int[], $6::text[], $7::bigint[], $8::bigint[], $13::int[])
			AS v(id, state, next_at, status, err, latency, done_at, attempts)
		WHERE d.id = v.id AND d.id = ANY($2::bigint[]) AND d.leased_by = $1 AND d.attempts = v.attempts AND d.state + 0 = 0`
	keepPayloadQuery = `UPDATE webhook_events SET payload = $2 WHERE id = $1 AND payload IS NULL`
)

// settle records done while node holds the leases that made them, and keeps the data
// rendered by the attempts, the first of an event only (first writer wins, as with every
// other attempt).
func settle(tx *wtx, node string, done []chat.Delivery) error {
	var back []int64
	var backAttempts []int32
	attempted := done[:0:0]
	for _, d := range done {
		if d.Unattempted {
			back, backAttempts = append(back, d.ID), append(backAttempts, int32(d.Attempts))
		} else {
			attempted = append(attempted, d)
		}
	}
	done = attempted
	if len(done) == 0 && len(back) == 0 {
		return nil
	}
	seen := map[int64]bool{}
	var evIDs []int64
	var payloads []string
	for _, d := range done {
		if d.Rendered && !seen[d.EventID] {
			seen[d.EventID] = true
			evIDs, payloads = append(evIDs, d.EventID), append(payloads, string(d.Payload))
		}
	}
	if tx.db.dialect.roundTrips {
		n := len(done)
		ids, states, next, status, errs, lat, doneAt, attempts := make([]int64, n), make([]int32, n), make([]int64, n), make([]int32, n),
			make([]string, n), make([]int64, n), make([]int64, n), make([]int32, n)
		for i, d := range done {
			ids[i], states[i], next[i], status[i], errs[i], lat[i], doneAt[i], attempts[i] = d.ID, int32(d.State), d.NextAt, int32(d.LastStatus),
				d.LastError, d.LatencyMS, d.DoneAt, int32(d.Attempts)
		}
		_, err := tx.exec(finishQueryPostgres, node, ids, states, next, status, errs, lat, doneAt, back, evIDs, payloads,
			backAttempts, attempts)
		return err
	}
	for i, id := range back {
		if _, err := tx.exec(giveBackQuery, id, node, backAttempts[i]); err != nil {
			return err
		}
	}
	for i, id := range evIDs {
		if _, err := tx.exec(keepPayloadQuery, id, payloads[i]); err != nil {
			return err
		}
	}
	for _, d := range done {
		if _, err := tx.exec(finishQuery, d.ID, node, d.State, d.NextAt, d.LastStatus, d.LastError, d.LatencyMS, d.DoneAt, d.Attempts); err != nil {
			return err
		}
	}
	return nil
}

// ClaimDeliveries records the outcomes done and leases due deliveries for a node, in one
// transaction; then it reads the claimed deliveries with their events. A transaction that
// failed, at any statement or at its COMMIT, hands out nothing: what its statements leased
// was rolled back with the attempts they counted (or, if the COMMIT took effect all the
// same, unbeknown to the client, the leases end unattempted), and an attempt posted on such
// a lease would be posted again under the same number by the next claim (e2e's
// TestWebhookPostgresOutage: "attempt 1 of evt_55 was sent twice").
func (db *DB) ClaimDeliveries(ctx context.Context, l chat.Lease, done []chat.Delivery) ([]chat.Delivery, error) {
	if l.PerApp <= 0 {
		l.PerApp = l.PerWebhook
	}
	var ids []int64
	var claimed []chat.Delivery // PostgreSQL's, read in the claim
	err := db.transact(ctx, func(tx *wtx) error {
		ids, claimed = nil, nil
		if db.dialect.roundTrips {
			q := planPostgres
			if l.Limit > 0 {
				q += claimLockPostgres
			}
			if _, err := tx.exec(q); err != nil {
				return err
			}
		}
		if err := settle(tx, l.Node, done); err != nil {
			return err
		}
		if l.Limit <= 0 {
			return nil
		}
		if db.dialect.roundTrips {
			var err error
			claimed, err = claimPostgres(tx, l)
			return err
		}
		heads, err := claimHeads(tx, l)
		if err != nil {
			return err
		}
		for _, h := range heads {
			ids = append(ids, h.id)
		}
		if l.PerLane > 1 && len(heads) > 0 {
			more, err := claimFollowers(tx, l, heads)
			ids = append(ids, more...)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	if len(ids) == 0 {
		return claimed, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return collect(db.read(ctx).rows(`SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.id IN (`+placeholders(1, len(ids))+`) ORDER BY d.id`, args...), scanDelivery)
}

// Deliveries pages a webhook's delivery log, newest first.
func (db *DB) Deliveries(ctx context.Context, appID, webhookID string, q chat.DeliveryQuery) ([]chat.Delivery, error) {
	query := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.app_id = $1 AND d.webhook_id = $2`
	args := []any{appID, webhookID}
	if q.BeforeID > 0 {
		args = append(args, q.BeforeID)
		query += ` AND d.id < $` + itoa(len(args))
	}
	if q.State != nil {
		args = append(args, *q.State)
		query += ` AND d.state = $` + itoa(len(args))
	}
	args = append(args, q.Limit)
	return collect(db.read(ctx).rows(query+` ORDER BY d.id DESC LIMIT $`+itoa(len(args)), args...), scanDelivery)
}

// ReplayDeliveries makes deliveries pending again.
func (db *DB) ReplayDeliveries(ctx context.Context, appID, webhookID string, r chat.Replay, now int64) (int, error) {
	var n int64
	err := db.transact(ctx, func(tx *wtx) error {
		cond, args := `event_id = $4`, []any{appID, webhookID, now, r.EventID}
		if r.EventID == 0 {
			cond, args = `event_id IN (SELECT id FROM webhook_events WHERE app_id = $1 AND created_at >= $4 AND created_at <= $5)`, []any{appID, webhookID, now, r.From, r.To}
		}
		res, err := tx.exec(`UPDATE webhook_deliveries SET state = 0, next_at = $3, lease_until = 0, leased_by = '', done_at = 0, created_at = $3
			WHERE app_id = $1 AND webhook_id = $2 AND `+cond, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), mapErr(err)
}

// PurgeOutbox drops old events whose deliveries are all done.
func (db *DB) PurgeOutbox(ctx context.Context, before int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		const old = `SELECT id FROM webhook_events e WHERE e.created_at < $1
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 0) LIMIT 1000`
		if _, err := tx.exec(`DELETE FROM webhook_deliveries WHERE event_id IN (`+old+`)`, before); err != nil {
			return err
		}
		_, err := tx.exec(`DELETE FROM webhook_events WHERE id IN (`+old+`)`, before)
		return err
	})
}

// PendingDeliveries counts the deliveries not yet done, of every app: the outbox's depth.
func (db *DB) PendingDeliveries(ctx context.Context) (int64, error) {
	var n int64
	err := db.read(ctx).row(`SELECT COUNT(*) FROM webhook_deliveries WHERE state = 0`).Scan(&n)
	return n, mapErr(err)
}
