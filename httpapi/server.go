// Package httpapi is natter's v3 REST layer: the route table, middleware, and one file per
// resource with its wire types and handlers. Business rules live in chat.Service.
package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/realtime"
)

// Options configures the HTTP layer.
type Options struct {
	Domain         string        // the <domain> of <appId>.api-<region>.<domain>
	MaxBodyBytes   int64         // request body cap; default 64 KiB
	RequestTimeout time.Duration // per-request deadline; default 15 s
	AccessLog      bool          // log every request at info level
	Logger         *slog.Logger
	CORSOrigins    []string // origins browsers may call from ("*": any); none: CORS off (cors.go)
	Metrics        *Metrics // Prometheus figures (metrics.go); nil: none kept
	// Hub serves sockets at the root path and gets the events of REST operations; nil: no
	// real time (package realtime).
	Hub *realtime.Hub
	// PublicHost is host:port clients reach this deployment at, which the client SDK's
	// settings point it back to (me.go); empty: the request's own Host.
	PublicHost string
	// MaxUploadBytes caps the body of a request that carries files (an upload form's post,
	// a multipart send); 0: the service's per-file cap and 1 MiB for the rest of the form.
	MaxUploadBytes int64
	// MaxUploads is how many requests may be receiving files on this node at once (503
	// past it); 0: DefaultMaxUploads.
	MaxUploads int
	// UploadTimeout is how long a request may take to receive its files; 0:
	// DefaultUploadTimeout.
	UploadTimeout time.Duration
}

// versionPrefixes are the prefixes every endpoint is served under.
var versionPrefixes = []string{"/v3", "/v3.0"}

// Server serves the v3 API over a chat.Service.
type Server struct {
	svc     *chat.Service
	opt     Options
	log     *slog.Logger
	mux     *http.ServeMux
	handler http.Handler
	// byPattern is each endpoint (routes.go) by the mux patterns it is served at, for the
	// settings a request needs: its rate class, its body cap.
	byPattern map[string]route
	// uploads holds a token per request receiving files (files.go: uploadSlot).
	uploads chan struct{}
}

// New returns the API server.
func New(svc *chat.Service, opt Options) *Server {
	if opt.Domain == "" {
		opt.Domain = "localhost"
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 64 << 10
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = 15 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.MaxUploadBytes <= 0 {
		opt.MaxUploadBytes = chat.DefaultMaxFileSize + 1<<20
		if svc != nil {
			opt.MaxUploadBytes = svc.MaxFileSize() + 1<<20
		}
	}
	if opt.MaxUploads <= 0 {
		opt.MaxUploads = DefaultMaxUploads
	}
	if opt.UploadTimeout <= 0 {
		opt.UploadTimeout = DefaultUploadTimeout
	}
	s := &Server{svc: svc, opt: opt, log: opt.Logger, mux: http.NewServeMux(), byPattern: map[string]route{},
		uploads: make(chan struct{}, opt.MaxUploads)}
	for _, rt := range s.endpoints() {
		h := s.authed(rt.access, rt.handler)
		for _, prefix := range versionPrefixes {
			for _, p := range rt.patterns(prefix) {
				s.mux.Handle(p, h)
				s.byPattern[p] = rt
			}
		}
	}
	// Files (files.go): the upload form's target and the files, outside the versioned API.
	s.mux.HandleFunc(uploadFormPattern, s.uploadFile)
	s.byPattern[uploadFormPattern] = route{maxBody: opt.MaxUploadBytes, files: true}
	s.mux.HandleFunc(filePattern, s.serveFile)
	// The SDK's online counts (onlinemembers.go), at the root of its chat host.
	s.mux.HandleFunc(sdkOnlineMembersPattern, s.sdkOnlineMembers())
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.handler = s.observe(s.cors(http.HandlerFunc(s.dispatch)))
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Sockets are served at the root path, where the client SDK opens them, outside the
	// request metrics: a socket lasts hours.
	if r.URL.Path == "/" && s.opt.Hub != nil && strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		s.opt.Hub.ServeHTTP(w, r)
		return
	}
	s.handler.ServeHTTP(w, r)
}

// dispatch caps the request's body (middleware.go) and routes it through the mux, answering
// in the error envelope where the mux itself would answer in plain text or with a redirect:
// 404 for an unknown path, 405 with Allow for a known path called with another method.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	pattern := s.routed(r)
	if !s.limitBody(w, r, s.byPattern[pattern].maxBody) {
		return
	}
	if !canonical(r.URL.Path) {
		// The mux would answer with an HTML redirect to the cleaned path; an API client wants
		// the envelope, and a path like /v3//users names no endpoint.
		writeError(w, r, chat.Errorf(chat.CodeAPINotFound, "The requested API does not exist."))
		return
	}
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	if allow := s.allowed(r); allow != "" {
		w.Header().Set("Allow", allow)
		// Neither the path nor a method that is not a standard one is echoed: either may hold
		// an API key.
		method := "The method " + r.Method
		if loggableMethod(r.Method) != r.Method {
			method = "This method"
		}
		writeError(w, r, &chat.Error{Code: chat.CodeMethodNotAllowed,
			Message: method + " is not allowed on this endpoint.", DevMessage: method + " is not allowed on this endpoint; allowed: " + allow + "."})
		return
	}
	writeError(w, r, chat.Errorf(chat.CodeAPINotFound, "The requested API does not exist."))
}

// canonical reports whether p is already clean: no empty, "." or ".." segments.
func canonical(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

func notImplemented(http.ResponseWriter, *http.Request, chat.Principal) error {
	return chat.Errorf(chat.CodeNotImplemented, "This endpoint is not implemented in natter yet; see the README's feature table.")
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if err := s.svc.Ready(ctx); err != nil {
		s.log.Warn("not ready", "err", err, "request_id", requestID(r))
		writeError(w, r, chat.Errorf(chat.CodeServiceUnavailable, "The database is not reachable."))
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]string{"status": "ready"})
}
