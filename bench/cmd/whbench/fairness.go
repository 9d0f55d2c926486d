package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/natter-chat/natter/internal/pgserver"
)

// The fairness phase (-fairness): does a slow or a failing endpoint slow only its own
// webhook (docs/webhooks.md, Fairness)? One natter node, two apps: app A has a fast webhook,
// a slow one (its endpoint answers after slowAnswer) and a failing one (500 to every
// attempt); app B has a fast one; all on message_sent. Senders send from both apps for the
// phase's duration. Three runs, each on a fresh database: the baseline, with the two fast
// webhooks alone; the control, with A's other two webhooks' endpoints answering at once
// (the same deliveries to make, none slow); and the run with them slow and failing. The
// fast webhooks' rate, their share delivered while sending and their drain should be the
// same in the last two: what separates both from the baseline is the work of delivering to
// more webhooks on the same machine, not those endpoints' behaviour.
const (
	slowAnswer = 100 * time.Millisecond
	// fairRetryBase is natter's first retry delay in this phase (NATTER_WEBHOOK_RETRY_BASE):
	// at the default 5 s a failing endpoint would see each event once in a short run; at
	// this, its lanes come back several times a second and compete for the workers.
	fairRetryBase = "200ms"
	fairConvs     = 64          // conversations per app, at most (more lanes than a webhook's cap)
	fairDrainMax  = time.Minute // how long the fast webhooks' backlog is waited for
)

// fairHooks are the endpoints (/hook/<name>) and which app's webhook each is.
var fairHooks = []struct{ name, app string }{{"a-fast", "A"}, {"b-fast", "B"}, {"a-slow", "A"}, {"a-failing", "A"}}

// fairReceiver is the phase's endpoints: while bad, a-slow answers after slowAnswer and
// a-failing 500 at once; the others, and those two otherwise, 204 at once. It notes the
// event ids accepted per endpoint, with the time of each first arrival, and the attempts
// refused.
type fairReceiver struct {
	srv     *http.Server
	url     string
	mu      sync.Mutex
	bad     bool
	at      map[string]map[string]time.Time // endpoint → event id → first arrival
	dups    map[string]int
	refused atomic.Int64
}

func newFairReceiver() (*fairReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	fr := &fairReceiver{url: "http://" + ln.Addr().String() + "/hook/", at: map[string]map[string]time.Time{}, dups: map[string]int{}}
	fr.srv = &http.Server{Handler: http.HandlerFunc(fr.serve), ReadHeaderTimeout: 10 * time.Second}
	go fr.srv.Serve(ln)
	return fr, nil
}

