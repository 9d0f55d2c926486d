package chat

import (
	"context"
	"strconv"
	"time"
)

// Usage metrics, the hosted service's GET /stats and GET /stats/messages: per app, messages
// sent, read and delivery receipts and peak concurrent users in 5-minute buckets, and the
// users active in each bucket. Nothing is counted on a request's way through the database:
// each node counts in memory and adds its figures to rolled-up tables every few seconds
// (statsrollup.go), so answering over a year reads a few thousand small rows, never the
// messages. docs/metrics.md has the design and what each figure means.

// StatsBucket is the length of a bucket in seconds; buckets start at multiples of it (UTC).
const StatsBucket = 300

const (
	bucketsPerDay = 86400 / StatsBucket
	// activeWords is how many 64-bit words hold a day's buckets, one bit each.
	activeWords = (bucketsPerDay + 63) / 64
)

// Limits on the windows asked for.
const (
	// MaxStatsWindow is the longest window of GET /stats: a year, leap day included.
	MaxStatsWindow = 366 * 86400
	// MaxStatsPoints is the most buckets GET /stats/messages answers with: a week.
	MaxStatsPoints = 7 * bucketsPerDay
	// DefaultStatsPoints is GET /stats/messages' window when none is asked for: the hour
	// that ends with the bucket under way, as in the hosted service's example.
	DefaultStatsPoints = 12
	// maxStatsMillis is 9999-12-31T23:59:59.999Z, the latest time a window may name.
	maxStatsMillis = 253402300799999
	// secondsBelow: a time under it is in seconds, at or over it in milliseconds. 1e11
	// seconds is the year 5138; 1e11 milliseconds is March 1973.
	secondsBelow = 100_000_000_000
)

// UsageCount is one app's figures for one bucket.
type UsageCount struct {
	AppID            string
	Bucket           int64 // unix second the bucket starts
	Messages         int64
	ReadReceipts     int64
	DeliveryReceipts int64
	// Concurrent is the most users connected to the real-time socket at once during the
	// bucket, summed over the nodes they were connected to.
	Concurrent int64
	// RateLimited is the requests refused over the app's rate limits (ratelimit.go). The
	// console shows it; GET /stats, which has no such figure, does not.
	RateLimited int64
}

// UsageActive is the buckets of one UTC day in which a user was active.
type UsageActive struct {
	AppID string
	UID   string
	Day   int64 // unix second the day starts
	Month int64 // unix second the day's month starts
	// Bits has bucket k of the day (0–287) as bit k%64 of Bits[k/64].
	Bits [activeWords]int64
	// NewDay is set on the first of this user's days this node saves: the store then
	// records the day in the month's row (MonthDay), which later saves of the same day
	// need not repeat.
	NewDay   bool
	MonthDay int64 // the day as its bit in the month: day d of the month is bit d-1
}

// UsageBatch is what one node adds to the roll-up in one transaction. Node and Seq name it:
// a node saves its batches one at a time, in Seq order, and retries one whose outcome it
// did not learn, which the store then recognises and skips.
type UsageBatch struct {
	Node   string
	Seq    int64
	At     int64        // unix second it was made
	Counts []UsageCount // ordered by app and bucket
	Active []UsageActive
}

// empty reports whether the batch holds nothing to save.
func (b UsageBatch) empty() bool { return len(b.Counts) == 0 && len(b.Active) == 0 }

// ActiveSpan is a window of buckets split along the tables that hold activity: whole UTC
// months, the months at either end of which only some whole days count (a mask of their
// days), and the days at either end of which only some buckets count (a mask of their
// buckets). An empty range has From == To; an unused month or day has a zero mask.
type ActiveSpan struct {
	Months      DayRange
	EdgeMonths  [2]PartialMonth
	PartialDays [2]PartialDay
}

// PeakSpan is a window of buckets split along the tables that hold concurrent users: whole
// UTC days, and the buckets at either end outside them.
type PeakSpan struct {
	Days    DayRange
	Buckets [2]DayRange
}

// DayRange is [From, To) in unix seconds.
type DayRange struct{ From, To int64 }

// PartialMonth is a month's days that a window covers whole, as UsageActive.MonthDay bits.
type PartialMonth struct {
	Month int64
	Days  int64
}

// PartialDay is a day's buckets that a window covers, as UsageActive.Bits.
type PartialDay struct {
	Day  int64
	Mask [activeWords]int64
}

// StatsStore keeps the roll-up.
type StatsStore interface {
	// SaveUsage adds a batch in one transaction: counts add to their buckets (and a
	// bucket's concurrent users, once added, to its day's peak), activity ORs into its
	// days and months. A batch whose Node and Seq were saved before is skipped. Figures of
	// an app that does not exist, and activity of a uid that is not one of its app's
	// users, are dropped.
	SaveUsage(ctx context.Context, b UsageBatch) error
	// UsageCounts reads an app's buckets in [from, to), oldest first; a bucket with
	// nothing in it may have no row.
	UsageCounts(ctx context.Context, appID string, from, to int64) ([]UsageCount, error)
	// PeakConcurrent is the largest Concurrent of an app's buckets in span.
	PeakConcurrent(ctx context.Context, appID string, span PeakSpan) (int64, error)
	// ActiveUsers counts the distinct users of an app active in span.
	ActiveUsers(ctx context.Context, appID string, span ActiveSpan) (int64, error)
}

