package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pipedRead is one read of a pipeline: a constant query (in the $n style), its arguments,
// and what to do with each of its rows. when, if set, says just before the read runs
// whether it is needed, after the reads queued before it have had their rows; a pipeline
// that sends its reads at once runs it regardless and hands its rows on all the same.
type pipedRead struct {
	query string
	args  []any
	row   func(scanner) error
	when  func() bool
}

// pipeline runs reads that do not depend on one another's arguments, each read's rows
// handed to it in the order queued. On PostgreSQL a page's follow-up reads (its users,
// reaction counts, the viewer's reactions and saves) went one round trip each, and a round
// trip cost natter about as much CPU as PostgreSQL spent answering: there they go in one
// (a pgx batch on one connection). SQLite has no round trips; there they run in turn.
func (db *DB) pipeline(run runner, reads []pipedRead) error {
	r, ok := run.(reader)
	if !ok || !db.dialect.roundTrips || len(reads) < 2 {
		for _, rd := range reads {
			if rd.when != nil && !rd.when() {
				continue
			}
			if err := each(run.fixedRows(rd.query, rd.args...), rd.row); err != nil {
				return err
			}
		}
		return nil
	}
	if c := db.counter; c != nil {
		for i, rd := range reads {
			c.ran(db.q(rd.query), rd.args, true)
			row := rd.row
			reads[i].row = func(s scanner) error {
				c.rows.Add(1)
				return row(s)
			}
		}
	}
	return mapErr(pgPipeline(r.ctx, db, reads))
}

// pgPipeline sends reads in one batch on one connection of the read pool and reads their
// results back in order.
func pgPipeline(ctx context.Context, db *DB, reads []pipedRead) error {
	conn, err := db.r.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		for _, rd := range reads {
			b.Queue(db.q(rd.query), rd.args...)
		}
		br := pc.SendBatch(ctx, b)
		var err error
		for _, rd := range reads {
			var rows pgx.Rows
			if rows, err = br.Query(); err != nil {
				break
			}
			for err == nil && rows.Next() {
				err = rd.row(rows)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
			if err != nil {
				break
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return err
	})
}
