package main

import (
	"database/sql"
	"fmt"

	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	nc "github.com/ncruces/go-sqlite3"
	zz "zombiezen.com/go/sqlite"
)

// The conversation page: the viewer's (the long conversation's hub, in 1,001 conversations)
// first page of 50, its 19 columns scanned as the engine gives them (integer, text or null).
// natter then reads the page's last messages by id, which the get measures.

type convPage struct {
	run  func() int
	keep *[]any // while set, the rows' values are appended (for comparing engines)
}

func (p convPage) rows() string {
	*p.keep = make([]any, 0, 50*natsql.ConversationCols)
	p.run()
	s := fmt.Sprint(*p.keep)
	*p.keep = nil
	return s
}

func convArgs(app, viewer string) []any {
	return []any{app, viewer, int64(50), int64(50), int64(0), int64(0)}
}

func sqlConv(db *sql.DB, app, viewer string) convPage {
	st, err := db.Prepare(natsql.ConversationPage)
	must(err)
	keep := new([]any)
	return convPage{keep: keep, run: func() int {
		rows, err := st.Query(convArgs(app, viewer)...)
		must(err)
		v := make([]any, natsql.ConversationCols)
		p := make([]any, len(v))
		for i := range v {
			p[i] = &v[i]
		}
		n := 0
		for rows.Next() {
			must(rows.Scan(p...))
			if *keep != nil {
				*keep = append(*keep, v...)
			}
			n++
		}
		must(rows.Err())
		rows.Close()
		return n
	}}
}

func ncConv(c *nc.Conn, app, viewer string) convPage {
	s, _, err := c.Prepare(natsql.ConversationPage)
	must(err)
	keep := new([]any)
	return convPage{keep: keep, run: func() int {
		for i, a := range convArgs(app, viewer) {
			if v, ok := a.(string); ok {
				must(s.BindText(i+1, v))
			} else {
				must(s.BindInt64(i+1, a.(int64)))
			}
		}
		n := 0
		for s.Step() {
			for i := 0; i < natsql.ConversationCols; i++ {
				var v any
				switch s.ColumnType(i) {
				case nc.INTEGER:
					v = s.ColumnInt64(i)
				case nc.TEXT:
					v = s.ColumnText(i)
				}
				if *keep != nil {
					*keep = append(*keep, v)
				}
			}
			n++
		}
		must(s.Err())
		must(s.Reset())
		return n
	}}
}

func zzConv(c *zz.Conn, app, viewer string) convPage {
	s, err := c.Prepare(natsql.ConversationPage)
	must(err)
	keep := new([]any)
	return convPage{keep: keep, run: func() int {
		for i, a := range convArgs(app, viewer) {
			if v, ok := a.(string); ok {
				s.BindText(i+1, v)
			} else {
				s.BindInt64(i+1, a.(int64))
			}
		}
		n := 0
		for {
			ok, err := s.Step()
			must(err)
			if !ok {
				break
			}
			for i := 0; i < natsql.ConversationCols; i++ {
				var v any
				switch s.ColumnType(i) {
				case zz.TypeInteger:
					v = s.ColumnInt64(i)
				case zz.TypeText:
					v = s.ColumnText(i)
				}
				if *keep != nil {
					*keep = append(*keep, v)
				}
			}
			n++
		}
		must(s.Reset())
		return n
	}}
}
