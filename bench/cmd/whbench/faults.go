package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/bench/internal/natterproc"
	"github.com/natter-chat/natter/internal/pgserver"
)

// The fault phases (-faults, PostgreSQL only) check the outbox's promise
// (docs/webhooks.md, "How it works") under two faults: every event whose change was
// answered 200 arrives, at least once (a repeat carries the same event id), and each
// conversation's events first arrive in order. Each phase runs two natter nodes on one
// PostgreSQL, senders on both, -duration/2 before the fault and -duration/2 after it:
//
//   - kill: node 2 gets SIGKILL (no graceful stop) and its senders move to node 1. Its
//     leases end 2×webhook timeout + 5 s after it took them; node 1 then takes its
//     deliveries over, and the receiver may see the attempts node 2 made but did not record.
//   - restart: PostgreSQL stops (fast shutdown: clients disconnected, transactions rolled
//     back) and starts again faultDown later, on the same data and port. Sends fail while it
//     is down (errors: not expected to arrive) and must succeed again once it is back, with
//     the same natter processes.
//
// The nodes run with a short webhook timeout and retry delay (faultEnv), so that a dead
// node's leases and an attempt that failed during the outage cost seconds, not minutes.

const (
	faultTimeout   = 2 * time.Second                // NATTER_WEBHOOK_TIMEOUT
	faultRetryBase = 250 * time.Millisecond         // NATTER_WEBHOOK_RETRY_BASE
	faultLease     = 2*faultTimeout + 5*time.Second // webhook.Deliverer's lease for that timeout
	faultDown      = 2 * time.Second                // how long PostgreSQL stays down
	faultWait      = faultLease + 30*time.Second    // bounds the wait for the last event after the load
	faultQuiet     = time.Second                    // no arrival for this long: the repeats are in
	faultNodes     = 2                              // natter processes in each phase
	faultPause     = 20 * time.Millisecond          // a sender's pause after an error, so an outage is not a busy loop
	faultWarmup    = 15 * time.Second               // bounds the wait for each node's first event
)

// faultEnv is the nodes' settings besides whbench's own.
var faultEnv = []string{"NATTER_WEBHOOK_TIMEOUT=" + faultTimeout.String(), "NATTER_WEBHOOK_RETRY_BASE=" + faultRetryBase.String()}

// faults runs both fault phases on a throwaway PostgreSQL of their own.
func faults(ctx context.Context, o options, tmp string) error {
	pg, err := o.startPostgres()
	if err != nil {
		return fmt.Errorf("faults: start PostgreSQL: %w", err)
	}
	defer pg.Close()
	if o.pgLog != "" {
		defer copyFile(pg.LogPath(), o.pgLog+".faults")
	}
	fmt.Printf("faults: %d nodes on one PostgreSQL, %d senders for %v over %d conversations (a reaction after every %d-th send), the fault midway; natter with %s\n",
		faultNodes, o.conns, o.duration, o.convs, o.reactEvery, strings.Join(faultEnv, " "))
	if err := faultPhase(ctx, o, pg, tmp, "kill"); err != nil {
		return err
	}
	return faultPhase(ctx, o, pg, tmp, "restart")
}

