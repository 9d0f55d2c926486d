package sqlstore

import (
	"strings"
	"sync"
)

// dialect holds the few differences between the two databases. Branches on it are rare and
// local.
type dialect struct {
	name string
	// forUpdate locks the selected row for the transaction (PostgreSQL); SQLite's single
	// writer already serialises write transactions.
	forUpdate string
	// summaryQuery reads a message's reaction summary in one row, and messageViewQuery
	// a message with its summary (messages.go).
	summaryQuery, messageViewQuery string
	// summaryColumns are the summary's two columns for message $1 and viewer $2, and
	// dataText a message's data.text (history.go).
	summaryColumns, dataText string
	// byID follows "FROM messages m" where a query picks messages by a list of ids within
	// an app. SQLite, without statistics, takes "app_id = ? AND id IN (…)" as a range of
	// an index on app_id (every message of the app, issue 29) rather than a rowid lookup
	// per id; NOT INDEXED leaves it the rowid lookups, which PostgreSQL finds by itself.
	byID   string
	rebind func(string) string
}

var (
	sqliteDialect = dialect{name: "sqlite", summaryQuery: summaryQuerySQLite, messageViewQuery: messageViewQuery(summaryColumnsSQLite),
		summaryColumns: summaryColumnsSQLite, dataText: `json_extract(m.data, '$.text')`, byID: ` NOT INDEXED`, rebind: cachedRebind(dollarToQuestion)}
	postgresDialect = dialect{name: "postgres", forUpdate: " FOR UPDATE", summaryQuery: summaryQueryPostgres, messageViewQuery: messageViewQuery(summaryColumnsPostgres),
		summaryColumns: summaryColumnsPostgres, dataText: `(m.data::jsonb ->> 'text')`, rebind: func(q string) string { return q }}
)

// dollarToQuestion rewrites $n placeholders as SQLite's ?n, which binds by number; a bare $n
// would be a named parameter numbered by first appearance.
func dollarToQuestion(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	for i := 0; i < len(q); i++ {
		if q[i] == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
			b.WriteByte('?')
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

func cachedRebind(f func(string) string) func(string) string {
	var cache sync.Map
	return func(q string) string {
		if v, ok := cache.Load(q); ok {
			return v.(string)
		}
		r := f(q)
		cache.Store(q, r)
		return r
	}
}

// q rewrites a query for the database in use.
func (db *DB) q(query string) string { return db.dialect.rebind(query) }
