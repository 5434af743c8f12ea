package main

import (
	"context"
	"sync/atomic"
	"time"
)

// schedule paces the calls of -rate (open loop): call k is due at
// start + k/rate, whichever connection is free sends it, and its latency
// counts from when it was due, so that a slow answer delays no call but
// its own and shows in the percentiles (at most -t calls are in flight:
// past that, calls fall behind their times and the rate reached is
// lower than asked).
type schedule struct {
	start time.Time
	every time.Duration
	next  atomic.Int64
}

func newSchedule(rate float64, start time.Time) *schedule {
	return &schedule{start: start, every: time.Duration(float64(time.Second) / rate)}
}

// wait takes the next call's slot and waits for it; false when ctx ended.
func (s *schedule) wait(ctx context.Context) (due time.Time, ok bool) {
	k := s.next.Add(1) - 1
	due = s.start.Add(time.Duration(k) * s.every)
	if d := time.Until(due); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return due, false
		case <-t.C:
		}
	}
	return due, ctx.Err() == nil
}
