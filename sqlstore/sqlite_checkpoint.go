package sqlstore

import (
	"context"
	"database/sql"
	"log/slog"
	"sync/atomic"
	"time"
)

// SQLite copies committed WAL frames back into the database file at checkpoints, and with
// synchronous=NORMAL a checkpoint fsyncs the WAL before and the file after. Left to itself
// it checkpoints on the committing connection — here the single writer — every thousand
// pages: on this kind of disk some ten milliseconds, every few hundred reactions, while
// every write waits.
//
// The writer never checkpoints on its own (wal_autocheckpoint(0) in its DSN). This goroutine
// checkpoints in PASSIVE mode on a connection of its own: it copies and fsyncs what no
// reader still needs without ever blocking the writer. One thing only the writer can do:
// start the WAL over from the top, which it does when it begins a transaction and finds
// every frame copied back. Under steady writes that never happens by itself, since frames
// keep arriving while the copy runs; so once the WAL has grown past restartFrames the
// writer, between two batches, checkpoints the few frames committed since (flushTail).
type checkpointer struct {
	conn, writer *sql.DB
	every        time.Duration
	wantFlush    atomic.Bool
	stop, done   chan struct{}
}

const (
	// checkpointEvery paces the background copy. A page written many times between two
	// passes is copied once, so longer is cheaper: at 100 ms the copy took ~8% of a CPU under
	// the add-reaction benchmark, at 500 ms half that; 250 ms keeps the WAL near
	// restartFrames under that load.
	checkpointEvery = 250 * time.Millisecond
	// restartFrames is the WAL size (pages) past which the writer lets it start over: 64 MB
	// with 4 KB pages. Each restart pauses the writer for two fsyncs (a few milliseconds on
	// a virtual disk), so it should be rare: under the add-reaction benchmark's sustained
	// writes, two or three times a second; with any pause in the writes the background copy
	// catches up and the WAL restarts by itself.
	restartFrames = 16384
)

func newCheckpointer(conn, writer *sql.DB, every time.Duration) *checkpointer {
	c := &checkpointer{conn: conn, writer: writer, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

func (c *checkpointer) loop() {
	defer close(c.done)
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		frames, err := checkpoint(c.conn)
		if err == nil && frames >= restartFrames {
			// Catch up with what arrived during that copy, twice: each pass is shorter
			// than the one before, so the writer's own pass is left only a few pages.
			for i := 0; i < 2 && err == nil; i++ {
				_, err = checkpoint(c.conn)
			}
			c.wantFlush.Store(err == nil)
		}
		if err != nil {
			slog.Warn("sqlite checkpoint failed", "err", err)
		}
	}
}

// flushTail runs on the writer between batches: when the WAL has grown long, it checkpoints
// what the background copy has not yet reached, so that the next transaction restarts the
// WAL. Only the tail is left to copy, but its two fsyncs pause the writer for 3–7 ms on
// this project's virtual disk.
func (c *checkpointer) flushTail() {
	if !c.wantFlush.CompareAndSwap(true, false) {
		return
	}
	if _, err := checkpoint(c.writer); err != nil {
		slog.Warn("sqlite checkpoint failed", "err", err)
	}
}

// checkpoint runs a PASSIVE checkpoint on db and returns the WAL's length in frames.
func checkpoint(db *sql.DB) (frames int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var busy, copied int
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err
}

// close stops the loop; closing the last connection then checkpoints whatever is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.conn.Close()
}
