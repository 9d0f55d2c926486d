package sqlstore

import (
	"fmt"
	"strconv"
	"strings"
)

// splice returns query with its one occurrence of anchor replaced by with. Statements made
// from another statement (a send that also logs its changes, an insert that also names the
// id) are built with it into package variables, so that an anchor a reformatted literal no
// longer contains panics as the package loads — at start-up and in every test — rather than
// leaving the statement quietly without its addition.
func splice(query, anchor, with string) string {
	if n := strings.Count(query, anchor); n != 1 {
		panic(fmt.Sprintf("sqlstore: splice anchor %q occurs %d times in a statement, want once", anchor, n))
	}
	return strings.Replace(query, anchor, with, 1)
}

// nextParam is the number of query's first free positional parameter: one past its highest
// $n. A splice that adds parameters checks it, so that the statement it extends cannot gain a
// parameter without the added ones moving up.
func nextParam(query string) int {
	high := 0
	for i := 0; i < len(query); i++ {
		if query[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(query) && query[j] >= '0' && query[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(query[i+1 : j]); err == nil && n > high {
			high = n
		}
		i = j - 1
	}
	return high + 1
}

// mustNextParam panics unless query's first free parameter is n.
func mustNextParam(query string, n int) {
	if got := nextParam(query); got != n {
		panic(fmt.Sprintf("sqlstore: a splice adds parameters from $%d, but the statement's first free one is $%d", n, got))
	}
}
