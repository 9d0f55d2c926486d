//go:build mattn

package main

import _ "github.com/mattn/go-sqlite3" // cgo: needs a C compiler, hence the tag

// extraEngines: mattn/go-sqlite3 (cgo) through database/sql.
func extraEngines(path, app, conv string) []engine {
	return []engine{sqlEngine("mattn (cgo) database/sql", "sqlite3", "file:"+path+"", app, conv)}
}

// extraWriters: mattn/go-sqlite3 (cgo) through database/sql.
func extraWriters(path string) []writer {
	return []writer{sqlWriter("mattn (cgo) database/sql", "sqlite3", path)}
}
