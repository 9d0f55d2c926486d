package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/natter-chat/natter/chat"
)

// HubOptions configures real time (socket.go). Zero values pick the defaults.
type HubOptions struct {
	MaxConns     int           // open sockets per node; default 20,000
	QueueLen     int           // frames waiting per socket before it is dropped; default 256
	WriteTimeout time.Duration // per frame; default 10 s
	AuthTimeout  time.Duration // from connect to the auth frame; default 10 s
	IdleTimeout  time.Duration // without a frame from the client (it pings every 15 s); default 45 s
	// FramesPerSecond and FrameBurst bound what a client sends (pings, typing, receipts).
	FramesPerSecond float64 // default 10
	FrameBurst      int     // default 40
	// PresenceTTL is how long a node's hold on a user's presence lasts without renewal; it
	// renews every third of it. Default 60 s.
	PresenceTTL time.Duration
}

func (o *HubOptions) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 20000
	}
	if o.QueueLen <= 0 {
		o.QueueLen = 256
	}
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.AuthTimeout, 10*time.Second)
	def(&o.IdleTimeout, 45*time.Second)
	def(&o.PresenceTTL, 60*time.Second)
	if o.FramesPerSecond <= 0 {
		o.FramesPerSecond = 10
	}
	if o.FrameBurst <= 0 {
		o.FrameBurst = 40
	}
}

// Hub holds this node's sockets and hands them the bus's events: every node's hub sees every
// event and delivers it to the connections it holds.
type Hub struct {
	svc  *chat.Service
	bus  chat.Bus
	opt  HubOptions
	log  *slog.Logger
	node string // this process's id in the presence table

	mu     sync.RWMutex
	apps   map[string]map[string]map[*socket]struct{} // app → uid → sockets
	closed bool                                       // no new sockets
	open   atomic.Int64

	stop    chan struct{}
	feed    chan []chat.Change // the committed changes sockets show, for the relay (hubfeed.go)
	wg      sync.WaitGroup     // the presence loop and the relay
	sockets sync.WaitGroup     // every ServeHTTP, so Close returns after their last writes
}

// NewHub starts a hub over bus, hearing svc's committed changes.
func NewHub(svc *chat.Service, bus chat.Bus, opt HubOptions, log *slog.Logger) *Hub {
	opt.defaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	h := &Hub{svc: svc, bus: bus, opt: opt, log: log, node: hex.EncodeToString(id[:]),
		apps: map[string]map[string]map[*socket]struct{}{}, stop: make(chan struct{}), feed: make(chan []chat.Change, feedQueue)}
	bus.Subscribe(h.deliver)
	svc.Subscribe(h.changed)
	h.wg.Add(2)
	go h.presenceLoop()
	go h.relay()
	return h
}

// Open is how many sockets this node holds.
func (h *Hub) Open() int64 { return h.open.Load() }

// Close stops the presence loop and the relay of changes, and closes every socket; the
// users this node held go offline.
func (h *Hub) Close() {
	close(h.stop)
	h.wg.Wait()
	h.mu.Lock()
	h.closed = true
	all := h.held()
	h.mu.Unlock()
	for _, c := range all {
		c.shutdown(statusGoingAway, "server shutting down")
	}
	// Each socket's goroutine ends with its presence write: wait for them (bounded), so the
	// database is not closed under them.
	done := make(chan struct{})
	go func() { h.sockets.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(h.opt.WriteTimeout):
		h.log.Warn("real time: sockets still closing at shutdown")
	}
}

// held lists every socket of this node; the caller holds h.mu.
func (h *Hub) held() []*socket {
	var all []*socket
	for _, users := range h.apps {
		for _, set := range users {
			for c := range set {
				all = append(all, c)
			}
		}
	}
	return all
}

// Publish sends an event to every node. It does not wait for delivery, and a failure is only
// logged: sockets are a fast path, and a client that misses an event resyncs through the
// REST lists.
func (h *Hub) Publish(ctx context.Context, e chat.Event) {
	if h == nil {
		return
	}
	if err := h.bus.Publish(ctx, e); err != nil {
		h.log.Warn("real time: publish failed", "app", e.App, "err", err)
	}
}

