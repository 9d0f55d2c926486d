package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// scenario is one closed-loop workload: next prepares a worker's next request.
type scenario struct {
	name   string
	base   string // "http://127.0.0.1:PORT"
	method string
	next   func(w *worker)
	// kinds, when set, names the kinds of request a mixed workload sends: next sets the
	// worker's kind (an index into kinds) and method, and each kind is counted apart.
	kinds []string
	// notes, filled after the run, are printed under the table.
	notes func() string
	// verify, when set, checks natter's state after the run.
	verify func(ctx context.Context, a *api, res result) (string, error)
}

// worker is one connection's closed loop. Everything it sends is built in buffers it
// reuses: the request line, its headers and its body.
type worker struct {
	id     int
	rng    *rand.Rand
	conn   rawConn
	apiKey string
	hdrs   []header
	path   []byte   // the request-URI being built, reused
	body   []byte   // the request body being built, reused; nil for no body
	behalf []string // the onBehalfOf header's value, set by the scenario
	method string   // the request's method: the scenario's, unless next sets another
	kind   int      // the request's kind in scenario.kinds, set by next; -1 without kinds
	sample [512]byte

	hist     hist
	ok       uint64
	status   map[int]uint64
	netErrs  uint64
	warmErrs uint64 // failed warmup requests, not in the figures
	firstErr string
	kinds    []kindStat // per scenario.kinds, shared by the loops
}

// kindStat is one kind of request's share of a mixed run. The loops share it, counting
// with atomics: a histogram per kind and loop would cost megabytes at -conns 512.
type kindStat struct {
	requests atomic.Uint64 // in the measured window, errors included
	errors   atomic.Uint64 // non-2xx and transport errors in the window
	okAll    atomic.Uint64 // 2xx answers, warmup included
	lat      atomicHist    // latencies in the window
}

// kindResult is one kind's figures in a mixed run.
type kindResult struct {
	name             string
	requests, errors uint64
	okAll            uint64 // 2xx answers, warmup included
	p50, p99, mean   time.Duration
}

// result is one scenario's figures.
type result struct {
	name      string
	requests  uint64 // completed in the measured window, including errors
	errors    uint64
	elapsed   time.Duration
	rps       float64
	p50, p99  time.Duration
	mean, max time.Duration
	dials     int64
	status    map[int]uint64
	netErrs   uint64
	warmErrs  uint64
	firstErr  string
	natterCPU float64 // cores used by natter during the measured window
	benchCPU  float64 // cores used by this process (load generator, and the bare server), plus pgbench in its row
	pgCPU     float64 // cores used by PostgreSQL (-postgres mode)
	busyCPU   float64 // cores busy machine-wide
	notes     string
	capped    bool         // stopped by -max-requests rather than by -duration
	kinds     []kindResult // per the scenario's kinds

	pgLatMS, pgConnMS string // pgbench's own latency average and initial connection time
}

type loadConfig struct {
	conns       int
	duration    time.Duration
	warmup      time.Duration
	maxRequests uint64
	apiKey      string
	natterPID   int
	pgPID       int // the postmaster in -postgres mode, else 0
}

