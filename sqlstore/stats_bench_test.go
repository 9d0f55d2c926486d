package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
)

// BenchmarkStatsYear answers GET /stats over a year (2025, from and to mid-bucket on odd
// days, so that every level of the roll-up is read: months, whole days and partial days)
// and GET /stats/messages over a week, on a year of figures: every bucket of the year with
// messages and concurrent users, and 1000 users each active every day.
//
//	go test ./sqlstore -run '^$' -bench StatsYear -benchtime 20x -count 3
func BenchmarkStatsYear(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) { benchStatsYear(b, backend) })
	}
}

func benchStatsYear(b *testing.B, backend string) {
	ctx := context.Background()
	db, _, analyze := groupBenchStore(b, backend)
	const users = 1000
	for i := range users {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: fmt.Sprint("u", i), Name: "u", Role: "default", Status: "offline"}); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	seq := int64(0)
	for d := range 365 {
		day := start + int64(d)*86400
		batch := chat.UsageBatch{Node: "seed", At: day}
		for k := range int64(288) {
			batch.Counts = append(batch.Counts, chat.UsageCount{AppID: "a", Bucket: day + k*300, Messages: 10 + k%7, ReadReceipts: 5, DeliveryReceipts: 7, Concurrent: 100 + (int64(d)*k)%50})
		}
		month := time.Date(2025, time.Unix(day, 0).UTC().Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
		monthDay := int64(1) << ((day - month) / 86400)
		for i := range users {
			k := (i*7 + d*13) % 288
			var bits [5]int64
			bits[k/64] = 1 << (k % 64)
			batch.Active = append(batch.Active, chat.UsageActive{AppID: "a", UID: fmt.Sprint("u", i), Day: day, Month: month, Bits: bits, NewDay: true, MonthDay: monthDay})
		}
		seq++
		batch.Seq = seq
		if err := db.SaveUsage(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	analyze()
	svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
	p := chat.Principal{App: chat.App{ID: "a", Region: "us"}}
	b.Run("stats-year", func(b *testing.B) {
		w, err := chat.ParseStatsWindow(fmt.Sprint(start+86400*3+4000), fmt.Sprint(start+86400*364+200), chat.MaxStatsWindow)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			m, err := svc.Usage().UsageMetrics(ctx, p, w)
			if err != nil || m.ActiveUsers != users || m.ConcurrentUsers != 149 {
				b.Fatalf("%+v %v", m, err)
			}
		}
	})
	b.Run("messages-week", func(b *testing.B) {
		w, err := chat.ParseStatsWindow(fmt.Sprint(start+86400*100), fmt.Sprint(start+86400*107), chat.MaxStatsPoints*chat.StatsBucket)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			m, err := svc.Usage().MessageStats(ctx, p, w)
			if err != nil || len(m.Points) != chat.MaxStatsPoints {
				b.Fatalf("%d points, %v", len(m.Points), err)
			}
		}
	})
}
