package httpapi

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/natter-chat/natter/chat"
)

type (
	requestIDKey struct{}
	loggerKey    struct{}
)

func requestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

// validRequestID accepts a caller's X-Request-Id only if it is short and plain, so it is safe
// to log and echo.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter remembers the status for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe gives each request an id and a deadline, logs it (never a key: the apikey header is
// not read here, and paths are logged by their route pattern or redacted, logpath.go), and
// turns a panic into a logged 500 with nothing internal in the body.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		ctx = context.WithValue(ctx, loggerKey{}, s.log)
		// The client session the changes this request makes come from: its own socket drops
		// their frames (realtime/hubfeed.go), having the answer already.
		ctx = chat.WithDevice(ctx, deviceID(r))
		ctx, cancel := context.WithTimeout(ctx, s.opt.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeError(sw, r, &chat.Error{Code: chat.CodeException, Message: "Something went wrong. Please try again later.", Err: fmt.Errorf("panic: %v", p)})
				}
			}
			if s.opt.AccessLog {
				s.log.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("request_id", id),
					slog.String("method", loggableMethod(r.Method)),
					slog.String("path", loggablePath(r)),
					slog.Int("status", sw.status),
					slog.Int("bytes", sw.bytes),
					slog.Duration("duration", time.Since(start)))
			}
			s.opt.Metrics.observe(r.Pattern, cmp.Or(sw.status, http.StatusOK), time.Since(start)) // metrics.go
		}()
		next.ServeHTTP(sw, r)
	})
}

// limitBody caps the request's body at maxBody, its endpoint's cap (routes.go), or the general
// one where that is larger (Options.MaxBodyBytes; an unrouted request has only that). A
// declared length over the cap is answered 413 here, before the request is routed or
// authenticated, and limitBody reports false; reading past the cap fails, and handlers answer
// 413 too.
func (s *Server) limitBody(w http.ResponseWriter, r *http.Request, maxBody int64) bool {
	limit := max(s.opt.MaxBodyBytes, maxBody)
	if r.ContentLength > limit {
		writeError(w, r, errBodyTooLarge(limit))
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return true
}

// errBodyTooLarge is ERR_BAD_REQUEST, as the hosted service answers, with status 413.
func errBodyTooLarge(limit int64) error {
	return &chat.Error{Code: chat.CodeBadRequest, Message: fmt.Sprintf("The request body may not be larger than %d bytes.", limit),
		Override: chat.KindTooLarge}
}

// isTooLarge reports whether err is about an oversized body.
func isTooLarge(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}

// deviceID is the request's client session (the SDK's resource header): its own socket
// drops the event, having the answer already.
func deviceID(r *http.Request) string {
	d := r.Header.Get("resource")
	if len(d) > 200 {
		return ""
	}
	return d
}
