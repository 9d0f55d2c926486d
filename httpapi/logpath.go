package httpapi

import (
	"net/http"
	"strings"
	"sync"
)

// The access log must never hold a secret, and a client that gets a path wrong may put a key
// or a token in any segment of it, spelled any way (/v3\apikeys\<key>, /v3/apikey/<key>). So
// the log never records a path as sent: a routed request is logged by its route pattern, any
// other by its leading segments that are words of the route table, the rest elided.

// maxLoggedWords bounds how many leading segments of an unrouted path are logged.
const maxLoggedWords = 3

// loggablePath is what the access log records of r's path.
func loggablePath(r *http.Request) string {
	if r.Pattern != "" {
		if _, p, found := strings.Cut(r.Pattern, " "); found {
			return p // without the method, which is logged on its own
		}
		return r.Pattern
	}
	return redactPath(r.URL.Path)
}

// redactPath keeps at most maxLoggedWords leading segments of p, each only if it is a word of
// the route table, and replaces whatever follows with "…".
func redactPath(p string) string {
	if p == "/" {
		return p
	}
	words := routeWords()
	out := ""
	rest, ok := strings.CutPrefix(p, "/")
	for n := 0; ok && n < maxLoggedWords; n++ {
		seg, after, more := strings.Cut(rest, "/")
		if !words[seg] {
			break
		}
		out += "/" + seg
		if !more {
			return out
		}
		rest = after
	}
	return out + "/…"
}

// routeWords are the literal segments of every endpoint's path (served or not yet), and the
// prefixes.
var routeWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{"v3": true, "v3.0": true, "healthz": true, "readyz": true}
	for _, r := range (&Server{}).endpoints() {
		for _, seg := range strings.Split(r.Path, "/") {
			if seg != "" && !strings.HasPrefix(seg, "{") {
				words[seg] = true
			}
		}
	}
	return words
})

// loggableMethod is r's method if it is a standard one; a client may send any token there.
func loggableMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "OTHER"
}
