package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// UsageMetrics is GET /stats' answer: the app's usage in a window.
type UsageMetrics struct {
	Metrics struct {
		AudioMinutes    int64 `json:"audio_minutes"`
		VideoMinutes    int64 `json:"video_minutes"`
		RecordedMinutes int64 `json:"recorded_minutes"`
		ActiveUsers     int64 `json:"active_users"`
		ConcurrentUsers int64 `json:"concurrent_users"`
	} `json:"metrics"`
	// TimeRange is the window as asked, in UNIX milliseconds.
	TimeRange struct {
		FromDate int64 `json:"fromDate"`
		ToDate   int64 `json:"toDate"`
	} `json:"time_range"`
}

// MessageMetrics is GET /stats/messages' answer: one point per 5-minute bucket. Times are
// UNIX milliseconds (strings on the wire).
type MessageMetrics struct {
	StartTime  int64                 `json:"startTime,string"`
	EndTime    int64                 `json:"endTime,string"`
	DataPoints []MessageMetricsPoint `json:"dataPoints"`
	AppID      string                `json:"appId"`
}

// MessageMetricsPoint is one bucket of MessageMetrics.
type MessageMetricsPoint struct {
	MessagesSent     int64 `json:"messagesSent"`
	ReadReceipts     int64 `json:"readReceipts"`
	DeliveryReceipts int64 `json:"deliveryReceipts"`
	StartTime        int64 `json:"startTime,string"`
	EndTime          int64 `json:"endTime,string"`
}

// UsageMetrics returns the app's usage from from up to to (not included), sent as UNIX
// milliseconds. It needs a fullAccess key.
func (c *Client) UsageMetrics(ctx context.Context, from, to time.Time) (*UsageMetrics, error) {
	var out UsageMetrics
	if _, err := c.call(ctx, http.MethodGet, "/stats", windowQuery(from, to), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MessageMetrics returns messages sent and receipts per 5-minute bucket: of the last hour
// when from and to are zero (as the hosted service answers), else of that window (natter's
// own parameters; at most 7 days).
func (c *Client) MessageMetrics(ctx context.Context, from, to time.Time) (*MessageMetrics, error) {
	var q url.Values
	if !from.IsZero() || !to.IsZero() {
		q = windowQuery(from, to)
	}
	var out MessageMetrics
	if _, err := c.call(ctx, http.MethodGet, "/stats/messages", q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func windowQuery(from, to time.Time) url.Values {
	return url.Values{"fromDate": {strconv.FormatInt(from.UnixMilli(), 10)}, "toDate": {strconv.FormatInt(to.UnixMilli(), 10)}}
}
