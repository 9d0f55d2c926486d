//go:build !mattn

package main

import _ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"

// extraEngines: ncruces through database/sql (mattn's cgo driver registers the same name,
// so it is built instead with -tags mattn).
func extraEngines(path, app, conv string) []engine {
	return []engine{sqlEngine("ncruces database/sql", "sqlite3", "file:"+path+"", app, conv)}
}

// extraWriters: ncruces through database/sql.
func extraWriters(path string) []writer {
	return []writer{sqlWriter("ncruces database/sql", "sqlite3", path)}
}
