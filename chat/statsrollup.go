package chat

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// The roll-up: each node counts usage in memory and adds it to the database in batches
// (StatsStore.SaveUsage), every Config.StatsFlushInterval, when a stats request is answered,
// and when the service is closed. Counting costs a request a map update under a mutex and
// no database work; a batch is one short transaction per node every few seconds whatever
// the traffic. Counts add (n = n + delta) and activity ORs, so any number of nodes saving
// into one PostgreSQL add up exactly; a batch is saved once even when a node retries one
// whose commit it did not hear back about. docs/metrics.md has the design.

// DefaultStatsFlushInterval is how often a node saves what it counted.
const DefaultStatsFlushInterval = 5 * time.Second

type rollup struct {
	now  func() time.Time
	node string // this process's name in usage_nodes

	mu     sync.Mutex
	counts map[countKey]*UsageCount // not yet in a batch
	active map[activeKey]*activeDay
	conns  map[string]*connGauge // by app

	flushMu  sync.Mutex // one batch at a time, in Seq order
	seq      int64
	inflight []UsageBatch // made, not yet known saved, in Seq order

	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

type countKey struct {
	app    string
	bucket int64
}

type activeKey struct {
	app, uid string
	day      int64
}

// activeDay is a user's day as this node knows it: the buckets already put in a batch, and
// those counted since.
type activeDay struct {
	saved, pending [activeWords]uint64
	newDay         bool // none of this day is in a batch yet
}

// connGauge is an app's real-time connections on this node, per user, and the most users
// connected at once in the bucket under way.
type connGauge struct {
	users  map[string]int
	bucket int64
	peak   int64
}

func newRollup(now func() time.Time) *rollup {
	var b [8]byte
	rand.Read(b[:])
	return &rollup{now: now, node: hex.EncodeToString(b[:]),
		counts: map[countKey]*UsageCount{}, active: map[activeKey]*activeDay{}, conns: map[string]*connGauge{}}
}

// count adds to the bucket of at; the caller holds mu.
func (r *rollup) count(app string, at int64) *UsageCount {
	k := countKey{app, at - at%StatsBucket}
	c := r.counts[k]
	if c == nil {
		c = &UsageCount{AppID: app, Bucket: k.bucket}
		r.counts[k] = c
	}
	return c
}

// activeAt marks uid active in the bucket of at; the caller holds mu. A bucket already
// marked costs one map read.
func (r *rollup) activeAt(app, uid string, at int64) {
	day := at - at%86400
	k := (at - day) / StatsBucket
	bit := uint64(1) << (k % 64)
	key := activeKey{app, uid, day}
	d := r.active[key]
	if d == nil {
		d = &activeDay{newDay: true}
		r.active[key] = d
	}
	if (d.saved[k/64]|d.pending[k/64])&bit == 0 {
		d.pending[k/64] |= bit
	}
}

// message counts a message sent by sender.
func (r *rollup) message(app, sender string, at int64) {
	r.mu.Lock()
	r.count(app, at).Messages++
	r.activeAt(app, sender, at)
	r.mu.Unlock()
}

// receipt counts a read (or delivery) receipt sent by uid.
func (r *rollup) receipt(app, uid string, read bool, at int64) {
	r.mu.Lock()
	c := r.count(app, at)
	if read {
		c.ReadReceipts++
	} else {
		c.DeliveryReceipts++
	}
	r.activeAt(app, uid, at)
	r.mu.Unlock()
}

// refused counts a request refused over the app's rate limit.
func (r *rollup) refused(app string, at int64) {
	r.mu.Lock()
	r.count(app, at).RateLimited++
	r.mu.Unlock()
}

// acted marks uid active.
func (r *rollup) acted(app, uid string, at int64) {
	r.mu.Lock()
	r.activeAt(app, uid, at)
	r.mu.Unlock()
}

// roll closes the buckets of g before bucket: the one under way gets its peak, those
// since with no change the level that held through them. The caller holds mu.
func (r *rollup) roll(app string, g *connGauge, bucket int64) {
	if g.bucket >= bucket {
		return
	}
	if g.peak > 0 {
		r.count(app, g.bucket).Concurrent += g.peak
	}
	if level := int64(len(g.users)); level > 0 {
		for b := g.bucket + StatsBucket; b < bucket; b += StatsBucket {
			r.count(app, b).Concurrent += level
		}
	}
	g.bucket, g.peak = bucket, int64(len(g.users))
}

// connect records a connection of uid, and returns what records its end.
func (r *rollup) connect(app, uid string) func() {
	r.mu.Lock()
	now := r.now().Unix()
	bucket := now - now%StatsBucket
	g := r.conns[app]
	if g == nil {
		g = &connGauge{users: map[string]int{}, bucket: bucket}
		r.conns[app] = g
	}
	r.roll(app, g, bucket)
	g.users[uid]++
	g.peak = max(g.peak, int64(len(g.users)))
	r.activeAt(app, uid, now)
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			now := r.now().Unix()
			r.roll(app, g, now-now%StatsBucket)
			if g.users[uid]--; g.users[uid] <= 0 {
				delete(g.users, uid)
			}
		})
	}
}

