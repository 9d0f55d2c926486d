// Command sqlitebake compares SQLite engines for Go on natter's hot paths (issue 39's engine
// bake-off), on copies of a natterbench-seeded natter database, one goroutine, CPU time from
// getrusage per operation, the engines alternated round by round so the shared machine's
// drift falls on all. Every engine runs the same statements (natsql/), prepared once, and
// scans every column into Go values as natter does.
//
//   - -mode read: the history page (the newest 50 messages of one conversation, 24 columns),
//     a message by id and the conversation page (natter's recentPageQuery, 50 of the hub's
//     1,001 conversations), each engine on a WAL copy of its own with natter's readers' page
//     cache; first it checks that all engines read the same rows.
//   - -mode write: natter's send (insert with the next seq, count it in the conversation's row
//     and the sender's marker) and reaction (add the row, keep the count row), a transaction
//     each, on a fresh WAL copy per engine with natter's writer pragmas (write.go); after, it
//     checks that all copies hold the same rows.
//   - -mode cold and -mode mem run the one-engine programs under first/ in fresh processes:
//     start to first history page (wall and CPU), binary size, and memory after 1,000 pages.
//
// It is a module of its own so that natter's go.mod gains none of the engines it tries.
// mattn/go-sqlite3 needs cgo and a C compiler, so it is built only with -tags mattn (and
// then replaces ncruces's database/sql driver, which registers the same name). The copy
// given to -db should be in rollback-journal mode (the copies are switched to WAL).
//
//	sqlite3 natter.db '.backup copy.db' && sqlite3 copy.db 'PRAGMA journal_mode=DELETE'
//	go run . -db copy.db -app demo -conversation <hub>_user_<partner> [-mode write -dir /tmp/x]
//	CGO_ENABLED=1 go run -tags mattn . -db copy.db -app demo -conversation <hub>_user_<partner>
//	for e in none modernc ncruces zombiezen ncrucessql; do go build -o bin/$e ./first/$e; done
//	CGO_ENABLED=1 go build -tags mattn -o bin/mattn ./first/mattn
//	go run . -db copy.db -conversation <hub>_user_<partner> -mode cold -bin bin -rounds 20
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	nc "github.com/ncruces/go-sqlite3"
	_ "modernc.org/sqlite"
	zz "zombiezen.com/go/sqlite"
)

const (
	historyQ = natsql.History
	getQ     = natsql.Get
)

// msg is what natter scans a row into.
type msg struct {
	id                                                    int64
	conv, sender, rtype, receiver, category, typ, data    string
	tags                                                  sql.NullString
	muid, targetUID, editedBy, deletedBy, pinnedBy        string
	targetID, parentID, replyCount, editedAt, deliveredAt int64
	readAt, sentAt, updatedAt, deletedAt, pinnedAt        int64
}

// engine runs one history page and one get, returning how many rows it read; while keep is
// set, it also appends the rows there (for the engines' comparison, untimed).
type engine struct {
	name    string
	history func() int
	get     func(id int64) int
	keep    *[]msg
	conv    convPage
}

// rows answers what a history page and a get read, as text, for comparing engines.
func (e engine) rows(id int64) string {
	*e.keep = make([]msg, 0, 51)
	e.history()
	e.get(id)
	s := fmt.Sprint(*e.keep)
	*e.keep = nil
	return s
}

var cpu = natsql.CPU

