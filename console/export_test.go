package console

// SessionRoutes lists the patterns (below Prefix) of the console's pages and actions behind a
// session, for the external tests.
func SessionRoutes() []string {
	var c Console
	var out []string
	for _, r := range c.sessionRoutes() {
		out = append(out, r.pattern)
	}
	return out
}
