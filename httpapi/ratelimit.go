package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// rateClasses says which operations are not "standard" for rate limiting, by route pattern
// relative to the version prefix, as routes.go and notYet spell it ("METHOD /path", or a bare
// path for a notYet subtree). Add a line here when you add a core operation. The hosted
// service counts user login and connection, creating and deleting a user, and creating and
// joining a group as core (API-reference §6), and data import on a limit of its own.
var rateClasses = map[string]chat.RateClass{
	"POST /users":                   chat.RateCore,
	"DELETE /users/{uid}":           chat.RateCore,
	"POST /users/{uid}/auth_tokens": chat.RateCore, // login: a client's auth token
	"POST /groups":                  chat.RateCore,
	"POST /groups/{guid}/members":   chat.RateCore, // join (and add members)
	"POST /data_import/users":       chat.RateImport,
	"POST /data_import/groups":      chat.RateImport,
	"POST /data_import/members":     chat.RateImport,
	"POST /data_import/messages":    chat.RateImport,
}

// classesByPattern is rateClasses keyed by the mux's own patterns (each version prefix), so
// a request finds its class by r.Pattern in one lookup.
func classesByPattern() map[string]chat.RateClass {
	m := make(map[string]chat.RateClass, 2*len(rateClasses))
	for p, c := range rateClasses {
		for _, prefix := range versionPrefixes {
			m[withPrefix(p, prefix)] = c
		}
	}
	return m
}

// versionPrefixes are the prefixes every route is served under.
var versionPrefixes = []string{"/v3", "/v3.0"}

// withPrefix puts the version prefix into a pattern: "POST /users" → "POST /v3/users".
func withPrefix(pattern, prefix string) string {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '/' {
			return pattern[:i] + prefix + pattern[i:]
		}
	}
	return pattern
}

// rateLimit counts the request against its app's limit for the operation's class, sets
// X-Rate-Limit and X-Rate-Limit-Remaining, and refuses it over the limit with 429,
// Retry-After and X-Rate-Limit-Reset, before anything is processed. A limit that cannot be
// counted (the shared count's database is unreachable) lets the request through.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	class := s.classes[r.Pattern]
	d, err := s.svc.TakeRate(r.Context(), p, class)
	if err != nil {
		logger(r).Warn("rate limit not counted", "err", err, "app", p.App.ID, "request_id", requestID(r))
	}
	if d.Limit == 0 {
		return nil
	}
	h := w.Header()
	v := []string{strconv.Itoa(d.Limit), strconv.Itoa(d.Remaining)} // one allocation for both
	h["X-Rate-Limit"] = v[0:1:1]
	h["X-Rate-Limit-Remaining"] = v[1:2:2]
	if d.Allowed {
		return nil
	}
	s.opt.Metrics.rateLimit(class)
	h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfter, 10)}
	h["X-Rate-Limit-Reset"] = []string{strconv.FormatInt(d.Reset, 10)}
	return chat.RateLimited()
}
