//go:build mattn

// Command mattn answers one history page through mattn/go-sqlite3 (cgo).
package main

import (
	_ "github.com/mattn/go-sqlite3"
	"github.com/natter-chat/natter/bench/sqlitebake/natsql"
)

func main() { natsql.FirstSQL("sqlite3", "file:") }
