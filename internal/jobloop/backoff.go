package jobloop

import (
	"crypto/rand"
	"math"
	"math/big"
	"time"
)

// Backoff is how long a failed job waits before it is tried again: First after its first
// failure, doubling with each next one, at most Max (no bound when Max is 0). With Jitter, a
// wait is drawn between half and all of that, so that the retries of many jobs that failed
// together (an endpoint down for a while) do not all come back at once.
type Backoff struct {
	First  time.Duration
	Max    time.Duration
	Jitter bool
}

// Delay is the wait after the n-th failed attempt (n counts from 1): First·2^(n-1), at most
// Max, jittered when Jitter says so.
func (b Backoff) Delay(n int) time.Duration {
	d := b.First
	for i := 1; i < n && (b.Max <= 0 || d < b.Max) && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	if b.Max > 0 {
		d = min(d, b.Max)
	}
	if !b.Jitter || d <= 0 {
		return d
	}
	half := int64(d / 2)
	j, _ := rand.Int(rand.Reader, big.NewInt(half+1))
	return time.Duration(half + j.Int64())
}

// Defaults of NewRetry: the webhook deliveries' and the notification sends'.
const (
	DefaultRetryFor   = 24 * time.Hour
	DefaultBackoff    = 5 * time.Second
	DefaultMaxBackoff = time.Hour
)

// Retry is how a worker retries the jobs it keeps in the database: after Backoff's delays,
// until For has passed since the job was made; then it gives the job up.
type Retry struct {
	For time.Duration
	Backoff
}

// NewRetry is the jittered Retry of a worker's settings: retried for retryFor, first after
// first, doubling up to max. Zero values take the defaults.
func NewRetry(retryFor, first, max time.Duration) Retry {
	Default(&retryFor, DefaultRetryFor)
	Default(&first, DefaultBackoff)
	Default(&max, DefaultMaxBackoff)
	return Retry{For: retryFor, Backoff: Backoff{First: first, Max: max, Jitter: true}}
}

// Over reports whether a job made at created (UNIX milliseconds) is past its retries at now.
func (r Retry) Over(created int64, now time.Time) bool {
	return now.Sub(time.UnixMilli(created)) >= r.For
}
