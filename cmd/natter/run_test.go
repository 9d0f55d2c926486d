package main

// Run-contract tests: the real binary, as docs/configuration.md promises.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The README's first screen: an empty database gets the app demo/us, its keys, and two curl
// lines that work as printed: one at the bare address, which any HTTP client reaches, and one
// in the host form. A second start on that database creates nothing.
func TestFirstStartDemo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil)
	_, port, _ := net.SplitHostPort(addr)

	b := parseBanner(t, p)
	if b.AppID != "demo" || b.Region != "us" {
		t.Errorf("first app is %s/%s, want demo/us", b.AppID, b.Region)
	}
	for name, k := range map[string]string{"fullAccess": b.FullKey, "authOnly": b.AuthKey} {
		if !hexKeyRE.MatchString(k) {
			t.Errorf("%s key %q is not 40 lowercase hex digits", name, k)
		}
	}
	if b.FullKey == b.AuthKey {
		t.Errorf("fullAccess and authOnly keys are the same: %s", b.FullKey)
	}
	if b.CurlKey != b.FullKey || b.HostKey != b.FullKey {
		t.Errorf("curl lines send keys %s and %s, want the fullAccess key %s", b.CurlKey, b.HostKey, b.FullKey)
	}
	if want := "http://127.0.0.1:" + port + "/v3/users"; b.CurlURL != want {
		t.Errorf("curl URL is %s, want %s", b.CurlURL, want)
	}
	if want := "http://demo.api-us.localhost:" + port + "/v3/users"; b.HostURL != want {
		t.Errorf("host-form curl URL is %s, want %s", b.HostURL, want)
	}
	for _, want := range []string{"shown only now", "hashes", "natter apps keys create --app demo --scope fullAccess --database 'sqlite:" + db + "'"} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("the banner does not say %q:\n%s", want, b.Text)
		}
	}

	// Run each curl line's request exactly: its URL and its header. The first with a plain
	// client, as any program would; the second dialled at the server, as *.localhost would.
	for _, tc := range []struct {
		url string
		c   *http.Client
	}{
		{b.CurlURL, &http.Client{Timeout: 10 * time.Second}},
		{b.HostURL, httpClient(t, addr, true)},
	} {
		req, err := http.NewRequest("GET", tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("apikey", b.FullKey)
		resp, err := tc.c.Do(req)
		if err != nil {
			t.Fatalf("curl line's request: %v", err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("curl line's request to %s: status %d, want 200\n%s", tc.url, resp.StatusCode, raw)
		}
		var body struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &body); err != nil || body.Data == nil || len(body.Data) != 0 {
			t.Fatalf("curl line's request to %s: want an empty user list in data, got (%v)\n%s", tc.url, err, raw)
		}
	}

	// The authOnly key is one: it may create users but not list them.
	auth := newAPI(t, addr, "demo", "us", b.AuthKey)
	auth.createUser("first")
	auth.want(auth.do("GET", "/v3/users", nil), 403, "AUTH_ERR_NO_ACCESS", "authOnly key lists users")

	if code := p.stop(t, 10*time.Second); code != 0 {
		t.Fatalf("serve exited with status %d after SIGTERM\nstderr:\n%s", code, p.stderr)
	}

	// Second start on the same database, asking for another first app: nothing is created.
	p2, addr2 := startServe(t, db, map[string]string{"NATTER_APP_ID": "other", "NATTER_API_KEY": "another-chosen-key-0001"})
	full := newAPI(t, addr2, "demo", "us", b.FullKey)
	users := list(t, full.do("GET", "/v3/users", nil))
	if len(users) != 1 || str(t, users[0], "uid") != "first" {
		t.Errorf("after restart, users are %s, want just first", users)
	}
	if keys := list(t, full.do("GET", "/v3/apikeys", nil)); len(keys) != 2 {
		t.Errorf("after restart the app has %d keys, want the 2 created at first start", len(keys))
	}
	other := newAPI(t, addr2, "other", "us", "another-chosen-key-0001")
	other.want(other.do("GET", "/v3/users", nil), 401, "", "the second start's NATTER_API_KEY")
	cross := newAPI(t, addr2, "other", "us", b.FullKey)
	cross.want(cross.do("GET", "/v3/users", nil), 401, "AUTH_ERR_INVALID_APPID", "host of the app the second start was asked for")

	if code := p2.stop(t, 10*time.Second); code != 0 {
		t.Errorf("second serve exited with status %d after SIGTERM", code)
	}
	// Read after exit, when all output has been copied.
	if out := p2.stdout.String(); out != "" {
		t.Errorf("second start printed on stdout:\n%s", out)
	}
	if s := p2.stderr.String(); strings.Contains(s, b.FullKey) || strings.Contains(s, "another-chosen-key-0001") {
		t.Errorf("second start printed a key on stderr:\n%s", s)
	}
}

