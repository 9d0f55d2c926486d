package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// Leased queues: tables of work that the workers of every node take by leasing rows. A
// row's lease_until and leased_by say until when and by which node it is held, and its
// attempts count the leases taken; a worker finishes a row while it holds it (leased_by)
// and a lease that ends unfinished frees the row for any node. The notification events and
// sends and the agent jobs are claimed by claim; the webhook deliveries, whose claim keeps
// each lane in order and caps what a webhook and an app hold at once, by statements of
// their own (webhookdeliveries.go), which lease a row the same way (leaseSet).

// leaseSet leases a row until $2 to node $3, counting an attempt.
const leaseSet = `lease_until = $2, leased_by = $3, attempts = attempts + 1`

// queue is a leased queue's claim statement, as each kind of database runs it: $1 now, $2
// the lease's end, $3 the node, $4 how many rows at most.
type queue struct{ serial, concurrent string }

// newQueue is table's claim: the rows for which due holds ($1 now), first by order, up to
// $4 of them, leased and returned (returning, their columns). Where write transactions run
// at once (dialect.concurrentWrites), the claim passes over the rows another claim has
// locked (SKIP LOCKED), so that nodes claiming at once take different rows.
func newQueue(table, due, order, returning string) queue {
	q := func(skip string) string {
		return `UPDATE ` + table + ` SET ` + leaseSet + `
	WHERE id IN (SELECT id FROM ` + table + ` WHERE ` + due + ` ORDER BY ` + order + ` LIMIT $4` + skip + `)
	RETURNING ` + returning
	}
	return queue{serial: q(``), concurrent: q(` FOR UPDATE SKIP LOCKED`)}
}

// claim runs first, when not nil (the outcomes of a worker's last round), and then leases up
// to l.Limit of q's rows due at l.Now to l.Node until l.Until, in one transaction, and reads
// the rows leased with scan. A transaction that failed, at its COMMIT too, hands out no
// rows: their leases, and the attempts they counted, did not commit (ClaimDeliveries).
func claim[T any](ctx context.Context, db *DB, q queue, l chat.Lease, first func(tx *wtx) error, scan func(scanner) (T, error)) ([]T, error) {
	query := q.serial
	if db.dialect.concurrentWrites {
		query = q.concurrent
	}
	var out []T
	err := db.transact(ctx, func(tx *wtx) error {
		out = nil
		if first != nil {
			if err := first(tx); err != nil {
				return err
			}
		}
		if l.Limit <= 0 {
			return nil
		}
		var err error
		out, err = collect(tx.rows(query, l.Now, l.Until, l.Node, l.Limit), scan)
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}
