package main

import (
	"math/bits"
	"sync"
	"time"
)

// histogram counts latencies in log-linear buckets: exact below 128 ns,
// then 64 buckets per power of two, so a reported percentile is within
// 1/64 (1.6%) of the true value, in constant memory however long the run.
type histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

const (
	histSubBits = 6 // 64 sub-buckets per power of two
	histSub     = 1 << histSubBits
	histBuckets = (64-histSubBits)*histSub + histSub
)

func bucketOf(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - histSubBits - 1
	return shift*histSub + int(v>>shift)
}

// bucketMid is a representative value of bucket i: the middle of the
// durations it holds.
func bucketMid(i int) time.Duration {
	if i < 2*histSub {
		return time.Duration(i)
	}
	shift := i/histSub - 1
	low := uint64(i%histSub+histSub) << shift
	return time.Duration(low + (uint64(1)<<shift)/2)
}

func (h *histogram) record(d time.Duration) {
	h.counts[bucketOf(d)]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// quantile returns the latency below which a fraction q of the recorded
// latencies lie (the nearest-rank definition); 0 when nothing was recorded.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.999999999)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketMid(i), h.max)
		}
	}
	return h.max
}

// recorder is one worker's counters. The worker records into it and the
// reporter takes interval snapshots; the mutex is uncontended otherwise.
type recorder struct {
	mu       sync.Mutex
	interval histogram // since the last progress line
	total    histogram
	errors   uint64
}

func (r *recorder) record(d time.Duration, failed bool) {
	r.mu.Lock()
	if failed {
		r.errors++
	} else {
		r.interval.record(d)
		r.total.record(d)
	}
	r.mu.Unlock()
}

// takeInterval adds the interval counts to into and restarts them.
func (r *recorder) takeInterval(into *histogram) {
	r.mu.Lock()
	into.merge(&r.interval)
	r.interval = histogram{}
	r.mu.Unlock()
}

func (r *recorder) takeTotal(into *histogram) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	into.merge(&r.total)
	return r.errors
}