// NATTER_APP_ID, NATTER_APP_REGION and NATTER_API_KEY choose the first app and its key.
func TestFirstStartFromEnv(t *testing.T) {
	const key = "acme-chosen-fullaccess-key-42"
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, map[string]string{"NATTER_APP_ID": "acme", "NATTER_APP_REGION": "eu", "NATTER_API_KEY": key})
	_, port, _ := net.SplitHostPort(addr)

	b := parseBanner(t, p)
	if b.AppID != "acme" || b.Region != "eu" {
		t.Errorf("first app is %s/%s, want acme/eu", b.AppID, b.Region)
	}
	if b.FullKey != key || b.CurlKey != key || b.HostKey != key {
		t.Errorf("printed fullAccess key %q and curl keys %q, %q, want the chosen %q", b.FullKey, b.CurlKey, b.HostKey, key)
	}
	if !hexKeyRE.MatchString(b.AuthKey) {
		t.Errorf("authOnly key %q is not 40 lowercase hex digits", b.AuthKey)
	}
	if want := "http://acme.api-eu.localhost:" + port + "/v3/users"; b.HostURL != want {
		t.Errorf("host-form curl URL is %s, want %s", b.HostURL, want)
	}
	a := newAPI(t, addr, "acme", "eu", key)
	a.createUser("u1")
	if users := list(t, a.do("GET", "/v3/users", nil)); len(users) != 1 {
		t.Errorf("users: %s", users)
	}
	// The app lives in eu only.
	us := newAPI(t, addr, "acme", "us", key)
	us.want(us.do("GET", "/v3/users", nil), 401, "AUTH_ERR_INVALID_APPID", "acme addressed in us")
}

