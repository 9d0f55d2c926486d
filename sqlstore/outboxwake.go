package sqlstore

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Waking other nodes' webhook workers (PostgreSQL). A node wakes its own workers when a
// change it committed wrote deliveries; the other nodes' look at the outbox every 500 ms
// when idle. With OutboxWakes, a node that wrote deliveries also notifies the channel
// outboxChannel, and every other node's listener wakes its workers. The notice is sent after
// the changes commit, outside their transactions (a NOTIFY inside them would take
// PostgreSQL's notify queue lock in each of their commits), and coalesced: at most one per
// outboxNotifyEvery per node, however many changes committed meanwhile.
const (
	outboxChannel     = "natter_outbox"
	outboxNotifyEvery = 20 * time.Millisecond
)

// OutboxWakes listens, on PostgreSQL, for the other nodes' notices until ctx ends, calling
// wake for each, and returns what notifies the other nodes (it never blocks). On SQLite,
// one node, it returns nil.
func (db *DB) OutboxWakes(ctx context.Context, node string, wake func(), log *slog.Logger) (notify func()) {
	if _, shared := db.eng.(*postgresEngine); !shared {
		return nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	go db.listenOutbox(ctx, node, wake, log)
	poke := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-poke:
			}
			nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if _, err := db.w.ExecContext(nctx, `SELECT pg_notify($1, $2)`, outboxChannel, node); err != nil && ctx.Err() == nil {
				log.Warn("webhook: notify the other nodes", "err", err)
			}
			cancel()
			select { // what commits meanwhile goes in the next notice
			case <-ctx.Done():
				return
			case <-time.After(outboxNotifyEvery):
			}
		}
	}()
	return func() {
		select {
		case poke <- struct{}{}:
		default:
		}
	}
}

// listenOutbox holds the listening connection, reconnecting after a failure. Notices lost
// while it is down cost only the wait for the next poll.
func (db *DB) listenOutbox(ctx context.Context, node string, wake func(), log *slog.Logger) {
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := db.outboxSession(ctx, node, wake)
		if ctx.Err() != nil {
			return
		}
		log.Warn("webhook: outbox listener lost; reconnecting", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func (db *DB) outboxSession(ctx context.Context, node string, wake func()) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.Connect(cctx, db.url)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+outboxChannel); err != nil {
		return err
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if n.Payload != node {
				wake()
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
