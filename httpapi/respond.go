package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON encodes v into a buffer before writing the header, so an encoding failure is
// still a clean 500.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		logger(r).Error("encode response", "err", err, "request_id", requestID(r))
		buf.Reset()
		status = http.StatusInternalServerError
		buf.WriteString(`{"error":{"message":"Something went wrong. Please try again later.","devMessage":"Something went wrong. Please try again later.","source":"chat-api","code":"ERR_EXCEPTION"}}` + "\n")
	}
	writeBody(w, r, status, buf.Bytes())
}

// bytesPool holds the buffers of hand-encoded responses (encode.go).
var bytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// writeBody writes an encoded JSON response.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if _, err := w.Write(body); err != nil {
		logger(r).Debug("write response", "err", err, "request_id", requestID(r))
	}
}

// writeData writes the success envelope {"data": …} (and "meta" when not nil).
func writeData(w http.ResponseWriter, r *http.Request, data, meta any) {
	if meta == nil {
		writeJSON(w, r, http.StatusOK, struct {
			Data any `json:"data"`
		}{data})
		return
	}
	writeJSON(w, r, http.StatusOK, struct {
		Data any `json:"data"`
		Meta any `json:"meta"`
	}{data, meta})
}

// writeError writes err in the error envelope. Anything that is not a *chat.Error is a bug:
// it is logged with the request id and the client sees only ERR_EXCEPTION.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *chat.Error
	if !errors.As(err, &ce) {
		ce = &chat.Error{Code: chat.CodeException, Message: "Something went wrong. Please try again later.", Err: err}
	}
	status := wire.KindStatus(ce.Kind())
	switch status {
	case http.StatusInternalServerError:
		logger(r).Error("request failed", "code", ce.Code, "err", err, "request_id", requestID(r))
	case http.StatusServiceUnavailable:
		logger(r).Warn("request failed", "code", ce.Code, "err", err, "request_id", requestID(r))
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "5") // the client may retry: say when
		}
	}
	writeJSON(w, r, status, wire.ErrorBody{Error: wire.ErrorOut(ce)})
}

// success is the acknowledgement shape of deletes.
type success struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

func logger(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
