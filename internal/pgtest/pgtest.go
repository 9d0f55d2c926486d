// Package pgtest gives tests PostgreSQL databases.
//
// URL returns a fresh, empty database per call, on a server shared by the test binary: the
// server at NATTER_TEST_POSTGRES_URL if that is set (it must be PostgreSQL 13 or newer, and the
// URL's role must be allowed to create databases), otherwise a throwaway server that pgtest
// starts on first use from the local PostgreSQL binaries ($NATTER_PG_BIN, else the newest
// /usr/lib/postgresql/*/bin, else PATH). A Template's URL is a copy of a database prepared
// once per test binary (a migrated schema), on the same server. NewServer starts a dedicated
// throwaway server that a test can stop and start.
//
// Packages that use pgtest must stop the shared server when their tests end:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Without PostgreSQL, URL and NewServer skip the test, and Main then fails the package with a
// banner saying how many tests could not run and why: go test prints a passing package as one
// "ok" line, which must not stand for tests that never ran. NATTER_TEST_SKIP_POSTGRES=1 lets
// such a package pass (the banner is then printed only where go test shows output, as with
// -v). With CI=true URL and NewServer fail the test instead, whatever
// NATTER_TEST_SKIP_POSTGRES says, so that CI cannot pass by skipping the PostgreSQL tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/internal/pgserver"
)

// tempPrefix names the temporary directories of pgtest's throwaway servers.
const tempPrefix = "natter-pgtest-"

// newServer starts a throwaway server with pgserver's default, durability-free settings.
func newServer() (*pgserver.Server, error) {
	return pgserver.Start(pgserver.Options{TempPrefix: tempPrefix})
}

// shared is the server behind URL, set up once per test binary.
var shared struct {
	once  sync.Once
	srv   *pgserver.Server // nil when using NATTER_TEST_POSTGRES_URL
	admin string           // URL of a database to run CREATE DATABASE in
	err   error

	logOnce sync.Once
	log     string // how the server came to be, logged by the first test to use it
}

var mainCalled atomic.Bool

// unavailable counts the tests skipped for want of PostgreSQL, and keeps the first reason.
var unavailable struct {
	n      atomic.Int64
	once   sync.Once
	reason string
}

// afterAll are the functions AfterAll registered.
var afterAll struct {
	mu sync.Mutex
	fs []func()
}

// AfterAll registers f to run when the package's tests have all run, in Main (a test's own
// Cleanup runs too early for what later tests share, such as chattest's SQLite template).
func AfterAll(f func()) {
	afterAll.mu.Lock()
	afterAll.fs = append(afterAll.fs, f)
	afterAll.mu.Unlock()
}

// Main runs the tests, then what AfterAll registered, then stops the shared server and deletes
// its files, and exits with the tests' status, or 1 if tests were skipped for want of
// PostgreSQL and NATTER_TEST_SKIP_POSTGRES is not set. Call it from TestMain.
func Main(m *testing.M) {
	mainCalled.Store(true)
	code := m.Run()
	afterAll.mu.Lock()
	for _, f := range afterAll.fs {
		f()
	}
	afterAll.mu.Unlock()
	if shared.srv == nil && shared.admin != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		for _, name := range templates.names {
			if err := pgserver.DropDatabase(ctx, shared.admin, name); err != nil {
				fmt.Fprintf(os.Stderr, "pgtest: drop template %s: %v\n", name, err)
			}
		}
		cancel()
	}
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the shared PostgreSQL server: %v\n", err)
		}
	}
	if n := unavailable.n.Load(); n > 0 {
		var banner string
		code, banner = verdict(code, n, unavailable.reason, os.Getenv("NATTER_TEST_SKIP_POSTGRES"))
		fmt.Fprint(os.Stderr, banner)
	}
	os.Exit(code)
}

// verdict decides a package's exit status when n of its tests skipped for want of PostgreSQL,
// and what to tell the reader.
func verdict(code int, n int64, reason, skipEnv string) (int, string) {
	what := fmt.Sprintf("%d test(s) did not run on PostgreSQL: %s", n, reason)
	if skipEnv != "" {
		return code, fmt.Sprintf("pgtest: %s; passing anyway, as NATTER_TEST_SKIP_POSTGRES=%s asks\n", what, skipEnv)
	}
	if code == 0 {
		code = 1
	}
	return code, fmt.Sprintf(`
!!! pgtest: FAIL: %s.
!!! The tests that ran passed, but these need PostgreSQL. Install the PostgreSQL server
!!! (Debian: apt-get install postgresql) or set NATTER_TEST_POSTGRES_URL; or set
!!! NATTER_TEST_SKIP_POSTGRES=1 to run without them and pass.

`, what)
}

