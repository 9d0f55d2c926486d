package e2e

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// Fault-injection contract: while PostgreSQL is down, natter answers at once with 503
// ERR_SERVICE_UNAVAILABLE (never a 500, never a hang), /readyz says not ready, the process
// stays up; when PostgreSQL is back, natter recovers without a restart; nothing acknowledged
// is lost; and the outage leaks no goroutines.
const (
	first503Within = 1 * time.Second // from Stop() returning to the first 503
	downLatencyMax = 2 * time.Second // any request while PostgreSQL is down
	downFor        = 4 * time.Second // longer than the key cache TTL (3s), so both the cached and the uncached key path are exercised
	recoverWithin  = 5 * time.Second // from Start() returning
	loadWorkers    = 8
	loadPause      = 200 * time.Millisecond // per worker between requests: ~40 requests/s in all
	clientTimeout  = 5 * time.Second
)

// loadResult is one request of the background load.
type loadResult struct {
	worker     int
	user       string
	reaction   string
	start, end time.Time
	status     int // 0: no response (client timeout or transport error)
	code       string
	message    string
}

func (r loadResult) latency() time.Duration { return r.end.Sub(r.start) }

func (r loadResult) outcome() string {
	if r.status == 0 {
		return "no response: " + r.code
	}
	if r.status == 200 {
		return "200"
	}
	return fmt.Sprintf("%d %s", r.status, r.code)
}

// probe is one GET of /readyz or /healthz.
type probe struct {
	at      time.Time
	status  int
	body    string
	latency time.Duration
}

