package main

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// hist is a fixed-size log-linear latency histogram in nanoseconds, in the manner of HDR
// histograms: values below 256 ns are exact, above that each power of two is split into 128
// buckets, so a recorded value is off by at most 1/128 (0.8 %). Its size does not depend on
// how many values are recorded (about 42 KB), so a long run keeps bounded memory.
type hist struct {
	counts [histBuckets]uint64
	n      uint64
	sum    uint64
	min    uint64
	max    uint64
}

const (
	histSub     = 128                            // buckets per power of two
	histExact   = 2 * histSub                    // values below this are exact
	histShifts  = 39                             // covers values below 2^47 ns (about 39 h)
	histBuckets = histExact + histShifts*histSub // 5248
	histMaxVal  = uint64(1)<<(histShifts+8) - 1  // larger values are clamped
)

func bucketOf(v uint64) int {
	if v > histMaxVal {
		v = histMaxVal
	}
	if v < histExact {
		return int(v)
	}
	shift := bits.Len64(v) - 8 // v>>shift is in [128, 256)
	return histExact + (shift-1)*histSub + int(v>>shift) - histSub
}

// bucketRange is the half-open range [lo, hi) of values that land in bucket i.
func bucketRange(i int) (lo, hi uint64) {
	if i < histExact {
		return uint64(i), uint64(i) + 1
	}
	k := i - histExact
	shift := uint(k/histSub + 1)
	r := uint64(k%histSub + histSub)
	return r << shift, (r + 1) << shift
}

func (h *hist) record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d)
	}
	h.counts[bucketOf(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += v
}

func (h *hist) merge(o *hist) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// quantile returns the value at quantile q (0 < q <= 1): the midpoint of the bucket holding
// the ceil(q·n)-th smallest value, clamped to the recorded minimum and maximum.
func (h *hist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q * float64(h.n))
	if float64(rank) < q*float64(h.n) {
		rank++
	}
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(i)
			v := lo + (hi-lo-1)/2
			v = max(v, h.min)
			v = min(v, h.max)
			return time.Duration(v)
		}
	}
	return time.Duration(h.max)
}

func (h *hist) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / h.n)
}

// atomicHist is a hist that many goroutines record into at once, to be read when they have
// stopped. It keeps no minimum or maximum: its snapshot takes them from the outer buckets,
// off by at most a bucket's width as every value is.
type atomicHist struct {
	counts [histBuckets]atomic.Uint64
	sum    atomic.Uint64
}

func (a *atomicHist) record(d time.Duration) {
	v := uint64(max(d, 0))
	a.counts[bucketOf(v)].Add(1)
	a.sum.Add(v)
}

func (a *atomicHist) snapshot() hist {
	var h hist
	for i := range a.counts {
		c := a.counts[i].Load()
		if c == 0 {
			continue
		}
		lo, hi := bucketRange(i)
		if h.n == 0 {
			h.min = lo
		}
		h.max = hi - 1
		h.counts[i] = c
		h.n += c
	}
	h.sum = a.sum.Load()
	return h
}
