// Command zombiezen answers one history page through zombiezen.com/go/sqlite's own API.
package main

import (
	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	zz "zombiezen.com/go/sqlite"
)

func main() {
	a := natsql.Flags()
	c, err := zz.OpenConn(a.DB, zz.OpenReadWrite)
	natsql.Must(err)
	s, err := c.Prepare(natsql.History)
	natsql.Must(err)
	page := func() int {
		s.BindText(1, a.App)
		s.BindText(2, a.Conv)
		n := 0
		for {
			ok, err := s.Step()
			natsql.Must(err)
			if !ok {
				break
			}
			for i := 0; i < 24; i++ {
				if s.ColumnType(i) == zz.TypeInteger {
					_ = s.ColumnInt64(i)
				} else {
					_ = s.ColumnText(i)
				}
			}
			n++
		}
		natsql.Must(s.Reset())
		return n
	}
	natsql.Done(a, page(), page)
}
