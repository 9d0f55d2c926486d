package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
)

// NewBus returns the event bus of this database's deployment: PostgreSQL's LISTEN/NOTIFY,
// which reaches every node on the same server with nothing more to run, or on SQLite (one
// node) the in-process bus.
func (db *DB) NewBus(log *slog.Logger) chat.Bus {
	if _, shared := db.eng.(*postgresEngine); !shared {
		return chat.NewLocalBus()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &pgBus{db: db, log: log, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		out: make(chan chat.Event, pgQueue), sent: make(chan struct{}), listening: make(chan struct{})}
	go b.listen()
	go b.send()
	// Events published before this node listens would not reach its own sockets: wait for
	// the first LISTEN (bounded, so a database that is down does not hold up the start).
	select {
	case <-b.listening:
	case <-time.After(10 * time.Second):
		log.Warn("real time: PostgreSQL listener not ready after 10s; starting anyway")
	}
	return b
}

// pgChannel is the notification channel every node listens on.
const pgChannel = "natter_events"

// pgMaxPayload keeps a notification under PostgreSQL's 8,000-byte limit; a larger event is
// stored in realtime_payloads and its notification carries the row's id.
const pgMaxPayload = 7900

// pgQueue bounds the events waiting to be notified; pgNotifyBatch those notified in one round
// trip.
const (
	pgQueue       = 8192
	pgNotifyBatch = 256
)

// pgBus is the PostgreSQL bus. PostgreSQL delivers notifications in the order their
// transactions committed, to every session listening; events published while a node's
// listening connection is down are lost to that node (its clients resync through the REST
// lists after they reconnect).
type pgBus struct {
	db     *DB
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the listener stops
	out    chan chat.Event
	sent   chan struct{} // closed when the sender stops

	listening chan struct{} // closed once the first LISTEN is in place
	once      sync.Once

	mu sync.Mutex
	fn func(chat.Event)
}

// Publish queues e for the sender loop, which notifies every node; it waits only while the
// queue is full.
func (b *pgBus) Publish(ctx context.Context, e chat.Event) error {
	select {
	case b.out <- e:
		return nil
	case <-b.ctx.Done():
		return errors.New("bus closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send notifies the queued events in batches: one round trip for as many events as queued
// meanwhile (in queue order: unnest keeps the array's), so a busy node does not pay a round
// trip per event. PostgreSQL folds identical notifications of one transaction into one;
// only frames without ids (two identical typing indicators) can be identical.
func (b *pgBus) send() {
	defer close(b.sent)
	batch := make([]string, 0, pgNotifyBatch)
	for {
		var e chat.Event
		select {
		case e = <-b.out:
		case <-b.ctx.Done():
			return
		}
		batch = append(batch[:0], b.payload(e))
	more:
		for len(batch) < pgNotifyBatch {
			select {
			case e = <-b.out:
				batch = append(batch, b.payload(e))
			default:
				break more
			}
		}
		batch = slices.DeleteFunc(batch, func(p string) bool { return p == "" })
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		_, err := b.db.w.ExecContext(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, pgChannel, batch)
		cancel()
		if err != nil {
			b.log.Warn("real time: notify failed; events lost to sockets", "events", len(batch), "err", err)
		}
	}
}

// payload is e as a notification, or a reference to it when it is too large for one; ""
// when it cannot be sent.
func (b *pgBus) payload(e chat.Event) string {
	p, err := json.Marshal(e)
	if err != nil {
		return ""
	}
	if len(p) <= pgMaxPayload {
		return string(p)
	}
	var id int64
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if err := b.db.w.QueryRowContext(ctx, `INSERT INTO realtime_payloads (body, created_at) VALUES ($1, $2) RETURNING id`,
		string(p), time.Now().Unix()).Scan(&id); err != nil {
		b.log.Warn("real time: store large payload", "err", err)
		return ""
	}
	return `{"ref":` + strconv.FormatInt(id, 10) + `}`
}

// Subscribe sets the delivery function.
func (b *pgBus) Subscribe(fn func(chat.Event)) {
	b.mu.Lock()
	b.fn = fn
	b.mu.Unlock()
}

// Close sends what is queued, then stops.
func (b *pgBus) Close() error {
	for deadline := time.Now().Add(2 * time.Second); len(b.out) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	b.cancel()
	<-b.done
	<-b.sent
	return nil
}

// listen holds the listening connection, reconnecting after a failure.
func (b *pgBus) listen() {
	defer close(b.done)
	wait := 100 * time.Millisecond
	for b.ctx.Err() == nil {
		began := time.Now()
		err := b.session()
		if time.Since(began) > stableSession { // it held: this loss is a first, not a repeat
			wait = 100 * time.Millisecond
		}
		if b.ctx.Err() != nil {
			return
		}
		b.log.Warn("real time: PostgreSQL listener lost; reconnecting", "err", err, "in", wait)
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// session listens on one connection until it fails, and drops old large payloads now and
// then.
func (b *pgBus) session() error {
	cctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	conn, err := pgx.Connect(cctx, b.db.url)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(b.ctx, "LISTEN "+pgChannel); err != nil {
		return err
	}
	b.once.Do(func() { close(b.listening) })
	lastSweep := time.Now()
	for {
		wctx, cancel := context.WithTimeout(b.ctx, time.Minute)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			b.handle(n.Payload)
		case errors.Is(err, context.DeadlineExceeded) && b.ctx.Err() == nil:
			// Quiet for a minute: check the connection is alive.
			if err := conn.Ping(b.ctx); err != nil {
				return err
			}
		default:
			return err
		}
		if time.Since(lastSweep) > time.Minute {
			lastSweep = time.Now()
			if _, err := b.db.w.ExecContext(b.ctx, `DELETE FROM realtime_payloads WHERE created_at < $1`, time.Now().Add(-time.Minute).Unix()); err != nil {
				b.log.Warn("real time: drop old payloads", "err", err)
			}
		}
	}
}

func (b *pgBus) handle(payload string) {
	var ref struct {
		Ref int64 `json:"ref"`
	}
	raw := []byte(payload)
	if strings.HasPrefix(payload, `{"ref":`) && json.Unmarshal(raw, &ref) == nil && ref.Ref != 0 {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		var body string
		err := b.db.r.QueryRowContext(ctx, `SELECT body FROM realtime_payloads WHERE id = $1`, ref.Ref).Scan(&body)
		cancel()
		if err != nil {
			b.log.Warn("real time: read large payload", "id", ref.Ref, "err", err)
			return
		}
		raw = []byte(body)
	}
	var e chat.Event
	if err := json.Unmarshal(raw, &e); err != nil {
		b.log.Warn("real time: bad notification", "err", err)
		return
	}
	b.mu.Lock()
	fn := b.fn
	b.mu.Unlock()
	if fn != nil {
		fn(e)
	}
}