// viewer is the hub of the long conversation <hub>_user_<partner>.
func viewer(conv string) string {
	hub, _, ok := strings.Cut(conv, "_user_")
	if !ok {
		must(fmt.Errorf("%q is not a one-to-one conversation id", conv))
	}
	return hub
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
	db.SetMaxIdleConns(1)
	_, err = db.Exec(readerCache)
	must(err)
	h, err := db.Prepare(historyQ)
	must(err)
	g, err := db.Prepare(getQ)
	must(err)
	ctx := context.Background()
	keep := new([]msg)
	scan := func(rows *sql.Rows) int {
		n := 0
		for rows.Next() {
			var m msg
			must(rows.Scan(&m.id, &m.conv, &m.sender, &m.rtype, &m.receiver, &m.category, &m.typ, &m.data, &m.tags, &m.muid,
				&m.targetID, &m.targetUID, &m.parentID, &m.replyCount, &m.editedAt, &m.editedBy, &m.deliveredAt, &m.readAt,
				&m.sentAt, &m.updatedAt, &m.deletedAt, &m.deletedBy, &m.pinnedAt, &m.pinnedBy))
			if *keep != nil {
				*keep = append(*keep, m)
			}
			n++
		}
		must(rows.Err())
		rows.Close()
		return n
	}
	return engine{name: name, keep: keep, conv: sqlConv(db, app, viewer(conv)),
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
	must(c.Exec(readerCache))
	h, _, err := c.Prepare(historyQ)
	must(err)
	g, _, err := c.Prepare(getQ)
	must(err)
	keep := new([]msg)
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
			if *keep != nil {
				*keep = append(*keep, m)
			}
			n++
		}
		must(s.Err())
		must(s.Reset())
		return n
	}
	return engine{name: "ncruces direct", keep: keep, conv: ncConv(c, app, viewer(conv)),
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
	s, _, err := c.PrepareTransient(readerCache)
	must(err)
	_, err = s.Step()
	must(err)
	must(s.Finalize())
	h, err := c.Prepare(historyQ)
	must(err)
	g, err := c.Prepare(getQ)
	must(err)
	keep := new([]msg)
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
			if *keep != nil {
				*keep = append(*keep, m)
			}
			n++
		}
		must(s.Reset())
		return n
	}
	return engine{name: "zombiezen direct", keep: keep, conv: zzConv(c, app, viewer(conv)),
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
	path := flag.String("db", "", "a natter SQLite database (a copy, in rollback-journal mode: the reads open it as it is; the writes each write a copy of it)")
	app := flag.String("app", "demo", "app id")
	conv := flag.String("conversation", "", "conversation id of the long conversation (<hub>_user_<partner>)")
	n := flag.Int("n", 2000, "operations per engine per round")
	rounds := flag.Int("rounds", 5, "rounds; engines alternate within each")
	mode := flag.String("mode", "read", "read (history page and get), write (send and reaction transactions), cold (start to first page, the first/ programs) or mem (the first/ programs' memory)")
	dir := flag.String("dir", os.TempDir(), "where the writes' copies go")
	shared := flag.Bool("shared", false, "read: all engines on the -db file itself, not each on a WAL copy of its own")
	bin := flag.String("bin", "", "cold and mem: the directory of the first/ programs, built one per engine")
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
	switch *mode {
	case "read":
		reads(*path, *dir, *shared, *app, *conv, ids, *n, *rounds)
	case "write":
		writes(*path, *dir, *app, *conv, ids, *n, *rounds)
	case "cold", "mem":
		first(*mode, *bin, *path, *app, *conv, *rounds)
	default:
		must(fmt.Errorf("no mode %q", *mode))
	}
}

// readerCache is natter's readers' page cache (sqlstore/sqlite_engine.go).
const readerCache = "PRAGMA cache_size = -16384"

// reads times the engines on the reads, each on its own copy of the database in WAL mode, as
// natter runs: with -shared, all on the file given, which must then be in rollback-journal
// mode (ncruces refused the WAL-index another engine had made).
func reads(path, dir string, shared bool, app, conv string, ids []int64, n, rounds int) {
	file := func(name string) string {
		if shared {
			return path
		}
		return walCopy(path, dir, name)
	}
	engines := []engine{
		sqlEngine("modernc database/sql (natter today)", "sqlite", "file:"+file("r-modernc")+"", app, conv),
		ncruces(file("r-ncruces"), app, conv),
		zombiezen(file("r-zombiezen"), app, conv),
	}
	engines = append(engines, extraEngines(file("r-extra"), app, conv)...)
	// The engines read the same rows: the page and a few messages, compared as text.
	for _, id := range []int64{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
		want := engines[0].rows(id)
		for _, e := range engines[1:] {
			if got := e.rows(id); got != want {
				must(fmt.Errorf("%s reads other rows than %s:\n%s\n%s", e.name, engines[0].name, got, want))
			}
		}
	}
	want := engines[0].conv.rows()
	for _, e := range engines[1:] {
		if got := e.conv.rows(); got != want {
			must(fmt.Errorf("%s reads another conversation page than %s:\n%s\n%s", e.name, engines[0].name, got, want))
		}
	}
	fmt.Printf("the %d engines read the same rows (a history page, 3 messages, a conversation page)\n", len(engines))
	hist := map[string][]float64{}
	get := map[string][]float64{}
	convs := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, e := range engines {
			if e.history() != 50 {
				must(fmt.Errorf("%s: history page is not 50 rows", e.name))
			}
			t := cpu()
			for i := 0; i < n; i++ {
				e.history()
			}
			hist[e.name] = append(hist[e.name], float64(cpu()-t)/float64(n)/1e3)
			t = cpu()
			for i := 0; i < n*5; i++ {
				if e.get(ids[(i*7919)%len(ids)]) != 1 {
					must(fmt.Errorf("%s: get found nothing", e.name))
				}
			}
			get[e.name] = append(get[e.name], float64(cpu()-t)/float64(n*5)/1e3)
			if e.conv.run() != 50 {
				must(fmt.Errorf("%s: conversation page is not 50 rows", e.name))
			}
			t = cpu()
			for i := 0; i < n/4; i++ {
				e.conv.run()
			}
			convs[e.name] = append(convs[e.name], float64(cpu()-t)/float64(n/4)/1e3)
		}
	}
	fmt.Printf("| engine | history page of 50: CPU µs (min / median / max of %d rounds) | get by id: CPU µs | conversation page of 50: CPU µs |\n|---|---:|---:|---:|\n", rounds)
	for _, e := range engines {
		fmt.Printf("| %s | %s | %s | %s |\n", e.name, spread(hist[e.name], "%.0f"), spread(get[e.name], "%.1f"), spread(convs[e.name], "%.0f"))
	}
}