// StatsWindow is a window of time as asked for, in milliseconds, and the buckets that
// cover it: [From, To) widened to whole buckets.
type StatsWindow struct {
	FromMillis, ToMillis int64
	From, To             int64 // unix seconds, multiples of StatsBucket
}

// UsageMetrics is GET /stats' answer.
type UsageMetrics struct {
	Window          StatsWindow
	AudioMinutes    int64
	VideoMinutes    int64
	RecordedMinutes int64
	ActiveUsers     int64
	ConcurrentUsers int64
}

// MessageStats is GET /stats/messages' answer: one point per bucket of the window.
type MessageStats struct {
	AppID  string
	From   int64 // unix seconds
	To     int64
	Points []UsageCount
}

// ParseStatsWindow checks a window's two times as sent (UNIX time in seconds or in
// milliseconds, told apart by size), that toDate is after fromDate, and that the window,
// widened to whole buckets, spans at most maxSeconds.
func ParseStatsWindow(fromDate, toDate string, maxSeconds int64) (StatsWindow, error) {
	fe := fieldErrors{}
	from := statsTime(fe, "fromDate", fromDate)
	to := statsTime(fe, "toDate", toDate)
	if err := fe.err(); err != nil {
		return StatsWindow{}, err
	}
	if to <= from {
		return StatsWindow{}, InvalidField("toDate", "The toDate must be after the fromDate.")
	}
	w := statsWindow(from, to)
	if w.To-w.From > maxSeconds {
		return StatsWindow{}, InvalidField("toDate", "The window from fromDate to toDate, in whole 5-minute buckets, may be at most "+describeSeconds(maxSeconds)+" long.")
	}
	return w, nil
}

// statsWindow widens [fromMillis, toMillis) to whole buckets.
func statsWindow(fromMillis, toMillis int64) StatsWindow {
	from := fromMillis / 1000
	to := (toMillis + 999) / 1000
	return StatsWindow{FromMillis: fromMillis, ToMillis: toMillis,
		From: from - from%StatsBucket, To: (to + StatsBucket - 1) / StatsBucket * StatsBucket}
}

