package main

import (
	"context"
	"testing"
	"time"
)

// -rate's calls are due every 1/rate from the start, one slot per call
// whichever connection takes it; slots already past are not waited for.
func TestScheduleSpacing(t *testing.T) {
	start := time.Now().Add(-time.Hour)
	s := newSchedule(4000, start)
	for k := 0; k < 10; k++ {
		due, ok := s.wait(context.Background())
		if !ok || !due.Equal(start.Add(time.Duration(k)*250*time.Microsecond)) {
			t.Fatalf("call %d due at %v (ok %v), want start+%v", k, due.Sub(start), ok, time.Duration(k)*250*time.Microsecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := newSchedule(1, time.Now().Add(time.Hour)).wait(ctx); ok {
		t.Fatal("a wait under an ended context went on")
	}
}
