package natsql

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
)

// The programs under first/ each link one engine and answer one history page: the bake-off's
// cold start (process start to first answered query, timed by sqlitebake -mode cold), binary
// size, and memory after -warm more pages.

// Args are first/'s flags.
type Args struct {
	DB, App, Conv string
	Warm          int
}

// Flags parses first/'s flags.
func Flags() Args {
	var a Args
	flag.StringVar(&a.DB, "db", "", "the database copy")
	flag.StringVar(&a.App, "app", "demo", "app id")
	flag.StringVar(&a.Conv, "conversation", "", "the long conversation")
	flag.IntVar(&a.Warm, "warm", 0, "history pages to read after the first, then print the memory figures")
	flag.Parse()
	return a
}

// Must exits on an error.
func Must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Done checks the page's row count and, with -warm, prints the memory figures.
func Done(a Args, rows int, page func() int) {
	if rows != 50 {
		Must(fmt.Errorf("history page of %d rows", rows))
	}
	for i := 0; i < a.Warm; i++ {
		page()
	}
	if a.Warm > 0 {
		fmt.Println(Memory())
	}
}

// FirstSQL is first/ through database/sql, for the driver registered as driver.
func FirstSQL(driver, dsnPrefix string) {
	a := Flags()
	db, err := sql.Open(driver, dsnPrefix+a.DB)
	Must(err)
	db.SetMaxOpenConns(1)
	st, err := db.Prepare(History)
	Must(err)
	page := func() int {
		rows, err := st.Query(a.App, a.Conv)
		Must(err)
		v := make([]any, 24)
		p := make([]any, 24)
		for i := range v {
			p[i] = &v[i]
		}
		n := 0
		for rows.Next() {
			Must(rows.Scan(p...))
			n++
		}
		Must(rows.Err())
		rows.Close()
		return n
	}
	Done(a, page(), page)
}