// add registers a socket; it reports whether it is its user's first on this node, and
// whether the hub still takes sockets.
func (h *Hub) add(c *socket) (first, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false, false
	}
	users := h.apps[c.app]
	if users == nil {
		users = map[string]map[*socket]struct{}{}
		h.apps[c.app] = users
	}
	set := users[c.uid]
	first = set == nil
	if first {
		set = map[*socket]struct{}{}
		users[c.uid] = set
	}
	set[c] = struct{}{}
	return first, true
}

// remove unregisters a socket; it reports whether it was its user's last on this node.
func (h *Hub) remove(c *socket) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.apps[c.app][c.uid]
	if _, ok := set[c]; !ok {
		return false
	}
	delete(set, c)
	if len(set) > 0 {
		return false
	}
	delete(h.apps[c.app], c.uid)
	if len(h.apps[c.app]) == 0 {
		delete(h.apps, c.app)
	}
	return true
}

// deliver hands an event to the sockets of this node it is for. It runs on the bus's one
// delivery goroutine, so a socket gets events in the order the bus received them; it never
// waits on a socket (enqueue drops one that cannot keep up).
// askAbout is how many local users a node asks about by name when a group event comes:
// with more, it reads the group's members instead. A node holding a few sockets of an app
// then reads a few rows, not a 100 000-member group's.
const askAbout = 500

func (h *Hub) deliver(e chat.Event) {
	h.mu.RLock()
	n := len(h.apps[e.App])
	var among []string
	if e.Group != "" && n <= askAbout {
		among = make([]string, 0, n)
		for uid := range h.apps[e.App] {
			among = append(among, uid)
		}
	}
	h.mu.RUnlock()
	if n == 0 {
		return
	}
	var members []string
	if e.Group != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		members, err = h.svc.GroupMemberUIDs(ctx, e.App, e.Group, among)
		cancel()
		if err != nil {
			h.log.Warn("real time: group members", "app", e.App, "guid", e.Group, "err", err)
			return
		}
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	users := h.apps[e.App]
	frame := []byte(e.Frame)
	if e.Presence != nil {
		for uid, set := range users {
			if uid == e.Presence.UID {
				continue
			}
			for c := range set {
				if c.wantsPresence(e.Presence) {
					c.enqueue(frame)
				}
			}
		}
		return
	}
	var seen map[string]bool
	if len(e.Users) > 0 && len(members) > 0 {
		seen = make(map[string]bool, len(e.Users))
	}
	send := func(uid string) {
		if uid == e.Except || seen != nil && seen[uid] {
			return
		}
		if seen != nil {
			seen[uid] = true
		}
		for c := range users[uid] {
			c.enqueue(frame)
		}
	}
	for _, uid := range e.Users {
		send(uid)
	}
	for _, uid := range members {
		send(uid)
	}
}

// localUsers lists, by app, the users this node holds sockets of.
func (h *Hub) localUsers() map[string][]string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make(map[string][]string, len(h.apps))
	for app, users := range h.apps {
		for uid := range users {
			out[app] = append(out[app], uid)
		}
	}
	return out
}

// presenceLoop renews this node's holds on its users' presence and expires the holds of
// nodes that stopped renewing theirs.
func (h *Hub) presenceLoop() {
	defer h.wg.Done()
	rs := h.svc.Presence()
	t := time.NewTicker(h.opt.PresenceTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.opt.PresenceTTL/3)
		now := h.svc.Now()
		for app, uids := range h.localUsers() {
			online, err := rs.SetOnline(ctx, app, h.node, uids, now, now+int64(h.opt.PresenceTTL/time.Second))
			if err != nil {
				h.log.Warn("real time: renew presence", "app", app, "err", err)
				continue
			}
			h.announce(ctx, app, online, presenceOnline)
		}
		gone, err := rs.ExpirePresence(ctx, now)
		if err != nil {
			h.log.Warn("real time: expire presence", "err", err)
		}
		for app, uids := range gone {
			h.announce(ctx, app, uids, presenceOffline)
		}
		cancel()
	}
}
