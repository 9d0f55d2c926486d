package sqliteread_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/natter-chat/natter/sqlstore/internal/sqliteread"
)

// fixture is a database written through database/sql, as natter's writer writes it, and a
// pool reading it.
func fixture(t *testing.T, size int) (*sql.DB, *sqliteread.Pool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.db")
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	for _, q := range []string{
		`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT, score REAL, raw BLOB, flag INTEGER NOT NULL DEFAULT 0)`,
		`INSERT INTO t VALUES (1, 'ada', '["x"]', 1.5, x'00ff', 1), (2, 'bob', NULL, NULL, NULL, 0), (3, '', '', 2, x'', 0)`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	p, err := sqliteread.Open(path, size, "busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return w, p
}

type name string

func TestScanKinds(t *testing.T) {
	_, p := fixture(t, 1)
	ctx := context.Background()
	var (
		id    int64
		n     int
		s     string
		named name
		tags  sql.NullString
		score sql.NullFloat64
		raw   []byte
		flag  bool
		any1  any
	)
	err := p.QueryRow(ctx, `SELECT id, id, name, name, tags, score, raw, flag, name FROM t WHERE id = ?1 AND name = ?2`, int64(1), "ada").
		Scan(&id, &n, &s, &named, &tags, &score, &raw, &flag, &any1)
	if err != nil {
		t.Fatal(err)
	}
	if id != 1 || n != 1 || s != "ada" || named != "ada" || tags != (sql.NullString{String: `["x"]`, Valid: true}) ||
		score != (sql.NullFloat64{Float64: 1.5, Valid: true}) || string(raw) != "\x00\xff" || !flag || any1 != "ada" {
		t.Errorf("row 1 read %v %v %q %q %v %v %x %v %v", id, n, s, named, tags, score, raw, flag, any1)
	}
	// NULLs: into the types that hold one, and refused into a string, as database/sql does.
	if err := p.QueryRow(ctx, `SELECT tags, score, raw FROM t WHERE id = ?1`, 2).Scan(&tags, &score, &raw); err != nil {
		t.Fatal(err)
	}
	if tags.Valid || score.Valid || raw != nil {
		t.Errorf("NULLs read as %v %v %x", tags, score, raw)
	}
	if err := p.QueryRow(ctx, `SELECT tags FROM t WHERE id = ?1`, 2).Scan(&s); err == nil {
		t.Error("NULL scanned into a string without an error")
	}
	// An integer into a string, and text that holds a number into an integer.
	if err := p.QueryRow(ctx, `SELECT id, '42' FROM t WHERE id = ?1`, 3).Scan(&s, &id); err != nil || s != "3" || id != 42 {
		t.Errorf("conversions: %q %d %v", s, id, err)
	}
	if err := p.QueryRow(ctx, `SELECT id FROM t WHERE id = ?1`, 9).Scan(&id); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("no row: %v, want sql.ErrNoRows", err)
	}
	if err := p.QueryRow(ctx, `SELECT id, name FROM t WHERE id = ?1`, 1).Scan(&id); err == nil {
		t.Error("one destination for two columns scanned without an error")
	}
	if err := p.QueryRow(ctx, `SELECT id FROM t WHERE id = ?2`, 1).Scan(&id); err == nil {
		t.Error("a parameter without its argument ran")
	}
	if err := p.QueryRow(ctx, `SELECT nope FROM t`).Scan(&id); err == nil {
		t.Error("a bad statement ran")
	}
}

// TestRowsInOrder: a parameter used twice binds one argument, rows come in the
// statement's order, and the pool's one connection serves the next query after each.
func TestRowsInOrder(t *testing.T) {
	_, p := fixture(t, 1)
	ctx := context.Background()
	for range 3 {
		rows, err := p.Query(ctx, `SELECT id, name FROM t WHERE id >= ?1 OR id = ?1 ORDER BY id DESC`, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var n string
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if len(got) != 2 || got[0] != "" || got[1] != "bob" {
			t.Fatalf("rows %q, want [\"\" bob]", got)
		}
	}
	// Rows closed before their end give their connection back too.
	rows, err := p.Query(ctx, `SELECT id FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	rows.Close()
	var n int
	if err := p.QueryRow(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("count %d, %v", n, err)
	}
}

// TestSeesCommittedWrites: each query reads what the writer committed before it started.
func TestSeesCommittedWrites(t *testing.T) {
	w, p := fixture(t, 2)
	ctx := context.Background()
	for i := int64(10); i < 20; i++ {
		if _, err := w.Exec(`INSERT INTO t (id, name) VALUES (?, 'n')`, i); err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := p.QueryRow(ctx, `SELECT MAX(id) FROM t`).Scan(&got); err != nil || got != i {
			t.Fatalf("after writing %d read %d, %v", i, got, err)
		}
	}
	// query_only: the pool cannot write.
	var de *sqliteread.Error
	if err := p.QueryRow(ctx, `DELETE FROM t`).Scan(); !errors.As(err, &de) {
		t.Errorf("a write through the pool: %v, want SQLite's refusal", err)
	}
	var n int
	if err := p.QueryRow(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 13 {
		t.Fatalf("count %d after a write through the pool, %v", n, err)
	}
}

// TestCancelInterrupts: a query whose context ends stops at once with the context's
// error, and its connection serves the next query.
func TestCancelInterrupts(t *testing.T) {
	_, p := fixture(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	var n int64
	err := p.QueryRow(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT max(x) FROM c`).Scan(&n)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("interrupted after %v", d)
	}
	if err := p.QueryRow(context.Background(), `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("after the interrupt: %d, %v", n, err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := p.Query(done, `SELECT 1`); !errors.Is(err, context.Canceled) {
		t.Errorf("a query on an ended context: %v", err)
	}
}

// TestConcurrentReaders: more goroutines than connections, each reading its own rows, with
// cancelled queries among them (run under -race).
func TestConcurrentReaders(t *testing.T) {
	_, p := fixture(t, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					cancel()
				}
				var s string
				err := p.QueryRow(ctx, `SELECT name FROM t WHERE id = ?1`, int64(1+(g+i)%2)).Scan(&s)
				cancel()
				switch {
				case i%7 == 0:
					if !errors.Is(err, context.Canceled) {
						errs <- err
					}
				case err != nil:
					errs <- err
				case s != map[int]string{0: "ada", 1: "bob"}[(g+i)%2]:
					errs <- errors.New("read another query's row: " + s)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
