package httpapi

import (
	"net/http"
	"reflect"
	"strings"
)

// The standard mux answers some paths with a redirect: "/a/b" to "/a/b/" when only a pattern
// ending in "/" or "/{$}" matches the latter, and an unclean path to its clean form. natter's
// contract has no redirects (an unknown path is 404, a known one with another method 405), so
// dispatch treats a redirect as no match.

// redirectType is the type of the handler the mux returns for a redirect.
var redirectType = reflect.TypeOf(http.RedirectHandler("/", http.StatusTemporaryRedirect))

// routed is the pattern of the mux's own handler for r, not a redirect; "" when it has none.
func (s *Server) routed(r *http.Request) string {
	h, pattern := s.mux.Handler(r)
	if reflect.TypeOf(h) == redirectType {
		return ""
	}
	return pattern
}

// allowMethods are the methods a route may be registered with, in the mux's (sorted) Allow
// order.
var allowMethods = []string{http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodOptions,
	http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodTrace}

// allowed lists the methods that have a route at exactly r's path, as the mux's own 405 would
// but without following its redirect; "" when there are none.
func (s *Server) allowed(r *http.Request) string {
	var out []string
	for _, m := range allowMethods {
		r2 := r.WithContext(r.Context())
		r2.Method = m
		if s.routed(r2) != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}
