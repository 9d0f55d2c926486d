// Command whbench measures natter's webhook delivery (docs/webhooks.md) on loopback, on
// SQLite and on a throwaway PostgreSQL with one or more natter nodes: how long an event
// takes from its commit (the send's 200 answer) to a fast local receiver; then, with
// senders as fast as natter answers (a reaction after every few sends), how many events
// were delivered while they sent and how long the rest took to drain, with duplicates and
// per-conversation order violations counted on each endpoint. One webhook subscribes to
// message_sent, a second to the reaction triggers. With -notify, the same for push
// notifications of one-to-one messages through an FCM provider whose endpoints are a local
// fake (notify.go). With -fairness, whether a slow and a failing webhook slow only
// themselves (fairness.go). As the machine's ceiling it first drives
// the same receiver with a plain Go HTTP client posting bodies of the same size, as many at
// a time as natter may send to one webhook. Every run is bounded: it stops by itself.
//
//	go build -o /tmp/natter ./cmd/natter && go run ./bench/cmd/whbench -natter /tmp/natter -nodes 1,2
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/natter-chat/natter/bench/internal/natterproc"
	"github.com/natter-chat/natter/internal/pgserver"
)

// perWebhook is how many attempts natter has in flight for one webhook with its default
// 64 workers (a quarter of them): the ceiling's concurrency.
const perWebhook = 16

type options struct {
	bin        string
	duration   time.Duration // the throughput phase's sending time
	conns      int           // concurrent senders in the throughput phase
	convs      int           // conversations the sends are spread over
	paced      int           // sends, one at a time, timed from commit to delivery
	pause      time.Duration // between paced sends
	backends   []string      // sqlite, postgres
	nodes      []int         // node counts to measure PostgreSQL with (SQLite: one node)
	reactEvery int           // every reactEvery-th send is followed by a reaction (0: none)
	env        []string      // NATTER_* settings added to natter's environment
	profile    string        // a directory for node 0's CPU profile of each throughput phase
	pgSet      []string      // postgresql.conf settings, name=value
	pgLog      string        // a file to copy PostgreSQL's log to
	notify     bool          // then the notification phase, through fcm
	faults     bool          // then the fault phases (faults.go)
	fairness   bool          // then the fairness phase: slow and failing webhooks beside fast ones (fairness.go)
	fcm        *fcmFake
}

// envFlag collects repeated -natter-env KEY=VALUE flags.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }

