package wire

import (
	"errors"
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// statusByKind is the one table from an error's kind to its HTTP status: part of the
// hosted API's contract, as the envelope is, and read by httpapi and the socket hub alike.
var statusByKind = map[chat.Kind]int{
	chat.KindInternal:         http.StatusInternalServerError,
	chat.KindInvalid:          http.StatusBadRequest,
	chat.KindUnauthenticated:  http.StatusUnauthorized,
	chat.KindForbidden:        http.StatusForbidden,
	chat.KindNotFound:         http.StatusNotFound,
	chat.KindConflict:         http.StatusConflict,
	chat.KindTooLarge:         http.StatusRequestEntityTooLarge,
	chat.KindRateLimited:      http.StatusTooManyRequests,
	chat.KindUnavailable:      http.StatusServiceUnavailable,
	chat.KindNotImplemented:   http.StatusNotImplemented,
	chat.KindMethodNotAllowed: http.StatusMethodNotAllowed,
}

// StatusOf returns the HTTP status for an error code.
func StatusOf(c chat.Code) int { return statusByKind[c.Kind()] }

// ErrorBody is the error envelope, keys in the hosted service's order.
type ErrorBody struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the envelope's error: the hosted service's message, devMessage and code.
type ErrorObject struct {
	Message    string              `json:"message"`
	DevMessage string              `json:"devMessage"`
	Source     string              `json:"source"`
	Details    map[string][]string `json:"details,omitempty"`
	Code       chat.Code           `json:"code"`
}

// ErrorOut is err's error object: a refusal's, or ERR_EXCEPTION for anything else, whose
// cause stays out of the body.
func ErrorOut(err error) ErrorObject {
	var ce *chat.Error
	if !errors.As(err, &ce) {
		ce = &chat.Error{Code: chat.CodeException, Message: "Something went wrong. Please try again later."}
	}
	dev := ce.DevMessage
	if dev == "" {
		dev = ce.Message
	}
	return ErrorObject{Message: ce.Message, DevMessage: dev, Source: "chat-api", Details: ce.Details, Code: ce.Code}
}

// KindStatus returns the HTTP status for an error's kind, which may differ from its code's
// (a body over the limit keeps the hosted service's code but is too large).
func KindStatus(k chat.Kind) int { return statusByKind[k] }