// take moves what was counted into a batch, and reports app's peak of connected users in
// the bucket under way, which stays with the node until the bucket ends. final also closes
// the bucket under way, for a node that is stopping.
func (r *rollup) take(final bool, app string) (b UsageBatch, live liveUsers) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now().Unix()
	bucket := now - now%StatsBucket
	live.bucket = bucket
	if final {
		bucket += StatsBucket
	}
	for a, g := range r.conns {
		r.roll(a, g, bucket)
		if final {
			g.peak = 0 // saved: a node that goes on counting starts the bucket afresh
		}
		if a == app {
			live.peak = g.peak
		}
	}
	b.At = now
	for _, c := range r.counts {
		b.Counts = append(b.Counts, *c)
	}
	clear(r.counts)
	today := now - now%86400
	for k, d := range r.active {
		if d.pending != ([activeWords]uint64{}) {
			month := monthFloor(k.day)
			b.Active = append(b.Active, UsageActive{AppID: k.app, UID: k.uid, Day: k.day, Month: month,
				Bits: signed(d.pending), NewDay: d.newDay, MonthDay: 1 << ((k.day - month) / 86400)})
			for i := range d.saved {
				d.saved[i] |= d.pending[i]
			}
			d.pending, d.newDay = [activeWords]uint64{}, false
		}
		if k.day < today-86400 { // a day past is not counted in again
			delete(r.active, k)
		}
	}
	// One order on every node, so that two batches' row locks never wait on each other in
	// a cycle.
	slices.SortFunc(b.Counts, func(x, y UsageCount) int {
		return cmp.Or(cmp.Compare(x.AppID, y.AppID), cmp.Compare(x.Bucket, y.Bucket))
	})
	slices.SortFunc(b.Active, func(x, y UsageActive) int {
		return cmp.Or(cmp.Compare(x.AppID, y.AppID), cmp.Compare(x.Day, y.Day), cmp.Compare(x.UID, y.UID))
	})
	return b, live
}

// liveUsers is an app's peak of connected users on this node in the bucket under way.
type liveUsers struct{ bucket, peak int64 }

// maxBatchRows bounds the rows of one batch, so that saving what a busy node counted in a
// bucket's first seconds (a row per user active) never holds SQLite's single writer, or
// PostgreSQL's row locks, for long: a larger take is saved as several batches in a row.
const maxBatchRows = 256

// flush saves the batches made and not yet saved, if a save of them failed, then what was
// counted since; it reports app's live peak as of the last take.
func (r *rollup) flush(ctx context.Context, store StatsStore, final bool, app string) (live liveUsers, err error) {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	for range 2 {
		if len(r.inflight) == 0 {
			var b UsageBatch
			b, live = r.take(final, app)
			if b.empty() {
				return live, nil
			}
			r.inflight = r.split(b)
		}
		for len(r.inflight) > 0 {
			if err := store.SaveUsage(ctx, r.inflight[0]); err != nil {
				return live, err
			}
			r.inflight = r.inflight[1:]
		}
	}
	return live, nil
}

// split cuts a take into batches of at most maxBatchRows rows, numbered in order; the rows
// stay in their order, so every batch locks its rows in the one order too.
func (r *rollup) split(b UsageBatch) []UsageBatch {
	var out []UsageBatch
	for len(b.Counts)+len(b.Active) > 0 {
		part := UsageBatch{At: b.At}
		n := min(len(b.Counts), maxBatchRows)
		part.Counts, b.Counts = b.Counts[:n], b.Counts[n:]
		m := min(len(b.Active), maxBatchRows-n)
		part.Active, b.Active = b.Active[:m], b.Active[m:]
		r.seq++
		part.Node, part.Seq = r.node, r.seq
		out = append(out, part)
	}
	return out
}

// run saves every interval until close.
func (r *rollup) run(store StatsStore, every time.Duration) {
	defer close(r.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if _, err := r.flush(ctx, store, false, ""); err != nil {
				// Kept, and saved on a later tick: nothing is lost while the process runs.
				slog.Warn("usage metrics: saving what this node counted failed; will retry", "err", err)
			}
			cancel()
		}
	}
}

// SocketConnected is the hook for the real-time socket hub: call it when a user's
// connection to this node opens, and call the function it returns, once, when that
// connection closes. Concurrent users (GET /stats) are the most users connected at once
// in each 5-minute bucket, summed over nodes; a user with several connections to one node
// counts once.
func (s Usage) SocketConnected(appID, uid string) (closed func()) {
	return s.rollup.connect(appID, uid)
}

// Acted records that a request made on a user's behalf (onBehalfOf, or the user's auth
// token) succeeded: that user is active in the bucket under way (GET /stats'
// active_users). httpapi calls it for the operations a user makes.
func (s Usage) Acted(p Principal) {
	if p.Actor != "" {
		s.rollup.acted(p.App.ID, p.Actor, s.now())
	}
}

// FlushUsage saves what this node counted and has not saved yet.
func (s Usage) FlushUsage(ctx context.Context) error {
	_, err := s.rollup.flush(ctx, s.store, false, "")
	return err
}

// Close stops the roll-up's timer and saves everything this node counted, the bucket under
// way included. Call it once the HTTP server has drained; counting after it still works, but
// only a FlushUsage saves it.
func (s *Service) Close(ctx context.Context) error {
	s.rollup.once.Do(func() {
		if s.rollup.stop != nil {
			close(s.rollup.stop)
			<-s.rollup.stopped
		}
	})
	_, err := s.rollup.flush(ctx, s.store, true, "")
	return err
}
