package chat

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func day(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() }

func TestActiveSpan(t *testing.T) {
	const h = 3600
	full := bucketMask(0, bucketsPerDay)
	for _, tc := range []struct {
		name     string
		from, to int64
		want     ActiveSpan
	}{
		{"one bucket", day(2026, 3, 5) + 10*h, day(2026, 3, 5) + 10*h + StatsBucket,
			ActiveSpan{PartialDays: [2]PartialDay{{Day: day(2026, 3, 5), Mask: bucketMask(120, 121)}}}},
		{"a whole day is a partial day with every bucket", day(2026, 3, 5), day(2026, 3, 6),
			ActiveSpan{PartialDays: [2]PartialDay{{Day: day(2026, 3, 5), Mask: full}}}},
		{"across midnight", day(2026, 3, 5) + 23*h, day(2026, 3, 6) + h,
			ActiveSpan{PartialDays: [2]PartialDay{{Day: day(2026, 3, 5), Mask: bucketMask(276, 288)}, {Day: day(2026, 3, 6), Mask: bucketMask(0, 12)}}}},
		{"whole days inside a month", day(2026, 3, 5), day(2026, 3, 9),
			ActiveSpan{EdgeMonths: [2]PartialMonth{{Month: day(2026, 3, 1), Days: 0b1111 << 4}}}},
		{"whole days across a month's end", day(2026, 3, 30) + h, day(2026, 4, 3),
			ActiveSpan{Months: DayRange{day(2026, 4, 1), day(2026, 4, 1)},
				EdgeMonths:  [2]PartialMonth{{Month: day(2026, 3, 1), Days: 1 << 30}, {Month: day(2026, 4, 1), Days: 0b11}},
				PartialDays: [2]PartialDay{{Day: day(2026, 3, 30), Mask: bucketMask(12, 288)}}}},
		{"a whole month and days either side", day(2026, 2, 20) + h, day(2026, 4, 2) + 2*h,
			ActiveSpan{Months: DayRange{day(2026, 3, 1), day(2026, 4, 1)},
				EdgeMonths:  [2]PartialMonth{{Month: day(2026, 2, 1), Days: 0xff << 20}, {Month: day(2026, 4, 1), Days: 1}},
				PartialDays: [2]PartialDay{{Day: day(2026, 2, 20), Mask: bucketMask(12, 288)}, {Day: day(2026, 4, 2), Mask: bucketMask(0, 24)}}}},
		{"a year on month boundaries", day(2025, 1, 1), day(2026, 1, 1),
			ActiveSpan{Months: DayRange{day(2025, 1, 1), day(2026, 1, 1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, activeSpan(tc.from, tc.to)); diff != "" {
				t.Errorf("activeSpan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPeakSpan(t *testing.T) {
	const h = 3600
	for _, tc := range []struct {
		name     string
		from, to int64
		want     PeakSpan
	}{
		{"inside a day", day(2026, 3, 5) + h, day(2026, 3, 5) + 2*h,
			PeakSpan{Days: DayRange{day(2026, 3, 6), day(2026, 3, 6)}, Buckets: [2]DayRange{{day(2026, 3, 5) + h, day(2026, 3, 5) + 2*h}, {day(2026, 3, 5) + 2*h, day(2026, 3, 5) + 2*h}}}},
		{"across midnight", day(2026, 3, 5) + 23*h, day(2026, 3, 6) + h,
			PeakSpan{Days: DayRange{day(2026, 3, 6), day(2026, 3, 6)}, Buckets: [2]DayRange{{day(2026, 3, 5) + 23*h, day(2026, 3, 6) + h}, {day(2026, 3, 6) + h, day(2026, 3, 6) + h}}}},
		{"whole days", day(2026, 3, 5), day(2026, 3, 7),
			PeakSpan{Days: DayRange{day(2026, 3, 5), day(2026, 3, 7)}, Buckets: [2]DayRange{{day(2026, 3, 5), day(2026, 3, 5)}, {day(2026, 3, 7), day(2026, 3, 7)}}}},
		{"days and buckets", day(2026, 3, 5) + h, day(2026, 3, 8) + 2*h,
			PeakSpan{Days: DayRange{day(2026, 3, 6), day(2026, 3, 8)}, Buckets: [2]DayRange{{day(2026, 3, 5) + h, day(2026, 3, 6)}, {day(2026, 3, 8), day(2026, 3, 8) + 2*h}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, peakSpan(tc.from, tc.to)); diff != "" {
				t.Errorf("peakSpan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBucketMaskHighBit(t *testing.T) {
	m := bucketMask(63, 64)
	if m[0] != -1<<63 || m[1] != 0 {
		t.Fatalf("bucket 63 is the sign bit of word 0: got %v", m)
	}
	if m := bucketMask(287, 288); m[4] != 1<<31 {
		t.Fatalf("bucket 287: got %v", m)
	}
}

func TestParseStatsWindow(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		max            int64
		want           StatsWindow
		wantErr        map[string][]string
	}{
		{"seconds", "1700000100", "1700000700", MaxStatsWindow,
			StatsWindow{FromMillis: 1700000100000, ToMillis: 1700000700000, From: 1700000100, To: 1700000700}, nil},
		{"milliseconds, widened to buckets", "1700000000001", "1700000400001", MaxStatsWindow,
			StatsWindow{FromMillis: 1700000000001, ToMillis: 1700000400001, From: 1699999800, To: 1700000700}, nil},
		{"mixed", "1700000100", "1700000700000", MaxStatsWindow,
			StatsWindow{FromMillis: 1700000100000, ToMillis: 1700000700000, From: 1700000100, To: 1700000700}, nil},
		{"366 days", "0", "31622400", MaxStatsWindow,
			StatsWindow{FromMillis: 0, ToMillis: 31622400000, From: 0, To: 31622400}, nil},
		{"missing both", "", "", MaxStatsWindow, StatsWindow{},
			map[string][]string{"fromDate": {"The fromDate field is required."}, "toDate": {"The toDate field is required."}}},
		{"not numbers", "yesterday", "1.5", MaxStatsWindow, StatsWindow{},
			map[string][]string{"fromDate": {"The fromDate must be a UNIX time in seconds or milliseconds."},
				"toDate": {"The toDate must be a UNIX time in seconds or milliseconds."}}},
		{"negative", "-1", "10", MaxStatsWindow, StatsWindow{},
			map[string][]string{"fromDate": {"The fromDate must be a UNIX time in seconds or milliseconds."}}},
		{"past the year 9999", "0", "253402300800000", MaxStatsWindow, StatsWindow{},
			map[string][]string{"toDate": {"The toDate must be a UNIX time in seconds or milliseconds."}}},
		{"overflow", "0", "99999999999999999999", MaxStatsWindow, StatsWindow{},
			map[string][]string{"toDate": {"The toDate must be a UNIX time in seconds or milliseconds."}}},
		{"to before from", "1700000700", "1700000100", MaxStatsWindow, StatsWindow{},
			map[string][]string{"toDate": {"The toDate must be after the fromDate."}}},
		{"empty window", "1700000100", "1700000100000", MaxStatsWindow, StatsWindow{},
			map[string][]string{"toDate": {"The toDate must be after the fromDate."}}},
		{"too long", "0", "31622401", MaxStatsWindow, StatsWindow{},
			map[string][]string{"toDate": {"The window from fromDate to toDate, in whole 5-minute buckets, may be at most 366 days long."}}},
		{"a week of points at most", "1700000100", "1700604901", MaxStatsPoints * StatsBucket, StatsWindow{},
			map[string][]string{"toDate": {"The window from fromDate to toDate, in whole 5-minute buckets, may be at most 7 days long."}}},
		{"a week, widened past a week", "1700000160", "1700604960", MaxStatsPoints * StatsBucket, StatsWindow{},
			map[string][]string{"toDate": {"The window from fromDate to toDate, in whole 5-minute buckets, may be at most 7 days long."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStatsWindow(tc.from, tc.to, tc.max)
			if tc.wantErr != nil {
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeBadRequest {
					t.Fatalf("got %v, want ERR_BAD_REQUEST", err)
				}
				if diff := cmp.Diff(tc.wantErr, e.Details); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("window (-want +got):\n%s", diff)
			}
		})
	}
}

// memStats is a StatsStore that keeps batches in memory, fails on demand, and can drop a
// commit's answer after committing, as a connection lost mid-commit does.
type memStats struct {
	mu         sync.Mutex
	seq        map[string]int64
	counts     map[countKey]UsageCount
	active     map[activeKey][activeWords]int64
	failBefore bool // fail without saving
	failAfter  bool // save, then fail
}

func newMemStats() *memStats {
	return &memStats{seq: map[string]int64{}, counts: map[countKey]UsageCount{}, active: map[activeKey][activeWords]int64{}}
}

func (m *memStats) SaveUsage(_ context.Context, b UsageBatch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failBefore {
		return errors.New("database down")
	}
	if m.seq[b.Node] < b.Seq {
		m.seq[b.Node] = b.Seq
		for _, c := range b.Counts {
			k := countKey{c.AppID, c.Bucket}
			s := m.counts[k]
			s.AppID, s.Bucket = c.AppID, c.Bucket
			s.Messages += c.Messages
			s.ReadReceipts += c.ReadReceipts
			s.DeliveryReceipts += c.DeliveryReceipts
			s.Concurrent += c.Concurrent
			s.RateLimited += c.RateLimited
			m.counts[k] = s
		}
		for _, a := range b.Active {
			k := activeKey{a.AppID, a.UID, a.Day}
			bits := m.active[k]
			for i := range bits {
				bits[i] |= a.Bits[i]
			}
			m.active[k] = bits
		}
	}
	if m.failAfter {
		return errors.New("connection lost during commit")
	}
	return nil
}

func (m *memStats) UsageCounts(context.Context, string, int64, int64) ([]UsageCount, error) {
	return nil, nil
}
func (m *memStats) PeakConcurrent(context.Context, string, PeakSpan) (int64, error) { return 0, nil }
func (m *memStats) ActiveUsers(context.Context, string, ActiveSpan) (int64, error)  { return 0, nil }

func (m *memStats) bucket(app string, b int64) UsageCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[countKey{app, b}]
}

// TestRollupSavesOnce: a batch whose save failed is retried as it was, and a batch
// saved whose answer was lost is not added twice; what was counted meanwhile follows.
func TestRollupSavesOnce(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := newRollup(func() time.Time { return at })
	st := newMemStats()
	now := at.Unix()

	r.message("a", "alice", now)
	r.message("a", "alice", now)
	st.failBefore = true
	if _, err := r.flush(ctx, st, false, ""); err == nil {
		t.Fatal("flush: want the store's error")
	}
	st.failBefore = false
	r.message("a", "bob", now)
	st.failAfter = true
	if _, err := r.flush(ctx, st, false, ""); err == nil { // saves batch 1, not heard
		t.Fatal("flush: want the store's error")
	}
	st.failAfter = false
	r.receipt("a", "bob", true, now)
	r.refused("a", now)
	if _, err := r.flush(ctx, st, false, ""); err != nil { // batch 1 again (skipped), then 2 and 3
		t.Fatal(err)
	}
	got := st.bucket("a", now)
	want := UsageCount{AppID: "a", Bucket: now, Messages: 3, ReadReceipts: 1, RateLimited: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bucket (-want +got):\n%s", diff)
	}
	k := (now % 86400) / StatsBucket
	for _, uid := range []string{"alice", "bob"} {
		bits := st.active[activeKey{"a", uid, now - now%86400}]
		if bits[k/64]&(1<<(k%64)) == 0 {
			t.Errorf("%s not active in the bucket: %v", uid, bits)
		}
	}
}

// TestRollupSplitsBatches: a take of many rows is saved as several short batches, in
// order, and a failure in the middle resumes where it stopped.
func TestRollupSplitsBatches(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	r := newRollup(func() time.Time { return at })
	st := &countingStats{memStats: newMemStats(), failAt: 2}
	now := at.Unix()
	const users = 2*maxBatchRows + 10
	for i := range users {
		r.message("a", "u"+strconv.Itoa(i), now)
	}
	if _, err := r.flush(ctx, st, false, ""); err == nil {
		t.Fatal("flush: want the second batch's error")
	}
	if _, err := r.flush(ctx, st, false, ""); err != nil {
		t.Fatal(err)
	}
	if st.saves != 4 || st.seq[r.node] != 3 { // 1, 2 (failed), 2, 3
		t.Errorf("%d saves up to seq %d; want 4 up to 3", st.saves, st.seq[r.node])
	}
	if got := st.bucket("a", now).Messages; got != users {
		t.Errorf("messages %d, want %d", got, users)
	}
	if got := len(st.active); got != users {
		t.Errorf("%d users active, want %d", got, users)
	}
}

// countingStats counts saves and fails the failAt-th.
type countingStats struct {
	*memStats
	saves, failAt int
}

func (c *countingStats) SaveUsage(ctx context.Context, b UsageBatch) error {
	c.saves++
	if c.saves == c.failAt {
		return errors.New("database down")
	}
	return c.memStats.SaveUsage(ctx, b)
}

// TestRollupConcurrentPeaks: a bucket's peak is saved when the bucket ends, the buckets
// without a change get the level that held, and closing a node saves the bucket under way.
func TestRollupConcurrentPeaks(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	advance := func(d time.Duration) { mu.Lock(); at = at.Add(d); mu.Unlock() }
	r := newRollup(clock)
	st := newMemStats()
	b0 := at.Unix()

	closeA := r.connect("a", "alice")
	closeB := r.connect("a", "bob")
	closeB2 := r.connect("a", "bob") // a second connection: still one user
	closeB()
	closeB() // a second call changes nothing
	if live, _ := r.flush(ctx, st, false, "a"); live.peak != 2 || live.bucket != b0 {
		t.Fatalf("live peak: got %+v, want 2 in %d", live, b0)
	}
	closeB2()
	advance(3 * StatsBucket * time.Second) // two buckets pass with alice alone
	if _, err := r.flush(ctx, st, false, ""); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{2, 1, 1} {
		if got := st.bucket("a", b0+int64(i)*StatsBucket).Concurrent; got != want {
			t.Errorf("bucket %d: concurrent %d, want %d", i, got, want)
		}
	}
	if got := st.bucket("a", b0+3*StatsBucket).Concurrent; got != 0 {
		t.Errorf("the bucket under way is saved before it ends: %d", got)
	}
	closeA()
	if _, err := r.flush(ctx, st, true, ""); err != nil {
		t.Fatal(err)
	}
	if got := st.bucket("a", b0+3*StatsBucket).Concurrent; got != 1 {
		t.Errorf("the bucket under way when the node stopped: concurrent %d, want 1", got)
	}
}

func TestActedNeedsAnActor(t *testing.T) {
	s := &Service{cfg: Config{Now: time.Now}, rollup: newRollup(time.Now)}
	s.Usage().Acted(Principal{App: App{ID: "a"}})
	if len(s.rollup.active) != 0 {
		t.Fatalf("a request acting as nobody made someone active: %v", s.rollup.active)
	}
	s.Usage().Acted(Principal{App: App{ID: "a"}, Actor: "alice"})
	if len(s.rollup.active) != 1 {
		t.Fatalf("active: %v", s.rollup.active)
	}
}