// SIGTERM drains in-flight requests and exits 0: every request either completed with 200 or
// never reached a handler, and every 200 is durable.
func TestGracefulShutdown(t *testing.T) {
	const n = 50
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil, "--shutdown-timeout", "8s")
	b := parseBanner(t, p)
	_, port, _ := net.SplitHostPort(addr)
	target := "http://demo.api-us.localhost:" + port + "/v3/users"
	c := httpClient(t, addr, false) // a fresh connection per request: no keep-alive races

	type result struct {
		status int
		err    error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	begin := make(chan struct{})
	answered := make(chan struct{}, n)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { answered <- struct{}{} }()
			<-begin
			body := fmt.Sprintf(`{"uid":"u%02d","name":"User %d"}`, i, i)
			req, _ := http.NewRequestWithContext(ctx, "POST", target, strings.NewReader(body))
			req.Header.Set("apikey", b.FullKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				results[i] = result{err: err}
				return
			}
			raw, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && !json.Valid(raw) {
				err = fmt.Errorf("truncated or invalid body %q", raw)
			}
			results[i] = result{status: resp.StatusCode, err: err}
		}()
	}
	close(begin)
	select {
	case <-answered: // one answer is back; the rest are in flight or about to dial
	case <-ctx.Done():
		t.Fatal("no request answered within 15s")
	}
	signalled := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	code := p.wait(t, 10*time.Second)
	took := time.Since(signalled)
	if code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0\nstderr:\n%s", code, p.stderr)
	}
	if took > 8*time.Second {
		t.Errorf("took %v to exit, more than --shutdown-timeout 8s", took)
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "msg=stopped") {
		t.Errorf("stderr has no \"stopped\" line:\n%s", stderr)
	}

	ok := map[string]bool{}
	var refused, reset int
	for i, r := range results {
		uid := fmt.Sprintf("u%02d", i)
		switch {
		case r.err == nil && r.status == 200:
			ok[uid] = true
		case r.err == nil:
			t.Errorf("request %s answered %d during shutdown, want 200 or no connection", uid, r.status)
		case errors.Is(r.err, syscall.ECONNREFUSED):
			refused++
		case errors.Is(r.err, syscall.ECONNRESET) || errors.Is(r.err, syscall.EPIPE) || errors.Is(r.err, io.EOF):
			// Accepted by the kernel but never by the server (its listener closed first, so
			// the client saw a reset, or a broken pipe if it was still writing the body):
			// checked below to have had no effect.
			reset++
		default:
			t.Errorf("request %s failed during shutdown: %v", uid, r.err)
		}
	}
	drained := 0
	if _, after, found := strings.Cut(stderr, "shutting down"); found {
		drained = strings.Count(after, "msg=request ")
	}
	t.Logf("%d requests: %d answered 200 (%d of them logged after shutdown began), %d refused, %d reset before any answer; exit after %v",
		n, len(ok), drained, refused, reset, took.Round(time.Millisecond))

	// What was answered 200 is stored, and nothing unanswered is.
	p2, addr2 := startServe(t, db, nil)
	a := newAPI(t, addr2, "demo", "us", b.FullKey)
	stored := map[string]bool{}
	for _, u := range list(t, a.do("GET", "/v3/users?perPage=1000", nil)) {
		stored[str(t, u, "uid")] = true
	}
	for i := range n {
		uid := fmt.Sprintf("u%02d", i)
		if ok[uid] != stored[uid] {
			t.Errorf("user %s: answered 200 = %v, but stored = %v", uid, ok[uid], stored[uid])
		}
	}
	if code := p2.stop(t, 10*time.Second); code != 0 {
		t.Errorf("second serve exited with status %d", code)
	}
}

// The defaults and variables of docs/configuration.md's table: NATTER_ADDR, NATTER_DATABASE_URL and
// NATTER_DOMAIN, and the default database sqlite:natter.db in the working directory.
func TestServeSettingsFromEnv(t *testing.T) {
	db := filepath.Join(t.TempDir(), "from-env.db")
	p := start(t, map[string]string{"NATTER_ADDR": "127.0.0.1:0", "NATTER_DATABASE_URL": "sqlite:" + db, "NATTER_DOMAIN": "chat.test"}, "serve")
	addr := waitListening(t, p)
	_, port, _ := net.SplitHostPort(addr)
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Errorf("listening on %s, want NATTER_ADDR's 127.0.0.1", addr)
	}
	b := parseBanner(t, p)
	if want := "http://demo.api-us.chat.test:" + port + "/v3/users"; b.HostURL != want {
		t.Errorf("host-form curl URL is %s, want %s", b.HostURL, want)
	}
	if want := "needs demo.api-us.chat.test to resolve to this server"; !strings.Contains(b.Text, want) {
		t.Errorf("the banner does not say %q:\n%s", want, b.Text)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("NATTER_DATABASE_URL's file: %v", err)
	}
	a := newAPI(t, addr, "demo", "us", b.FullKey)
	a.base = b.HostURL[:strings.Index(b.HostURL, "/v3/")]
	a.want(a.do("GET", "/v3/users", nil), 200, "", "the curl line's host under NATTER_DOMAIN")
	// Under another domain the host names no app, and the key alone decides.
	local := newAPI(t, addr, "nosuchapp", "us", b.FullKey)
	local.want(local.do("GET", "/v3/users", nil), 200, "", "a host outside NATTER_DOMAIN")
	if code := p.stop(t, 10*time.Second); code != 0 {
		t.Errorf("exit status %d after SIGTERM", code)
	}
	if _, err := os.Stat(filepath.Join(p.cmd.Dir, "natter.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("with NATTER_DATABASE_URL set, natter.db in the working directory: %v", err)
	}

	// No database setting at all: sqlite:natter.db in the working directory.
	p2 := start(t, nil, "serve", "--addr", "127.0.0.1:0")
	waitListening(t, p2)
	parseBanner(t, p2)
	if code := p2.stopWith(t, os.Interrupt, 10*time.Second); code != 0 || !strings.Contains(p2.stderr.String(), "msg=stopped") {
		t.Errorf("exit status %d after SIGINT, want 0 and a \"stopped\" line\nstderr:\n%s", code, p2.stderr)
	}
	if _, err := os.Stat(filepath.Join(p2.cmd.Dir, "natter.db")); err != nil {
		t.Errorf("default database sqlite:natter.db: %v", err)
	}
}