func TestPostgresOutage(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	srv := pgtest.NewServer(t)
	dbURL := srv.URL()
	key := randomKey()
	node := startNatter(t, "natter", []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"},
		"serve", "--addr", "127.0.0.1:0", "--database", dbURL, "--access-log=false",
		"--max-reactions", "0", // the load adds hundreds of distinct reactions to one message
		"--debug-addr", "127.0.0.1:0")
	if node.debugBase() == "" {
		t.Fatal("natter did not log its debug listener's address")
	}
	hc, tr := newHTTPClient(t)
	ctx := context.Background()
	c := client.New(node.base(), key, client.WithHTTPClient(hc))
	users := []string{"u0", "u1"}
	for _, u := range users {
		if _, err := c.CreateUser(ctx, client.CreateUserRequest{UID: u, Name: u}); err != nil {
			t.Fatal(err)
		}
	}
	msg := seedMessage(t, c, users[0], users[1])
	for i := range 10 { // warm the pool and the caches
		if _, err := c.OnBehalfOf(users[i%2]).AddReaction(ctx, msg.ID, fmt.Sprintf("warm-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	tr.CloseIdleConnections()
	time.Sleep(300 * time.Millisecond)
	goroutinesBefore := goroutines(t, hc, node.debugBase())

	// The background load: every worker adds fresh reactions and records what happened.
	var (
		mu      sync.Mutex
		results []loadResult
	)
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; loadCtx.Err() == nil; n++ {
				r := loadResult{worker: w, user: users[(w+n)%2], reaction: fmt.Sprintf("w%d-%03d", w, n)}
				rctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
				r.start = time.Now()
				_, err := c.OnBehalfOf(r.user).AddReaction(rctx, msg.ID, r.reaction)
				r.end = time.Now()
				r.status, r.code = apiErr(err)
				var ce *client.Error
				if errors.As(err, &ce) {
					r.message = ce.Message
				} else if errors.Is(rctx.Err(), context.DeadlineExceeded) {
					r.code = fmt.Sprintf("client timeout after %v", clientTimeout)
				}
				cancel()
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				select {
				case <-loadCtx.Done():
				case <-time.After(loadPause):
				}
			}
		}()
	}
	snapshot := func() []loadResult {
		mu.Lock()
		defer mu.Unlock()
		return append([]loadResult(nil), results...)
	}

	time.Sleep(time.Second) // normal operation first

	tStopCall := time.Now()
	srv.Stop()
	tStopped := time.Now()
	t.Logf("PostgreSQL stopped (pg_ctl stop -m fast took %v)", tStopped.Sub(tStopCall).Round(time.Millisecond))

	// While down: probe /readyz and /healthz every 250 ms.
	var readyDown, healthDown []probe
	aliveWhileDown := true
	for time.Since(tStopped) < downFor {
		at := time.Now()
		s, body, lat := getStatus(hc, node.base()+"/readyz", clientTimeout)
		readyDown = append(readyDown, probe{at, s, body, lat})
		s, body, lat = getStatus(hc, node.base()+"/healthz", clientTimeout)
		healthDown = append(healthDown, probe{at, s, body, lat})
		aliveWhileDown = aliveWhileDown && node.alive()
		time.Sleep(250 * time.Millisecond)
	}

	tStartCall := time.Now()
	srv.Start()
	tStarted := time.Now()
	t.Logf("PostgreSQL started again (Start took %v)", tStarted.Sub(tStartCall).Round(time.Millisecond))

	// Recovery: /readyz 200 and a load request answered 200, both without restarting natter.
	var readyAfter time.Duration = -1
	var readyUp []probe
	for time.Since(tStarted) < 2*recoverWithin {
		at := time.Now()
		s, body, lat := getStatus(hc, node.base()+"/readyz", clientTimeout)
		readyUp = append(readyUp, probe{at, s, body, lat})
		if s == 200 {
			readyAfter = time.Since(tStarted)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	firstOKAfterStart := func() (loadResult, bool) {
		var best loadResult
		found := false
		for _, r := range snapshot() {
			if r.status == 200 && r.start.After(tStarted) && (!found || r.end.Before(best.end)) {
				best, found = r, true
			}
		}
		return best, found
	}
	deadline := tStarted.Add(2 * recoverWithin)
	for time.Now().Before(deadline) {
		if _, ok := firstOKAfterStart(); ok {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // a stretch of normal operation again
	stopLoad()
	wg.Wait()
	all := snapshot()
	aliveAfter := node.alive()

	// Report the timeline.
	sort.Slice(all, func(i, j int) bool { return all[i].start.Before(all[j].start) })
	phase := func(r loadResult) string {
		switch {
		case r.end.Before(tStopCall):
			return "1 before the stop"
		case r.start.Before(tStopped):
			return "2 in flight across Stop()"
		case r.end.Before(tStartCall):
			return "3 while down"
		case r.start.Before(tStarted):
			return "4 in flight across Start()"
		default:
			return "5 after Start()"
		}
	}
	type bucket struct {
		outcomes  map[string]int
		latencies []time.Duration
	}
	buckets := map[string]*bucket{}
	for _, r := range all {
		b := buckets[phase(r)]
		if b == nil {
			b = &bucket{outcomes: map[string]int{}}
			buckets[phase(r)] = b
		}
		b.outcomes[r.outcome()]++
		b.latencies = append(b.latencies, r.latency())
	}
	var names []string
	for n := range buckets {
		names = append(names, n)
	}
	sort.Strings(names)
	var rep strings.Builder
	fmt.Fprintf(&rep, "REPORT PostgreSQL outage: %d load requests\n", len(all))
	for _, n := range names {
		fmt.Fprintf(&rep, "  %-28s %v  latency %s\n", n+":", buckets[n].outcomes, durStats(buckets[n].latencies))
	}

	// 1. The first 503 soon after the stop.
	var first503 *loadResult
	for i, r := range all {
		if r.status == 503 && !r.end.Before(tStopCall) && (first503 == nil || r.end.Before(first503.end)) {
			first503 = &all[i]
		}
	}
	if first503 == nil {
		fmt.Fprintf(&rep, "  first 503: none\n")
		t.Errorf("no request answered 503 while PostgreSQL was down")
	} else {
		d := first503.end.Sub(tStopped)
		fmt.Fprintf(&rep, "  first 503 %v after Stop() returned (%v after it was called): %s %q\n",
			d.Round(time.Millisecond), first503.end.Sub(tStopCall).Round(time.Millisecond), first503.code, first503.message)
		if d > first503Within {
			t.Errorf("the first 503 came %v after PostgreSQL stopped, want within %v", d.Round(time.Millisecond), first503Within)
		}
	}

	// 2. Every request while down: 503 ERR_SERVICE_UNAVAILABLE, promptly. Every request that
	// overlapped the outage at all: 200 or 503, never a 500 or a transport error.
	type wrong struct {
		n       int
		example loadResult
	}
	wrongDown := map[string]*wrong{}
	var slowDown []loadResult
	wrongAround := map[string]*wrong{}
	note := func(m map[string]*wrong, r loadResult) {
		k := r.outcome()
		if m[k] == nil {
			m[k] = &wrong{example: r}
		}
		m[k].n++
	}
	for _, r := range all {
		down := !r.start.Before(tStopped) && r.end.Before(tStartCall)
		overlaps := r.end.After(tStopCall) && r.start.Before(tStarted)
		if down {
			if r.status != 503 || r.code != "ERR_SERVICE_UNAVAILABLE" {
				note(wrongDown, r)
			}
			if r.latency() > downLatencyMax {
				slowDown = append(slowDown, r)
			}
		} else if overlaps && r.status != 200 && (r.status != 503 || r.code != "ERR_SERVICE_UNAVAILABLE") {
			note(wrongAround, r)
		}
	}
	for k, w := range wrongDown {
		t.Errorf("while PostgreSQL was down, %d requests answered %s, want 503 ERR_SERVICE_UNAVAILABLE; e.g. %s %s at +%v after the stop, took %v, message %q",
			w.n, k, w.example.user, w.example.reaction, w.example.start.Sub(tStopped).Round(time.Millisecond),
			w.example.latency().Round(time.Millisecond), w.example.message)
	}
	for k, w := range wrongAround {
		t.Errorf("around the outage, %d requests answered %s, want 200 or 503 ERR_SERVICE_UNAVAILABLE; e.g. started %v after Stop() was called, took %v, message %q",
			w.n, k, w.example.start.Sub(tStopCall).Round(time.Millisecond), w.example.latency().Round(time.Millisecond), w.example.message)
	}
	if len(slowDown) > 0 {
		var lats []time.Duration
		for _, r := range slowDown {
			lats = append(lats, r.latency())
		}
		t.Errorf("while PostgreSQL was down, %d requests took longer than %v: %s", len(slowDown), downLatencyMax, durStats(lats))
	}

	// 3. /readyz not ready while down, answered promptly; /healthz and the process alive.
	readyOut := map[string]int{}
	var readyLat []time.Duration
	for _, p := range readyDown {
		readyOut[fmt.Sprint(p.status)]++
		readyLat = append(readyLat, p.latency)
		if p.status == 200 && p.at.Sub(tStopped) > first503Within {
			t.Errorf("/readyz answered 200 %v after PostgreSQL stopped", p.at.Sub(tStopped).Round(time.Millisecond))
		}
		if p.status == 0 {
			t.Errorf("/readyz gave no answer while PostgreSQL was down: %s", p.body)
		} else if p.latency > downLatencyMax {
			t.Errorf("/readyz took %v while PostgreSQL was down", p.latency.Round(time.Millisecond))
		}
	}
	fmt.Fprintf(&rep, "  /readyz while down: %v latency %s", readyOut, durStats(readyLat))
	if len(readyDown) > 0 {
		fmt.Fprintf(&rep, " body %.160s", readyDown[len(readyDown)-1].body)
	}
	rep.WriteString("\n")
	for _, p := range healthDown {
		if p.status != 200 {
			t.Errorf("/healthz answered %d (%.100s) while PostgreSQL was down, want 200: the process should stay up", p.status, p.body)
			break
		}
	}
	if !aliveWhileDown || !aliveAfter {
		t.Errorf("natter exited (%v); stderr:\n%s", node.waitErr, node.tail(30))
	}

	// 4. Recovery without a restart.
	if readyAfter < 0 {
		last := readyUp[len(readyUp)-1]
		t.Errorf("/readyz not 200 within %v of PostgreSQL starting again; last HTTP %d %.160s", 2*recoverWithin, last.status, last.body)
		fmt.Fprintf(&rep, "  /readyz after Start(): never 200\n")
	} else {
		fmt.Fprintf(&rep, "  /readyz 200 again %v after Start() returned\n", readyAfter.Round(time.Millisecond))
		if readyAfter > recoverWithin {
			t.Errorf("/readyz took %v after PostgreSQL started to answer 200, want within %v", readyAfter.Round(time.Millisecond), recoverWithin)
		}
	}
	if r, ok := firstOKAfterStart(); !ok {
		t.Errorf("no load request succeeded after PostgreSQL started again")
		fmt.Fprintf(&rep, "  first 200 after Start(): none\n")
	} else {
		d := r.end.Sub(tStarted)
		fmt.Fprintf(&rep, "  first load request 200 again %v after Start() returned\n", d.Round(time.Millisecond))
		if d > recoverWithin {
			t.Errorf("requests succeeded again only %v after PostgreSQL started, want within %v", d.Round(time.Millisecond), recoverWithin)
		}
		settled := r.end.Add(500 * time.Millisecond)
		bad := map[string]int{}
		for _, x := range all {
			if x.start.After(settled) && x.status != 200 {
				bad[x.outcome()]++
			}
		}
		if len(bad) > 0 {
			t.Errorf("after recovery (from 500ms after the first success), requests still failed: %v", bad)
		}
	}

	// 5. Everything acknowledged is stored.
	db := openDB(t, dbURL)
	stored := map[string]bool{}
	rows, err := db.Query(`SELECT uid, reaction FROM reactions WHERE message_id = $1::bigint`, msg.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u, r string
		if err := rows.Scan(&u, &r); err != nil {
			t.Fatal(err)
		}
		stored[u+"\x00"+r] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	acked, lost, failedButStored := 0, 0, map[string]int{}
	for _, r := range all {
		k := r.user + "\x00" + r.reaction
		if r.status == 200 {
			acked++
			if !stored[k] {
				lost++
				if lost <= 5 {
					t.Errorf("acknowledged with 200 but not in the database: (%s, %s), request at +%v from the stop", r.user, r.reaction, r.start.Sub(tStopCall).Round(time.Millisecond))
				}
			}
		} else if stored[k] {
			failedButStored[r.outcome()]++
		}
	}
	if lost > 5 {
		t.Errorf("... %d acknowledged reactions missing in all", lost)
	}
	fmt.Fprintf(&rep, "  acknowledged 200: %d, all in the database: %v; failed but stored anyway: %v\n", acked, lost == 0, failedButStored)
	checkCountsMatchRows(t, db, msg.ID)

	// 6. No goroutine leak.
	tr.CloseIdleConnections()
	goroutinesAfter := -1
	for range 10 { // let connection goroutines wind down; take the lowest reading
		time.Sleep(200 * time.Millisecond)
		if n := goroutines(t, hc, node.debugBase()); goroutinesAfter < 0 || n < goroutinesAfter {
			goroutinesAfter = n
		}
		tr.CloseIdleConnections()
	}
	fmt.Fprintf(&rep, "  goroutines: %d before the outage, %d after recovery (limit %d)\n", goroutinesBefore, goroutinesAfter, 2*goroutinesBefore+20)
	if goroutinesAfter > 2*goroutinesBefore+20 {
		t.Errorf("natter has %d goroutines after recovery, %d before the outage: a leak", goroutinesAfter, goroutinesBefore)
	}

	// natter's own account of the outage: its warnings and errors, grouped.
	fmt.Fprintf(&rep, "  natter stderr, WARN/ERROR lines grouped:\n%s", groupLogLines(node.stderrLines()))
	t.Log(rep.String())
}

var (
	logTimeRE  = regexp.MustCompile(`^time=\S+ `)
	logReqIDRE = regexp.MustCompile(` request_id=\S+`)
	logNumRE   = regexp.MustCompile(`\b\d+\b`)
)

// groupLogLines groups natter's WARN and ERROR lines, with numbers, times and request ids
// masked, and shows each kind once with its count.
func groupLogLines(lines []string) string {
	counts := map[string]int{}
	var order []string
	for _, l := range lines {
		if !strings.Contains(l, "level=WARN") && !strings.Contains(l, "level=ERROR") {
			continue
		}
		k := logNumRE.ReplaceAllString(logReqIDRE.ReplaceAllString(logTimeRE.ReplaceAllString(l, ""), ""), "N")
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	if len(order) == 0 {
		return "    (none)\n"
	}
	var b strings.Builder
	for _, k := range order {
		fmt.Fprintf(&b, "    %4d× %.400s\n", counts[k], k)
	}
	return b.String()
}
