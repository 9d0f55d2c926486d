package pgserver

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// start starts a server for t, skipping (failing under CI=true) without PostgreSQL.
func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("!!! %v (CI=true: failing rather than skipping)", err)
		}
		t.Skipf("!!! %v; install the postgresql package", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestServerLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := start(t, Options{Settings: map[string]string{"shared_buffers": "32MB", "max_connections": "50", "full_page_writes": ""}})
	if s.PID() <= 0 || s.Port() <= 0 {
		t.Fatalf("PID %d, port %d", s.PID(), s.Port())
	}
	if _, err := os.Stat(s.DataDir()); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"shared_buffers": "32MB", "max_connections": "50", "fsync": "off", "full_page_writes": "on", "listen_addresses": "127.0.0.1"} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	conn.Close(ctx)

	u, err := s.CreateDatabase(ctx, "bench_db")
	if err != nil {
		t.Fatal(err)
	}
	if u != s.URL("bench_db") {
		t.Errorf("CreateDatabase gave %s, want %s", u, s.URL("bench_db"))
	}
	if _, err := s.CreateDatabase(ctx, "Bad; DROP"); err == nil {
		t.Error("CreateDatabase accepted a bad name")
	}
	conn, err = pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil || db != "bench_db" {
		t.Fatalf("current_database() = %q, %v", db, err)
	}
	conn.Close(ctx)

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.PID() != 0 {
		t.Errorf("PID %d after Stop", s.PID())
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if c, err := pgx.Connect(ctx, u); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	conn.Close(ctx)
	if err := DropDatabase(ctx, s.AdminURL(), "bench_db"); err != nil {
		t.Fatal(err)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Errorf("directory %s still there after Close (%v)", s.Dir(), err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Start(); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Settings: map[string]string{"port": "5432"}},
		{Settings: map[string]string{"Bad Name": "1"}},
		{Settings: map[string]string{"work_mem": "4MB\nfsync = on"}},
		{TempPrefix: "a/b"},
	} {
		if s, err := Start(o); err == nil {
			s.Close()
			t.Errorf("Start(%+v) succeeded", o)
		} else if errors.Is(err, ErrUnavailable) {
			t.Errorf("Start(%+v): %v, want a configuration error", o, err)
		}
	}
}

func TestUnavailable(t *testing.T) {
	t.Setenv("NATTER_PG_BIN", t.TempDir())
	_, err := lookupBinaries()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("lookupBinaries with an empty NATTER_PG_BIN: %v, want ErrUnavailable", err)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Reason == "" {
		t.Fatalf("%v is not an *UnavailableError with a reason", err)
	}
}
