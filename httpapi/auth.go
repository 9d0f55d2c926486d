package httpapi

import (
	"net"
	"net/http"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// access says which keys may call a route.
type access int

const (
	fullAccessOnly access = iota
	authOnlyAllowed
)

// hostApp parses "<appId>.api-<region>.<domain>[:port]". ok is false when the host does not
// have that shape (a bare IP, a load balancer's name), in which case the app comes from the
// appId header or from the key.
func hostApp(host, domain string) (appID string, region chat.Region, ok bool) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	rest, found := strings.CutSuffix(host, "."+domain)
	if !found {
		return "", "", false
	}
	appID, reg, found := strings.Cut(rest, ".api-")
	if !found || appID == "" || reg == "" || strings.Contains(reg, ".") {
		return "", "", false
	}
	return appID, chat.Region(reg), true
}

// credentials gathers what the request says about its app and key.
func (s *Server) credentials(r *http.Request) chat.Credentials {
	c := chat.Credentials{APIKey: r.Header.Get("apikey")} // header names are case-insensitive
	if appID, region, ok := hostApp(r.Host, s.opt.Domain); ok {
		c.AppID, c.Region = appID, region
	} else if h := r.Header.Get("appId"); h != "" {
		c.AppID = strings.ToLower(h)
	}
	return c
}

// authHandler is a handler that runs for an authenticated caller.
type authHandler func(w http.ResponseWriter, r *http.Request, p chat.Principal) error

// authed authenticates the request, checks the key's scope against the route, resolves the
// principal (app, key, acting user) once, and runs h with it; an error from h is written in
// the error envelope.
func (s *Server) authed(a access, h authHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var p chat.Principal
		err := oneAPIKey(r)
		if err == nil {
			p, err = s.svc.Authenticate(r.Context(), s.credentials(r))
		}
		p = p.ActingAs(r.Header.Get("onBehalfOf"))
		if err == nil {
			err = s.rateLimit(w, r, p) // ratelimit.go: every authenticated request counts
		}
		if err == nil && p.Scope != chat.ScopeFullAccess && a != authOnlyAllowed {
			err = &chat.Error{Code: chat.CodeNoAccess,
				Message:    "The key cannot be used to perform this operation. Please use API key with a correct scope to perform the operation.",
				DevMessage: "The key does not have enough clearance. To perform the operation, please use the API key with the correct scope."}
		}
		if err == nil {
			err = s.idempotent(w, r, p, h) // idempotency.go: h, once per Idempotency-Key
		}
		if err != nil {
			writeError(w, r, err)
		}
	}
}

// oneAPIKey refuses a request that sends the apikey header more than once (in any spelling of
// its name): which key it means is ambiguous, and taking the first would let whatever added
// a header in between decide.
func oneAPIKey(r *http.Request) error {
	if len(r.Header.Values("apikey")) > 1 {
		return chat.Errorf(chat.CodeAPIKeyNotFound, "The request sends the apikey header more than once; send exactly one.")
	}
	return nil
}
