package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrations embed.FS

// migrationLockID is the PostgreSQL advisory lock that lets many nodes start at once and
// migrate exactly once.
const migrationLockID = 7_404_220_261

// migrate applies the embedded migrations not yet recorded, in order, each in its own
// transaction together with its record.
func (db *DB) migrate(ctx context.Context) error {
	files, err := fs.Glob(migrations, "migrations/"+db.dialect.name+"/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(files)
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", mapErr(err))
	}
	defer conn.Close()
	if db.dialect.concurrentWrites {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
			return fmt.Errorf("migrate: lock: %w", mapErr(err))
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", mapErr(err))
	}
	for _, f := range files {
		name := path.Base(f)
		version, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: %s: name must start with a number", name)
		}
		var n int
		if err := conn.QueryRowContext(ctx, db.q("SELECT COUNT(*) FROM schema_migrations WHERE version = $1"), version).Scan(&n); err != nil {
			return fmt.Errorf("migrate: %w", mapErr(err))
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile(f)
		if err != nil {
			return err
		}
		if err := applyMigration(ctx, conn, db, version, name, string(body)); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, conn *sql.Conn, db *DB, version int, name, body string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, db.q("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)"),
		version, name, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}
