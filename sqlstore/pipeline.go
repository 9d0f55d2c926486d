package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pipedRead is one read of a pipeline: a constant query (in the $n style), its arguments,
// and what to do with each of its rows.
type pipedRead struct {
	query string
	args  []any
	row   func(scanner) error
}

// pipeline runs reads that do not depend on one another's arguments, each read's rows
// handed to it in the order queued. On PostgreSQL a page's follow-up reads (its users,
// reaction counts and the viewer's saves) went one round trip each, and a round
// trip cost natter about as much CPU as PostgreSQL spent answering: there they go in one
// (a pgx batch on one connection). SQLite has no round trips; there they run in turn.
func (db *DB) pipeline(run runner, reads []pipedRead) error {
	r, ok := run.(reader)
	if !ok || !db.dialect.roundTrips || len(reads) < 2 {
		for _, rd := range reads {
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
