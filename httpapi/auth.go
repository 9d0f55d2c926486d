package httpapi

import (
	"net"
	"net/http"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// access says which credentials may call a route.
type access int

const (
	fullAccessOnly  access = iota // a fullAccess key: the app's admin operations
	authOnlyAllowed               // any key: create a user, create an auth token (a login)
	clientAllowed                 // a fullAccess key, or a user's auth token: what a client app does
	anyCredential                 // any key or auth token: the endpoints that answer 501
)

// hostApp parses "<appId>.api-<region>.<domain>[:port]", or the client host the official SDK
// sends its authToken requests to, "<appId>.apiclient-<region>.<domain>[:port]". ok is false
// when the host has neither shape (a bare IP, a load balancer's name), in which case the app
// comes from the appId header or from the key or token.
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
	if !found {
		appID, reg, found = strings.Cut(rest, ".apiclient-")
	}
	if !found || appID == "" || reg == "" || strings.Contains(reg, ".") {
		return "", "", false
	}
	return appID, chat.Region(reg), true
}

// credentials gathers what the request says about its app and its key or auth token. A
// request may send one apikey header or one authToken header (in any spelling of their
// names); more than one of either, or both with values, is ambiguous and refused, since
// taking one would let whatever added a header on the way decide. An empty authToken header
// beside an apikey says nothing and is ignored. The appId header, which names the tenant,
// may likewise be sent only once (onlyOne).
func (s *Server) credentials(r *http.Request) (chat.Credentials, error) {
	keys, tokens := r.Header.Values("apikey"), r.Header.Values("authToken")
	switch {
	case len(keys) > 1:
		return chat.Credentials{}, chat.Errorf(chat.CodeAPIKeyNotFound, "The request sends the apikey header more than once; send exactly one.")
	case len(tokens) > 1:
		return chat.Credentials{}, chat.Errorf(chat.CodeAuthTokenUnknown, "The request sends the authToken header more than once; send exactly one.")
	}
	var c chat.Credentials
	if len(keys) == 1 {
		c.APIKey = keys[0]
	}
	if len(tokens) == 1 && (tokens[0] != "" || c.APIKey == "") {
		if c.APIKey != "" {
			return chat.Credentials{}, chat.Errorf(chat.CodeAPIKeyNotFound, "The request sends both an apikey and an authToken header; send exactly one.")
		}
		c.ByToken, c.AuthToken = true, tokens[0]
	}
	appIDHeader, err := onlyOne(r, "appId")
	if err != nil {
		return chat.Credentials{}, err
	}
	if appID, region, ok := hostApp(r.Host, s.opt.Domain); ok {
		c.AppID, c.Region = appID, region
	} else if appIDHeader != "" {
		c.AppID = strings.ToLower(appIDHeader)
	}
	return c, nil
}

// onlyOne returns the value of a header that chooses the tenant or the acting user (appId,
// onBehalfOf), refusing a request that sends it more than once (in any spelling of its name,
// whatever the values): serving the first would let whatever added a header on the way choose
// who acts. The refusal is 400 ERR_BAD_REQUEST naming the header, since the request, not its
// credential, is at fault.
func onlyOne(r *http.Request, name string) (string, error) {
	switch vs := r.Header.Values(name); len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", chat.InvalidField(name, "The "+name+" header is sent more than once; send it exactly once.")
}

// authHandler is a handler that runs for an authenticated caller.
type authHandler func(w http.ResponseWriter, r *http.Request, p chat.Principal) error

// authed authenticates the request, checks its credential against the route, resolves the
// principal (app, key or token, acting user) once, and runs h with it; an error from h is
// written in the error envelope. A client operation that succeeds on a user's behalf makes
// that user active (usage metrics, chat.Usage.Acted).
func (s *Server) authed(a access, h authHandler) http.HandlerFunc {
	if a == clientAllowed {
		h = s.acted(h)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var p chat.Principal
		var onBehalfOf string
		c, err := s.credentials(r)
		if err == nil {
			p, err = s.svc.Authenticate(r.Context(), c)
		}
		if err == nil {
			// Refused with an auth token too, though a token acts as its own user: a request
			// that says two things about who acts is wrong whoever reads it.
			onBehalfOf, err = onlyOne(r, "onBehalfOf")
		}
		p = p.ActingAs(onBehalfOf)
		if err == nil {
			err = s.rateLimit(w, r, p) // ratelimit.go: every authenticated request counts
		}
		if err == nil {
			err = permitted(a, p)
		}
		if err == nil {
			err = s.idempotent(w, r, p, h) // idempotency.go: h, once per Idempotency-Key
		}
		if err != nil {
			writeError(w, r, err)
		}
	}
}

// acted runs h, and tells the service when it succeeded on a user's behalf.
func (s *Server) acted(h authHandler) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		err := h(w, r, p)
		if err == nil {
			s.svc.Usage().Acted(p)
		}
		return err
	}
}

// permitted checks the principal's credential against the route's access.
func permitted(a access, p chat.Principal) error {
	switch {
	case p.ByToken():
		if a == clientAllowed || a == anyCredential {
			return nil
		}
		return &chat.Error{Code: chat.CodeNoAccess,
			Message:    "An auth token cannot be used to perform this operation. Please use an API key with the correct scope.",
			DevMessage: "Auth tokens are for the operations of client apps; this one needs an API key with the correct scope."}
	case p.Scope == chat.ScopeFullAccess, a == authOnlyAllowed, a == anyCredential:
		return nil
	}
	return &chat.Error{Code: chat.CodeNoAccess,
		Message:    "The key cannot be used to perform this operation. Please use API key with a correct scope to perform the operation.",
		DevMessage: "The key does not have enough clearance. To perform the operation, please use the API key with the correct scope."}
}
