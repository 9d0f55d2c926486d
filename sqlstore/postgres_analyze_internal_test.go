package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/natter-chat/natter/internal/pgtest"
)

// TestAnalyzeYoungTables: a table that grew past youngRows without statistics is analyzed,
// once; a smaller one is left to autovacuum.
func TestAnalyzeYoungTables(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE grown (id bigint)`, `CREATE TABLE small (id bigint)`,
		`INSERT INTO grown SELECT generate_series(1, 2000)`, `INSERT INTO small SELECT generate_series(1, 10)`,
	} {
		if _, err := db.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// The inserts' counts reach pg_stat_user_tables when their backend flushes them (within
	// a second of going idle).
	var named []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if named, err = db.analyzeYoung(ctx); err != nil {
			t.Fatal(err)
		}
		if len(named) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(named) != 1 || named[0] != "grown" {
		t.Fatalf("analyzed %q, want [grown]", named)
	}
	var analyzed bool
	if err := db.w.QueryRowContext(ctx, `SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'grown'`).Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if !analyzed {
		t.Fatal("grown has no statistics after its ANALYZE")
	}
	if named, err = db.analyzeYoung(ctx); err != nil || len(named) != 0 {
		t.Fatalf("a second pass analyzed %q (%v), want nothing", named, err)
	}
}
