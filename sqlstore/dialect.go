package sqlstore

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// dialect holds the differences between the two databases, each said once, here: the call
// sites read a field (a fragment of SQL, a property, a small function) and never ask which
// database it is. Where a difference is a whole way of working (how writes commit, the
// reaction path), it is the engine's (engine, in db.go).
type dialect struct {
	name string // names the migrations' folder, and the database to the operator (Dialect)
	// concurrentWrites: write transactions run at once, this node's and other nodes'
	// (PostgreSQL). They lock the rows they read in order to change them (forUpdate, lock),
	// take advisory locks where a whole operation must run alone (migrations, an app's
	// import), claim queued rows past those another claim holds (claim), and count rate
	// limits in the database, shared by the nodes (SharesQuota). SQLite's single writer, in
	// the one natter serve a file has (sqlite_lock.go), runs them one at a time already.
	concurrentWrites bool
	// roundTrips: every statement is a round trip to a server that plans it from table
	// statistics (PostgreSQL). A batch of rows is written in one statement (arrays
	// unnested, a CTE), and a worker's round over a fast-growing queue reads rows by their
	// keys in a few statements (webhookdeliveries.go), whose plans no stale statistics can
	// lead far wrong. SQLite runs in process: there a prepared statement per row, its text
	// always the same, is quicker than one built for the batch (measured on the
	// notification and webhook rounds).
	roundTrips bool
	// rowsPerInsert bounds the rows of one multi-row INSERT (insertRows): on PostgreSQL 100
	// rows of at most 21 columns save round trips and stay far below its limit on bound
	// parameters; on SQLite one row a statement keeps the text, and so its prepared
	// statement, the same (measured: twice the decisions per second of 100-row statements).
	rowsPerInsert int
	// lastInsertID: the driver reports a new row's id (SQLite's), which spares an INSERT
	// its RETURNING clause, which SQLite runs through a temporary table. pgx reports none:
	// a PostgreSQL INSERT returns the id.
	lastInsertID bool
	// forUpdate locks the selected row for the transaction (lock).
	forUpdate string
	// params is a list of n placeholders, the first numbered from, in the dialect's own
	// syntax (dataimport.go).
	params func(from, n int) string
	// inIDs is "is one of the ids bound to p" (p a placeholder, its argument idsArg's, or
	// uidsArg's for strings): one query text whatever the number of ids, so that it can
	// stay prepared. SQLite reads a JSON array with json_each (whose IN still looks up each
	// rowid), PostgreSQL an array.
	inIDs   func(p string) string
	idsArg  func(ids []int64) any
	uidsArg func(uids []string) any
	// summaryQuery reads a message's reaction summary in one row, messageViewQuery a
	// message with its summary as a user sees it, and appMessageViewQuery as the app does
	// (messages.go).
	summaryQuery, messageViewQuery, appMessageViewQuery string
	// summaryColumns are the summary's two columns for message $1 and viewer $2, and
	// dataText a message's data.text (history.go).
	summaryColumns, dataText string
	// reserveMessageID takes the next id of the messages' sequence without a row, for a
	// message a moderation rule holds: it keeps that id when approved (moderation.go).
	reserveMessageID []string
	// byID follows "FROM messages m" where a query picks messages by a list of ids within
	// an app. SQLite, without statistics, takes "app_id = ? AND id IN (…)" as a range of
	// an index on app_id (every message of the app, issue 29) rather than a rowid lookup
	// per id; NOT INDEXED leaves it the rowid lookups, which PostgreSQL finds by itself.
	byID string
	// mentionsByMessage follows "FROM message_mentions mm" where a query picks mentions by
	// message ids within an app: SQLite, without statistics, would take the primary key's
	// app_id prefix, every mention of the app, rather than message_mentions_message.
	mentionsByMessage string
	// messagesByIDQuery reads messages $2 (inIDs) of app $1 as a page does
	// (conversations.go).
	messagesByIDQuery string
	// messagesFromByID is messageFrom with byID.
	messagesFromByID string
	// pageQueries are completePage's (history.go): a page's users, its reaction counts with
	// the viewer's part in each, and the viewer's saves and follows.
	pageQueries [3]string
	// recentPageQuery is the conversation page's statement (recentPageQueries).
	recentPageQuery string
	// quotedQuery reads the messages a page quotes with their parties, interactionsQuery a
	// viewer's interactions with a page's interactive messages (interactions.go).
	quotedQuery, interactionsQuery string
	rebind                         func(string) string
}

