package sqlstore

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Young tables' statistics (PostgreSQL). A table that has never been analyzed is planned as
// if it were nearly empty, and each pooled connection keeps the generic plan it makes of a
// statement after a few executions: made on a young messages table, reading one message by
// id walked the app's messages by another index (0.5-1.6 ms a read rather than a probe),
// and stamping a read receipt walked them too (25 ms, up to 229 under load). Autovacuum
// analyzes a table once it has grown, but looks only once a minute, and a new deployment,
// or a new database under a bench, grows thousands of rows in that minute. A table's first
// ANALYZE invalidates those plans; from there autovacuum keeps up (it analyzes again after a
// tenth's growth). So every node looks, every analyzeEvery, for tables never analyzed that
// hold youngRows rows or more, and analyzes them.
const (
	analyzeEvery = 10 * time.Second
	youngRows    = 1000
)

const youngTablesQuery = `SELECT relname FROM pg_stat_user_tables
	WHERE schemaname = current_schema() AND last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup >= $1`

// AnalyzeYoungTables analyzes the tables that have grown without statistics, every
// analyzeEvery until ctx ends (PostgreSQL; on SQLite it returns at once: its planner reads
// the table as it is).
func (db *DB) AnalyzeYoungTables(ctx context.Context, log *slog.Logger) {
	if !db.dialect.roundTrips {
		return
	}
	t := time.NewTicker(analyzeEvery)
	defer t.Stop()
	for {
		if _, err := db.analyzeYoung(ctx); err != nil && ctx.Err() == nil {
			log.Warn("statistics: analyze young tables", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// analyzeYoung analyzes, once, the tables never analyzed that hold youngRows rows or more,
// and names them.
func (db *DB) analyzeYoung(ctx context.Context) ([]string, error) {
	tables, err := collect(db.read(ctx).rows(youngTablesQuery, youngRows), func(s scanner) (string, error) {
		var name string
		err := s.Scan(&name)
		return name, err
	})
	if err != nil {
		return nil, err
	}
	for _, name := range tables {
		if _, err := db.w.ExecContext(ctx, `ANALYZE `+pgx.Identifier{name}.Sanitize()); err != nil {
			return nil, err
		}
	}
	return tables, nil
}
