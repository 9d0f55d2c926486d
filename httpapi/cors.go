package httpapi

import (
	"net/http"
	"strings"
)

// CORS lets browser clients call the API from the origins an operator allows. It is off
// unless Options.CORSOrigins lists origins. Keys travel in headers, never in cookies, so no
// response allows credentials, and "*" may stand for every origin.

// corsExposed are the response headers a browser script may read.
const corsExposed = "X-Request-Id, X-Rate-Limit, X-Rate-Limit-Remaining, X-Rate-Limit-Reset, Retry-After, Idempotent-Replayed"

// corsAllowedMethods are the methods the API serves.
const corsAllowedMethods = "GET, POST, PUT, PATCH, DELETE"

// corsMaxHeaders bounds the headers a preflight may ask for, and corsMaxAge how long a
// browser may remember the answer (seconds).
const (
	corsMaxHeaders = 32
	corsMaxAge     = "600"
)

// corsPolicy is the parsed list of allowed origins.
type corsPolicy struct {
	any     bool
	origins map[string]bool // lower-cased scheme://host[:port]
}

func newCORSPolicy(origins []string) *corsPolicy {
	p := &corsPolicy{origins: map[string]bool{}}
	for _, o := range origins {
		o = strings.TrimSpace(o)
		switch {
		case o == "":
		case o == "*":
			p.any = true
		default:
			p.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
		}
	}
	if !p.any && len(p.origins) == 0 {
		return nil
	}
	return p
}

func (p *corsPolicy) allows(origin string) bool {
	return p.any || p.origins[strings.ToLower(origin)]
}

// cors answers preflights itself, before authentication (a browser sends no apikey with
// one), and marks the answers to allowed origins' requests as readable. A request from an
// origin not allowed, or without Origin, passes through untouched: the browser then keeps its
// answer from the script.
func (s *Server) cors(next http.Handler) http.Handler {
	p := newCORSPolicy(s.opt.CORSOrigins)
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		if !p.allows(origin) {
			next.ServeHTTP(w, r)
			return
		}
		allow := origin
		if p.any {
			allow = "*"
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Origin", allow)
			h.Set("Access-Control-Allow-Methods", corsAllowedMethods)
			if hs, ok := preflightHeaders(r.Header.Values("Access-Control-Request-Headers")); ok && hs != "" {
				h.Set("Access-Control-Allow-Headers", hs)
			}
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Allow-Origin", allow)
		h.Set("Access-Control-Expose-Headers", corsExposed)
		next.ServeHTTP(w, r)
	})
}

// preflightHeaders returns the header names a preflight asks for, re-joined, if every one is
// a plain token and there are not too many; a browser asks only for those its script sets.
func preflightHeaders(values []string) (string, bool) {
	var names []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if !headerToken(n) || len(names) == corsMaxHeaders {
				return "", false
			}
			names = append(names, n)
		}
	}
	return strings.Join(names, ", "), true
}

// headerToken reports whether s is a short RFC 9110 token.
func headerToken(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
