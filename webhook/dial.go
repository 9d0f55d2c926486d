package webhook

import (
	"net/http"
	"time"

	"github.com/natter-chat/natter/internal/safedial"
)

// newClient is the HTTP client deliveries use: it dials only public addresses, checked at
// connect time after resolution, unless allowPrivate; no proxy from the environment, no
// redirects, and each attempt bounded by timeout (internal/safedial, shared with the custom
// notification providers).
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	return safedial.Client(safedial.Options{Timeout: timeout, AllowPrivate: allowPrivate,
		Name: "webhook", AllowFlag: "--webhook-allow-private"})
}
