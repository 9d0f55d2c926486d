package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// idempotent runs h once per app and Idempotency-Key for a write (POST, PUT, PATCH, DELETE)
// that sends the header: a retry gets the first answer, status and body, with
// Idempotent-Replayed: true, instead of acting again (chat/idempotency.go has the rules). A
// request without the header, or a read, goes straight to h.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, p chat.Principal, h authHandler) error {
	keys := r.Header.Values("Idempotency-Key")
	if len(keys) == 0 || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return h(w, r, p)
	}
	if len(keys) > 1 {
		return chat.InvalidField("Idempotency-Key", "The Idempotency-Key header may be sent only once.")
	}
	// Kept to compare with a retry's, in memory: on a route that takes files, at most the
	// general cap (a multipart send with an Idempotency-Key must fit it); else the route's.
	limit := s.opt.MaxBodyBytes
	if rt := s.byPattern[r.Pattern]; !rt.files {
		limit = max(limit, rt.maxBody)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		if isTooLarge(err) {
			return errBodyTooLarge(limit)
		}
		return chat.Errorf(chat.CodeBadRequest, "The request body could not be read.")
	}
	if int64(len(body)) > limit {
		return errBodyTooLarge(limit)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if answersSecret(r, body) {
		return chat.InvalidField("Idempotency-Key", "This operation answers with a secret (an API key or an auth token), which natter does not keep to replay: send it without an Idempotency-Key.")
	}
	key := keys[0]
	if p.ByToken() {
		// A client app's keys are its user's: two users' apps may pick the same key.
		key = "token:" + p.Actor + ":" + key
	}
	start, err := s.svc.BeginIdempotent(r.Context(), p, key, requestFingerprint(r, p, body))
	if err != nil {
		if ce, ok := err.(*chat.Error); ok && ce.Code == chat.CodeIdempotencyKeyInUse {
			w.Header()["Retry-After"] = []string{"1"}
		}
		return err
	}
	if rec := start.Replay; rec != nil {
		w.Header()["Idempotent-Replayed"] = []string{"true"}
		writeBody(w, r, rec.Status, rec.Body)
		return nil
	}
	rw := &recordingWriter{ResponseWriter: w}
	if err := h(rw, r, p); err != nil {
		writeError(rw, r, err)
	}
	if rw.status == 0 || rw.status >= 500 {
		// Not answered, or failed in a way a retry may mend: let the retry run afresh.
		if err := s.svc.ReleaseIdempotent(r.Context(), p, key, start); err != nil {
			logger(r).Warn("idempotency key not released", "err", err, "request_id", requestID(r))
		}
		return nil
	}
	if err := s.svc.FinishIdempotent(r.Context(), p, key, start, rw.status, rw.body.Bytes()); err != nil {
		logger(r).Warn("idempotent answer not stored", "err", err, "request_id", requestID(r))
	}
	return nil
}

// answersSecret reports whether a write answers with a secret: a new API key, a new auth
// token, or a user created withAuthToken, or a session with its auth token and socket
// credential (PUT /me). Replaying it would mean keeping the secret in the clear for a day,
// where natter keeps keys and tokens only as hashes.
func answersSecret(r *http.Request, body []byte) bool {
	_, pattern, _ := strings.Cut(r.Pattern, " ")
	if r.Method == http.MethodPut && strings.HasSuffix(pattern, "/me") {
		return true
	}
	if r.Method != http.MethodPost {
		return false
	}
	switch {
	case strings.HasSuffix(pattern, "/apikeys"), strings.HasSuffix(pattern, "/auth_tokens"):
		return true
	case strings.HasSuffix(pattern, "/users"):
		var req struct {
			WithAuthToken bool `json:"withAuthToken"`
		}
		json.Unmarshal(body, &req)
		return req.WithAuthToken
	}
	return false
}

// requestFingerprint identifies what a request asks for: its method, path and query, acting
// user (by onBehalfOf or by auth token) and body. A retry must repeat all of them.
func requestFingerprint(r *http.Request, p chat.Principal, body []byte) string {
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("onBehalfOf"), p.Actor} {
		io.WriteString(h, strconv.Itoa(len(part)))
		io.WriteString(h, ":")
		io.WriteString(h, part)
	}
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// recordingWriter passes a response through and keeps its status and body.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
