// Command modernc answers one history page through modernc.org/sqlite's database/sql driver.
package main

import (
	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
	_ "modernc.org/sqlite"
)

func main() { natsql.FirstSQL("sqlite", "file:") }
