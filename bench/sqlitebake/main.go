// Command sqlitebake compares SQLite engines for Go on natter's hot reads (issue 39's
// engine bake-off): the history page (the newest 50 messages of one conversation, the 24
// columns natter's page reads) and a message by id, on a copy of a natterbench-seeded
// natter database, one goroutine, CPU time from getrusage per operation. Every engine runs
// the same statement, prepared once, and scans every column into Go values as natter
// does; the engines alternate round by round so the shared machine's drift falls on all.
//
// It is a module of its own so that natter's go.mod gains none of the engines it tries.
// mattn/go-sqlite3 needs cgo and a C compiler, so it is built only with -tags mattn (and
// then replaces ncruces's database/sql driver, which registers the same name). ncruces
// refused the WAL file natter leaves ("locking protocol"), so the copy is switched to a
// rollback journal first; the reads are the same B-trees either way.
//
//	sqlite3 copy.db 'PRAGMA journal_mode=DELETE'
//	go run . -db copy.db -app demo -conversation <hub>_user_<partner>
//	CGO_ENABLED=1 go run -tags mattn . -db copy.db -app demo -conversation <hub>_user_<partner>
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	nc "github.com/ncruces/go-sqlite3"
	_ "modernc.org/sqlite"
	zz "zombiezen.com/go/sqlite"
)

const cols = `m.id, m.conversation_id, m.sender, m.receiver_type, m.receiver, m.category, m.type,
	m.data, m.tags, m.muid, m.target_id, m.target_uid, m.parent_id, m.reply_count, m.edited_at, m.edited_by, m.delivered_at, m.read_at, m.sent_at, m.updated_at, m.deleted_at, m.deleted_by, m.pinned_at, m.pinned_by`

const historyQ = `SELECT ` + cols + ` FROM messages m WHERE m.app_id = ?1 AND m.conversation_id = ?2 ORDER BY m.id DESC LIMIT 50`
const getQ = `SELECT ` + cols + ` FROM messages m WHERE m.app_id = ?1 AND m.id = ?2`

// msg is what natter scans a row into.
type msg struct {
	id                                                    int64
	conv, sender, rtype, receiver, category, typ, data    string
	tags                                                  sql.NullString
	muid, targetUID, editedBy, deletedBy, pinnedBy        string
	targetID, parentID, replyCount, editedAt, deliveredAt int64
	readAt, sentAt, updatedAt, deletedAt, pinnedAt        int64
}

