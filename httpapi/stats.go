package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// The usage metrics' wire shapes, keys in the hosted service's examples' order: /stats
// times are milliseconds as numbers, /stats/messages times milliseconds as strings.

type usageMetricsJSON struct {
	Metrics struct {
		AudioMinutes    int64 `json:"audio_minutes"`
		VideoMinutes    int64 `json:"video_minutes"`
		RecordedMinutes int64 `json:"recorded_minutes"`
		ActiveUsers     int64 `json:"active_users"`
		ConcurrentUsers int64 `json:"concurrent_users"`
	} `json:"metrics"`
	TimeRange struct {
		FromDate int64 `json:"fromDate"`
		ToDate   int64 `json:"toDate"`
	} `json:"time_range"`
}

type messageStatsJSON struct {
	StartTime  string           `json:"startTime"`
	EndTime    string           `json:"endTime"`
	DataPoints []statsPointJSON `json:"dataPoints"`
	AppID      string           `json:"appId"`
}

type statsPointJSON struct {
	MessagesSent     int64  `json:"messagesSent"`
	ReadReceipts     int64  `json:"readReceipts"`
	DeliveryReceipts int64  `json:"deliveryReceipts"`
	StartTime        string `json:"startTime"`
	EndTime          string `json:"endTime"`
}

// usageMetrics is GET /stats: fromDate and toDate are required.
func (s *Server) usageMetrics(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := r.URL.Query()
	win, err := chat.ParseStatsWindow(q.Get("fromDate"), q.Get("toDate"), chat.MaxStatsWindow)
	if err != nil {
		return err
	}
	m, err := s.svc.Usage().UsageMetrics(r.Context(), p, win)
	if err != nil {
		return err
	}
	var out usageMetricsJSON
	out.Metrics.AudioMinutes, out.Metrics.VideoMinutes, out.Metrics.RecordedMinutes = m.AudioMinutes, m.VideoMinutes, m.RecordedMinutes
	out.Metrics.ActiveUsers, out.Metrics.ConcurrentUsers = m.ActiveUsers, m.ConcurrentUsers
	out.TimeRange.FromDate, out.TimeRange.ToDate = win.FromMillis, win.ToMillis
	writeData(w, r, out, nil)
	return nil
}

// messageStats is GET /stats/messages: the last hour by default, as the hosted service
// answers; natter also takes fromDate and toDate, both or neither.
func (s *Server) messageStats(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := r.URL.Query()
	win := s.svc.Usage().DefaultStatsWindow()
	if q.Has("fromDate") || q.Has("toDate") {
		var err error
		if win, err = chat.ParseStatsWindow(q.Get("fromDate"), q.Get("toDate"), chat.MaxStatsPoints*chat.StatsBucket); err != nil {
			return err
		}
	}
	st, err := s.svc.Usage().MessageStats(r.Context(), p, win)
	if err != nil {
		return err
	}
	out := messageStatsJSON{StartTime: millis(st.From), EndTime: millis(st.To), AppID: st.AppID, DataPoints: make([]statsPointJSON, len(st.Points))}
	for i, c := range st.Points {
		out.DataPoints[i] = statsPointJSON{MessagesSent: c.Messages, ReadReceipts: c.ReadReceipts, DeliveryReceipts: c.DeliveryReceipts,
			StartTime: millis(c.Bucket), EndTime: millis(c.Bucket + chat.StatsBucket)}
	}
	writeData(w, r, out, nil)
	return nil
}

// millis is a unix second as the string of its milliseconds.
func millis(sec int64) string { return strconv.FormatInt(sec*1000, 10) }
