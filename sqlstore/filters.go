package sqlstore

import (
	"strings"

	"github.com/natter-chat/natter/chat"
)

// The pieces of SQL the list filters share, written once for both databases. arg binds a
// value and returns its placeholder.

// inList binds each value and returns their placeholders, for col IN (…).
func inList(arg func(any) string, vals []string) string {
	ph := make([]string, len(vals))
	for i, v := range vals {
		ph[i] = arg(v)
	}
	return strings.Join(ph, ", ")
}

// rangeWhere is the AND terms that keep col in r (inclusive), or "" when r bounds nothing.
func rangeWhere(col string, r chat.Range, arg func(any) string) string {
	var w string
	if r.From != nil {
		w += ` AND ` + col + ` >= ` + arg(*r.From)
	}
	if r.To != nil {
		w += ` AND ` + col + ` <= ` + arg(*r.To)
	}
	return w
}

// countWhere is the AND terms that compare col with c's bounds, or "" when it has none.
func countWhere(col string, c chat.CountFilter, arg func(any) string) string {
	var w string
	for _, b := range []struct {
		op string
		v  *int64
	}{{" > ", c.GT}, {" >= ", c.GTE}, {" < ", c.LT}, {" <= ", c.LTE}, {" = ", c.EQ}} {
		if b.v != nil {
			w += ` AND ` + col + b.op + arg(*b.v)
		}
	}
	return w
}
