// Command none is first/'s baseline: a Go process that parses its flags and exits.
package main

import "github.com/natter-chat/natter/bench/sqlitebake/natsql"

func main() { natsql.Done(natsql.Flags(), 50, func() int { return 50 }) }
