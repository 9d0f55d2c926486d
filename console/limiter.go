package console

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Failed sign-ins are limited per client address: a key is 160 random bits by default, but an
// operator may choose a shorter one (NATTER_API_KEY takes 16 characters), and the console
// should not be a faster oracle than it must. The count lives in this node's memory (a
// deployment of n nodes allows n times as many), in fixed one-minute windows.
const (
	signInFailures = 10          // per address per window
	signInWindow   = time.Minute //
	limiterMax     = 10000       // addresses remembered; past it the table starts afresh
)

type failureLimiter struct {
	mu    sync.Mutex
	start time.Time
	count map[string]int
	now   func() time.Time
}

func newFailureLimiter() *failureLimiter {
	return &failureLimiter{count: map[string]int{}, now: time.Now}
}

// clientAddr is the request's peer address without the port: natter does not trust
// X-Forwarded-For, which any client can send.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (l *failureLimiter) roll() {
	if now := l.now(); now.Sub(l.start) >= signInWindow || len(l.count) >= limiterMax {
		l.start, l.count = now, map[string]int{}
	}
}

// blocked reports whether addr has used up its failures in this window.
func (l *failureLimiter) blocked(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	return l.count[addr] >= signInFailures
}

// fail counts one failed sign-in from addr.
func (l *failureLimiter) fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	l.count[addr]++
}
