// Command ncrucessql answers one history page through ncruces/go-sqlite3's database/sql driver.
package main

import (
	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	_ "github.com/ncruces/go-sqlite3/driver"
)

func main() { natsql.FirstSQL("sqlite3", "file:") }
