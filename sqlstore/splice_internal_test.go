package sqlstore

import (
	"strings"
	"testing"
)

// A splice whose anchor is gone (a reformatted literal) or ambiguous panics, and so does one
// whose added parameters would collide with the statement's own; the statements built with
// them are package variables, so either fails the start-up of every binary and test.
func TestSpliceRefusesNoOp(t *testing.T) {
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	panics("missing anchor", func() { splice("SELECT 1", "UPDATE conversations", "x") })
	panics("anchor twice", func() { splice("a b a", "a", "x") })
	panics("parameters collide", func() { withChangeLog("SELECT $1, $2\n\tUPDATE conversations", 2) })
	if got := splice("SELECT $1 FROM t", "FROM t", "FROM u"); got != "SELECT $1 FROM u" {
		t.Errorf("splice = %q", got)
	}
	for q, want := range map[string]int{"SELECT 1": 1, "$1, $12, $3": 13, "'$.text' $2": 3} {
		if got := nextParam(q); got != want {
			t.Errorf("nextParam(%q) = %d, want %d", q, got, want)
		}
	}
	// The spliced statements the stores run carry what was spliced in.
	for name, c := range map[string]struct{ q, has string }{
		"send logs changes":         {pgSendLogQuery, "logged AS (INSERT INTO change_log"},
		"send notifies and logs":    {pgSendNotifyLogQuery, "notify AS (INSERT INTO notification_events"},
		"insert names its id":       {insertSeqWithIDQuery, "VALUES ($19, $1,"},
		"outbox only if subscribed": {pgOutboxIfSubscribed, "WHERE EXISTS (SELECT 1 FROM webhooks"},
		"by id, SQLite":             {sqliteDialect.messagesFromByID, "FROM messages m NOT INDEXED\n"},
	} {
		if !strings.Contains(c.q, c.has) {
			t.Errorf("%s: statement lacks %q:\n%s", name, c.has, c.q)
		}
	}
}