// appJSONOut is what `natter apps create` prints.
type appJSONOut struct {
	AppID   string `json:"appId"`
	Region  string `json:"region"`
	Name    string `json:"name"`
	APIKeys []struct {
		APIKey string `json:"apiKey"`
		Scope  string `json:"scope"`
	} `json:"apiKeys"`
}

// `natter apps create` adds an app to the database a server is running on; its printed
// fullAccess key works at once. Bad input is refused.
func TestAppsCreate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil)
	demo := parseBanner(t, p)

	stdout, stderr, code := runNatter(t, nil, "apps", "create", "--id", "shop", "--region", "eu", "--name", "Shop", "--database", "sqlite:"+db)
	if code != 0 {
		t.Fatalf("apps create: exit status %d\nstderr:\n%s", code, stderr)
	}
	var app appJSONOut
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&app); err != nil {
		t.Fatalf("apps create printed no app JSON (%v):\n%s", err, stdout)
	}
	if app.AppID != "shop" || app.Region != "eu" || app.Name != "Shop" {
		t.Errorf("apps create printed %+v, want shop/eu/Shop", app)
	}
	keys := map[string]string{}
	for _, k := range app.APIKeys {
		if !hexKeyRE.MatchString(k.APIKey) {
			t.Errorf("%s key %q is not 40 lowercase hex digits", k.Scope, k.APIKey)
		}
		keys[k.Scope] = k.APIKey
	}
	if len(app.APIKeys) != 2 || keys["fullAccess"] == "" || keys["authOnly"] == "" || keys["fullAccess"] == keys["authOnly"] {
		t.Fatalf("apiKeys are %+v, want one fullAccess and one authOnly key", app.APIKeys)
	}

	shop := newAPI(t, addr, "shop", "eu", keys["fullAccess"])
	shop.createUser("buyer")
	if users := list(t, shop.do("GET", "/v3/users", nil)); len(users) != 1 || str(t, users[0], "uid") != "buyer" {
		t.Errorf("shop's users: %s", users)
	}
	// Apps stay apart: demo's key does not open shop, nor shop's key demo.
	cross := newAPI(t, addr, "shop", "eu", demo.FullKey)
	cross.want(cross.do("GET", "/v3/users", nil), 401, "AUTH_ERR_APIKEY_NOT_FOUND", "demo's key on shop's host")
	demoAPI := newAPI(t, addr, "demo", "us", demo.FullKey)
	if users := list(t, demoAPI.do("GET", "/v3/users", nil)); len(users) != 0 {
		t.Errorf("demo sees shop's users: %s", users)
	}

	t.Run("missing id", func(t *testing.T) {
		stdout, stderr, code := runNatter(t, nil, "apps", "create", "--region", "eu", "--database", "sqlite:"+db)
		if code != 2 {
			t.Errorf("exit status %d, want 2\nstderr:\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "--id") || stdout != "" {
			t.Errorf("want a message naming --id on stderr and nothing on stdout; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
	})
	t.Run("unknown region", func(t *testing.T) {
		stdout, stderr, code := runNatter(t, nil, "apps", "create", "--id", "marsapp", "--region", "mars", "--database", "sqlite:"+db)
		if code == 0 {
			t.Errorf("exit status 0 for --region mars\nstdout:\n%s", stdout)
		}
		if !strings.Contains(strings.ToLower(stderr), "region") || stdout != "" {
			t.Errorf("want a message naming the region on stderr and nothing on stdout; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
	})
	t.Run("duplicate id", func(t *testing.T) {
		stdout, stderr, code := runNatter(t, nil, "apps", "create", "--id", "shop", "--region", "us", "--database", "sqlite:"+db)
		if code == 0 {
			t.Errorf("exit status 0 for a duplicate id\nstdout:\n%s", stdout)
		}
		if !strings.Contains(stderr, "shop") || stdout != "" {
			t.Errorf("want a message naming shop on stderr and nothing on stdout; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
		// The first shop is untouched.
		shop.want(shop.do("GET", "/v3/users", nil), 200, "", "shop's key after a duplicate create")
	})
}

// version, unknown commands, and settings serve refuses before it opens or listens.
func TestCommandLine(t *testing.T) {
	t.Run("version", func(t *testing.T) {
		// Built without -ldflags: the version comes from Go's build information, which at
		// least names the toolchain (version_test.go covers the rest).
		stdout, stderr, code := runNatter(t, nil, "version")
		if code != 0 || !strings.HasPrefix(stdout, "natter ") || !strings.Contains(stdout, runtime.Version()) {
			t.Errorf("natter version: status %d, stdout %q, stderr %q; want natter … %s", code, stdout, stderr, runtime.Version())
		}
	})
	t.Run("unknown command", func(t *testing.T) {
		_, stderr, code := runNatter(t, nil, "frobnicate")
		if code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
			t.Errorf("natter frobnicate: status %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("no command", func(t *testing.T) {
		_, stderr, code := runNatter(t, nil)
		if code != 2 || !strings.Contains(stderr, "Usage:") {
			t.Errorf("natter: status %d, stderr:\n%s", code, stderr)
		}
	})
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string // in stderr, case-insensitive
	}{
		{"negative max-reactions flag", nil, []string{"--max-reactions", "-1"}, "max-reactions"},
		{"zero max-group-members flag", nil, []string{"--max-group-members", "0"}, "max-group-members"},
		{"non-integer max-group-members env", map[string]string{"NATTER_MAX_GROUP_MEMBERS": "many"}, nil, "NATTER_MAX_GROUP_MEMBERS"},
		{"key cache ttl over 5s from env", map[string]string{"NATTER_KEY_CACHE_TTL": "10s"}, nil, "key-cache-ttl"},
		{"non-integer max-reactions env", map[string]string{"NATTER_MAX_REACTIONS": "lots"}, nil, "NATTER_MAX_REACTIONS"},
		{"unknown flag", nil, []string{"--no-such-flag"}, "no-such-flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "natter.db")
			args := append([]string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + db}, tc.args...)
			stdout, stderr, code := runNatter(t, tc.env, args...)
			if code == 0 {
				t.Errorf("exit status 0, want non-zero")
			}
			if !strings.Contains(strings.ToLower(stderr), strings.ToLower(tc.want)) {
				t.Errorf("stderr does not name %s:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "natter listening") || stdout != "" {
				t.Errorf("serve started anyway; stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("serve touched the database before refusing its settings (stat: %v)", err)
			}
		})
	}
}

// `natter migrate` prepares a database and creates no app: serve's first start still
// happens on it.
func TestMigrate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	stdout, stderr, code := runNatter(t, map[string]string{"NATTER_DATABASE_URL": "sqlite:" + db}, "migrate")
	if want := "natter migrate: sqlite:" + db + " is up to date\n"; code != 0 || stdout != want {
		t.Fatalf("migrate: status %d, stdout %q (want %q), stderr:\n%s", code, stdout, want, stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("migrate made no database: %v", err)
	}
	if _, _, code := runNatter(t, nil, "migrate", "--database", "sqlite:"+db); code != 0 {
		t.Errorf("second migrate: status %d", code)
	}
	p, addr := startServe(t, db, nil)
	b := parseBanner(t, p)
	a := newAPI(t, addr, b.AppID, b.Region, b.FullKey)
	a.want(a.do("GET", "/v3/users", nil), 200, "", "first app after migrate")
	if _, _, code := runNatter(t, nil, "migrate", "--no-such-flag"); code != 2 {
		t.Errorf("migrate --no-such-flag: status %d, want 2", code)
	}
}

// --max-reactions / NATTER_MAX_REACTIONS cap distinct reactions per message; the flag wins
// over the variable.
func TestMaxReactionsSetting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		limit int
	}{
		{"flag", nil, []string{"--max-reactions", "2"}, 2},
		{"env", map[string]string{"NATTER_MAX_REACTIONS": "2"}, nil, 2},
		{"flag lower than env", map[string]string{"NATTER_MAX_REACTIONS": "5"}, []string{"--max-reactions", "2"}, 2},
		{"flag higher than env", map[string]string{"NATTER_MAX_REACTIONS": "2"}, []string{"--max-reactions", "3"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "natter.db")
			p, addr := startServe(t, db, tc.env, tc.args...)
			b := parseBanner(t, p)
			a := newAPI(t, addr, "demo", "us", b.FullKey)
			a.createUser("alice")
			a.createUser("bob")
			msg := a.do("POST", "/v3/messages", map[string]any{
				"receiver": "bob", "receiverType": "user", "category": "message", "type": "text",
				"data": map[string]any{"text": "hello"},
			}, "onBehalfOf", "alice")
			a.want(msg, 200, "", "send message")
			id := str(t, msg.Data, "id")
			react := func(uid, reaction string) response {
				return a.do("POST", "/v3/messages/"+url.PathEscape(id)+"/reactions/"+url.PathEscape(reaction), nil, "onBehalfOf", uid)
			}
			reactions := []string{"👍", "❤️", "😂", "🎉"}
			for i := range tc.limit {
				a.want(react("alice", reactions[i]), 200, "", fmt.Sprintf("distinct reaction %d of %d", i+1, tc.limit))
			}
			// Another user repeating a reaction adds no distinct one.
			a.want(react("bob", reactions[0]), 200, "", "bob repeats the first reaction")
			a.want(react("alice", reactions[tc.limit]), 400, "ERR_REACTION_LIMIT_EXCEEDED", fmt.Sprintf("distinct reaction %d with a limit of %d", tc.limit+1, tc.limit))
			a.want(react("bob", reactions[tc.limit]), 400, "ERR_REACTION_LIMIT_EXCEEDED", "same over-limit reaction by another user")
		})
	}
}

// The API key is a secret: the key banner goes to stdout, and nothing on stderr (access log,
// warnings, debug lines) ever holds a key, whether sent in the apikey header or in a path.
func TestLogsNeverHoldKeys(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil, "--log-level", "debug")
	b := parseBanner(t, p)
	a := newAPI(t, addr, "demo", "us", b.FullKey)
	secrets := []string{b.FullKey, b.AuthKey}

	a.want(a.do("GET", "/v3/users", nil), 200, "", "list users")
	a.createUser("alice")
	created := a.do("POST", "/v3/apikeys", map[string]any{"name": "temporary", "scope": "fullAccess"})
	a.want(created, 200, "", "create key")
	tmp := str(t, created.Data, "apiKey")
	secrets = append(secrets, tmp)

	a.want(a.do("GET", "/v3/apikeys/"+tmp, nil), 200, "", "get key")
	a.want(a.do("PUT", "/v3.0/apikeys/"+tmp, map[string]any{"name": "renamed"}), 200, "", "update key")
	a.want(a.do("POST", "/v3/apikeys/"+tmp, nil), 405, "ERR_METHOD_NOT_ALLOWED", "wrong method on a key path")
	a.want(a.do("GET", "/v3/apikeys/"+tmp+"/", nil), 404, "", "key path with a trailing slash")
	a.want(a.do("GET", "/v3/apikeys//"+tmp, nil), 404, "", "key path with an empty segment")
	tmpAPI := newAPI(t, addr, "demo", "us", tmp)
	tmpAPI.want(tmpAPI.do("GET", "/v3/users", nil), 200, "", "the new key in the apikey header")
	a.want(a.do("DELETE", "/v3/apikeys/"+tmp, nil), 200, "", "delete key")
	tmpAPI.want(tmpAPI.do("GET", "/v3/users", nil), 401, "", "the deleted key") // may take the key cache TTL
	a.want(a.do("DELETE", "/v3/apikeys/"+b.AuthKey, nil), 200, "", "delete the authOnly key")
	a.want(a.do("DELETE", "/v3/apikeys/"+b.FullKey, nil), 403, "ERR_APIKEY_NO_SELF_ACTION", "a key deleting itself")
	wrong := newAPI(t, addr, "demo", "us", "not-a-real-key-but-secret-0123456789")
	secrets = append(secrets, "not-a-real-key-but-secret-0123456789")
	wrong.want(wrong.do("GET", "/v3/users", nil), 401, "", "an unknown key")
	other := newAPI(t, addr, "nosuchapp", "us", b.FullKey)
	other.want(other.do("GET", "/v3/users", nil), 401, "", "a key on another app's host")

	if code := p.stop(t, 10*time.Second); code != 0 {
		t.Errorf("exit status %d after SIGTERM", code)
	}
	stdout, stderr := p.stdout.String(), p.stderr.String()
	if !strings.Contains(stdout, b.FullKey) || !strings.Contains(stdout, b.AuthKey) {
		t.Errorf("the key banner is not on stdout:\n%s", stdout)
	}
	if n := strings.Count(stderr, "msg=request "); n < 15 {
		t.Errorf("stderr has %d access log lines, want one per request (15):\n%s", n, stderr)
	}
	for _, s := range secrets {
		if strings.Contains(stderr, s) || strings.Contains(stderr, s[:20]) {
			t.Errorf("stderr holds the key %s:\n%s", s, stderr)
		}
	}
}

// Rate limits come from NATTER_RATE_LIMIT_* and --rate-limit-apps: over its app's limit a
// request answers 429.
func TestRateLimitSettings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, map[string]string{"NATTER_RATE_LIMIT_STANDARD": "5", "NATTER_RATE_LIMIT_APPS": "demo:standard=2"})
	b := parseBanner(t, p)
	a := newAPI(t, addr, "demo", "us", b.FullKey)
	a.want(a.do("GET", "/v3/users", nil), 200, "", "first request")
	a.want(a.do("GET", "/v3/users", nil), 200, "", "second request")
	a.want(a.do("GET", "/v3/users", nil), 429, "ERR_TOO_MANY_REQUESTS", "third request, over demo's limit of 2")
}

