package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// binPrefix names the temporary directories holding the natter binary; the test binary's
// PID follows it, so that a later run can delete what a killed run left behind.
const binPrefix = "natter-e2e-"

func TestMain(m *testing.M) {
	sweepStaleBinaries()
	pgtest.Main(m)
}

// natterBin is the natter binary, built once per test binary.
var natterBin struct {
	once sync.Once
	path string
	err  error
}

// natterBinary builds ./cmd/natter on first use and returns its path. pgtest.Main exits the
// process, so the directory cannot be removed at the end of the run; the next run sweeps it.
func natterBinary(t testing.TB) string {
	t.Helper()
	natterBin.once.Do(func() {
		dir, err := os.MkdirTemp("", binPrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			natterBin.err = err
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		path := filepath.Join(dir, "natter")
		t0 := time.Now()
		cmd := exec.Command(goTool, "build", "-o", path, "github.com/natter-chat/natter/cmd/natter")
		if out, err := cmd.CombinedOutput(); err != nil {
			natterBin.err = fmt.Errorf("go build ./cmd/natter: %v\n%s", err, out)
			os.RemoveAll(dir)
			return
		}
		natterBin.path = path
		t.Logf("built natter in %v", time.Since(t0).Round(time.Millisecond))
	})
	if natterBin.err != nil {
		t.Fatal(natterBin.err)
	}
	return natterBin.path
}

// sweepStaleBinaries deletes the binary directories of earlier runs whose process is gone.
func sweepStaleBinaries() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binPrefix+"*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), binPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			continue // still running (or the PID was reused: leave it for a later sweep)
		}
		os.RemoveAll(d)
	}
}

// natterProc is one `natter serve` subprocess.
type natterProc struct {
	name string
	cmd  *exec.Cmd

	mu        sync.Mutex
	lines     []string // stderr, one log line each
	addr      string   // API listen address, once logged
	debugAddr string   // pprof listen address, once logged
	stdout    bytes.Buffer

	ready   chan struct{} // closed when "natter listening" is logged
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited is closed
}

var (
	listeningRE = regexp.MustCompile(`msg="natter listening" addr=(\S+)`)
	debugRE     = regexp.MustCompile(`msg="debug listener \(pprof\)" addr=(\S+)`)
)

// newNatter prepares `natter <args…>` with env added to the environment (NATTER_* variables
// of the test's own environment are removed). Start it with start.
func newNatter(t *testing.T, name string, env []string, args ...string) *natterProc {
	t.Helper()
	p := &natterProc{name: name, ready: make(chan struct{}), exited: make(chan struct{})}
	p.cmd = exec.Command(natterBinary(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NATTER_") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout = &lockedWriter{mu: &p.mu, w: &p.stdout}
	p.cmd.Stderr = &lineWriter{p: p}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{}
	// Where the platform has it (Linux), Pdeathsig kills natter if the test binary dies
	// without running its cleanups (a -timeout panic, say). Set by name so this compiles
	// everywhere.
	if f := reflect.ValueOf(p.cmd.SysProcAttr).Elem().FieldByName("Pdeathsig"); f.IsValid() {
		f.Set(reflect.ValueOf(syscall.SIGKILL))
	}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s stderr (last lines):\n%s", p.name, p.tail(40))
		}
	})
	return p
}

// start starts the process without waiting for it to listen.
func (p *natterProc) start() error {
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that forked the child exits, and Go retires idle
		// threads: fork from a locked thread and hold it until the child has exited.
		runtime.LockOSThread()
		if err := p.cmd.Start(); err != nil {
			started <- err
			p.waitErr = err
			close(p.exited)
			return
		}
		started <- nil
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return <-started
}

// waitReady waits until the process listens, and fails if it exits first.
func (p *natterProc) waitReady(timeout time.Duration) error {
	select {
	case <-p.ready:
		return nil
	case <-p.exited:
		return fmt.Errorf("%s exited before listening (%v); stderr:\n%s", p.name, p.waitErr, p.tail(20))
	case <-time.After(timeout):
		return fmt.Errorf("%s did not log \"natter listening\" within %v; stderr:\n%s", p.name, timeout, p.tail(20))
	}
}

// startNatter starts natter and waits until it listens.
func startNatter(t *testing.T, name string, env []string, args ...string) *natterProc {
	t.Helper()
	p := newNatter(t, name, env, args...)
	if err := p.start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	if err := p.waitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *natterProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *natterProc) kill() {
	if p.cmd.Process == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
}

// base is the API's base URL.
func (p *natterProc) base() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "http://" + p.addr
}

func (p *natterProc) debugBase() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.debugAddr == "" {
		return ""
	}
	return "http://" + p.debugAddr
}

func (p *natterProc) stdoutText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// stderrLines returns a copy of what natter logged so far.
func (p *natterProc) stderrLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

func (p *natterProc) tail(n int) string {
	l := p.stderrLines()
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return "\t" + strings.Join(l, "\n\t")
}