// faultPhase runs one phase ("kill" or "restart") on a database of its own and reports it;
// it fails if an event whose change was answered 200 never arrived.
func faultPhase(ctx context.Context, o options, pg *pgserver.Server, tmp, kind string) error {
	db, err := pg.CreateDatabase(ctx, "fault"+kind)
	if err != nil {
		return err
	}
	rc, err := newFaultReceiver()
	if err != nil {
		return err
	}
	defer rc.close()
	var ns []*node
	var logs []string
	defer func() {
		for _, n := range ns {
			n.stop()
		}
	}()
	env := slices.Concat(o.env, faultEnv)
	for i := range faultNodes {
		logs = append(logs, filepath.Join(tmp, fmt.Sprintf("fault-%s-node%d.log", kind, i+1)))
		n, err := startLoggedNode(ctx, o.bin, tmp, db, env, logs[i])
		if err != nil {
			return err
		}
		ns = append(ns, n)
	}
	if err := seedUsers(ctx, ns[0], 2*o.convs); err != nil {
		return err
	}
	hooks := map[string][]string{"messages": {"message_sent"}}
	if o.reactEvery > 0 {
		hooks["reactions"] = []string{"message_reaction_added", "message_reaction_removed"}
	}
	for path, triggers := range hooks {
		if err := ns[0].call(ctx, "POST", "/webhooks", "", map[string]any{"webhookURL": rc.url + path, "triggers": triggers}, nil); err != nil {
			return err
		}
	}
	// A first event from each node: both know the webhooks before the load starts.
	var warm []string
	for i, n := range ns {
		id, _, err := n.send(ctx, i%o.convs)
		if err != nil {
			return fmt.Errorf("%s: warm-up send on node %d: %w", kind, i+1, err)
		}
		rc.sent(id, conversationID(i%o.convs))
		warm = append(warm, "messages/"+id)
	}
	if missing := rc.wait(ctx, warm, time.Now().Add(faultWarmup)); len(missing) > 0 {
		return fmt.Errorf("%s: warm-up events not delivered within %v: %v", kind, faultWarmup, missing)
	}

	ld := &faultLoad{rc: rc, o: o, ns: ns, acked: warm}
	var wg sync.WaitGroup
	defer ld.stop.Store(true)
	t0 := time.Now()
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ld.sender(ctx, w)
		}()
	}
	time.Sleep(o.duration / 2)
	ld.phase.Store(1)
	faultAt := time.Now()
	var detail string
	switch kind {
	case "kill":
		// SIGKILL: no drain, no last round; its leases stay until they end.
		if err := ns[1].Cmd.Process.Signal(syscall.SIGKILL); err != nil {
			return fmt.Errorf("kill node 2: %w", err)
		}
		ld.killed.Store(true)
		ns[1].Cmd.Wait()
		detail = fmt.Sprintf("node 2 killed (SIGKILL) at %.1f s, its senders then on node 1", faultAt.Sub(t0).Seconds())
	case "restart":
		if err := pg.Stop(); err != nil {
			return fmt.Errorf("stop PostgreSQL: %w", err)
		}
		stopped := time.Now()
		time.Sleep(faultDown)
		if err := pg.Start(); err != nil {
			return fmt.Errorf("start PostgreSQL again: %w", err)
		}
		detail = fmt.Sprintf("PostgreSQL stopped at %.1f s (fast shutdown, %.1f s), down %.1f s, started again (%.1f s)",
			faultAt.Sub(t0).Seconds(), stopped.Sub(faultAt).Seconds(), faultDown.Seconds(), time.Since(stopped.Add(faultDown)).Seconds())
	}
	back := time.Now()
	ld.phase.Store(2)
	relisten := make(chan string, 1)
	if kind == "restart" {
		go func() { relisten <- waitListeners(ctx, db, back, faultWait) }()
	}
	time.Sleep(o.duration / 2)
	ld.stop.Store(true) // the sends in flight finish: their answers count
	wg.Wait()
	loadEnd := time.Now()

	// Every event answered 200 arrives; bounded by a dead node's lease and then some.
	acked := ld.ackedKeys()
	missing := rc.wait(ctx, acked, time.Now().Add(faultWait))
	// Repeats of attempts a dead node made come when its leases end; wait for them too.
	rc.quiet(ctx, faultQuiet, faultAt.Add(faultLease), time.Now().Add(faultWait))
	st := rc.stats(acked)
	name := "PostgreSQL, " + map[string]string{"kill": "kill -9 of one of 2 nodes", "restart": "PostgreSQL restart under 2 nodes"}[kind]
	fmt.Printf("%s: %s; the load ran %.1f s\n", name, detail, loadEnd.Sub(t0).Seconds())
	fmt.Printf("  answered 200: %d messages, %d reactions (%d before the fault, %d during it, %d after; the first after %s ms); %s\n",
		ld.sent.Load(), ld.reacted.Load(), ld.ok[0].Load(), ld.ok[1].Load(), ld.ok[2].Load(), ms(ld.firstAfter(back)), ld.errors())
	fmt.Printf("  delivered %d of %d events answered 200, missing %d; %d repeats (an event id again), %d changes with two event ids, %d order violations (first arrivals per conversation); %d more for changes answered with an error (they had committed)\n",
		len(acked)-len(missing), len(acked), len(missing), st.repeats, st.twins, st.order, st.unacked)
	fmt.Printf("  the last first arrival %.1f s after the fault began (%.1f s after the load stopped); %s\n",
		st.lastFirst.Sub(faultAt).Seconds(), st.lastFirst.Sub(loadEnd).Seconds(), warnSummary(logs))
	if kind == "restart" {
		l := <-relisten
		fmt.Printf("  %s\n", l)
		if strings.HasPrefix(l, "not") {
			return fmt.Errorf("%s: %s", name, l)
		}
	}
	if len(missing) > 0 {
		for _, l := range logs {
			fmt.Printf("  tail of %s:\n%s", filepath.Base(l), tailFile(l, 20))
		}
		return fmt.Errorf("%s: %d events answered 200 never arrived (e.g. %v)", name, len(missing), missing[:min(5, len(missing))])
	}
	if ld.ok[2].Load() == 0 {
		return fmt.Errorf("%s: no send succeeded after the fault", name)
	}
	return nil
}

