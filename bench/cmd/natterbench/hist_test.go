package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketsAreContiguous(t *testing.T) {
	var prevHi uint64
	for i := 0; i < histBuckets; i++ {
		lo, hi := bucketRange(i)
		if lo != prevHi || hi <= lo {
			t.Fatalf("bucket %d is [%d,%d), previous ended at %d", i, lo, hi, prevHi)
		}
		if bucketOf(lo) != i || bucketOf(hi-1) != i {
			t.Fatalf("bucket %d: bucketOf(%d)=%d bucketOf(%d)=%d", i, lo, bucketOf(lo), hi-1, bucketOf(hi-1))
		}
		prevHi = hi
	}
	if prevHi-1 != histMaxVal {
		t.Fatalf("last bucket ends at %d, want %d", prevHi-1, histMaxVal)
	}
}

func TestQuantileMatchesSortedSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h hist
	var vals []time.Duration
	for range 100000 {
		d := time.Duration(r.ExpFloat64() * float64(2*time.Millisecond))
		vals = append(vals, d)
		h.record(d)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := vals[int(q*float64(len(vals)))-1]
		got := h.quantile(q)
		if diff := float64(got-want) / float64(want); diff > 0.01 || diff < -0.01 {
			t.Errorf("q%.3f: got %v, want %v (off by %.2f%%)", q, got, want, diff*100)
		}
	}
}

func TestAtomicHistMatchesHist(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h hist
	var a atomicHist
	for range 50000 {
		d := time.Duration(r.ExpFloat64() * float64(time.Millisecond))
		h.record(d)
		a.record(d)
	}
	got := a.snapshot()
	if got.n != h.n || got.sum != h.sum {
		t.Fatalf("snapshot has n=%d sum=%d, want n=%d sum=%d", got.n, got.sum, h.n, h.sum)
	}
	for _, q := range []float64{0.5, 0.99} {
		if g, w := got.quantile(q), h.quantile(q); g != w {
			t.Errorf("q%.2f: got %v, want %v", q, g, w)
		}
	}
}
