package main

// Helpers for the run-contract tests: they build the real natter binary once per test binary
// and drive it as a subprocess, the way scripts and users do (see docs/configuration.md).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// natterBin is the binary built by TestMain.
var natterBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "natter-run-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	natterBin = filepath.Join(dir, "natter")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	build := exec.CommandContext(ctx, "go", "build", "-o", natterBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	err = build.Run()
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go build natter:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine of exec and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// environ is this process's environment without any NATTER_* variable, plus env: a test sees
// only the settings it chose.
func environ(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NATTER_") {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// proc is one natter subprocess.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
	done           chan struct{} // closed when the process has exited
}

// start runs natter with args in a fresh working directory (so a default sqlite:natter.db
// never lands in the source tree). The process is killed at cleanup if still running.
func start(t *testing.T, env map[string]string, args ...string) *proc {
	t.Helper()
	p := &proc{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(natterBin, args...)
	p.cmd.Env = environ(env)
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start natter %v: %v", args, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the process to exit and returns its exit status.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("natter %v did not exit within %v\nstdout:\n%s\nstderr:\n%s", p.cmd.Args[1:], d, p.stdout, p.stderr)
		return -1
	}
}

// stop sends SIGTERM and returns the exit status, failing if the process takes longer than d.
func (p *proc) stop(t *testing.T, d time.Duration) int {
	t.Helper()
	return p.stopWith(t, syscall.SIGTERM, d)
}

func (p *proc) stopWith(t *testing.T, sig os.Signal, d time.Duration) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil && !p.exited() {
		t.Fatalf("%v: %v", sig, err)
	}
	return p.wait(t, d)
}

// runNatter runs a short-lived natter command to completion and returns its output and
// exit status.
func runNatter(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	p := start(t, env, args...)
	code = p.wait(t, 10*time.Second)
	return p.stdout.String(), p.stderr.String(), code
}

var listeningRE = regexp.MustCompile(`msg="natter listening" addr=(\S+)`)

// startServe starts `natter serve --addr 127.0.0.1:0 --database sqlite:db` plus args and waits for
// its listen line on stderr; it returns the process and the address it listens on.
func startServe(t *testing.T, db string, env map[string]string, args ...string) (*proc, string) {
	t.Helper()
	p := start(t, env, append([]string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + db}, args...)...)
	return p, waitListening(t, p)
}

// waitListening waits for serve's listen line on stderr and returns the address in it.
func waitListening(t *testing.T, p *proc) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := listeningRE.FindStringSubmatch(p.stderr.String()); m != nil {
			return m[1]
		}
		if p.exited() {
			t.Fatalf("natter serve exited with status %d before listening\nstdout:\n%s\nstderr:\n%s", p.cmd.ProcessState.ExitCode(), p.stdout, p.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("natter serve printed no listen line within 10s\nstdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// banner is what serve prints on stdout when it creates the first app: the keys, a curl line
// at the bare listen address, and one in the host form.
type banner struct {
	AppID, Region, FullKey, AuthKey string
	CurlKey, CurlURL                string // http://127.0.0.1:<port>/v3/users
	HostKey, HostURL                string // http://<app>.api-<region>.<domain>:<port>/v3/users
	Text                            string
}

var (
	bannerAppRE    = regexp.MustCompile(`(?m)^\s*app id:\s+(\S+)$`)
	bannerRegionRE = regexp.MustCompile(`(?m)^\s*region:\s+(\S+)$`)
	bannerFullRE   = regexp.MustCompile(`(?m)^\s*fullAccess key:\s+(\S+)$`)
	bannerAuthRE   = regexp.MustCompile(`(?m)^\s*authOnly key:\s+(\S+)$`)
	bannerCurlRE   = regexp.MustCompile(`(?m)^\s*curl -H 'apikey: ([^']+)' (http://\S+)$`)
	bannerHostRE   = regexp.MustCompile(`(?m)^\s*curl -H 'apikey: ([^']+)' (http://\S+\.api-\S+)$`)
	hexKeyRE       = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// parseBanner waits for p's first-start banner (stdout and stderr are copied by separate
// goroutines, so the listen line on stderr may be seen before the banner) and parses it.
func parseBanner(t *testing.T, p *proc) banner {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a pipe's lag on a loaded machine; paid only on failure
	for !bannerHostRE.MatchString(p.stdout.String()) && !p.exited() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stdout := p.stdout.String()
	get := func(re *regexp.Regexp, what string) []string {
		m := re.FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("first start printed no %s on stdout:\n%s", what, stdout)
		}
		return m
	}
	curl := get(bannerCurlRE, "curl line")
	host := get(bannerHostRE, "curl line in the host form")
	return banner{
		AppID:   get(bannerAppRE, "app id")[1],
		Region:  get(bannerRegionRE, "region")[1],
		FullKey: get(bannerFullRE, "fullAccess key")[1],
		AuthKey: get(bannerAuthRE, "authOnly key")[1],
		CurlKey: curl[1], CurlURL: curl[2],
		HostKey: host[1], HostURL: host[2],
		Text: stdout,
	}
}

// httpClient sends every request to addr whatever the URL's host, as *.localhost name
// resolution would; the Host header stays the URL's.
func httpClient(t *testing.T, addr string, keepAlive bool) *http.Client {
	d := &net.Dialer{Timeout: 3 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		DisableKeepAlives: !keepAlive,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// api calls one app on one server with one key.
type api struct {
	t    *testing.T
	c    *http.Client
	base string // http://<app>.api-<region>.localhost:<port>
	key  string
}

func newAPI(t *testing.T, addr, appID, region, key string) api {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("listen address %q: %v", addr, err)
	}
	return api{t: t, c: httpClient(t, addr, true), base: fmt.Sprintf("http://%s.api-%s.localhost:%s", appID, region, port), key: key}
}

// response is a decoded answer.
type response struct {
	Status int
	Raw    []byte
	Data   json.RawMessage `json:"data"`
	Error  struct {
		Code string `json:"code"`
	} `json:"error"`
	Code string `json:"-"` // Error.Code
}

// do sends one request; hdr is header name/value pairs. A transport error fails the test.
func (a api) do(method, path string, body any, hdr ...string) response {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if a.key != "" {
		req.Header.Set("apikey", a.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := a.c.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	r := response{Status: resp.StatusCode, Raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			a.t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, raw)
		}
	}
	r.Code = r.Error.Code
	return r
}

// want fails unless r has the status (and, if code is not empty, the error code).
func (a api) want(r response, status int, code string, what string) {
	a.t.Helper()
	if r.Status != status || code != "" && r.Code != code {
		a.t.Fatalf("%s: got %d %s, want %d %s\n%s", what, r.Status, r.Code, status, code, r.Raw)
	}
}

// createUser creates uid and fails the test otherwise.
func (a api) createUser(uid string) {
	a.t.Helper()
	a.want(a.do("POST", "/v3/users", map[string]any{"uid": uid, "name": uid}), 200, "", "create user "+uid)
}

// list decodes r's data as a JSON array.
func list(t *testing.T, r response) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(r.Data, &items); err != nil || items == nil {
		t.Fatalf("data is not a JSON array (%v):\n%s", err, r.Raw)
	}
	return items
}

// str reads one string member of a JSON object.
func str(t *testing.T, obj json.RawMessage, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, obj)
	}
	var s string
	if err := json.Unmarshal(m[name], &s); err != nil {
		t.Fatalf("member %q is not a string: %v\n%s", name, err, obj)
	}
	return s
}
