package httpapi

// NotYetPatterns are the patterns of the endpoints not served yet ("[METHOD ]/path"), for the
// external tests.
var NotYetPatterns = func() []string {
	var out []string
	for _, r := range (&Server{}).endpoints() {
		if r.notYet {
			out = append(out, r.pattern(""))
		}
	}
	return out
}()
