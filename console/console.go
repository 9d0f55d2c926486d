// Package console is natter's web console: server-rendered pages (html/template and htmx,
// embedded, no build step) at /console, where an operator signs in with an app's fullAccess
// key and sees and manages the app. It calls chat.Service as the API does and imports no
// HTTP API code. docs/console.md has the security decisions.
package console

import (
	"embed"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/natter-chat/natter/chat"
)

//go:embed assets
var assets embed.FS

// Prefix is where the console is served.
const Prefix = "/console"

// Options configure the console.
type Options struct {
	// Domain is the API's <domain>: the console is never served on <appId>.api-<region>.<domain>
	// or <appId>.apiclient-<region>.<domain>, only on other host names (an IP address,
	// localhost, the operator's own name).
	Domain string
	// Idle and Max end a session unused for Idle, or begun Max ago; 0 picks chat's defaults.
	Idle, Max time.Duration
	// Sockets reports the real-time sockets open on this node; nil shows none.
	Sockets func() int64
	// MaxBodyBytes caps a form's body; 0 picks 64 KiB.
	MaxBodyBytes int64
	Logger       *slog.Logger
	// AccessLog logs every console request: method, path (never a key: none travels in a
	// URL), status and duration.
	AccessLog bool
}

// Console serves the pages.
type Console struct {
	svc   *chat.Service
	opt   Options
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*pageTemplate
	cop   *http.CrossOriginProtection
	fails *failureLimiter
}

// New builds the console.
func New(svc *chat.Service, opt Options) *Console {
	if opt.Domain == "" {
		opt.Domain = "localhost"
	}
	if opt.Idle <= 0 {
		opt.Idle = chat.DefaultConsoleIdle
	}
	if opt.Max <= 0 {
		opt.Max = chat.DefaultConsoleMax
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 64 << 10
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{svc: svc, opt: opt, log: opt.Logger, mux: http.NewServeMux(), pages: parsePages(), cop: http.NewCrossOriginProtection(),
		fails: newFailureLimiter()}
	c.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.forbidden(w, "This request came from another site.")
	}))
	c.routes()
	return c
}

func (c *Console) routes() {
	static, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix(Prefix+"/assets/", http.FileServerFS(static))
	c.mux.Handle("GET "+Prefix+"/assets/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		files.ServeHTTP(w, r)
	}))
	c.mux.HandleFunc("GET "+Prefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
	})
	c.mux.HandleFunc("GET "+Prefix+"/signin", c.signInPage)
	c.mux.HandleFunc("POST "+Prefix+"/signin", c.signIn)
	for _, p := range c.sessionRoutes() {
		method, path, _ := strings.Cut(p.pattern, " ")
		c.mux.Handle(method+" "+Prefix+path, c.authed(p.handler))
	}
	c.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		c.status(w, http.StatusNotFound, "Not found", "There is no such console page.")
	})
}

// sessionRoute is a console page or action behind a session: its pattern, below Prefix, and
// its handler.
type sessionRoute struct {
	pattern string
	handler func(w http.ResponseWriter, r *http.Request, q *request) error
}

// sessionRoutes is the console's one list of pages and actions behind a session.
func (c *Console) sessionRoutes() []sessionRoute {
	return []sessionRoute{
		{"POST /signout", c.signOut},
		{"GET /{$}", c.overview},
		{"GET /users", c.users},
		{"POST /users", c.createUser},
		{"GET /users/{uid}", c.user},
		{"POST /users/{uid}", c.updateUser},
		{"POST /users/{uid}/deactivate", c.deactivateUser(true)},
		{"POST /users/{uid}/reactivate", c.deactivateUser(false)},
		{"POST /users/{uid}/tokens", c.createToken},
		{"POST /users/{uid}/tokens/delete", c.deleteToken},
		{"GET /keys", c.keys},
		{"POST /keys", c.createKey},
		{"POST /keys/delete", c.deleteKey},
		{"GET /groups", c.groups},
		{"POST /groups", c.createGroup},
		{"GET /groups/{guid}", c.group},
		{"POST /groups/{guid}", c.updateGroup},
		{"POST /groups/{guid}/members", c.addMembers},
		{"POST /groups/{guid}/members/{uid}/scope", c.changeScope},
		{"POST /groups/{guid}/members/{uid}/kick", c.kick},
		{"POST /groups/{guid}/delete", c.deleteGroup},
		{"GET /messages", c.messages},
		{"POST /messages", c.sendMessage},
		{"POST /messages/{id}/reactions", c.react},
		{"GET /moderation", c.moderation},
		{"POST /moderation/blocked/{id}", c.reviewBlocked},
		{"POST /moderation/flagged/{id}", c.reviewFlagged},
		{"GET /roles", c.roles},
		{"POST /roles", c.createRole},
		{"POST /roles/{role}/delete", c.deleteRole},
		{"GET /notifications", c.notifications},
		{"POST /notifications/{kind}", c.createPushProvider},
		{"POST /notifications/{kind}/{id}/default", c.defaultPushProvider},
		{"POST /notifications/{kind}/{id}/delete", c.deletePushProvider},
		{"POST /notifications/{kind}/delete", c.deleteSingleProvider},
		{"GET /roles/{role}", c.role},
		{"POST /roles/{role}/permissions", c.setRolePermission},
		{"POST /roles/{role}/permissions/unset", c.unsetRolePermission},
		{"POST /roles/{role}/features", c.restrictFeature},
		{"POST /roles/{role}/features/allow", c.allowFeature},
		{"GET /groups/{guid}/permissions", c.groupPermissions},
		{"POST /groups/{guid}/permissions", c.setScopePermission},
		{"POST /groups/{guid}/permissions/unset", c.unsetScopePermission},
		{"GET /webhooks", c.webhooks},
		{"POST /webhooks", c.createWebhook},
		{"GET /webhooks/{id}", c.webhook},
		{"POST /webhooks/{id}/secret", c.rotateSecret},
		{"POST /webhooks/{id}/replay", c.replay},
		{"POST /webhooks/{id}/delete", c.deleteWebhook},
	}
}

// Wrap serves the console's paths on a host that is not one of the API's, and hands every
// other request to next (the API).
func (c *Console) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.URL.Path == Prefix || strings.HasPrefix(r.URL.Path, Prefix+"/")) && !apiHost(r.Host, c.opt.Domain) {
			c.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves one console request with the console's headers: a strict Content Security
// Policy, no sniffing, no referrer, no framing, and no caching of pages.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, c.opt.MaxBodyBytes)
	if !c.opt.AccessLog {
		c.cop.Handler(c.mux).ServeHTTP(w, r)
		return
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	c.cop.Handler(c.mux).ServeHTTP(sw, r)
	c.log.Info("console request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration", time.Since(start))
}

// statusWriter remembers the status a handler wrote, for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// CSP is the console's Content Security Policy: scripts, styles and images only from the
// console itself, no inline script or style, no framing, forms post only to the console.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// apiHost reports whether host is one of the API's host names, <appId>.api-<region>.<domain>
// or <appId>.apiclient-<region>.<domain>, with or without a port.
func apiHost(host, domain string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	rest, found := strings.CutSuffix(host, "."+strings.ToLower(domain))
	if !found {
		return false
	}
	labels := strings.Split(rest, ".")
	last := labels[len(labels)-1]
	return len(labels) >= 2 && (strings.HasPrefix(last, "api-") || strings.HasPrefix(last, "apiclient-"))
}