func (e *envFlag) Set(v string) error {
	if !strings.HasPrefix(v, "NATTER_") || !strings.Contains(v, "=") {
		return fmt.Errorf("want NATTER_NAME=value, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

func main() {
	var o options
	flag.StringVar(&o.bin, "natter", "", "the natter binary (required)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long the throughput phase sends, 1s to 60s")
	flag.IntVar(&o.conns, "conns", 16, "concurrent senders in the throughput phase, 1 to 256")
	flag.IntVar(&o.convs, "convs", 256, "conversations the sends are spread over (each is delivered in order), 1 to 5000")
	flag.IntVar(&o.paced, "paced", 200, "sends timed from commit to delivery, one at a time, 10 to 5000")
	flag.DurationVar(&o.pause, "pause", 20*time.Millisecond, "pause between the timed sends")
	backends := flag.String("backends", "sqlite,postgres", "the databases to measure, in order: sqlite, postgres or both")
	nodes := flag.String("nodes", "1", "comma-separated node counts to run PostgreSQL with (natter processes on one database); SQLite runs one")
	flag.IntVar(&o.reactEvery, "react-every", 4, "every n-th send is followed by a reaction to it, delivered to a second webhook on the reaction triggers; 0: no reactions")
	flag.StringVar(&o.profile, "cpuprofile", "", "a directory: write the first node's CPU profile of each throughput phase and its drain there")
	flag.BoolVar(&o.notify, "notify", false, "after the webhook phases, the notification phase: one-to-one messages pushed through an FCM provider whose endpoints are a local fake")
	flag.BoolVar(&o.faults, "faults", false, "at the end, the fault phases on a PostgreSQL of their own (2 nodes): kill -9 of one node mid-run, then a PostgreSQL restart mid-run; every event answered 200 must arrive")
	flag.BoolVar(&o.fairness, "fairness", false, "after the other phases, the fairness phase: an app with a fast, a slow (100 ms) and a failing (500) webhook and a second app with a fast one, against a baseline with the fast ones alone")
	flag.StringVar(&o.pgLog, "pg-log", "", "copy PostgreSQL's server log to this file at the end (with -pg-set for auto_explain)")
	var pgSet envFlag
	flag.Var((*pgFlag)(&pgSet), "pg-set", "a postgresql.conf setting name=value for the throwaway server, repeatable, e.g. shared_preload_libraries='auto_explain'")
	var env envFlag
	flag.Var(&env, "natter-env", "NATTER_NAME=value added to natter's environment, repeatable (e.g. NATTER_DEBUG_ADDR=127.0.0.1:6061 to profile)")
	flag.Parse()
	o.env, o.pgSet = env, pgSet
	for _, v := range strings.Split(*nodes, ",") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 8 {
			fmt.Fprintf(os.Stderr, "whbench: -nodes: want counts 1 to 8, got %q\n", v)
			os.Exit(2)
		}
		o.nodes = append(o.nodes, n)
	}
	o.backends = strings.Split(*backends, ",")
	for _, b := range o.backends {
		if b != "sqlite" && b != "postgres" {
			fmt.Fprintf(os.Stderr, "whbench: -backends: unknown %q\n", b)
			os.Exit(2)
		}
	}
	switch {
	case o.bin == "":
		fmt.Fprintln(os.Stderr, "whbench: -natter is required")
		os.Exit(2)
	case o.reactEvery < 0 || o.duration < time.Second || o.duration > time.Minute || o.conns < 1 || o.conns > 256 || o.convs < 1 || o.convs > 5000 || o.paced < 10 || o.paced > 5000:
		fmt.Fprintln(os.Stderr, "whbench: a flag is out of range (see -h)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	err := run(ctx, o)
	if err == nil && o.fairness {
		err = fairness(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "whbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "whbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("whbench %s: %d senders for %v over %d conversations, a reaction after every %d-th send; %d timed sends %v apart\n",
		time.Now().UTC().Format(time.RFC3339), o.conns, o.duration, o.convs, o.reactEvery, o.paced, o.pause)

	rc, err := newReceiver()
	if err != nil {
		return err
	}
	defer rc.close()
	if err := ceiling(ctx, rc, 3*time.Second); err != nil {
		return err
	}
	if o.fcm, err = newFCMFake(); err != nil {
		return err
	}
	defer o.fcm.close()
	o.env = append(o.env, o.fcm.env()...)
	for _, b := range o.backends {
		if b == "sqlite" {
			if err := bench(ctx, o, rc, tmp, "sqlite:"+filepath.Join(tmp, "wh.db"), "SQLite", 1); err != nil {
				return err
			}
			continue
		}
		// Each node count gets a database of its own.
		pg, err := o.startPostgres()
		if err != nil {
			return fmt.Errorf("start PostgreSQL: %w", err)
		}
		defer pg.Close()
		if o.pgLog != "" {
			defer copyFile(pg.LogPath(), o.pgLog)
		}
		for _, nodes := range o.nodes {
			url, err := pg.CreateDatabase(ctx, "wh"+strconv.Itoa(nodes))
			if err != nil {
				return err
			}
			if err := bench(ctx, o, rc, tmp, url, "PostgreSQL", nodes); err != nil {
				return err
			}
		}
	}
	if o.faults {
		return faults(ctx, o, tmp)
	}
	return nil
}

// startPostgres starts a throwaway server with pgserver's test settings (no fsync) and
// -pg-set's, run as the postgres account when whbench runs as root; it dies with whbench.
func (o options) startPostgres() (*pgserver.Server, error) {
	settings := map[string]string{}
	for _, kv := range o.pgSet {
		k, v, _ := strings.Cut(kv, "=")
		settings[k] = v
	}
	return pgserver.Start(pgserver.Options{Settings: settings})
}

// receiver is the webhook endpoints (/hook/<name>): they answer 204 at once and note each
// event's first arrival, duplicates (an event id seen again on the same endpoint) and order
// violations (an event of a conversation arriving after a later one of it).
type receiver struct {
	srv   *http.Server
	url   string // add the endpoint's name
	got   atomic.Int64
	mu    sync.Mutex
	at    map[string]time.Time // message id → its message_sent's first arrival
	seen  map[string]bool      // endpoint/event id
	last  map[string]int64     // endpoint/conversation → the latest event id arrived
	convs map[string]string    // message id → conversation id, for reactions (their data has none)
	dups  int
	order int
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{url: "http://" + ln.Addr().String() + "/hook/"}
	rc.reset()
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 10 * time.Second}
	go rc.srv.Serve(ln)
	return rc, nil
}

func (rc *receiver) close() { rc.srv.Close() }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rc.got.Add(1)
	var env struct {
		Data struct {
			Message  struct{ ID, ConversationID string }
			Reaction struct{ MessageID json.Number }
		}
	}
	if json.Unmarshal(body, &env) == nil {
		hook := strings.TrimPrefix(r.URL.Path, "/hook/")
		ev, _ := strconv.ParseInt(strings.TrimPrefix(r.Header.Get("X-Natter-Event-Id"), "evt_"), 10, 64)
		rc.mu.Lock()
		if m := env.Data.Message; m.ID != "" {
			if _, ok := rc.at[m.ID]; !ok {
				rc.at[m.ID] = now
			}
		}
		conv := env.Data.Message.ConversationID
		if conv == "" {
			conv = rc.convs[env.Data.Reaction.MessageID.String()]
		}
		key := hook + "/" + strconv.FormatInt(ev, 10)
		if rc.seen[key] {
			rc.dups++
		} else {
			rc.seen[key] = true
			if conv != "" {
				lane := hook + "/" + conv
				if ev < rc.last[lane] {
					rc.order++
				}
				rc.last[lane] = max(rc.last[lane], ev)
			}
		}
		rc.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

// sent notes a sent message's conversation.
func (rc *receiver) sent(id, conv string) {
	rc.mu.Lock()
	rc.convs[id] = conv
	rc.mu.Unlock()
}

// arrived is how many events arrived, on every endpoint.
func (rc *receiver) arrived() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen)
}

func (rc *receiver) arrival(id string) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.at[id]
	return t, ok
}

// ceiling posts a body the size of natter's message_sent envelope to the receiver from
// perWebhook loops for d, with a keep-alive client like natter's.
func ceiling(ctx context.Context, rc *receiver, d time.Duration) error {
	body := bytes.Repeat([]byte("x"), 700)
	body = append(append([]byte(`{"trigger":"message_sent","data":{"message":{"id":"0","pad":"`), body...), `"}}}`...)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: perWebhook}, Timeout: 10 * time.Second}
	var n atomic.Int64
	lat := make([][]time.Duration, perWebhook)
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	var failed atomic.Value
	for i := range perWebhook {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil {
				t0 := time.Now()
				res, err := hc.Post(rc.url+"ceiling", "application/json", bytes.NewReader(body))
				if err != nil {
					failed.Store(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				lat[i] = append(lat[i], time.Since(t0))
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return fmt.Errorf("ceiling: %w", err)
	}
	all := slices.Concat(lat...)
	fmt.Printf("ceiling: a Go client posting %d-byte bodies to the same receiver, %d at a time: %.0f requests/s, p50 %s ms, p99 %s ms\n",
		len(body), perWebhook, float64(n.Load())/d.Seconds(), ms(pct(all, .5)), ms(pct(all, .99)))
	rc.reset()
	return nil
}

// reset forgets what arrived: each database numbers its messages and events from 1.
func (rc *receiver) reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.at, rc.seen, rc.last, rc.convs = map[string]time.Time{}, map[string]bool{}, map[string]int64{}, map[string]string{}
	rc.dups, rc.order = 0, 0
	rc.got.Store(0)
}

// pgFlag collects repeated -pg-set name=value flags.
type pgFlag []string

func (e *pgFlag) String() string { return strings.Join(*e, " ") }

func (e *pgFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want name=value, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	return err
}

// node is one natter serve process.
type node struct {
	*natterproc.Proc
	base string
	key  string
	hc   *http.Client
}

func startNode(ctx context.Context, bin, tmp, db string, env []string) (*node, error) {
	key := "whbench-key-0123456789abcdef"
	p, err := natterproc.Start(ctx, natterproc.Spec{Bin: bin, Dir: tmp, DB: db, Key: key, AppID: "wh",
		Args: []string{"--webhook-allow-private"}, Env: env, OwnEnv: true}) // natter's own settings are this tool's flags
	if err != nil {
		return nil, err
	}
	return &node{Proc: p, base: p.Base, key: key,
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}}, nil
}

func (n *node) stop() { n.Stop(20 * time.Second) }

// call makes one API request and decodes data into out.
func (n *node) call(ctx context.Context, method, path, onBehalfOf string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, n.base+"/v3"+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("apikey", n.key)
	if onBehalfOf != "" {
		req.Header.Set("onBehalfOf", onBehalfOf)
	}
	res, err := n.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out == nil {
		return nil
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}

// send sends conversation c's next message and returns its id and when it was answered.
func (n *node) send(ctx context.Context, c int) (string, time.Time, error) {
	var m struct{ ID json.Number }
	err := n.call(ctx, "POST", "/messages", uid(2*c), map[string]any{"receiver": uid(2*c + 1), "receiverType": "user",
		"category": "message", "type": "text", "data": map[string]any{"text": "webhook bench"}}, &m)
	return m.ID.String(), time.Now(), err
}

// react adds conversation c's receiver's reaction to message id.
func (n *node) react(ctx context.Context, c int, id string) error {
	return n.call(ctx, "POST", "/messages/"+id+"/reactions/%F0%9F%91%8D", uid(2*c+1), nil, nil)
}

func uid(i int) string { return "u" + strconv.Itoa(i) }

// conversationID is the id natter gives the one-to-one conversation of c's two users.
func conversationID(c int) string {
	a, b := uid(2*c), uid(2*c+1)
	if b < a {
		a, b = b, a
	}
	return a + "_user_" + b
}

// bench runs both phases on one database with nodes natter processes.
func bench(ctx context.Context, o options, rc *receiver, tmp, db, name string, nodes int) error {
	rc.reset()
	var ns []*node
	defer func() {
		for _, n := range ns {
			n.stop()
		}
	}()
	var prof string
	for i := range nodes {
		env := o.env
		if i == 0 && o.profile != "" {
			addr, err := freeAddr()
			if err != nil {
				return err
			}
			env, prof = append(slices.Clone(env), "NATTER_DEBUG_ADDR="+addr), "http://"+addr
		}
		n, err := startNode(ctx, o.bin, tmp, db, env)
		if err != nil {
			return err
		}
		ns = append(ns, n)
	}
	n := ns[0]
	name = fmt.Sprintf("%s, %d node(s)", name, nodes)
	errs := make(chan error, 2*o.convs)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range 2 * o.convs {
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
	if err := <-errs; err != nil {
		return err
	}
	hooks := map[string][]string{"messages": {"message_sent"}}
	if o.reactEvery > 0 {
		hooks["reactions"] = []string{"message_reaction_added", "message_reaction_removed"}
	}
	var whIDs []string
	defer func() {
		for _, id := range whIDs {
			n.call(context.Background(), "DELETE", "/webhooks/"+id, "", nil, nil)
		}
	}()
	for path, triggers := range hooks {
		var wh struct{ ID string }
		if err := n.call(ctx, "POST", "/webhooks", "", map[string]any{"webhookURL": rc.url + path, "triggers": triggers}, &wh); err != nil {
			return err
		}
		whIDs = append(whIDs, wh.ID)
	}

	// (b) Commit to delivery, one send at a time: no queue in front of the event.
	type timed struct {
		id       string
		answered time.Time
	}
	var sends []timed
	for i := range o.paced {
		id, at, err := n.send(ctx, i%o.convs)
		if err != nil {
			return err
		}
		rc.sent(id, conversationID(i%o.convs))
		sends = append(sends, timed{id, at})
		time.Sleep(o.pause)
	}
	if err := waitArrived(ctx, rc, len(sends), 30*time.Second); err != nil {
		return fmt.Errorf("%s timed sends: %w", name, err)
	}
	var lat []time.Duration
	early := 0
	for _, s := range sends {
		t, _ := rc.arrival(s.id)
		d := t.Sub(s.answered)
		if d < 0 {
			early++ // delivered before the client had read the answer: the commit came first
			d = 0
		}
		lat = append(lat, d)
	}
	fmt.Printf("%s: commit (the send's 200) → delivery, %d sends one at a time: p50 %s ms, p99 %s ms, max %s ms (%d arrived before their answer was read)\n",
		name, len(sends), ms(pct(lat, .5)), ms(pct(lat, .99)), ms(pct(lat, 1)), early)

	// (a) Throughput: o.conns senders as fast as natter answers (every reactEvery-th send
	// followed by a reaction to it), spread over the nodes; then the backlog drains.
	base := rc.arrived()
	var sent, reacted atomic.Int64
	var sendErr atomic.Value
	sendCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	profDone := make(chan error, 1)
	if prof != "" {
		go func() {
			profDone <- fetchProfile(ctx, prof, o.duration+2*time.Second, filepath.Join(o.profile, strings.NewReplacer(" ", "", ",", "-", "(", "", ")", "").Replace(name)+".pprof"))
		}()
	} else {
		profDone <- nil
	}
	t0 := time.Now()
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nd := ns[w%len(ns)]
			for i := w; sendCtx.Err() == nil; i += o.conns {
				c := i % o.convs
				id, _, err := nd.send(sendCtx, c)
				if err == nil {
					rc.sent(id, conversationID(c))
					sent.Add(1)
					if o.reactEvery > 0 && i/o.conns%o.reactEvery == 0 {
						if err = nd.react(sendCtx, c, id); err == nil {
							reacted.Add(1)
						}
					}
				}
				if err != nil {
					if sendCtx.Err() == nil {
						sendErr.Store(err)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := sendErr.Load().(error); ok {
		return fmt.Errorf("%s: %w", name, err)
	}
	sendTime := time.Since(t0)
	total := int(sent.Load() + reacted.Load())
	// A send cut off by the deadline may have committed all the same: its event arrives
	// but counts in neither figure.
	atStop := min(rc.arrived()-base, total)
	tStop := time.Now()
	if err := waitArrived(ctx, rc, base+total, 5*time.Minute); err != nil {
		return fmt.Errorf("%s drain: %w", name, err)
	}
	drain := time.Since(tStop)
	if err := <-profDone; err != nil {
		return fmt.Errorf("%s profile: %w", name, err)
	}
	time.Sleep(200 * time.Millisecond) // a duplicate would come now
	rc.mu.Lock()
	dups, order := rc.dups, rc.order
	rc.mu.Unlock()
	fmt.Printf("%s: %d senders sent %d messages and %d reactions in %v (%.0f sends/s) while %d of their %d events were delivered (%.0f/s, %.0f%%); the %d left drained in %v (%.0f/s); %d duplicates, %d order violations\n",
		name, o.conns, sent.Load(), reacted.Load(), sendTime.Round(time.Millisecond), float64(sent.Load())/sendTime.Seconds(),
		atStop, total, float64(atStop)/sendTime.Seconds(), 100*float64(atStop)/float64(max(total, 1)),
		total-atStop, drain.Round(time.Millisecond), float64(total-atStop)/max(drain.Seconds(), 1e-3), dups, order)
	if !o.notify {
		return nil
	}
	for _, id := range whIDs { // the notification phase alone
		if err := n.call(ctx, "DELETE", "/webhooks/"+id, "", nil, nil); err != nil {
			return err
		}
	}
	whIDs = nil
	return notifyBench(ctx, o, o.fcm, n, name)
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// fetchProfile writes natter's CPU profile of the next d to file.
func fetchProfile(ctx context.Context, base string, d time.Duration, file string) error {
	hc := &http.Client{Timeout: d + 30*time.Second}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/debug/pprof/profile?seconds="+strconv.Itoa(int(d.Seconds()+.5)), nil)
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s: %s", req.URL, res.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// waitArrived waits until want messages' events have arrived.
func waitArrived(ctx context.Context, rc *receiver, want int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for rc.arrived() < want {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d of %d events arrived within %v", rc.arrived(), want, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

var pct, ms = natterproc.Pct, natterproc.Ms
