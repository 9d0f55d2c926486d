package notify

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/natter-chat/natter/internal/safedial"
)

// Result is what came of one Send: the provider's answer and what the caller should do.
// Exactly one of these holds: Err is nil (sent); Retry (try again later, after RetryAfter
// if the provider said); InvalidToken (the push token is gone for good: drop it, do not
// retry); Misconfigured (the provider's credentials or settings are wrong: no message
// through it will go until they are fixed; report it, do not retry this message); or none of
// the flags (this message is refused for good, e.g. an invalid phone number or a payload
// the provider rejects).
type Result struct {
	Status            int           // the provider's last HTTP status; 0 when none came
	Latency           time.Duration // the whole Send, token exchanges and the retry after a token refresh included
	Retry             bool
	RetryAfter        time.Duration // the provider's Retry-After, when it gave one
	InvalidToken      bool
	Misconfigured     bool
	ProviderMessageID string // FCM's message name, APNs' apns-id, Twilio's sid, SendGrid's X-Message-Id
	Reason            string // the provider's error code: "UNREGISTERED", "BadDeviceToken", "21211", …
	Err               error  // nil when sent; never carries a credential
}

// OK reports whether the provider accepted the notification.
func (r Result) OK() bool { return r.Err == nil }

// outcomes, to build a failed Result.
type outcome int

const (
	permanent outcome = iota
	retryable
	invalidToken
	misconfigured
)

func failed(status int, o outcome, reason string, err error) Result {
	return Result{Status: status, Retry: o == retryable, InvalidToken: o == invalidToken,
		Misconfigured: o == misconfigured, Reason: reason, Err: err}
}

// byStatus is the outcome the status alone gives, the provider-specific cases aside: 429
// and 5xx retryable, 401 and 403 misconfigured, any other permanent.
func byStatus(status int) outcome {
	switch {
	case status == http.StatusTooManyRequests || status >= 500:
		return retryable
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return misconfigured
	}
	return permanent
}

// transportFailure is the outcome of a request that got no answer: retryable (a timeout,
// a refused or reset connection), except a refused private address or a redirect, which
// are the configuration's fault.
func transportFailure(provider string, err error) Result {
	o := retryable
	if errors.Is(err, safedial.ErrPrivate) || errors.Is(err, safedial.ErrRedirect) || errors.Is(err, errRedirect) {
		o = misconfigured
	}
	return failed(0, o, "", errorf(provider, "%w", err))
}

// retryAfter reads Retry-After, in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return max(0, time.Duration(s)*time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}
