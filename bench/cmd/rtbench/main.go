// Command rtbench measures natter's real time (docs/realtime.md) on loopback: fan-out of one
// group message to every member's open socket, the memory an idle socket costs, and the
// latency from a send on one node to its arrival on a socket of another node of one
// PostgreSQL. It starts the natter binary it is given, and a throwaway PostgreSQL for the
// cross-node figure. Every run is bounded: it stops by itself.
//
//	go build -o /tmp/natter ./cmd/natter && go run ./bench/cmd/rtbench -natter /tmp/natter
//
// -only idle (or bare, fan-out, cross-node) runs one part; with -hold 1m and NATTER_DEBUG_ADDR
// set, the idle sockets stay open for a minute after the figure, for natter's pprof.
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/bench/internal/natterproc"
	"github.com/natter-chat/natter/bench/internal/sdksock"
	"github.com/natter-chat/natter/internal/pgserver"
)

func main() {
	bin := flag.String("natter", "", "the natter binary (required)")
	members := flag.Int("members", 1000, "group members, each with an open socket, for the fan-out")
	rounds := flag.Int("rounds", 30, "messages timed for the fan-out and the cross-node latency")
	idle := flag.Int("idle", 10000, "idle sockets opened for the memory figure")
	skipPG := flag.Bool("no-postgres", false, "skip the cross-node figure")
	only := flag.String("only", "", "run one part alone: bare, fan-out, idle or cross-node")
	hold := flag.Duration("hold", 0, "keep the idle sockets open this long after measuring, to profile natter (NATTER_DEBUG_ADDR)")
	flag.Parse()
	if *bin == "" && *only != "bare" {
		fmt.Fprintln(os.Stderr, "rtbench: -natter is required")
		os.Exit(2)
	}
	switch *only {
	case "", "bare", "fan-out", "idle", "cross-node":
	default:
		fmt.Fprintf(os.Stderr, "rtbench: -only %q: want bare, fan-out, idle or cross-node\n", *only)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute+*hold)
	defer cancel()
	p := parts{only: *only, members: *members, rounds: *rounds, idle: *idle, hold: *hold, skipPG: *skipPG}
	if err := run(ctx, *bin, p); err != nil {
		fmt.Fprintln(os.Stderr, "rtbench:", err)
		os.Exit(1)
	}
}

// parts is what a run measures.
type parts struct {
	only                  string // one part alone; all when empty
	members, rounds, idle int
	hold                  time.Duration
	skipPG                bool
}

func (p parts) runs(part string) bool { return p.only == "" || p.only == part }