// waitListeners waits until every node's change-log and real-time listeners are back on
// db: PostgreSQL sessions whose last statement was their LISTEN (the change log's carry
// their node's application_name too).
func waitListeners(ctx context.Context, db string, since time.Time, within time.Duration) string {
	var got string
	for deadline := time.Now().Add(within); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(100 * time.Millisecond) {
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			got = err.Error()
			continue
		}
		var changes, events int
		err = conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE query = 'LISTEN natter_changes' AND application_name LIKE 'natter-changes-%'),
			count(*) FILTER (WHERE query = 'LISTEN natter_events')
			FROM pg_stat_activity WHERE datname = current_database()`).Scan(&changes, &events)
		conn.Close(ctx)
		if err != nil {
			got = err.Error()
			continue
		}
		got = fmt.Sprintf("change-log listeners %d, real-time listeners %d of %d nodes", changes, events, faultNodes)
		if changes == faultNodes && events == faultNodes {
			return fmt.Sprintf("%s back %.1f s after PostgreSQL was", got, time.Since(since).Seconds())
		}
	}
	return fmt.Sprintf("not every listener came back within %v: %s", within, got)
}

// startLoggedNode is startNode with natter's log written to file.
func startLoggedNode(ctx context.Context, bin, tmp, db string, env []string, file string) (*node, error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	key := "whbench-key-0123456789abcdef"
	p, err := natterproc.Start(ctx, natterproc.Spec{Bin: bin, Dir: tmp, DB: db, Key: key, AppID: "wh",
		Args: []string{"--webhook-allow-private"}, Env: env, OwnEnv: true, Log: f})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &node{Proc: p, base: p.Base, key: key,
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}}, nil
}

// seedUsers creates users u0 … u(count-1), 16 at a time.
func seedUsers(ctx context.Context, n *node, count int) error {
	errs := make(chan error, count)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range count {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := n.call(ctx, "POST", "/users", "", map[string]any{"uid": uid(i), "name": uid(i)}, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// faultLoad is a phase's senders and what natter answered them.
type faultLoad struct {
	rc     *faultReceiver
	o      options
	ns     []*node
	killed atomic.Bool  // node 2 is dead: every sender uses node 1
	stop   atomic.Bool  // the load is over
	phase  atomic.Int32 // 0 before the fault, 1 during it, 2 after

	sent, reacted atomic.Int64
	ok            [3]atomic.Int64 // changes answered 200 in each phase

	mu    sync.Mutex
	acked []string       // receiver keys of the events whose changes were answered 200
	after []time.Time    // when the sends after the fault were answered
	errs  map[string]int // failed changes by answer: "503", "500", "no answer"
}

// sender sends conversation after conversation until the load is over, on node w%2 (node
// 1 once node 2 is dead), each reactEvery-th message followed by a reaction to it. A
// failure is counted and the loop goes on after a pause.
func (l *faultLoad) sender(ctx context.Context, w int) {
	for i := w; !l.stop.Load() && ctx.Err() == nil; i += l.o.conns {
		nd := l.ns[w%len(l.ns)]
		if l.killed.Load() {
			nd = l.ns[0]
		}
		c := i % l.o.convs
		id, _, err := nd.send(ctx, c)
		if err == nil {
			l.rc.sent(id, conversationID(c))
			l.answered("messages/" + id)
			l.sent.Add(1)
			if l.o.reactEvery > 0 && i/l.o.conns%l.o.reactEvery == 0 {
				if err = nd.react(ctx, c, id); err == nil {
					l.answered("reactions/" + id)
					l.reacted.Add(1)
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			l.failed(err)
			select {
			case <-ctx.Done():
			case <-time.After(faultPause):
			}
		}
	}
}

func (l *faultLoad) answered(key string) {
	p := l.phase.Load()
	l.ok[p].Add(1)
	l.mu.Lock()
	l.acked = append(l.acked, key)
	if p == 2 {
		l.after = append(l.after, time.Now())
	}
	l.mu.Unlock()
}

var statusIn = regexp.MustCompile(`^(?:GET|POST|PUT|DELETE) \S+: (\d{3}) `) // node.call's errors

// failed counts a change that failed, by natter's answer: a 503 says "retry", a 500 is a
// bug's answer.
func (l *faultLoad) failed(err error) {
	k := "no answer"
	if m := statusIn.FindStringSubmatch(err.Error()); m != nil {
		k = m[1]
	}
	l.mu.Lock()
	if l.errs == nil {
		l.errs = map[string]int{}
	}
	l.errs[k]++
	l.mu.Unlock()
}

// errors describes the failed changes.
func (l *faultLoad) errors() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l.errs)) {
		n += l.errs[k]
		parts = append(parts, fmt.Sprintf("%s ×%d", k, l.errs[k]))
	}
	if n == 0 {
		return "no change failed"
	}
	return fmt.Sprintf("%d changes failed (%s; not expected to arrive)", n, strings.Join(parts, ", "))
}

func (l *faultLoad) ackedKeys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// firstAfter is how long after from the first change after the fault was answered.
func (l *faultLoad) firstAfter(from time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.after) == 0 {
		return 0
	}
	return slices.MinFunc(l.after, func(a, b time.Time) int { return a.Compare(b) }).Sub(from)
}

// faultReceiver is the phases' webhook endpoints (/hook/messages, /hook/reactions). It
// de-duplicates by event id first: a repeat (an event id seen again on the endpoint) is
// counted, and order is checked on first arrivals only, per endpoint and conversation.
// An event is known by what it reports, "messages/<message id>" or "reactions/<message
// id>" (the load reacts to a message at most once), so the senders can name the events
// they expect.
type faultReceiver struct {
	srv *http.Server
	url string

	mu        sync.Mutex
	first     map[string]time.Time // event key → first arrival
	events    map[string]int64     // event key → its event id
	seen      map[string]bool      // endpoint/event id
	last      map[string]int64     // endpoint/conversation → the latest event id first arrived
	convs     map[string]string    // message id → conversation (reactions' data has none)
	repeats   int
	twins     int // another event id for a change already arrived: a duplicate the id cannot drop
	order     int
	lastFirst time.Time
	lastAny   time.Time
}

func newFaultReceiver() (*faultReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &faultReceiver{url: "http://" + ln.Addr().String() + "/hook/", first: map[string]time.Time{},
		events: map[string]int64{}, seen: map[string]bool{}, last: map[string]int64{}, convs: map[string]string{}}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 10 * time.Second}
	go rc.srv.Serve(ln)
	return rc, nil
}

func (rc *faultReceiver) close() { rc.srv.Close() }

func (rc *faultReceiver) sent(id, conv string) {
	rc.mu.Lock()
	rc.convs[id] = conv
	rc.mu.Unlock()
}

func (rc *faultReceiver) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var env struct {
		Data struct {
			Message  struct{ ID, ConversationID string }
			Reaction struct{ MessageID json.Number }
		}
	}
	ev, err := strconv.ParseInt(strings.TrimPrefix(r.Header.Get("X-Natter-Event-Id"), "evt_"), 10, 64)
	if json.Unmarshal(body, &env) != nil || err != nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	hook := strings.TrimPrefix(r.URL.Path, "/hook/")
	mid, conv := env.Data.Message.ID, env.Data.Message.ConversationID
	if mid == "" {
		mid = env.Data.Reaction.MessageID.String()
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.lastAny = now
	if conv == "" {
		conv = rc.convs[mid]
	}
	id := hook + "/" + strconv.FormatInt(ev, 10)
	if rc.seen[id] {
		rc.repeats++
		w.WriteHeader(http.StatusNoContent)
		return
	}
	rc.seen[id] = true
	key := hook + "/" + mid
	if _, ok := rc.first[key]; ok {
		rc.twins++
	} else {
		rc.first[key], rc.events[key] = now, ev
		rc.lastFirst = now
	}
	if conv != "" {
		lane := hook + "/" + conv
		if ev < rc.last[lane] {
			rc.order++
		}
		rc.last[lane] = max(rc.last[lane], ev)
	}
	w.WriteHeader(http.StatusNoContent)
}

// wait waits until every key has arrived, or until deadline; it returns those that have not.
func (rc *faultReceiver) wait(ctx context.Context, keys []string, deadline time.Time) []string {
	for {
		rc.mu.Lock()
		var missing []string
		for _, k := range keys {
			if _, ok := rc.first[k]; !ok {
				missing = append(missing, k)
			}
		}
		rc.mu.Unlock()
		if len(missing) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return missing
		}
		keys = missing
		time.Sleep(10 * time.Millisecond)
	}
}

// quiet waits until nothing has arrived for d, and it is past from, or until deadline.
func (rc *faultReceiver) quiet(ctx context.Context, d time.Duration, from, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		rc.mu.Lock()
		last := rc.lastAny
		rc.mu.Unlock()
		if time.Now().After(from) && time.Since(last) >= d {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type faultStats struct {
	repeats, twins, order, unacked int
	lastFirst                      time.Time
}

// stats is what arrived; unacked counts the events of changes not in acked (a send that
// failed but had committed, or lost its answer).
func (rc *faultReceiver) stats(acked []string) faultStats {
	want := map[string]bool{}
	for _, k := range acked {
		want[k] = true
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := faultStats{repeats: rc.repeats, twins: rc.twins, order: rc.order, lastFirst: rc.lastFirst}
	for k := range rc.first {
		if !want[k] {
			s.unacked++
		}
	}
	return s
}

var logMsg = regexp.MustCompile(`level=(WARN|ERROR) msg="([^"]*)"`)

// warnSummary counts the nodes' warnings and errors by message.
func warnSummary(files []string) string {
	counts := map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if m := logMsg.FindStringSubmatch(sc.Text()); m != nil {
				counts[m[1]+" "+m[2]]++
			}
		}
		fh.Close()
	}
	if len(counts) == 0 {
		return "the nodes logged no warning"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, counts[k]))
	}
	return "the nodes logged: " + strings.Join(parts, "; ")
}

// tailFile is the last n lines of file, indented.
func tailFile(file string, n int) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return "    (" + err.Error() + ")\n"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
