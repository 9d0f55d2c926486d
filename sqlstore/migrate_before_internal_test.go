package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/pgtest"
)

// migratedBefore makes a database of dialect as a deployment left it before migration
// version: the migrations numbered below it applied and recorded, then stmts run (the rows
// the stores of then wrote). It returns the URL that Open takes (which applies the rest) and
// a raw handle on the database, closed when the test ends.
func migratedBefore(t *testing.T, dialect string, version int, stmts ...string) (string, *sql.DB) {
	t.Helper()
	driver, dsn, url := "pgx", "", ""
	if dialect == "sqlite" {
		p := filepath.Join(t.TempDir(), "old.db")
		driver, dsn, url = "sqlite", "file:"+p+"?_pragma=foreign_keys(1)", "sqlite:"+p
	} else {
		url = pgtest.URL(t)
		dsn = url
	}
	old, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Close() })
	old.SetMaxOpenConns(1)
	files, _ := fs.Glob(migrations, "migrations/"+dialect+"/*.sql")
	sort.Strings(files)
	all := []string{`CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`}
	for _, f := range files {
		name := path.Base(f)
		v, _ := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if v >= version {
			break
		}
		body, _ := migrations.ReadFile(f)
		all = append(all, string(body), `INSERT INTO schema_migrations VALUES (`+strconv.Itoa(v)+`, '`+name+`', 0)`)
	}
	for _, s := range append(all, stmts...) {
		if _, err := old.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%.80s: %v", s, err)
		}
	}
	return url, old
}
