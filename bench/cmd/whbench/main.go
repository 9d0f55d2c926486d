// Command whbench measures natter's webhook delivery (docs/webhooks.md) on loopback: how
// many events per second natter delivers to a fast local receiver, and how long an event
// takes from its commit (the send's 200 answer) to the receiver, on SQLite and on a
// throwaway PostgreSQL. As the machine's ceiling it first drives the same receiver with a
// plain Go HTTP client posting bodies of the same size, as many at a time as natter may
// send to one webhook. Every run is bounded: it stops by itself.
//
//	go build -o /tmp/natter ./cmd/natter && go run ./bench/cmd/whbench -natter /tmp/natter
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
	bin      string
	duration time.Duration // the throughput phase's sending time
	conns    int           // concurrent senders in the throughput phase
	convs    int           // conversations the sends are spread over
	paced    int           // sends, one at a time, timed from commit to delivery
	pause    time.Duration // between paced sends
	backends []string      // sqlite, postgres
	env      []string      // NATTER_* settings added to natter's environment
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
	var env envFlag
	flag.Var(&env, "natter-env", "NATTER_NAME=value added to natter's environment, repeatable (e.g. NATTER_DEBUG_ADDR=127.0.0.1:6061 to profile)")
	flag.Parse()
	o.env = env
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
	case o.duration < time.Second || o.duration > time.Minute || o.conns < 1 || o.conns > 256 || o.convs < 1 || o.convs > 5000 || o.paced < 10 || o.paced > 5000:
		fmt.Fprintln(os.Stderr, "whbench: a flag is out of range (see -h)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := run(ctx, o); err != nil {
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
	fmt.Printf("whbench %s: %d senders for %v over %d conversations; %d timed sends %v apart\n",
		time.Now().UTC().Format(time.RFC3339), o.conns, o.duration, o.convs, o.paced, o.pause)

	rc, err := newReceiver()
	if err != nil {
		return err
	}
	defer rc.close()
	if err := ceiling(ctx, rc, 3*time.Second); err != nil {
		return err
	}
	for _, b := range o.backends {
		if b == "sqlite" {
			if err := bench(ctx, o, rc, tmp, "sqlite:"+filepath.Join(tmp, "wh.db"), "SQLite"); err != nil {
				return err
			}
			continue
		}
		// A throwaway server with pgserver's test settings (no fsync), run as the postgres
		// account when whbench runs as root; it dies with whbench.
		pg, err := pgserver.Start(pgserver.Options{})
		if err != nil {
			return fmt.Errorf("start PostgreSQL: %w", err)
		}
		defer pg.Close()
		if err := bench(ctx, o, rc, tmp, pg.URL("postgres"), "PostgreSQL"); err != nil {
			return err
		}
	}
	return nil
}

// receiver is the webhook endpoint: it answers 204 at once and notes when each message's
// event first arrived.
type receiver struct {
	srv  *http.Server
	url  string
	got  atomic.Int64 // requests
	mu   sync.Mutex
	at   map[string]time.Time // message id → first arrival
	dups int
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{url: "http://" + ln.Addr().String() + "/hook", at: map[string]time.Time{}}
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
		Data struct{ Message struct{ ID string } }
	}
	if json.Unmarshal(body, &env) == nil && env.Data.Message.ID != "" {
		rc.mu.Lock()
		if _, ok := rc.at[env.Data.Message.ID]; ok {
			rc.dups++
		} else {
			rc.at[env.Data.Message.ID] = now
		}
		rc.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

// arrived is how many messages' events arrived.
func (rc *receiver) arrived() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.at)
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
				res, err := hc.Post(rc.url, "application/json", bytes.NewReader(body))
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

// reset forgets what arrived: each database numbers its messages from 1.
func (rc *receiver) reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	clear(rc.at)
	rc.dups = 0
	rc.got.Store(0)
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
	var m struct{ ID string }
	err := n.call(ctx, "POST", "/messages", uid(2*c), map[string]any{"receiver": uid(2*c + 1), "receiverType": "user",
		"category": "message", "type": "text", "data": map[string]any{"text": "webhook bench"}}, &m)
	return m.ID, time.Now(), err
}

func uid(i int) string { return "u" + strconv.Itoa(i) }

// bench runs both phases on one database.
func bench(ctx context.Context, o options, rc *receiver, tmp, db, name string) error {
	rc.reset()
	n, err := startNode(ctx, o.bin, tmp, db, o.env)
	if err != nil {
		return err
	}
	defer n.stop()
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
	var wh struct{ ID string }
	if err := n.call(ctx, "POST", "/webhooks", "", map[string]any{"webhookURL": rc.url, "triggers": []string{"message_sent"}}, &wh); err != nil {
		return err
	}
	defer n.call(context.Background(), "DELETE", "/webhooks/"+wh.ID, "", nil, nil)

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

	// (a) Throughput: o.conns senders as fast as natter answers, then the backlog drains.
	base := rc.arrived()
	var sent atomic.Int64
	var sendErr atomic.Value
	sendCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	t0 := time.Now()
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; sendCtx.Err() == nil; i += o.conns {
				if _, _, err := n.send(sendCtx, i%o.convs); err != nil {
					if sendCtx.Err() == nil {
						sendErr.Store(err)
					}
					return
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := sendErr.Load().(error); ok {
		return fmt.Errorf("%s: %w", name, err)
	}
	sendTime := time.Since(t0)
	atStop := rc.arrived() - base
	total := int(sent.Load())
	tStop := time.Now()
	if err := waitArrived(ctx, rc, base+total, 5*time.Minute); err != nil {
		return fmt.Errorf("%s drain: %w", name, err)
	}
	drain := time.Since(tStop)
	rc.mu.Lock()
	dups := rc.dups
	rc.mu.Unlock()
	fmt.Printf("%s: %d senders sent %d messages in %v (%.0f/s) while %d events were delivered (%.0f/s); the %d left drained in %v (%.0f/s); %d events in %v in all (%.0f/s); %d duplicates\n",
		name, o.conns, total, sendTime.Round(time.Millisecond), float64(total)/sendTime.Seconds(), atStop, float64(atStop)/sendTime.Seconds(),
		total-atStop, drain.Round(time.Millisecond), float64(total-atStop)/drain.Seconds(),
		total, (sendTime + drain).Round(time.Millisecond), float64(total)/(sendTime+drain).Seconds(), dups)
	return nil
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
