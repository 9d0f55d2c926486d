package httpapi_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// gathered is every sample of a registry, by metric name and then by its labels written
// "k=v,k=v" in label-name order: counters and gauges by value, histograms by count.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, mf := range mfs {
		out[mf.GetName()] = map[string]float64{}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			var v float64
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				v = m.GetCounter().GetValue()
			case dto.MetricType_HISTOGRAM:
				v = float64(m.GetHistogram().GetSampleCount())
			default:
				v = m.GetGauge().GetValue()
			}
			out[mf.GetName()][strings.Join(labels, ",")] = v
		}
	}
	return out
}

// The request counters and latency histograms add up to what the test did, labelled by
// route pattern — never by a path a client sent — and rate-limit refusals are counted.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := httpapi.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, "sqlite", chat.Config{RateLimits: chat.RateLimits{Core: 3}}, httpapi.Options{Metrics: m})
	for _, uid := range []string{"secret-uid-1", "secret-uid-2", "secret-uid-3", "secret-uid-4"} {
		e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"` + uid + `","name":"U"}`})
	}
	e.do(request{method: "GET", path: "/v3/users/secret-uid-1"})
	e.do(request{method: "GET", path: "/v3.0/users/secret-uid-9"})
	e.do(request{method: "GET", path: "/v3/no/such/secret-path"})
	e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"apikey": "no-such-key-0123456789"}})

	got := gathered(t, reg)
	want := map[string]map[string]float64{
		"natter_http_requests_total": {
			"code=200,route=POST /users":      3,
			"code=429,route=POST /users":      1,
			"code=200,route=GET /users/{uid}": 1,
			"code=404,route=GET /users/{uid}": 1,
			"code=404,route=unmatched":        1,
			"code=401,route=GET /users":       1,
		},
		"natter_http_request_duration_seconds": {
			"route=POST /users":      4,
			"route=GET /users/{uid}": 2,
			"route=unmatched":        1,
			"route=GET /users":       1,
		},
		"natter_rate_limited_total": {"class=core": 1},
	}
	for name, series := range want {
		for labels, v := range series {
			if got[name][labels] != v {
				t.Errorf("%s{%s} = %v, want %v", name, labels, got[name][labels], v)
			}
		}
		if len(got[name]) != len(series) {
			t.Errorf("%s has series %v, want exactly %v", name, got[name], series)
		}
	}
	for name, series := range got {
		for labels := range series {
			if strings.Contains(labels, "secret") {
				t.Errorf("%s{%s}: a label holds a path a client sent", name, labels)
			}
		}
	}
}
