// Package safedial makes the HTTP clients that post to URLs an app chose (webhooks, custom
// notification providers). The address is checked when the connection is made, after
// resolution, so a name that resolves to a private address (or is made to, between a check
// and the connection) is refused unless allowed. No proxy from the environment (it would
// dial for us, unchecked), no redirects, and each request bounded by a timeout.
package safedial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/natter-chat/natter/internal/publicaddr"
)

// Errors a request through a Client can wrap (errors.Is).
var (
	ErrPrivate  = errors.New("private address refused")
	ErrRedirect = errors.New("redirect not followed")
)

// Options of a Client.
type Options struct {
	Timeout      time.Duration // each request, connection and TLS handshake
	AllowPrivate bool          // dial loopback, private and link-local addresses too
	Name         string        // what posts ("webhook"), at the start of the errors if set
	AllowFlag    string        // the setting that allows private addresses, named in the refusal
	IdlePerHost  int           // idle connections kept per host; default 4
}

// Client is an HTTP client that dials only public addresses unless o.AllowPrivate.
func Client(o Options) *http.Client {
	dialer := &net.Dialer{Timeout: o.Timeout, Control: func(network, address string, _ syscall.RawConn) error {
		if o.AllowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%sdial %s: %w", prefix(o.Name), address, err)
		}
		if publicaddr.Private(ap.Addr()) {
			return &refusedError{name: o.Name, addr: ap.Addr(), flag: o.AllowFlag}
		}
		return nil
	}}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, literal(addr))
		},
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   max(o.IdlePerHost, 4),
		IdleConnTimeout:       30 * time.Second,
	}
	redirect := &redirectError{name: o.Name}
	return &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return redirect }}
}

// literal spells a host that is an IP address in a form Go's resolver does not read (127.1,
// 0x7f000001, 2130706433, 0177.0.0.1) as the address itself, so it is dialled — and checked —
// as the address a C resolver would read, never looked up as a name.
func literal(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip, ok := publicaddr.ParseHost(host); ok {
		return net.JoinHostPort(ip.String(), port)
	}
	return addr
}

type refusedError struct {
	name, flag string
	addr       netip.Addr
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("%s%s is a loopback, private or link-local address (%s allows it)", prefix(e.name), e.addr, e.flag)
}

func (e *refusedError) Is(target error) bool { return target == ErrPrivate }

type redirectError struct{ name string }

func (e *redirectError) Error() string {
	return prefix(e.name) + "the endpoint answered a redirect, which is not followed"
}

func (e *redirectError) Is(target error) bool { return target == ErrRedirect }

func prefix(name string) string {
	if name == "" {
		return ""
	}
	return name + ": "
}