func run(ctx context.Context, bin string, p parts) error {
	tmp, err := os.MkdirTemp("", "rtbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	members, rounds := p.members, p.rounds
	fmt.Printf("rtbench %s: %d members, %d rounds, %d idle sockets\n", time.Now().UTC().Format(time.RFC3339), members, rounds, p.idle)

	if p.runs("bare") {
		if err := bareFanOut(ctx, members, rounds); err != nil {
			return err
		}
	}
	if p.runs("fan-out") || p.runs("idle") {
		node, err := startNode(ctx, bin, tmp, "sqlite:"+filepath.Join(tmp, "rt.db"), "a")
		if err != nil {
			return err
		}
		defer node.stop()
		if p.runs("fan-out") {
			if err := fanOut(ctx, node, members, rounds); err != nil {
				return err
			}
		}
		if p.runs("idle") {
			if err := idleCost(ctx, node, p.idle, p.hold); err != nil {
				return err
			}
		}
	}
	if p.skipPG || !p.runs("cross-node") {
		return nil
	}
	pg, err := pgserver.Start(pgserver.Options{})
	if err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	defer pg.Close()
	a, err := startNode(ctx, bin, tmp, pg.URL("postgres"), "pa")
	if err != nil {
		return err
	}
	defer a.stop()
	b, err := startNode(ctx, bin, tmp, pg.URL("postgres"), "pb")
	if err != nil {
		return err
	}
	defer b.stop()
	return crossNode(ctx, a, b, rounds)
}

// node is one natter serve process.
type node struct {
	*natterproc.Proc
	base string
	key  string
}

func startNode(ctx context.Context, bin, tmp, db, name string) (*node, error) {
	key := "rtbench-key-0123456789abcdef"
	p, err := natterproc.Start(ctx, natterproc.Spec{Bin: bin, Dir: tmp, DB: db, Key: key, AppID: "rt", Args: []string{"--max-sockets", "30000"}})
	if err != nil {
		return nil, fmt.Errorf("natter %s: %w", name, err)
	}
	return &node{Proc: p, base: p.Base, key: key}, nil
}

func (n *node) stop() { n.Stop(10 * time.Second) }

var hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

// call makes one API request and decodes data into out.
func (n *node) call(ctx context.Context, method, path string, hdr map[string]string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, n.base+"/v3"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if _, ok := hdr["authToken"]; !ok {
		req.Header.Set("apikey", n.key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := hc.Do(req)
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

// users creates n users named prefix0… and returns their socket credentials.
func (n *node) users(ctx context.Context, prefix string, count int) ([]string, []string, error) {
	uids := make([]string, count)
	jwts := make([]string, count)
	errs := make(chan error, count)
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := range count {
		uids[i] = prefix + strconv.Itoa(i)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := n.call(ctx, "POST", "/users", nil, map[string]any{"uid": uids[i], "name": uids[i]}, nil); err != nil {
				errs <- err
				return
			}
			var tok struct{ AuthToken string }
			if err := n.call(ctx, "POST", "/users/"+uids[i]+"/auth_tokens", nil, map[string]any{}, &tok); err != nil {
				errs <- err
				return
			}
			var me struct{ JWT string }
			if err := n.call(ctx, "PUT", "/me", map[string]string{"authToken": tok.AuthToken}, map[string]any{}, &me); err != nil {
				errs <- err
				return
			}
			jwts[i] = me.JWT
		}()
	}
	wg.Wait()
	close(errs)
	return uids, jwts, <-errs
}

// sock is an authenticated socket whose frames are timed as they arrive.
type sock struct {
	ws *websocket.Conn
}

func (n *node) open(ctx context.Context, uid, jwt string, onFrame func([]byte)) (*sock, error) {
	ws, err := sdksock.Open(ctx, n.base, "rt", uid, jwt, onFrame)
	if err != nil {
		return nil, err
	}
	return &sock{ws: ws}, nil
}

var pct, ms = natterproc.Pct, natterproc.Ms

// fanOut: one group of members, each with a socket; each round sends one message and waits
// until every member has it.
func fanOut(ctx context.Context, n *node, members, rounds int) error {
	uids, jwts, err := n.users(ctx, "m", members)
	if err != nil {
		return err
	}
	if err := n.call(ctx, "POST", "/groups", nil, map[string]any{"guid": "big", "name": "Big", "type": "public", "owner": uids[0]}, nil); err != nil {
		return err
	}
	for i := 1; i < members; i += 25 {
		if err := n.call(ctx, "POST", "/groups/big/members", nil, map[string]any{"participants": uids[i:min(i+25, members)]}, nil); err != nil {
			return err
		}
	}
	var mu sync.Mutex
	var sent time.Time
	var got int
	var lat []time.Duration
	done := make(chan struct{}, 1)
	var want atomic.Value
	want.Store("")
	socks := make([]*sock, members)
	for i := range members {
		s, err := n.open(ctx, uids[i], jwts[i], func(f []byte) {
			w := want.Load().(string)
			if w == "" || !bytes.Contains(f, []byte(w)) {
				return
			}
			mu.Lock()
			got++
			lat = append(lat, time.Since(sent))
			if got == members {
				done <- struct{}{}
			}
			mu.Unlock()
		})
		if err != nil {
			return err
		}
		socks[i] = s
	}
	defer func() {
		for _, s := range socks {
			s.ws.CloseNow()
		}
	}()
	time.Sleep(500 * time.Millisecond) // the member-change events settle
	var last []time.Duration
	for r := range rounds {
		text := fmt.Sprintf("fan-out round %d", r)
		mu.Lock()
		got, sent = 0, time.Now()
		want.Store(text)
		mu.Unlock()
		if err := n.call(ctx, "POST", "/messages", map[string]string{"onBehalfOf": uids[0]},
			map[string]any{"receiver": "big", "receiverType": "group", "category": "message", "type": "text", "data": map[string]any{"text": text}}, nil); err != nil {
			return err
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("round %d: %d of %d members got the message in 30 s", r, got, members)
		}
		mu.Lock()
		last = append(last, time.Since(sent))
		want.Store("")
		mu.Unlock()
	}
	fmt.Printf("fan-out to %d sockets (SQLite, one node), %d messages: last member p50 %s ms, p99 %s ms; any member p50 %s ms, p99 %s ms\n",
		members, rounds, ms(pct(last, .5)), ms(pct(last, .99)), ms(pct(lat, .5)), ms(pct(lat, .99)))
	return nil
}

// rss is a process's resident memory in KiB.
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

// idleCost opens count idle sockets (one user's devices) and reports natter's memory.
func idleCost(ctx context.Context, n *node, count int, hold time.Duration) error {
	uids, jwts, err := n.users(ctx, "idle", 1)
	if err != nil {
		return err
	}
	runtimeGC := func() { time.Sleep(2 * time.Second) }
	runtimeGC()
	before := rss(n.Cmd.Process.Pid)
	socks := make([]*sock, 0, count)
	defer func() {
		for _, s := range socks {
			s.ws.CloseNow()
		}
	}()
	// Each socket pings once and waits for its pong, as the SDK does every 15 s: an idle
	// socket has read and written a frame since it opened.
	var pongs atomic.Int64
	onPong := func(f []byte) {
		if bytes.Contains(f, []byte(`"pong"`)) {
			pongs.Add(1)
		}
	}
	t0 := time.Now()
	for i := range count {
		s, err := n.open(ctx, uids[0], jwts[0], onPong)
		if err != nil {
			return fmt.Errorf("socket %d: %w", i, err)
		}
		socks = append(socks, s)
		if err := s.ws.Write(ctx, websocket.MessageText, sdksock.Ping); err != nil {
			return fmt.Errorf("socket %d: ping: %w", i, err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); pongs.Load() < int64(count); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d pongs in 30 s", pongs.Load(), count)
		}
	}
	opened := time.Since(t0)
	runtimeGC()
	after := rss(n.Cmd.Process.Pid)
	fmt.Printf("idle: %d sockets opened and pinged in %s; natter RSS %d MiB → %d MiB: %.1f KiB per socket\n",
		count, opened.Round(time.Millisecond), before/1024, after/1024, float64(after-before)/float64(count))
	if hold > 0 {
		fmt.Printf("idle: holding the sockets open for %s\n", hold)
		select {
		case <-time.After(hold):
		case <-ctx.Done():
		}
	}
	return nil
}

// crossNode: a socket on node b, messages sent through node a.
func crossNode(ctx context.Context, a, b *node, rounds int) error {
	uids, jwts, err := a.users(ctx, "x", 2)
	if err != nil {
		return err
	}
	arrived := make(chan time.Time, 16)
	s, err := b.open(ctx, uids[1], jwts[1], func(f []byte) {
		if bytes.Contains(f, []byte(`"type":"message"`)) {
			arrived <- time.Now()
		}
	})
	if err != nil {
		return err
	}
	defer s.ws.CloseNow()
	var lat []time.Duration
	for r := range rounds {
		t0 := time.Now()
		if err := a.call(ctx, "POST", "/messages", map[string]string{"onBehalfOf": uids[0]},
			map[string]any{"receiver": uids[1], "receiverType": "user", "category": "message", "type": "text", "data": map[string]any{"text": "x"}}, nil); err != nil {
			return err
		}
		select {
		case t := <-arrived:
			lat = append(lat, t.Sub(t0))
		case <-time.After(10 * time.Second):
			return fmt.Errorf("round %d: the message did not reach node b's socket in 10 s", r)
		}
	}
	fmt.Printf("cross-node (send on node A's REST API → frame on node B's socket, through the change log), %d messages: p50 %s ms, p99 %s ms\n",
		rounds, ms(pct(lat, .5)), ms(pct(lat, .99)))
	return nil
}

// bareFanOut is the machine's ceiling for the fan-out: a bare WebSocket server in this
// process (the same library, no auth, no database, no JSON) writes each frame to members
// sockets, timed as fanOut times natter.
func bareFanOut(ctx context.Context, members, rounds int) error {
	var mu sync.Mutex
	var conns []*websocket.Conn
	ready := make(chan struct{}, members)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, ws)
		mu.Unlock()
		ready <- struct{}{}
		<-r.Context().Done()
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	defer srv.Close()
	var got atomic.Int64
	done := make(chan struct{}, 1)
	var sent atomic.Int64
	var lat []time.Duration
	var latMu sync.Mutex
	clients := make([]*websocket.Conn, 0, members)
	defer func() {
		for _, c := range clients {
			c.CloseNow()
		}
	}()
	for range members {
		c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String()+"/", nil)
		if err != nil {
			return err
		}
		clients = append(clients, c)
		<-ready
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
				latMu.Lock()
				lat = append(lat, time.Since(time.Unix(0, sent.Load())))
				latMu.Unlock()
				if got.Add(1) == int64(members) {
					done <- struct{}{}
				}
			}
		}()
	}
	frame := bytes.Repeat([]byte("x"), 900) // about the size of natter's group message frame
	var last []time.Duration
	for r := range rounds {
		got.Store(0)
		t0 := time.Now()
		sent.Store(t0.UnixNano())
		mu.Lock()
		for _, ws := range conns {
			ws.Write(ctx, websocket.MessageText, frame)
		}
		mu.Unlock()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("bare round %d timed out", r)
		}
		last = append(last, time.Since(t0))
	}
	fmt.Printf("ceiling: bare WebSocket fan-out to %d sockets in this process, %d frames: last member p50 %s ms, p99 %s ms; any member p50 %s ms, p99 %s ms\n",
		members, rounds, ms(pct(last, .5)), ms(pct(last, .99)), ms(pct(lat, .5)), ms(pct(lat, .99)))
	return nil
}