// lineWriter splits natter's stderr into lines and watches for the listen addresses.
type lineWriter struct {
	p       *natterProc
	partial []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		p := w.p
		p.mu.Lock()
		p.lines = append(p.lines, line)
		if m := debugRE.FindStringSubmatch(line); m != nil {
			p.debugAddr = m[1]
		}
		if m := listeningRE.FindStringSubmatch(line); m != nil && p.addr == "" {
			p.addr = m[1]
			close(p.ready)
		}
		p.mu.Unlock()
	}
	return len(b), nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// newHTTPClient is the tests' HTTP client: enough idle connections per node that bursts of
// a few hundred requests reuse them. Its idle connections close when the test ends.
func newHTTPClient(t *testing.T) (*http.Client, *http.Transport) {
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}, tr
}

// randomKey returns a 40-character lowercase hex key, as natter issues.
func randomKey() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openDB opens the database natter uses, for asserting what is stored.
func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db
}

// apiErr returns the status and error code of a client error; a transport error (no
// response) has status 0 and its text as code.
func apiErr(err error) (status int, code string) {
	if err == nil {
		return 200, ""
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Status, ce.Code
	}
	return 0, err.Error()
}

// burst runs f(0…n-1) in n goroutines released at the same moment, and waits for them.
func burst(n int, f func(i int)) {
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			f(i)
		}()
	}
	close(gate)
	wg.Wait()
}

// bounded runs f(0…n-1) with at most limit at a time.
func bounded(n, limit int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, limit)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// getStatus GETs url and returns the status and body; status 0 means no response.
func getStatus(hc *http.Client, url string, timeout time.Duration) (int, string, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error(), time.Since(t0)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, strings.TrimSpace(string(b)), time.Since(t0)
}

// goroutines reads the total of natter's goroutine profile from its pprof listener.
func goroutines(t *testing.T, hc *http.Client, debugBase string) int {
	t.Helper()
	status, body, _ := getStatus(hc, debugBase+"/debug/pprof/goroutine?debug=1", 10*time.Second)
	if status != 200 {
		t.Fatalf("goroutine profile: HTTP %d: %.200s", status, body)
	}
	first, _, _ := strings.Cut(body, "\n")
	var n int
	if _, err := fmt.Sscanf(first, "goroutine profile: total %d", &n); err != nil {
		t.Fatalf("goroutine profile: unexpected first line %q", first)
	}
	return n
}

// seedMessage sends a one-to-one text message from sender to receiver.
func seedMessage(t *testing.T, c *client.Client, sender, receiver string) *client.Message {
	t.Helper()
	m, err := c.OnBehalfOf(sender).SendMessage(context.Background(), client.SendMessageRequest{
		Receiver: receiver, ReceiverType: "user", Category: "message", Type: "text",
		Data: map[string]any{"text": "hello from " + sender}})
	if err != nil {
		t.Fatalf("send message %s → %s: %v", sender, receiver, err)
	}
	return m
}

// dbReactions returns, for a message, reaction_counts (reaction → count) and the reaction
// rows grouped by reaction (reaction → rows), straight from the database.
func dbReactions(t *testing.T, db *sql.DB, msgID string) (counts, rows map[string]int64) {
	t.Helper()
	id, err := strconv.ParseInt(msgID, 10, 64)
	if err != nil {
		t.Fatalf("message id %q: %v", msgID, err)
	}
	read := func(q string) map[string]int64 {
		r, err := db.Query(q, id)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer r.Close()
		out := map[string]int64{}
		for r.Next() {
			var k string
			var n int64
			if err := r.Scan(&k, &n); err != nil {
				t.Fatal(err)
			}
			out[k] = n
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	counts = read(`SELECT reaction, count FROM reaction_counts WHERE message_id = $1`)
	rows = read(`SELECT reaction, COUNT(*) FROM reactions WHERE message_id = $1 GROUP BY reaction`)
	return counts, rows
}

// checkCountsMatchRows asserts that every reaction_counts row equals its reaction rows, with
// no count row for a reaction without rows, and returns the counts.
func checkCountsMatchRows(t *testing.T, db *sql.DB, msgID string) map[string]int64 {
	t.Helper()
	counts, rows := dbReactions(t, db, msgID)
	for r, n := range counts {
		if rows[r] != n {
			t.Errorf("reaction %q: reaction_counts.count = %d, reaction rows = %d", r, n, rows[r])
		}
	}
	for r, n := range rows {
		if _, ok := counts[r]; !ok {
			t.Errorf("reaction %q: %d reaction rows but no reaction_counts row", r, n)
		}
	}
	return counts
}

// summaryMap turns a message's reaction summary into reaction → count, failing on a
// reaction listed twice.
func summaryMap(t *testing.T, m *client.Message) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, s := range m.Data.Reactions {
		if _, dup := out[s.Reaction]; dup {
			t.Errorf("message %s: reaction %q listed twice in the summary", m.ID, s.Reaction)
		}
		out[s.Reaction] = s.Count
	}
	return out
}

// durStats summarises latencies: count, median, max.
func durStats(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := append([]time.Duration(nil), ds...)
	for i := 1; i < len(s); i++ { // insertion sort: a few hundred at most
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	return fmt.Sprintf("n=%d p50=%v p90=%v max=%v", len(s), r(s[len(s)/2]), r(s[len(s)*9/10]), r(s[len(s)-1]))
}
