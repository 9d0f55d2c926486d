package pgtest_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func connect(t *testing.T, ctx context.Context, u string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect %s: %v", u, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func tableCount(t *testing.T, ctx context.Context, conn *pgx.Conn) int {
	t.Helper()
	var n int
	err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestURLGivesDistinctEmptyDatabases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u1, u2 := pgtest.URL(t), pgtest.URL(t)
	if u1 == u2 {
		t.Fatalf("two URL calls gave the same URL %s", u1)
	}
	c1, c2 := connect(t, ctx, u1), connect(t, ctx, u2)
	var name1, name2 string
	c1.QueryRow(ctx, "SELECT current_database()").Scan(&name1)
	c2.QueryRow(ctx, "SELECT current_database()").Scan(&name2)
	if name1 == name2 || name1 == "" {
		t.Fatalf("databases %q and %q, want two distinct ones", name1, name2)
	}
	if n1, n2 := tableCount(t, ctx, c1), tableCount(t, ctx, c2); n1 != 0 || n2 != 0 {
		t.Fatalf("new databases have %d and %d tables, want none", n1, n2)
	}

	db, err := sqlstore.Open(ctx, u1, sqlstore.Options{})
	if err != nil {
		t.Fatalf("sqlstore.Open: %v", err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if tableCount(t, ctx, c1) == 0 {
		t.Fatal("migrations created no tables")
	}
	if n := tableCount(t, ctx, c2); n != 0 {
		t.Fatalf("migrating the first database created %d tables in the second", n)
	}
	db2, err := sqlstore.Open(ctx, u2, sqlstore.Options{})
	if err != nil {
		t.Fatalf("sqlstore.Open second database: %v", err)
	}
	defer db2.Close()
	if err := db2.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestURLDatabaseDroppedAfterTest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var name, admin string
	t.Run("user", func(t *testing.T) {
		u := pgtest.URL(t)
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		name = p.Path[1:]
		p.Path = "/postgres"
		admin = p.String()
		// A connection left open must not stop the drop.
		connect(t, ctx, u)
	})
	if t.Failed() {
		return
	}
	if name == "" {
		t.Skip("the subtest skipped")
	}
	var n int
	if err := connect(t, ctx, admin).QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %s still exists after its test ended", name)
	}
}

func TestNewServerStopStart(t *testing.T) {
	srv := pgtest.NewServer(t)
	u := srv.URL()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, u, sqlstore.Options{})
	if err != nil {
		t.Fatalf("sqlstore.Open: %v", err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	pingCtx, pingCancel := context.WithTimeout(ctx, 5*time.Second)
	err = db.Ping(pingCtx)
	pingCancel()
	if err == nil {
		t.Fatal("Ping succeeded while the server was stopped")
	}
	if conn, err := pgx.Connect(ctx, u); err == nil {
		conn.Close(ctx)
		t.Fatal("connected while the server was stopped")
	}

	srv.Start()
	if u2 := srv.URL(); u2 != u {
		t.Fatalf("URL changed across restart: %s, then %s", u, u2)
	}
	connect(t, ctx, u)
	// The pool may hand out connections that died with the old server before a fresh one.
	deadline := time.Now().Add(10 * time.Second)
	for err = db.Ping(ctx); err != nil && time.Now().Before(deadline); err = db.Ping(ctx) {
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Ping after restart: %v", err)
	}
}

// A Template is prepared once, and each URL is a copy of it that the test may change
// without touching the template or the other copies; copies can be made in parallel.
func TestTemplateCopies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	setups := 0
	tmpl := pgtest.NewTemplate(func(ctx context.Context, u string) error {
		setups++
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE seeded (n INT); INSERT INTO seeded VALUES (1)")
		return err
	})
	var urls [4]string
	t.Run("copies", func(t *testing.T) {
		for i := range urls {
			t.Run("", func(t *testing.T) {
				t.Parallel()
				urls[i] = tmpl.URL(t)
				c := connect(t, ctx, urls[i])
				var n int
				if err := c.QueryRow(ctx, "SELECT sum(n) FROM seeded").Scan(&n); err != nil || n != 1 {
					t.Fatalf("copy %d: sum %d (%v), want the template's 1", i, n, err)
				}
				if _, err := c.Exec(ctx, "INSERT INTO seeded VALUES ($1)", 10*(i+1)); err != nil {
					t.Fatal(err)
				}
				if err := c.QueryRow(ctx, "SELECT sum(n) FROM seeded").Scan(&n); err != nil || n != 1+10*(i+1) {
					t.Fatalf("copy %d: sum %d (%v) after its own insert", i, n, err)
				}
			})
		}
	})
	if setups != 1 {
		t.Errorf("setup ran %d times, want once", setups)
	}
	c := connect(t, ctx, tmpl.URL(t))
	var n int
	if err := c.QueryRow(ctx, "SELECT sum(n) FROM seeded").Scan(&n); err != nil || n != 1 {
		t.Errorf("a copy made after the others changed theirs: sum %d (%v), want 1", n, err)
	}
}