// URL returns a connection URL to a new, empty database, which is dropped when the test and
// its subtests finish.
func URL(tb testing.TB) string {
	tb.Helper()
	sharedServer(tb)
	u, err := createDatabase(tb, shared.admin, "template0")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// Template is a database that setup prepares once per test binary, on first use, and that
// URL copies for each test (CREATE DATABASE … TEMPLATE): a package whose every test needs
// the migrated schema migrates once, and each test gets its own copy in a fraction of the
// time migrating takes. Declare one per kind of set-up, at package level.
type Template struct {
	setup func(ctx context.Context, url string) error
	once  sync.Once
	name  string
	err   error
}

// NewTemplate returns a Template prepared by setup, which gets a new, empty database and must
// close every connection to it before returning: PostgreSQL copies no database that has
// sessions.
func NewTemplate(setup func(ctx context.Context, url string) error) *Template {
	return &Template{setup: setup}
}

// URL returns a connection URL to a new copy of the template, dropped when the test and its
// subtests finish. The first call prepares the template.
func (tp *Template) URL(tb testing.TB) string {
	tb.Helper()
	sharedServer(tb)
	tp.once.Do(func() {
		var rnd [8]byte
		rand.Read(rnd[:])
		tp.name = "natter_template_" + hex.EncodeToString(rnd[:])
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		u, err := pgserver.CreateDatabase(ctx, shared.admin, tp.name)
		if err == nil {
			templates.Lock()
			templates.names = append(templates.names, tp.name)
			templates.Unlock()
			err = tp.setup(ctx, u)
		}
		if err != nil {
			tp.err = fmt.Errorf("prepare template %s: %w", tp.name, err)
		}
	})
	if tp.err != nil {
		tb.Fatalf("pgtest: %v", tp.err)
	}
	u, err := createDatabase(tb, shared.admin, tp.name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// templates are the template databases made, dropped by Main on a server pgtest did not
// start (its own it deletes whole).
var templates struct {
	sync.Mutex
	names []string
}

// sharedServer starts the shared server on first use, or ends tb when there is none.
func sharedServer(tb testing.TB) {
	tb.Helper()
	shared.once.Do(setupShared)
	if shared.err != nil {
		fail(tb, shared.err)
	}
	shared.logOnce.Do(func() {
		if shared.log != "" {
			tb.Log(shared.log)
		}
		if shared.srv != nil && !mainCalled.Load() {
			tb.Log("pgtest: TestMain does not call pgtest.Main, so the shared server's files stay until a later run sweeps them")
		}
	})
}

func setupShared() {
	if u := os.Getenv("NATTER_TEST_POSTGRES_URL"); u != "" {
		shared.admin = u
		return
	}
	t0 := time.Now()
	shared.srv, shared.err = newServer()
	if shared.err == nil {
		took := time.Since(t0).Round(time.Millisecond)
		shared.admin = shared.srv.AdminURL()
		shared.log = fmt.Sprintf("pgtest: %s started in %v on 127.0.0.1:%d, data in %s",
			shared.srv.Version(), took, shared.srv.Port(), shared.srv.Dir())
	}
}

// fail ends the test for a setup error: a skip when PostgreSQL is simply not installed (a
// failure under CI), a failure otherwise.
func fail(tb testing.TB, err error) {
	tb.Helper()
	var ue *pgserver.UnavailableError
	if !errors.As(err, &ue) {
		tb.Fatalf("pgtest: %v", err)
	}
	msg := fmt.Sprintf("!!! PostgreSQL not available: %v; install the postgresql package or set NATTER_TEST_POSTGRES_URL", ue.Reason)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg + " (CI=true: failing rather than skipping)")
	}
	unavailable.once.Do(func() { unavailable.reason = "PostgreSQL not available: " + ue.Reason })
	unavailable.n.Add(1)
	tb.Skip(msg + " (pgtest.Main fails the package unless NATTER_TEST_SKIP_POSTGRES=1)")
}

// createDatabase creates a database copied from template on the server that admin connects
// to, drops it in tb.Cleanup, and returns a URL for it.
func createDatabase(tb testing.TB, admin, template string) (string, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	name := "natter_test_" + hex.EncodeToString(rnd[:])

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := pgserver.CreateDatabaseFrom(ctx, admin, name, template)
	if err != nil {
		return "", err
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// DropDatabase forces: the test may have left connections open, e.g. in a leaked pool.
		if err := pgserver.DropDatabase(ctx, admin, name); err != nil {
			tb.Errorf("pgtest: drop database %s on %s: %v", name, redact(admin), err)
		}
	})
	return u, nil
}

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// Instance is a throwaway PostgreSQL server owned by one test, for fault injection: a test
// can stop the server under load and start it again. It is deleted in tb.Cleanup.
type Instance struct {
	tb      testing.TB
	srv     *pgserver.Server
	urlOnce sync.Once
	url     string
}

// NewServer starts a dedicated throwaway server for tb. It needs local PostgreSQL binaries
// even when NATTER_TEST_POSTGRES_URL is set.
func NewServer(tb testing.TB) *Instance {
	tb.Helper()
	t0 := time.Now()
	srv, err := newServer()
	if err != nil {
		fail(tb, err)
	}
	tb.Cleanup(func() {
		if err := srv.Close(); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	took := time.Since(t0).Round(time.Millisecond)
	tb.Logf("pgtest: dedicated %s started in %v on 127.0.0.1:%d", srv.Version(), took, srv.Port())
	return &Instance{tb: tb, srv: srv}
}

// URL returns the URL of a database on the server, the same one on every call, created on
// the first call. Call it from the test's goroutine, while the server runs.
func (i *Instance) URL() string {
	i.tb.Helper()
	i.urlOnce.Do(func() {
		u, err := createDatabase(i.tb, i.srv.AdminURL(), "template0")
		if err != nil {
			i.tb.Fatalf("pgtest: %v", err)
		}
		i.url = u
	})
	if i.url == "" {
		i.tb.Fatal("pgtest: an earlier Instance.URL call failed")
	}
	return i.url
}

// Stop shuts the server down as pg_ctl stop -m fast does: it disconnects clients, and rolls
// back their transactions. Stopping a stopped server does nothing.
func (i *Instance) Stop() {
	i.tb.Helper()
	if err := i.srv.Stop(); err != nil {
		i.tb.Fatalf("pgtest: %v", err)
	}
}

// Start starts the stopped server again, on the same port and data, and waits until it
// accepts connections. Starting a running server does nothing.
func (i *Instance) Start() {
	i.tb.Helper()
	if err := i.srv.Start(); err != nil {
		i.tb.Fatalf("pgtest: restart on port %d: %v", i.srv.Port(), err)
	}
}
