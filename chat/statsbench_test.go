package chat

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// The usage roll-up's whole cost on the hot paths, with 1000 users and 16 callers per CPU
// at once (as the httpapi benchmarks): a reaction makes its user active (Acted), a send also
// counts the message. Compare with BenchmarkAddReaction and BenchmarkSendMessage (httpapi),
// some 100–600 µs per operation on the same machine:
//
//	go test ./chat -run '^$' -bench Rollup -benchmem
func BenchmarkRollupReaction(b *testing.B) { benchRollup(b, false) }

func BenchmarkRollupSend(b *testing.B) { benchRollup(b, true) }

func benchRollup(b *testing.B, send bool) {
	s := &Service{cfg: Config{Now: time.Now}, rollup: newRollup(time.Now)}
	uids := make([]string, 1000)
	for i := range uids {
		uids[i] = "u" + strconv.Itoa(i)
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := Principal{App: App{ID: "demo"}, Actor: uids[n.Add(1)%int64(len(uids))]}
			if send {
				s.rollup.message(p.App.ID, p.Actor, s.now())
			}
			s.Usage().Acted(p)
		}
	})
}
