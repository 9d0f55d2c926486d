package httpapi

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/natter-chat/natter/chat"
)

// Metrics are the HTTP layer's Prometheus figures, all under the natter_ namespace:
//
//	natter_http_requests_total{route, code}          requests answered
//	natter_http_request_duration_seconds{route}      latency histogram
//	natter_rate_limited_total{class}                 requests refused over a rate limit
//
// route is the endpoint's pattern relative to the version prefix ("POST /messages/{id}"),
// never the path a client sent, so the number of series is bounded by the route table:
// requests that match no route are "unmatched". cmd/natter serves them, with the database
// pools' figures, on the debug address.
type Metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec

	// Series resolved once per route and status: a request finds its counter and histogram
	// by map lookups, without building label strings. Plain maps under read locks, not
	// sync.Maps, whose any keys would cost an allocation per request.
	mu      sync.RWMutex
	byRoute map[string]*routeMetrics // by mux pattern
}

type routeMetrics struct {
	route    string
	duration prometheus.Observer
	mu       sync.RWMutex
	codes    map[int]prometheus.Counter
}

// NewMetrics registers the HTTP layer's collectors with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "natter", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "natter", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from the request's arrival to the end of its answer, by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 15},
		}, []string{"route"}),
		byRoute: map[string]*routeMetrics{},
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "natter", Name: "rate_limited_total",
			Help: "Requests refused with 429 over an app's rate limit, by class of operation.",
		}, []string{"class"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.rateLimited} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records one answered request. pattern is the mux pattern that served it ("" when
// none did).
func (m *Metrics) observe(pattern string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.mu.RLock()
	r := m.byRoute[pattern]
	m.mu.RUnlock()
	if r == nil {
		m.mu.Lock()
		if r = m.byRoute[pattern]; r == nil {
			route := routeLabel(pattern)
			r = &routeMetrics{route: route, duration: m.duration.WithLabelValues(route), codes: map[int]prometheus.Counter{}}
			m.byRoute[pattern] = r
		}
		m.mu.Unlock()
	}
	r.duration.Observe(d.Seconds())
	r.mu.RLock()
	c := r.codes[status]
	r.mu.RUnlock()
	if c == nil {
		r.mu.Lock()
		if c = r.codes[status]; c == nil {
			c = m.requests.WithLabelValues(r.route, strconv.Itoa(status))
			r.codes[status] = c
		}
		r.mu.Unlock()
	}
	c.Inc()
}

func (m *Metrics) rateLimit(class chat.RateClass) {
	if m != nil {
		m.rateLimited.WithLabelValues(class.String()).Inc()
	}
}

// routeLabel is a mux pattern without its version prefix: "POST /v3.0/users/{uid}" →
// "POST /users/{uid}"; "" → "unmatched".
func routeLabel(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	method, path, found := strings.Cut(pattern, " ")
	if !found {
		method, path = "", pattern
	}
	for _, prefix := range []string{"/v3.0/", "/v3/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			path = "/" + rest
			break
		}
	}
	return strings.TrimSpace(method + " " + path)
}