func (fr *fairReceiver) serve(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	name := strings.TrimPrefix(r.URL.Path, "/hook/")
	fr.mu.Lock()
	bad := fr.bad
	fr.mu.Unlock()
	switch {
	case bad && name == "a-failing":
		fr.refused.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		return
	case bad && name == "a-slow":
		time.Sleep(slowAnswer)
	}
	now, ev := time.Now(), r.Header.Get("X-Natter-Event-Id")
	fr.mu.Lock()
	if fr.at[name] == nil {
		fr.at[name] = map[string]time.Time{}
	}
	if _, ok := fr.at[name][ev]; ok {
		fr.dups[name]++
	} else {
		fr.at[name][ev] = now
	}
	fr.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// arrived is how many events endpoint name accepted by t (all of them when t is zero).
func (fr *fairReceiver) arrived(name string, t time.Time) int {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if t.IsZero() {
		return len(fr.at[name])
	}
	n := 0
	for _, at := range fr.at[name] {
		if !at.After(t) {
			n++
		}
	}
	return n
}

func (fr *fairReceiver) reset(bad bool) {
	fr.mu.Lock()
	fr.at, fr.dups, fr.bad = map[string]map[string]time.Time{}, map[string]int{}, bad
	fr.mu.Unlock()
	fr.refused.Store(0)
}

// fairRun is one run's figures.
type fairRun struct {
	sent    map[string]int // app → messages sent
	took    time.Duration  // the senders' time
	during  map[string]int // endpoint → events accepted while sending
	drain   map[string]time.Duration
	left    map[string]int // endpoint → events not arrived when the run ended
	dups    map[string]int
	refused int // a-failing's attempts while sending
	mode    fairMode
}

// fairMode is a run's webhooks.
type fairMode int

const (
	fastOnly fairMode = iota // the two fast webhooks alone
	allFast                  // and A's other two, answering at once
	withBad                  // and A's other two, slow and failing
)

func (m fairMode) String() string {
	return [...]string{"baseline: the fast webhooks alone", "control: A's other two answer at once", "A's other two slow and failing"}[m]
}

// fairness runs the phase on each backend of o: the baseline, the control and the run with
// A's slow and failing webhooks, each on a database of its own, and prints them side by
// side.
func fairness(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "whbench-fair-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fr, err := newFairReceiver()
	if err != nil {
		return err
	}
	defer fr.srv.Close()
	convs := min(o.convs, fairConvs)
	var pg *pgserver.Server
	for _, b := range o.backends {
		if b == "postgres" && pg == nil {
			if pg, err = o.startPostgres(); err != nil {
				return fmt.Errorf("fairness: start PostgreSQL: %w", err)
			}
			defer pg.Close()
		}
	}
	for _, b := range o.backends {
		name := map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}[b]
		var runs []fairRun
		for _, mode := range []fairMode{fastOnly, allFast, withBad} {
			db := "sqlite:" + filepath.Join(tmp, fmt.Sprintf("fair%d.db", mode))
			if b == "postgres" {
				if db, err = pg.CreateDatabase(ctx, fmt.Sprintf("fair%d", mode)); err != nil {
					return err
				}
			}
			fr.reset(mode == withBad)
			r, err := fairOnce(ctx, o, fr, tmp, db, convs, mode)
			if err != nil {
				return fmt.Errorf("fairness, %s: %w", name, err)
			}
			runs = append(runs, r)
		}
		printFairness(name, o, convs, runs)
	}
	return nil
}

