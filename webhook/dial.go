package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/natter-chat/natter/chat"
)

// errRedirect refuses to follow a redirect: the URL the app configured is the only one
// natter posts to.
var errRedirect = errors.New("webhook: the endpoint answered a redirect, which is not followed")

// newClient is the HTTP client deliveries use. The address is checked when the connection
// is made, after resolution, so a name that resolves to a private address (or is made to,
// between a check and the connection) is refused unless allowPrivate. No proxy from the
// environment, no redirects, and each attempt bounded by timeout.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook: dial %s: %w", address, err)
		}
		if chat.PrivateAddr(ap.Addr()) {
			return fmt.Errorf("webhook: %s is a loopback, private or link-local address (--webhook-allow-private allows it)", ap.Addr())
		}
		return nil
	}}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect }}
}