// statsTime parses one time of a window into milliseconds.
func statsTime(fe fieldErrors, field, v string) int64 {
	if v == "" {
		fe.add(field, "The "+field+" field is required.")
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err == nil && n >= 0 && n < secondsBelow {
		n *= 1000
	}
	if err != nil || n < 0 || n > maxStatsMillis {
		fe.add(field, "The "+field+" must be a UNIX time in seconds or milliseconds.")
		return 0
	}
	return n
}

func describeSeconds(s int64) string {
	if s%86400 == 0 {
		return strconv.FormatInt(s/86400, 10) + " days"
	}
	return strconv.FormatInt(s, 10) + " seconds"
}

// UsageMetrics answers GET /stats: the users active, the peak of concurrent users, and the
// participants' call minutes (calls.go) of the calls started in a window, rounded up to
// whole minutes. Recorded minutes are 0: natter records no media.
func (s Usage) UsageMetrics(ctx context.Context, p Principal, w StatsWindow) (UsageMetrics, error) {
	live, err := s.rollup.flush(ctx, s.store, false, p.App.ID)
	if err != nil {
		return UsageMetrics{}, internal("save usage", err)
	}
	out := UsageMetrics{Window: w}
	if out.ActiveUsers, err = s.store.ActiveUsers(ctx, p.App.ID, activeSpan(w.From, w.To)); err != nil {
		return UsageMetrics{}, internal("count active users", err)
	}
	if out.ConcurrentUsers, err = s.store.PeakConcurrent(ctx, p.App.ID, peakSpan(w.From, w.To)); err != nil {
		return UsageMetrics{}, internal("read concurrent users", err)
	}
	audio, video, err := s.store.CallSeconds(ctx, p.App.ID, w.From, w.To)
	if err != nil {
		return UsageMetrics{}, internal("read call minutes", err)
	}
	out.AudioMinutes, out.VideoMinutes = (audio+59)/60, (video+59)/60
	// The bucket under way holds what other nodes saved of it when they stopped; this
	// node's peak so far is saved when the bucket ends.
	if live.peak > 0 && live.bucket >= w.From && live.bucket < w.To {
		cur, err := s.store.UsageCounts(ctx, p.App.ID, live.bucket, live.bucket+StatsBucket)
		if err != nil {
			return UsageMetrics{}, internal("read concurrent users", err)
		}
		var saved int64
		if len(cur) > 0 {
			saved = cur[0].Concurrent
		}
		out.ConcurrentUsers = max(out.ConcurrentUsers, saved+live.peak)
	}
	return out, nil
}

// DefaultStatsWindow is GET /stats/messages' window when none is asked for: the hour that
// ends with the bucket under way.
func (s Usage) DefaultStatsWindow() StatsWindow {
	now := s.now()
	to := now - now%StatsBucket + StatsBucket
	from := to - DefaultStatsPoints*StatsBucket
	return StatsWindow{FromMillis: from * 1000, ToMillis: to * 1000, From: from, To: to}
}

// MessageStats answers GET /stats/messages: messages sent and receipts in each bucket of
// the window, buckets without any included.
func (s Usage) MessageStats(ctx context.Context, p Principal, w StatsWindow) (MessageStats, error) {
	if _, err := s.rollup.flush(ctx, s.store, false, ""); err != nil {
		return MessageStats{}, internal("save usage", err)
	}
	rows, err := s.store.UsageCounts(ctx, p.App.ID, w.From, w.To)
	if err != nil {
		return MessageStats{}, internal("read message stats", err)
	}
	out := MessageStats{AppID: p.App.ID, From: w.From, To: w.To, Points: make([]UsageCount, 0, (w.To-w.From)/StatsBucket)}
	for b := w.From; b < w.To; b += StatsBucket {
		c := UsageCount{AppID: p.App.ID, Bucket: b}
		if len(rows) > 0 && rows[0].Bucket == b {
			c, rows = rows[0], rows[1:]
		}
		out.Points = append(out.Points, c)
	}
	return out, nil
}

// wholeDays is the whole UTC days of the buckets [from, to) (multiples of StatsBucket,
// from < to): [d0, d1), empty when there is none.
func wholeDays(from, to int64) (d0, d1 int64) {
	d0 = -floorDiv(-from, 86400) * 86400
	d1 = floorDiv(to, 86400) * 86400
	if d1 < d0 {
		return d0, d0
	}
	return d0, d1
}

// peakSpan splits the buckets [from, to) along whole days and the buckets outside them.
func peakSpan(from, to int64) PeakSpan {
	d0, d1 := wholeDays(from, to)
	if d0 == d1 {
		return PeakSpan{Days: DayRange{d0, d0}, Buckets: [2]DayRange{{from, to}, {to, to}}}
	}
	return PeakSpan{Days: DayRange{d0, d1}, Buckets: [2]DayRange{{from, d0}, {d1, to}}}
}

// activeSpan splits the buckets [from, to) along whole months, the whole days of the
// months at either end, and the days at either end of which only some buckets count.
func activeSpan(from, to int64) ActiveSpan {
	var s ActiveSpan
	day0 := floorDiv(from, 86400) * 86400
	if to-day0 <= 86400 { // within one day
		s.PartialDays[0] = PartialDay{Day: day0, Mask: bucketMask((from-day0)/StatsBucket, (to-day0)/StatsBucket)}
		return s
	}
	d0, d1 := wholeDays(from, to)
	if from < d0 {
		s.PartialDays[0] = PartialDay{Day: d0 - 86400, Mask: bucketMask((from-d0+86400)/StatsBucket, bucketsPerDay)}
	}
	if d1 < to {
		s.PartialDays[1] = PartialDay{Day: d1, Mask: bucketMask(0, (to-d1)/StatsBucket)}
	}
	if d0 == d1 {
		return s
	}
	m0, m1 := monthCeil(d0), monthFloor(d1)
	if m0 > m1 { // d0 … d1 inside one month
		m := monthFloor(d0)
		s.EdgeMonths[0] = PartialMonth{Month: m, Days: daysMask(m, d0, d1)}
		return s
	}
	s.Months = DayRange{m0, m1}
	if d0 < m0 {
		m := monthFloor(d0)
		s.EdgeMonths[0] = PartialMonth{Month: m, Days: daysMask(m, d0, m0)}
	}
	if m1 < d1 {
		s.EdgeMonths[1] = PartialMonth{Month: m1, Days: daysMask(m1, m1, d1)}
	}
	return s
}

// daysMask has the bits of the days [from, to) of the month starting at month.
func daysMask(month, from, to int64) int64 {
	var m int64
	for d := from; d < to; d += 86400 {
		m |= 1 << ((d - month) / 86400)
	}
	return m
}

// bucketMask has the bits of a day's buckets [i, j) set.
func bucketMask(i, j int64) [activeWords]int64 {
	var m [activeWords]uint64
	for k := i; k < j; k++ {
		m[k/64] |= 1 << (k % 64)
	}
	return signed(m)
}

func signed(m [activeWords]uint64) [activeWords]int64 {
	var out [activeWords]int64
	for i, w := range m {
		out[i] = int64(w)
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// monthFloor is the start of the UTC month of t; monthCeil the first month start at or
// after t.
func monthFloor(t int64) int64 {
	u := time.Unix(t, 0).UTC()
	return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
}

func monthCeil(t int64) int64 {
	m := monthFloor(t)
	if m == t {
		return t
	}
	u := time.Unix(m, 0).UTC()
	return time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC).Unix()
}
