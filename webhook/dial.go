package webhook

import (
	"net/http"
	"time"

	"github.com/natter-chat/natter/internal/safedial"
)

// newClient is the HTTP client deliveries use: it dials only public addresses, checked at
// connect time after resolution, unless allowPrivate; no proxy from the environment, no
// redirects, and each attempt bounded by timeout (internal/safedial, shared with the custom
// notification providers). It keeps as many idle connections to a host as attempts to one
// webhook may be in flight, so that a busy webhook reuses its connections.
func newClient(timeout time.Duration, allowPrivate bool, perHost int) *http.Client {
	return safedial.Client(safedial.Options{Timeout: timeout, AllowPrivate: allowPrivate,
		Name: "webhook", AllowFlag: "--webhook-allow-private", IdlePerHost: perHost})
}
