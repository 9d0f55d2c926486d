package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// notCompared are the tables the schema comparison leaves out, with the reason. SQLite's own
// tables (sqlite_sequence, which messages' AUTOINCREMENT creates; sqlite_stat1 after ANALYZE)
// are never read: they are the engine's, not natter's.
var notCompared = map[string]string{
	"schema_migrations": "migrate.go's bookkeeping, created by one statement on both databases rather than by the migrations",
	"change_log":        "PostgreSQL's alone: how nodes hear of each other's changes (changelog.go); SQLite serves one node",
}

// tableShape is what the comparison holds the same across databases: column names, and the
// keys the database enforces as sets of column names, not how it stores or orders them.
type tableShape struct {
	Columns    []string // sorted
	PrimaryKey string   // its columns, sorted, comma-separated
	// UniqueKeys are the other unique constraints and unique indexes, each as PrimaryKey,
	// sorted; a partial one ends in " (partial)", an expression is "<expression>".
	UniqueKeys []string
}

// TestSchemasMatch migrates a fresh SQLite and a fresh PostgreSQL database and compares
// what their catalogues say: the same tables, the same columns in each, the same primary
// and unique keys. The migrations are written twice, once per dialect; a column or a key
// added to one and forgotten in the other fails here rather than in production.
func TestSchemasMatch(t *testing.T) {
	ctx := context.Background()

	path := filepath.Join(t.TempDir(), "schema.db")
	migrated(t, "sqlite:"+path)
	lite, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	gotSQLite := sqliteSchema(ctx, t, lite)

	url := pgtest.URL(t)
	migrated(t, url)
	pg, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	gotPostgres := postgresSchema(ctx, t, pg)

	for name, schema := range map[string]map[string]*tableShape{"SQLite": gotSQLite, "PostgreSQL": gotPostgres} {
		if schema["users"] == nil || len(schema["users"].Columns) == 0 {
			t.Fatalf("%s: the catalogue shows no users table; the query reads the wrong schema: %v", name, schema)
		}
		for table := range notCompared {
			delete(schema, table)
		}
	}
	if diff := cmp.Diff(gotSQLite, gotPostgres); diff != "" {
		t.Errorf("the SQLite and PostgreSQL schemas differ after migration (-SQLite +PostgreSQL):\n%s", diff)
	}
}

// migrated opens dbURL through sqlstore.Open, which runs the migrations, and closes it.
func migrated(t *testing.T, dbURL string) {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), dbURL, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// sqliteSchema reads the tables from sqlite_schema, their columns and primary key from
// pragma_table_info (which also covers an INTEGER PRIMARY KEY, the rowid, which has no index),
// and their unique keys from pragma_index_list and pragma_index_info.
func sqliteSchema(ctx context.Context, t *testing.T, db *sql.DB) map[string]*tableShape {
	t.Helper()
	out := map[string]*tableShape{}
	for _, table := range queryStrings(ctx, t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`) {
		shape := &tableShape{}
		out[table] = shape
		rows, err := db.QueryContext(ctx, `SELECT name, pk FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		var pk []string
		for rows.Next() {
			var col string
			var pkPos int
			if err := rows.Scan(&col, &pkPos); err != nil {
				t.Fatal(err)
			}
			shape.Columns = append(shape.Columns, col)
			if pkPos > 0 {
				pk = append(pk, col)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(shape.Columns)
		shape.PrimaryKey = key(pk, false)

		rows, err = db.QueryContext(ctx, `SELECT name, origin, partial FROM pragma_index_list(?) WHERE "unique" = 1`, table)
		if err != nil {
			t.Fatal(err)
		}
		type index struct {
			name, origin string
			partial      bool
		}
		var indexes []index
		for rows.Next() {
			var ix index
			if err := rows.Scan(&ix.name, &ix.origin, &ix.partial); err != nil {
				t.Fatal(err)
			}
			indexes = append(indexes, ix)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		for _, ix := range indexes {
			// The index of a PRIMARY KEY (origin "pk") is the primary key, read above.
			if ix.origin == "pk" {
				continue
			}
			// cid -2 is an expression, which has no name.
			cols := queryStrings(ctx, t, db, `SELECT coalesce(name, '<expression>') FROM pragma_index_info(?) ORDER BY seqno`, ix.name)
			shape.addUnique(key(cols, ix.partial))
		}
	}
	return out
}

// postgresSchema reads the tables and their columns from information_schema, and the primary
// and unique keys from pg_index, where every PRIMARY KEY and UNIQUE constraint (pg_constraint)
// has its index, as does every CREATE UNIQUE INDEX; all in the schema natter migrated into.
func postgresSchema(ctx context.Context, t *testing.T, db *sql.DB) map[string]*tableShape {
	t.Helper()
	out := map[string]*tableShape{}
	for _, table := range queryStrings(ctx, t, db, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`) {
		out[table] = &tableShape{}
	}
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		if shape := out[table]; shape != nil { // views are not tables
			shape.Columns = append(shape.Columns, col)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	// indkey lists the key columns first (indnkeyatts of them), then INCLUDE columns; an
	// expression is attnum 0, with no pg_attribute row.
	rows, err = db.QueryContext(ctx, `SELECT c.relname, i.indisprimary, i.indpred IS NOT NULL,
			(SELECT string_agg(coalesce(a.attname, '<expression>'), ',' ORDER BY k.n)
			   FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
			   LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
			  WHERE k.n <= i.indnkeyatts)
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace ns ON ns.oid = c.relnamespace
		WHERE ns.nspname = current_schema() AND i.indisunique`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, cols string
		var primary, partial bool
		if err := rows.Scan(&table, &primary, &partial, &cols); err != nil {
			t.Fatal(err)
		}
		shape := out[table]
		if shape == nil {
			continue
		}
		k := key(strings.Split(cols, ","), partial)
		if primary {
			shape.PrimaryKey = k
		} else {
			shape.addUnique(k)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for _, shape := range out {
		slices.Sort(shape.Columns)
	}
	return out
}

// addUnique records a unique key once: a UNIQUE constraint and a unique index on the same
// columns are one guarantee.
func (s *tableShape) addUnique(k string) {
	if !slices.Contains(s.UniqueKeys, k) {
		s.UniqueKeys = append(s.UniqueKeys, k)
		slices.Sort(s.UniqueKeys)
	}
}

// key names a key by its columns as a set.
func key(cols []string, partial bool) string {
	cols = slices.Clone(cols)
	slices.Sort(cols)
	k := strings.Join(cols, ",")
	if partial {
		k += " (partial)"
	}
	return k
}

func queryStrings(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