// /metrics is served on the debug address, with the requests by route and the database
// pools' figures, and not on the API's address.
func TestMetricsOnDebugAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	debugAddr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, map[string]string{"NATTER_DEBUG_ADDR": debugAddr})
	b := parseBanner(t, p)
	a := newAPI(t, addr, "demo", "us", b.FullKey)
	a.want(a.do("GET", "/v3/users", nil), 200, "", "list users")
	a.want(a.do("GET", "/v3/users/nobody", nil), 404, "ERR_UID_NOT_FOUND", "get a missing user")

	res, err := http.Get("http://" + debugAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`natter_http_requests_total{code="200",route="GET /users"} 1`,
		`natter_http_requests_total{code="404",route="GET /users/{uid}"} 1`,
		`natter_http_request_duration_seconds_count{route="GET /users"} 1`,
		`go_sql_open_connections{db_name="sqlite_writer"}`,
		`go_sql_open_connections{db_name="sqlite_reader"}`,
		`go_goroutines`,
		`natter_sockets_open 0`,
		`natter_webhook_deliveries_pending 0`,
		`natter_webhook_attempts_total{outcome="delivered"} 0`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics does not say %s", want)
		}
	}
	if strings.Contains(string(body), "nobody") {
		t.Errorf("/metrics holds a path a client sent")
	}
	pub, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	pub.Body.Close()
	if pub.StatusCode != 404 {
		t.Errorf("/metrics on the API's address: %d, want 404", pub.StatusCode)
	}
}
