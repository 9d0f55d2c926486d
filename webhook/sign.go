// Package webhook delivers the outbox's events (chat/webhookevents.go) to the apps'
// webhooks: workers on every node lease due deliveries, post the hosted envelope signed
// with HMAC-SHA256, and retry with exponential back-off and jitter until RetryFor has passed,
// then dead-letter. docs/webhooks.md describes the contract for receivers.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Headers of a delivery.
const (
	HeaderEventID   = "X-Natter-Event-Id"  // evt_<id>: the same on every attempt and replay
	HeaderTimestamp = "X-Natter-Timestamp" // unix seconds of this attempt
	HeaderAttempt   = "X-Natter-Attempt"   // 1 for the first attempt
	HeaderTrigger   = "X-Natter-Trigger"
	HeaderSignature = "X-Natter-Signature" // v1=<hex>[,v1=<hex>]: one per active secret
)

// Sign is the signature of a body sent at timestamp: hex HMAC-SHA256 with the secret over
// "<timestamp>.<body>".
func Sign(secret []byte, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// SignatureHeader is the X-Natter-Signature value for the secrets that sign now.
func SignatureHeader(secrets [][]byte, timestamp int64, body []byte) string {
	parts := make([]string, len(secrets))
	for i, s := range secrets {
		parts[i] = "v1=" + Sign(s, timestamp, body)
	}
	return strings.Join(parts, ",")
}

// Verification failures.
var (
	ErrBadSignature = errors.New("webhook: no signature matches")
	ErrTooOld       = errors.New("webhook: timestamp outside the tolerance")
)

// Verify checks a delivery as a receiver should: the timestamp header within tolerance of
// now, and one of the signatures matching the body under secret. It is the code of
// docs/webhooks.md.
func Verify(secret []byte, timestampHeader, signatureHeader string, body []byte, tolerance time.Duration, now time.Time) error {
	ts, err := strconv.ParseInt(timestampHeader, 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	want := []byte(Sign(secret, ts, body))
	for _, part := range strings.Split(signatureHeader, ",") {
		if sig, ok := strings.CutPrefix(strings.TrimSpace(part), "v1="); ok && subtle.ConstantTimeCompare([]byte(sig), want) == 1 {
			return nil
		}
	}
	return ErrBadSignature
}