// spread is min / median / max.
func spread(v []float64, f string) string {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return fmt.Sprintf(f+" / "+f+" / "+f, s[0], s[len(s)/2], s[len(s)-1])
}

func writes(path, dir, app, conv string, ids []int64, n, rounds int) {
	hub := viewer(conv)
	partner := strings.TrimPrefix(conv, hub+"_user_")
	writers := []writer{
		sqlWriter("modernc database/sql (natter today)", "sqlite", fresh(path, dir, "modernc")),
		ncrucesWriter(fresh(path, dir, "ncruces")),
		zombiezenWriter(fresh(path, dir, "zombiezen")),
	}
	writers = append(writers, extraWriters(fresh(path, dir, "extra"))...)
	files := []string{"modernc", "ncruces", "zombiezen", "extra"}
	sends := map[string][]float64{}
	reacts := map[string][]float64{}
	firsts := make([]map[int64]int64, len(writers))
	for i := range firsts {
		firsts[i] = map[int64]int64{}
	}
	at := int64(1_800_000_000_000)
	for r := 0; r < rounds; r++ {
		for k, w := range writers {
			w.flushWAL()
			t := cpu()
			for i := 0; i < n; i++ {
				send(w, natsql.Send{App: app, Conv: conv, Sender: hub, Receiver: partner,
					Data: fmt.Sprintf(`{"text":"bake-off %d.%d"}`, r, i), At: at + int64(r*n+i)})
			}
			sends[w.name] = append(sends[w.name], float64(cpu()-t)/float64(n)/1e3)
			w.flushWAL()
			t = cpu()
			for i := 0; i < n; i++ {
				react(w, firsts[k], app, ids[(i*7919)%len(ids)], fmt.Sprintf("r%d-%d", r, i), at+int64(r*n+i))
			}
			reacts[w.name] = append(reacts[w.name], float64(cpu()-t)/float64(n)/1e3)
		}
	}
	// The engines wrote the same rows.
	want := written(filepath.Join(dir, files[0]+".db"), app, conv)
	for k, w := range writers[1:] {
		if got := written(filepath.Join(dir, files[k+1]+".db"), app, conv); got != want {
			must(fmt.Errorf("%s wrote other rows than %s:\n%s\n%s", w.name, writers[0].name, got, want))
		}
	}
	fmt.Printf("the %d engines wrote the same rows: %s\n", len(writers), want)
	fmt.Printf("| engine | send transaction: CPU µs (min / median / max of %d rounds) | reaction transaction: CPU µs |\n|---|---:|---:|\n", rounds)
	for _, w := range writers {
		fmt.Printf("| %s | %s | %s |\n", w.name, spread(sends[w.name], "%.0f"), spread(reacts[w.name], "%.0f"))
	}
}

// written sums up what the writes left in a copy, read through modernc.
func written(path, app, conv string) string {
	db, err := sql.Open("sqlite", "file:"+path)
	must(err)
	defer db.Close()
	var s string
	must(db.QueryRow(`SELECT (SELECT COUNT(*) || ' messages, max id ' || MAX(id) || ', seq sum ' || SUM(seq) || ', data hash ' || SUM(length(data) * id) FROM messages WHERE app_id = ?1)
		|| '; conversation ' || (SELECT last_message_id || '/' || last_seq || '/' || updated_at FROM conversations WHERE app_id = ?1 AND conversation_id = ?2)
		|| '; markers ' || (SELECT group_concat(uid || ':' || unread_own) FROM conversation_markers WHERE app_id = ?1 AND conversation_id = ?2)
		|| '; reactions ' || (SELECT COUNT(*) || '/' || SUM(id * message_id) FROM reactions)
		|| '; counts ' || (SELECT COUNT(*) || '/' || SUM(count * first_id) FROM reaction_counts)`, app, conv).Scan(&s))
	return s
}
