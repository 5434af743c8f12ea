package auth

import (
	"net"
	"sync"
	"time"
)

// Limit bounds failed logins, per user and client host: after Max failed
// logins of one user name from one host (any port, any connection)
// within Window, further logins of that user from that host are refused
// with an AuthenticationException, without checking the password, until
// the oldest failure leaves the window. Other users, and the same user
// from other hosts, are not affected: a client that keeps failing behind
// a shared address (a NAT, a proxy) locks out only the name it fails
// with. Max 0 sets no bound, which is Cassandra's own behaviour and the
// default.
type Limit struct {
	Max    int
	Window time.Duration
}

// failKey is what a failure counts against.
type failKey struct{ user, host string }

// limiter counts failures per user and source host.
type limiter struct {
	l  Limit
	mu sync.Mutex
	// failures holds each key's failures within the window, oldest first;
	// a key with none has no entry.
	failures map[failKey][]time.Time
}

// maxKeys bounds the keys tracked, so that guesses of many user names or
// from many addresses cannot grow the map without end; past it, the
// entries whose failures have all left the window are dropped first, and
// if none has, the new key is not counted.
const maxKeys = 65536

func newLimiter(l Limit) *limiter {
	return &limiter{l: l, failures: map[failKey][]time.Time{}}
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

// allow refuses a login of user on c when user has failed Max times from
// c's host within the window.
func (l *limiter) allow(c *Conn, user string, now time.Time) error {
	if l.l.Max <= 0 {
		return nil
	}
	k := failKey{user, sourceHost(c.Peer)}
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.recent(l.failures[k], now)
	if len(ts) == 0 {
		delete(l.failures, k)
	} else {
		l.failures[k] = ts
	}
	if len(ts) >= l.l.Max {
		return &AuthenticationError{Why: msgTooMany}
	}
	return nil
}

// failed counts one failed login of user on c.
func (l *limiter) failed(c *Conn, user string, now time.Time) {
	if l.l.Max <= 0 {
		return
	}
	k := failKey{user, sourceHost(c.Peer)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.failures[k]; !ok && len(l.failures) >= maxKeys {
		for k2, ts := range l.failures {
			if len(l.recent(ts, now)) == 0 {
				delete(l.failures, k2)
			}
		}
		if len(l.failures) >= maxKeys {
			return
		}
	}
	l.failures[k] = append(l.recent(l.failures[k], now), now)
}