func init() {
	sqliteDialect.recentPageQuery, postgresDialect.recentPageQuery = recentPageQueries()
	for _, d := range []*dialect{&sqliteDialect, &postgresDialect} {
		d.forUpdate = d.lock(` FOR UPDATE`)
		d.messagesFromByID = splice(messageFrom, "FROM messages m\n", "FROM messages m"+d.byID+"\n")
		d.messagesByIDQuery = `SELECT ` + pageColumns + ` FROM messages m` + d.byID + ` WHERE m.app_id = $1 AND m.id` + d.inIDs(`$2`)
		d.quotedQuery = `SELECT ` + messageColumns + d.messagesFromByID +
			` WHERE m.app_id = $1 AND m.id` + d.inIDs(`$2`)
		d.interactionsQuery = `SELECT message_id, element_id, interacted_at FROM message_interactions
			WHERE app_id = $1 AND uid = $2 AND message_id` + d.inIDs(`$3`) + ` ORDER BY message_id, interacted_at, element_id`
		d.pageQueries = [3]string{
			`SELECT ` + userColumns + ` FROM users WHERE app_id = $1 AND uid` + d.inIDs(`$2`),
			// Each count with whether the viewer ($2, '' for none) is among it: a probe of
			// the reactions' unique key per count row, none for a page without reactions.
			`SELECT rc.message_id, rc.reaction, rc.count, EXISTS (SELECT 1 FROM reactions r
				WHERE r.message_id = rc.message_id AND r.uid = $2 AND r.reaction = rc.reaction)
				FROM reaction_counts rc WHERE rc.message_id` + d.inIDs(`$1`) + ` ORDER BY rc.message_id, rc.first_id`,
			// The viewer's saves, and the threads it follows (a message's threadSubscribed).
			`SELECT message_id, saved_at, 0 FROM saved_messages WHERE app_id = $1 AND uid = $2 AND message_id` + d.inIDs(`$3`) +
				` UNION ALL SELECT parent_id, 0, 1 FROM thread_subscriptions WHERE app_id = $1 AND uid = $2 AND subscribed = 1 AND parent_id` + d.inIDs(`$3`),
		}
	}
}

var (
	sqliteDialect = dialect{name: "sqlite", rowsPerInsert: 1, lastInsertID: true, params: bareParams,
		inIDs: jsonEachIDs, idsArg: jsonIDs, uidsArg: jsonUIDs,
		summaryQuery: summaryQuerySQLite, messageViewQuery: messageViewQuery(summaryColumnsSQLite),
		appMessageViewQuery: appMessageViewQuery(summaryCountsSQLite), summaryColumns: summaryColumnsSQLite, dataText: `json_extract(m.data, '$.text')`, byID: ` NOT INDEXED`,
		mentionsByMessage: ` INDEXED BY message_mentions_message`,
		reserveMessageID: []string{
			// AUTOINCREMENT keeps the highest id ever given in sqlite_sequence, which SQLite
			// lets a program write: a new row's id is past both it and every row's.
			`INSERT INTO sqlite_sequence (name, seq) SELECT 'messages', COALESCE((SELECT max(id) FROM messages), 0)
				WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'messages')`,
			`UPDATE sqlite_sequence SET seq = max(seq, COALESCE((SELECT max(id) FROM messages), 0)) + 1 WHERE name = 'messages' RETURNING seq`},
		rebind: cachedRebind(dollarToQuestion)}
	postgresDialect = dialect{name: "postgres", concurrentWrites: true, roundTrips: true, rowsPerInsert: 100, params: placeholders,
		inIDs:  func(p string) string { return ` = ANY(` + p + `)` },
		idsArg: func(ids []int64) any { return ids }, uidsArg: func(uids []string) any { return uids },
		summaryQuery: summaryQueryPostgres, messageViewQuery: messageViewQuery(summaryColumnsPostgres),
		appMessageViewQuery: appMessageViewQuery(summaryCountsPostgres), summaryColumns: summaryColumnsPostgres, dataText: `(m.data::jsonb ->> 'text')`,
		reserveMessageID: []string{`SELECT nextval(pg_get_serial_sequence('messages', 'id'))`},
		rebind:           func(q string) string { return q }}
)

// lock is clause, a row-locking clause (" FOR UPDATE", " FOR NO KEY UPDATE",
// " FOR UPDATE OF c", …), where write transactions run at once (concurrentWrites); SQLite
// has no such clause, nor the need.
func (d *dialect) lock(clause string) string {
	if d.concurrentWrites {
		return clause
	}
	return ""
}

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

// jsonEachIDs is SQLite's inIDs.
func jsonEachIDs(p string) string { return ` IN (SELECT value FROM json_each(` + p + `))` }

// jsonIDs is SQLite's idsArg: a JSON array.
func jsonIDs(ids []int64) any {
	b := make([]byte, 1, 2+len(ids)*8)
	b[0] = '['
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// jsonUIDs is SQLite's uidsArg.
func jsonUIDs(uids []string) any {
	b, _ := json.Marshal(uids)
	return string(b)
}

// q rewrites a query for the database in use.
func (db *DB) q(query string) string { return db.dialect.rebind(query) }
