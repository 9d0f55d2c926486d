package httpapi

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Recording a request allocates nothing once its route and status have been seen.
func TestMetricsObserveDoesNotAllocate(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m.observe("POST /v3/messages/{id}/reactions/{reaction}", 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.observe("POST /v3/messages/{id}/reactions/{reaction}", 200, time.Millisecond) }); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}

func TestRouteLabel(t *testing.T) {
	for in, want := range map[string]string{
		"POST /v3/users":                 "POST /users",
		"GET /v3.0/users/{uid}":          "GET /users/{uid}",
		"/v3/groups/":                    "/groups/",
		"GET /healthz":                   "GET /healthz",
		"":                               "unmatched",
		"DELETE /v3.0/messages/{id}/pin": "DELETE /messages/{id}/pin",
	} {
		if got := routeLabel(in); got != want {
			t.Errorf("routeLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
