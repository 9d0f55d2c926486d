package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	nc "github.com/ncruces/go-sqlite3"
	zz "zombiezen.com/go/sqlite"
)

// The writes run as natter's writer connection is set up (sqlstore/sqlite_engine.go): WAL,
// synchronous=NORMAL, foreign keys on, a 64 MB page cache, no automatic checkpoint (natter
// checkpoints on a connection of its own; here between rounds, untimed). Each engine writes
// its own fresh copy of the database. natter groups concurrent jobs into one transaction;
// here every send or reaction is a transaction of its own, the costliest case.
var writerPragmas = []string{"PRAGMA busy_timeout = 10000", "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = 1",
	"PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -65536", "PRAGMA wal_autocheckpoint = 0"}

// reaction's statements (sqlstore/sqlite_reactions.go's addRowQuery and bumpCountQuery,
// reactions.go's insertCountQuery).
var (
	addRowQ     = `INSERT INTO reactions (app_id, message_id, uid, reaction, reacted_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (message_id, uid, reaction) DO NOTHING`
	insertCount = `INSERT INTO reaction_counts (message_id, reaction, count, first_at, first_id) VALUES (?1, ?2, 1, ?3, ?4)`
	bumpCount   = `UPDATE reaction_counts SET count = count + ?3 WHERE message_id = ?1 AND first_id = ?2`
)

var writeStmts = []string{natsql.InsertSeq, natsql.CountConversation, natsql.CountSent, addRowQ, insertCount, bumpCount}

// writer is one engine's write connection: exec runs prepared statement i with args and
// answers the last inserted row id.
type writer struct {
	name                    string
	begin, commit, flushWAL func()
	exec                    func(i int, args ...any) int64
}

// send is natter's send of a plain one-to-one message: insert with the next seq, count it
// in the conversation's row, count it in the sender's marker.
func send(w writer, s natsql.Send) {
	w.begin()
	id := w.exec(0, s.InsertArgs()...)
	w.exec(1, s.ConversationArgs(id)...)
	w.exec(2, s.SentArgs(id)...)
	w.commit()
}

// react adds reaction rows, one new user each time, and keeps the message's count row, its
// first row's id known as natter's message cache knows it.
func react(w writer, first map[int64]int64, app string, msg int64, uid string, at int64) {
	w.begin()
	id := w.exec(3, app, msg, uid, "👍", at)
	if f, ok := first[msg]; ok {
		w.exec(5, msg, f, int64(1))
	} else {
		w.exec(4, msg, "👍", at, id)
		first[msg] = id
	}
	w.commit()
}

// fresh copies the database to dir/name.db, without its journal files.
func fresh(src, dir, name string) string {
	dst := filepath.Join(dir, name+".db")
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(dst + s)
	}
	in, err := os.Open(src)
	must(err)
	defer in.Close()
	out, err := os.Create(dst)
	must(err)
	_, err = io.Copy(out, in)
	must(err)
	must(out.Close())
	return dst
}

// walCopy is a fresh copy switched to WAL and closed (it stays in WAL mode).
func walCopy(src, dir, name string) string {
	path := fresh(src, dir, name)
	db, err := sql.Open("sqlite", "file:"+path)
	must(err)
	defer db.Close()
	var m string
	must(db.QueryRow("PRAGMA journal_mode = WAL").Scan(&m))
	if m != "wal" {
		must(fmt.Errorf("%s: journal_mode %s", path, m))
	}
	return path
}

func sqlWriter(name, driver, path string) writer {
	db, err := sql.Open(driver, "file:"+path+"?_txlock=immediate")
	must(err)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	for _, p := range writerPragmas {
		_, err := db.Exec(p)
		must(err)
	}
	checkWAL(name, func() (m string) { must(db.QueryRow("PRAGMA journal_mode").Scan(&m)); return })
	stmts := make([]*sql.Stmt, len(writeStmts))
	for i, q := range writeStmts {
		stmts[i], err = db.Prepare(q)
		must(err)
	}
	ctx := context.Background()
	var tx *sql.Tx
	return writer{name: name,
		begin: func() {
			tx, err = db.BeginTx(ctx, nil)
			must(err)
		},
		exec: func(i int, args ...any) int64 {
			res, err := tx.StmtContext(ctx, stmts[i]).ExecContext(ctx, args...)
			must(err)
			id, err := res.LastInsertId()
			must(err)
			return id
		},
		commit:   func() { must(tx.Commit()) },
		flushWAL: func() { _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); must(err) },
	}
}

func checkWAL(name string, mode func() string) {
	if m := mode(); m != "wal" {
		must(fmt.Errorf("%s: journal_mode %s, not wal", name, m))
	}
}

func ncrucesWriter(path string) writer {
	c, err := nc.Open(path)
	must(err)
	for _, p := range writerPragmas {
		must(c.Exec(p))
	}
	stmts := make([]*nc.Stmt, len(writeStmts))
	for i, q := range writeStmts {
		stmts[i], _, err = c.Prepare(q)
		must(err)
	}
	checkWAL("ncruces", func() string {
		s, _, err := c.Prepare("PRAGMA journal_mode")
		must(err)
		defer s.Close()
		s.Step()
		return s.ColumnText(0)
	})
	return writer{name: "ncruces direct",
		begin: func() { must(c.Exec("BEGIN IMMEDIATE")) },
		exec: func(i int, args ...any) int64 {
			s := stmts[i]
			for j, a := range args {
				switch v := a.(type) {
				case string:
					must(s.BindText(j+1, v))
				case int64:
					must(s.BindInt64(j+1, v))
				case nil:
					must(s.BindNull(j + 1))
				}
			}
			must(s.Exec())
			return c.LastInsertRowID()
		},
		commit:   func() { must(c.Exec("COMMIT")) },
		flushWAL: func() { must(c.Exec("PRAGMA wal_checkpoint(TRUNCATE)")) },
	}
}

func zombiezenWriter(path string) writer {
	c, err := zz.OpenConn(path, zz.OpenReadWrite)
	must(err)
	run := func(q string) {
		s, _, err := c.PrepareTransient(q)
		must(err)
		_, err = s.Step()
		must(err)
		must(s.Finalize())
	}
	for _, p := range writerPragmas {
		run(p)
	}
	checkWAL("zombiezen", func() string {
		s, _, err := c.PrepareTransient("PRAGMA journal_mode")
		must(err)
		defer s.Finalize()
		_, err = s.Step()
		must(err)
		return s.ColumnText(0)
	})
	stmts := make([]*zz.Stmt, len(writeStmts))
	for i, q := range writeStmts {
		stmts[i], err = c.Prepare(q)
		must(err)
	}
	return writer{name: "zombiezen direct",
		begin: func() { run("BEGIN IMMEDIATE") },
		exec: func(i int, args ...any) int64 {
			s := stmts[i]
			for j, a := range args {
				switch v := a.(type) {
				case string:
					s.BindText(j+1, v)
				case int64:
					s.BindInt64(j+1, v)
				case nil:
					s.BindNull(j + 1)
				}
			}
			_, err := s.Step()
			must(err)
			must(s.Reset())
			return c.LastInsertRowID()
		},
		commit:   func() { run("COMMIT") },
		flushWAL: func() { run("PRAGMA wal_checkpoint(TRUNCATE)") },
	}
}