// runScenario drives sc with cfg.conns closed loops: a warmup that is not recorded, then
// the measured window. Every loop stops by itself at the window's end or when the shared
// request budget is spent; a hard deadline cancels anything still in flight after that.
func runScenario(ctx context.Context, sc *scenario, cfg loadConfig) (result, error) {
	hard, cancel := context.WithTimeout(ctx, cfg.warmup+cfg.duration+30*time.Second)
	defer cancel()

	var dials atomic.Int64
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	base, err := url.Parse(sc.base)
	if err != nil {
		return result{}, err
	}
	deadline := time.Now().Add(cfg.warmup + cfg.duration + 30*time.Second)
	workers := make([]*worker, cfg.conns)
	kinds := make([]kindStat, len(sc.kinds))
	for i := range workers {
		w := &worker{id: i, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))}
		w.conn = rawConn{addr: base.Host, deadline: deadline, dial: func() (net.Conn, error) {
			dials.Add(1)
			return dialer.DialContext(hard, "tcp", base.Host)
		}}
		w.apiKey = cfg.apiKey
		w.behalf = []string{""}
		w.status = map[int]uint64{}
		w.kinds = kinds
		workers[i] = w
	}
	defer func() {
		for _, w := range workers {
			w.conn.close()
		}
	}()

	var issued atomic.Uint64
	run := func(until time.Time, record bool) (time.Duration, bool) {
		var wg sync.WaitGroup
		var capped atomic.Bool
		start := time.Now()
		for _, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(until) && hard.Err() == nil {
					if issued.Add(1) > cfg.maxRequests {
						capped.Store(true)
						return
					}
					w.once(sc, record)
				}
			}()
		}
		wg.Wait()
		return time.Since(start), capped.Load()
	}

	if cfg.warmup > 0 {
		run(time.Now().Add(cfg.warmup), false)
	}
	before := sampleCPU(cfg.natterPID, cfg.pgPID)
	elapsed, capped := run(time.Now().Add(cfg.duration), true)
	after := sampleCPU(cfg.natterPID, cfg.pgPID)
	if err := ctx.Err(); err != nil {
		return result{}, err
	}

	res := result{name: sc.name, elapsed: elapsed, status: map[int]uint64{}, dials: dials.Load(), capped: capped}
	for i := range kinds {
		k := &kinds[i]
		kh := k.lat.snapshot()
		res.kinds = append(res.kinds, kindResult{name: sc.kinds[i], requests: k.requests.Load(), errors: k.errors.Load(),
			okAll: k.okAll.Load(), p50: kh.quantile(0.50), p99: kh.quantile(0.99), mean: kh.mean()})
	}
	var h hist
	for _, w := range workers {
		h.merge(&w.hist)
		res.requests += w.hist.n
		for code, n := range w.status {
			res.status[code] += n
			res.errors += n
		}
		res.netErrs += w.netErrs
		res.warmErrs += w.warmErrs
		res.errors += w.netErrs
		if res.firstErr == "" {
			res.firstErr = w.firstErr
		}
	}
	res.rps = float64(res.requests) / elapsed.Seconds()
	res.p50, res.p99, res.mean, res.max = h.quantile(0.50), h.quantile(0.99), h.mean(), time.Duration(h.max)
	res.natterCPU, res.benchCPU, res.busyCPU = after.since(before)
	res.pgCPU = after.pgSince(before)
	if sc.notes != nil {
		res.notes = sc.notes()
	}
	return res, nil
}

// once sends one request and reads its response to the end.
func (w *worker) once(sc *scenario, record bool) {
	w.body = w.body[:0]
	w.path = w.path[:0]
	w.behalf[0] = ""
	w.method, w.kind = sc.method, -1
	sc.next(w)
	w.hdrs = append(w.hdrs[:0], header{"Apikey", w.apiKey}, header{"Accept", "application/json"})
	if len(w.body) > 0 {
		w.hdrs = append(w.hdrs, header{"Content-Type", "application/json"})
	}
	if w.behalf[0] != "" {
		w.hdrs = append(w.hdrs, header{"OnBehalfOf", w.behalf[0]})
	}

	start := time.Now()
	status, n, err := w.conn.roundTrip(w.method, w.path, w.hdrs, w.body, w.sample[:])
	d := time.Since(start)
	if w.kind >= 0 {
		k := &w.kinds[w.kind]
		failed := err != nil || status/100 != 2
		if !failed {
			k.okAll.Add(1)
		}
		if record {
			k.requests.Add(1)
			k.lat.record(d)
			if failed {
				k.errors.Add(1)
			}
		}
	}
	if !record {
		if err != nil || status/100 != 2 {
			w.warmErrs++
		}
		return
	}
	w.hist.record(d)
	switch {
	case err != nil:
		w.netErrs++
		if w.firstErr == "" {
			w.firstErr = fmt.Sprintf("%s %s: %v", w.method, w.path, err)
		}
	case status/100 != 2:
		w.status[status]++
		if w.firstErr == "" {
			w.firstErr = fmt.Sprintf("%s %s: %d %s", w.method, w.path, status, strings.TrimSpace(string(w.sample[:n])))
		}
	default:
		w.ok++
	}
}

// statusSummary renders non-2xx counts as "409×3 500×1".
func statusSummary(r result) string {
	var parts []string
	codes := make([]int, 0, len(r.status))
	for c := range r.status {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", c, r.status[c]))
	}
	if r.netErrs > 0 {
		parts = append(parts, fmt.Sprintf("transport×%d", r.netErrs))
	}
	return strings.Join(parts, " ")
}
