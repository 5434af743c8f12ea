package auth

import (
	"net"
	"sync"
	"time"
)

// Limit bounds failed logins: after Max failures within Window, on one
// connection or from one source address (any port), further logins there
// are refused with an AuthenticationException, without checking the
// password, until the oldest failure leaves the window. Max 0 sets no
// bound.
type Limit struct {
	Max    int
	Window time.Duration
}

// limiter counts failures per source address; each Conn counts its own.
type limiter struct {
	l  Limit
	mu sync.Mutex
	// bySource holds each address's failures within the window, oldest
	// first; an address with none has no entry.
	bySource map[string][]time.Time
}

// maxSources bounds the addresses tracked, so that a scan from many
// addresses cannot grow the map without end; past it, the entries whose
// failures have all left the window are dropped first.
const maxSources = 65536

func newLimiter(l Limit) *limiter {
	return &limiter{l: l, bySource: map[string][]time.Time{}}
}

// sourceHost is the address a failure counts against: the peer's host.
func sourceHost(peer string) string {
	if h, _, err := net.SplitHostPort(peer); err == nil {
		return h
	}
	return peer
}

// recent drops the times before the window.
func (l *limiter) recent(ts []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(ts) && !ts[i].After(now.Add(-l.l.Window)) {
		i++
	}
	return ts[i:]
}

// allow refuses a login on c when c or its source address has failed
// Max times within the window.
func (l *limiter) allow(c *Conn, now time.Time) error {
	if l.l.Max <= 0 {
		return nil
	}
	c.failures = l.recent(c.failures, now)
	if len(c.failures) >= l.l.Max {
		return &AuthenticationError{Why: msgTooMany}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	host := sourceHost(c.Peer)
	ts := l.recent(l.bySource[host], now)
	if len(ts) == 0 {
		delete(l.bySource, host)
	} else {
		l.bySource[host] = ts
	}
	if len(ts) >= l.l.Max {
		return &AuthenticationError{Why: msgTooMany}
	}
	return nil
}

// failed counts one failed login on c and its source address.
func (l *limiter) failed(c *Conn, now time.Time) {
	if l.l.Max <= 0 {
		return
	}
	c.failures = append(c.failures, now)
	l.mu.Lock()
	defer l.mu.Unlock()
	host := sourceHost(c.Peer)
	if _, ok := l.bySource[host]; !ok && len(l.bySource) >= maxSources {
		for h, ts := range l.bySource {
			if len(l.recent(ts, now)) == 0 {
				delete(l.bySource, h)
			}
		}
		if len(l.bySource) >= maxSources {
			return
		}
	}
	l.bySource[host] = append(l.recent(l.bySource[host], now), now)
}
