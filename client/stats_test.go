package client_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// statsRoutes are the usage-metrics routes, which TestStats covers.
var statsRoutes = map[string]bool{
	"GET /stats":          true,
	"GET /stats/messages": true,
}

// TestStats checks the requests the metrics methods send and how they read the answers:
// times in milliseconds, as numbers under /stats and as strings under /stats/messages.
func TestStats(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()
	from, to := time.UnixMilli(1630164253000), time.UnixMilli(1632842653000)

	f.respond(http.StatusOK, `{"data":{"metrics":{"audio_minutes":0,"video_minutes":0,"recorded_minutes":0,"active_users":7,"concurrent_users":3},
		"time_range":{"fromDate":1630164253000,"toDate":1632842653000}}}`)
	m, err := c.UsageMetrics(ctx, from, to)
	got := f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pattern != "GET /stats" || got.Query != "fromDate=1630164253000&toDate=1632842653000" || got.Body != "" {
		t.Errorf("request = %s ?%s body %q", got.Pattern, got.Query, got.Body)
	}
	if m.Metrics.ActiveUsers != 7 || m.Metrics.ConcurrentUsers != 3 || m.TimeRange.FromDate != 1630164253000 || m.TimeRange.ToDate != 1632842653000 {
		t.Errorf("UsageMetrics = %+v", m)
	}

	points := `{"data":{"startTime":"1682676600000","endTime":"1682677200000","dataPoints":[
		{"messagesSent":3,"readReceipts":1,"deliveryReceipts":2,"startTime":"1682676600000","endTime":"1682676900000"},
		{"messagesSent":0,"readReceipts":0,"deliveryReceipts":0,"startTime":"1682676900000","endTime":"1682677200000"}],"appId":"demo"}}`
	f.respond(http.StatusOK, points)
	mm, err := c.MessageMetrics(ctx, time.Time{}, time.Time{})
	got = f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pattern != "GET /stats/messages" || got.Query != "" {
		t.Errorf("request = %s ?%s, want no query", got.Pattern, got.Query)
	}
	want := &client.MessageMetrics{StartTime: 1682676600000, EndTime: 1682677200000, AppID: "demo", DataPoints: []client.MessageMetricsPoint{
		{MessagesSent: 3, ReadReceipts: 1, DeliveryReceipts: 2, StartTime: 1682676600000, EndTime: 1682676900000},
		{StartTime: 1682676900000, EndTime: 1682677200000}}}
	if !reflect.DeepEqual(mm, want) {
		t.Errorf("MessageMetrics = %+v", mm)
	}
	f.respond(http.StatusOK, points)
	if _, err := c.MessageMetrics(ctx, from, to); err != nil {
		t.Fatal(err)
	}
	if got = f.last(t); got.Query != "fromDate=1630164253000&toDate=1632842653000" {
		t.Errorf("query = %s", got.Query)
	}

	routes := httpapi.Routes()
	for rt := range statsRoutes {
		if !slices.Contains(routes, rt) {
			t.Errorf("statsRoutes names %s, which is not a route", rt)
		}
	}
}