// fairOnce is one run on a fresh database: the apps, users and webhooks, the senders for
// o.duration, then the fast webhooks' drain.
func fairOnce(ctx context.Context, o options, fr *fairReceiver, tmp, db string, convs int, mode fairMode) (fairRun, error) {
	r := fairRun{sent: map[string]int{}, during: map[string]int{}, drain: map[string]time.Duration{}, left: map[string]int{}, mode: mode}
	na, err := startNode(ctx, o.bin, tmp, db, append(append([]string(nil), o.env...), "NATTER_WEBHOOK_RETRY_BASE="+fairRetryBase))
	if err != nil {
		return r, err
	}
	defer na.stop()
	keyB, err := createApp(ctx, o.bin, tmp, db, "whb")
	if err != nil {
		return r, err
	}
	nb := *na
	nb.key = keyB
	apps := map[string]*node{"A": na, "B": &nb}
	for _, n := range apps {
		if err := createUsers(ctx, n, 2*convs); err != nil {
			return r, err
		}
	}
	for _, h := range fairHooks {
		if mode == fastOnly && (h.name == "a-slow" || h.name == "a-failing") {
			continue
		}
		if err := apps[h.app].call(ctx, "POST", "/webhooks", "", map[string]any{"webhookURL": fr.url + h.name, "triggers": []string{"message_sent"}}, nil); err != nil {
			return r, err
		}
	}

	// Half the senders send from each app, each over its app's conversations. A send is
	// not cut short at the end (one that committed uncounted would make an event too many).
	var sent [2]atomic.Int64
	var sendErr atomic.Value
	var wg sync.WaitGroup
	t0 := time.Now()
	end := t0.Add(o.duration)
	for w := range max(o.conns, 2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := apps[[]string{"A", "B"}[w%2]]
			for i := w / 2; time.Now().Before(end) && ctx.Err() == nil; i += max(o.conns, 2) / 2 {
				if _, _, err := n.send(ctx, i%convs); err != nil {
					sendErr.Store(err)
					return
				}
				sent[w%2].Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := sendErr.Load().(error); ok {
		return r, err
	}
	tStop := time.Now()
	r.took = tStop.Sub(t0)
	r.sent["A"], r.sent["B"] = int(sent[0].Load()), int(sent[1].Load())
	r.refused = int(fr.refused.Load())

	// The fast webhooks drain; the slow and failing ones are left as they are.
	for _, h := range fairHooks {
		r.during[h.name] = fr.arrived(h.name, tStop)
	}
	for waiting := true; waiting; time.Sleep(5 * time.Millisecond) {
		waiting = false
		for _, h := range fairHooks[:2] {
			if _, done := r.drain[h.name]; done {
				continue
			}
			switch n := fr.arrived(h.name, time.Time{}); {
			case n >= r.sent[h.app]:
				r.drain[h.name] = time.Since(tStop)
			case time.Since(tStop) > fairDrainMax || ctx.Err() != nil:
				return r, fmt.Errorf("%s: %d of %d events within %v of the senders' stop", h.name, n, r.sent[h.app], fairDrainMax)
			default:
				waiting = true
			}
		}
	}
	time.Sleep(200 * time.Millisecond) // a duplicate would come now
	fr.mu.Lock()
	r.dups = map[string]int{}
	for k, v := range fr.dups {
		r.dups[k] = v
	}
	fr.mu.Unlock()
	for _, h := range fairHooks {
		r.left[h.name] = r.sent[h.app] - fr.arrived(h.name, time.Time{})
	}
	return r, nil
}

// createApp runs natter apps create beside the server and returns the new app's
// fullAccess key.
func createApp(ctx context.Context, bin, dir, db, id string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "apps", "create", "--id", id, "--region", "us", "--database", db)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("natter apps create: %w: %s", err, ee.Stderr)
		}
		return "", err
	}
	var app struct {
		APIKeys []struct{ APIKey, Scope string }
	}
	if err := json.Unmarshal(out, &app); err != nil {
		return "", err
	}
	for _, k := range app.APIKeys {
		if k.Scope == "fullAccess" {
			return k.APIKey, nil
		}
	}
	return "", fmt.Errorf("natter apps create: no fullAccess key in %s", out)
}

// createUsers creates users u0 … u(n-1), 16 at a time.
func createUsers(ctx context.Context, nd *node, n int) error {
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := nd.call(ctx, "POST", "/users", "", map[string]any{"uid": uid(i), "name": uid(i)}, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func printFairness(name string, o options, convs int, runs []fairRun) {
	fmt.Printf("\nfairness, %s, one node (default 1024 workers: 256 lanes per webhook, 512 per app, 32 requests in flight per webhook; retries from %s): %d senders for %v, half from app A, half from app B, over %d conversations each; webhooks on message_sent\n",
		name, fairRetryBase, max(o.conns, 2), o.duration, convs)
	fmt.Println("| run | A sends/s | B sends/s | A fast: delivered/s during · share during · drain | B fast: delivered/s during · share during · drain | A slow (100 ms): delivered/s during · left | A failing (500): refused/s during | duplicates |")
	fmt.Println("|---|---:|---:|---|---|---|---|---:|")
	for _, r := range runs {
		s := r.took.Seconds()
		fast := func(h, app string) string {
			return fmt.Sprintf("%.0f/s · %.0f %% · %s s", float64(r.during[h])/s, 100*float64(r.during[h])/float64(max(r.sent[app], 1)), sec(r.drain[h]))
		}
		slow, failing := "—", "—"
		if r.mode != fastOnly {
			slow = fmt.Sprintf("%.0f/s · %d", float64(r.during["a-slow"])/s, r.left["a-slow"])
			failing = fmt.Sprintf("%.0f/s", float64(r.refused)/s)
		}
		dups := 0
		for _, n := range r.dups {
			dups += n
		}
		fmt.Printf("| %s | %.0f | %.0f | %s | %s | %s | %s | %d |\n", r.mode, float64(r.sent["A"])/s, float64(r.sent["B"])/s,
			fast("a-fast", "A"), fast("b-fast", "B"), slow, failing, dups)
	}
}

func sec(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }
