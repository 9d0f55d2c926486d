// Command ncruces answers one history page through ncruces/go-sqlite3's own API.
package main

import (
	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	nc "github.com/ncruces/go-sqlite3"
)

func main() {
	a := natsql.Flags()
	c, err := nc.Open(a.DB)
	natsql.Must(err)
	s, _, err := c.Prepare(natsql.History)
	natsql.Must(err)
	page := func() int {
		natsql.Must(s.BindText(1, a.App))
		natsql.Must(s.BindText(2, a.Conv))
		n := 0
		for s.Step() {
			for i := 0; i < 24; i++ {
				if s.ColumnType(i) == nc.INTEGER {
					_ = s.ColumnInt64(i)
				} else {
					_ = s.ColumnText(i)
				}
			}
			n++
		}
		natsql.Must(s.Err())
		natsql.Must(s.Reset())
		return n
	}
	natsql.Done(a, page(), page)
}