// engine runs one history page and one get, returning how many rows it read.
type engine struct {
	name    string
	history func() int
	get     func(id int64) int
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func sqlEngine(name, driver, dsn, app, conv string) engine {
	db, err := sql.Open(driver, dsn)
	must(err)
	db.SetMaxOpenConns(1)
	h, err := db.Prepare(historyQ)
	must(err)
	g, err := db.Prepare(getQ)
	must(err)
	ctx := context.Background()
	scan := func(rows *sql.Rows) int {
		n := 0
		for rows.Next() {
			var m msg
			must(rows.Scan(&m.id, &m.conv, &m.sender, &m.rtype, &m.receiver, &m.category, &m.typ, &m.data, &m.tags, &m.muid,
				&m.targetID, &m.targetUID, &m.parentID, &m.replyCount, &m.editedAt, &m.editedBy, &m.deliveredAt, &m.readAt,
				&m.sentAt, &m.updatedAt, &m.deletedAt, &m.deletedBy, &m.pinnedAt, &m.pinnedBy))
			n++
		}
		must(rows.Err())
		rows.Close()
		return n
	}
	return engine{name: name,
		history: func() int {
			rows, err := h.QueryContext(ctx, app, conv)
			must(err)
			return scan(rows)
		},
		get: func(id int64) int {
			rows, err := g.QueryContext(ctx, app, id)
			must(err)
			return scan(rows)
		}}
}

func ncruces(path, app, conv string) engine {
	c, err := nc.Open(path)
	must(err)
	h, _, err := c.Prepare(historyQ)
	must(err)
	g, _, err := c.Prepare(getQ)
	must(err)
	run := func(s *nc.Stmt) int {
		n := 0
		for s.Step() {
			var m msg
			m.id, m.conv, m.sender, m.rtype, m.receiver = s.ColumnInt64(0), s.ColumnText(1), s.ColumnText(2), s.ColumnText(3), s.ColumnText(4)
			m.category, m.typ, m.data = s.ColumnText(5), s.ColumnText(6), s.ColumnText(7)
			if s.ColumnType(8) != nc.NULL {
				m.tags = sql.NullString{String: s.ColumnText(8), Valid: true}
			}
			m.muid, m.targetID, m.targetUID, m.parentID, m.replyCount = s.ColumnText(9), s.ColumnInt64(10), s.ColumnText(11), s.ColumnInt64(12), s.ColumnInt64(13)
			m.editedAt, m.editedBy, m.deliveredAt, m.readAt = s.ColumnInt64(14), s.ColumnText(15), s.ColumnInt64(16), s.ColumnInt64(17)
			m.sentAt, m.updatedAt, m.deletedAt, m.deletedBy = s.ColumnInt64(18), s.ColumnInt64(19), s.ColumnInt64(20), s.ColumnText(21)
			m.pinnedAt, m.pinnedBy = s.ColumnInt64(22), s.ColumnText(23)
			n++
		}
		must(s.Err())
		must(s.Reset())
		return n
	}
	return engine{name: "ncruces direct",
		history: func() int {
			must(h.BindText(1, app))
			must(h.BindText(2, conv))
			return run(h)
		},
		get: func(id int64) int {
			must(g.BindText(1, app))
			must(g.BindInt64(2, id))
			return run(g)
		}}
}

func zombiezen(path, app, conv string) engine {
	c, err := zz.OpenConn(path, zz.OpenReadWrite)
	must(err)
	h, err := c.Prepare(historyQ)
	must(err)
	g, err := c.Prepare(getQ)
	must(err)
	run := func(s *zz.Stmt) int {
		n := 0
		for {
			ok, err := s.Step()
			must(err)
			if !ok {
				break
			}
			var m msg
			m.id, m.conv, m.sender, m.rtype, m.receiver = s.ColumnInt64(0), s.ColumnText(1), s.ColumnText(2), s.ColumnText(3), s.ColumnText(4)
			m.category, m.typ, m.data = s.ColumnText(5), s.ColumnText(6), s.ColumnText(7)
			if s.ColumnType(8) != zz.TypeNull {
				m.tags = sql.NullString{String: s.ColumnText(8), Valid: true}
			}
			m.muid, m.targetID, m.targetUID, m.parentID, m.replyCount = s.ColumnText(9), s.ColumnInt64(10), s.ColumnText(11), s.ColumnInt64(12), s.ColumnInt64(13)
			m.editedAt, m.editedBy, m.deliveredAt, m.readAt = s.ColumnInt64(14), s.ColumnText(15), s.ColumnInt64(16), s.ColumnInt64(17)
			m.sentAt, m.updatedAt, m.deletedAt, m.deletedBy = s.ColumnInt64(18), s.ColumnInt64(19), s.ColumnInt64(20), s.ColumnText(21)
			m.pinnedAt, m.pinnedBy = s.ColumnInt64(22), s.ColumnText(23)
			n++
		}
		must(s.Reset())
		return n
	}
	return engine{name: "zombiezen direct",
		history: func() int {
			h.BindText(1, app)
			h.BindText(2, conv)
			return run(h)
		},
		get: func(id int64) int {
			g.BindText(1, app)
			g.BindInt64(2, id)
			return run(g)
		}}
}

func main() {
	path := flag.String("db", "", "a natter SQLite database (a copy: it is opened read-only, but WAL files may be touched)")
	app := flag.String("app", "demo", "app id")
	conv := flag.String("conversation", "", "conversation id of the long conversation")
	n := flag.Int("n", 2000, "operations per engine per round")
	rounds := flag.Int("rounds", 5, "rounds; engines alternate within each")
	flag.Parse()
	ids := []int64{}
	{
		db, err := sql.Open("sqlite", "file:"+*path+"")
		must(err)
		rows, err := db.Query(`SELECT id FROM messages WHERE app_id = ?1 AND conversation_id = ?2`, *app, *conv)
		must(err)
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		db.Close()
	}
	if len(ids) < 50 {
		must(fmt.Errorf("conversation %q has %d messages", *conv, len(ids)))
	}
	engines := []engine{
		sqlEngine("modernc database/sql (natter today)", "sqlite", "file:"+*path+"", *app, *conv),
		ncruces(*path, *app, *conv),
		zombiezen(*path, *app, *conv),
	}
	engines = append(engines, extraEngines(*path, *app, *conv)...)
	hist := map[string][]float64{}
	get := map[string][]float64{}
	for r := 0; r < *rounds; r++ {
		for _, e := range engines {
			if e.history() != 50 {
				must(fmt.Errorf("%s: history page is not 50 rows", e.name))
			}
			t := cpu()
			for i := 0; i < *n; i++ {
				e.history()
			}
			hist[e.name] = append(hist[e.name], float64(cpu()-t)/float64(*n)/1e3)
			t = cpu()
			for i := 0; i < *n*5; i++ {
				if e.get(ids[(i*7919)%len(ids)]) != 1 {
					must(fmt.Errorf("%s: get found nothing", e.name))
				}
			}
			get[e.name] = append(get[e.name], float64(cpu()-t)/float64(*n*5)/1e3)
		}
	}
	med := func(v []float64) (float64, float64, float64) {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[0], s[len(s)/2], s[len(s)-1]
	}
	fmt.Printf("| engine | history page of 50: CPU µs (min / median / max of %d rounds) | get by id: CPU µs |\n|---|---:|---:|\n", *rounds)
	for _, e := range engines {
		a, b, c := med(hist[e.name])
		x, y, z := med(get[e.name])
		fmt.Printf("| %s | %.0f / %.0f / %.0f | %.1f / %.1f / %.1f |\n", e.name, a, b, c, x, y, z)
	}
	fmt.Println(strings.Repeat("-", 3))
}
