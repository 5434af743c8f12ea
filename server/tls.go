package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
)

// DefaultHandshakeTimeout bounds a TLS handshake when TLS.HandshakeTimeout
// is not positive.
const DefaultHandshakeTimeout = 10 * time.Second

// TLS makes a listener's clients speak TLS (ServeTLS).
type TLS struct {
	// Config is the server side of the handshake: certificate, client
	// certificates required or not, versions and cipher suites. It must
	// hold a certificate.
	Config *tls.Config

	// Optional also serves clients that speak plain Thrift on the same
	// port, as Cassandra 3.11's client_encryption_options.optional does.
	// A connection is told by its first byte: a TLS handshake starts with
	// 0x16, which no Thrift request within MaxMessageSize does (a frame or
	// unversioned header of that first byte would be over 350 MiB long; a
	// versioned binary or compact header starts with 0x80 or 0x82).
	Optional bool

	// HandshakeTimeout bounds the handshake, counted from the connection's
	// accept; a client that has not finished by then is disconnected, so
	// a stalled handshake does not keep a connection slot. Values <= 0 mean
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
}

// tlsRecordHandshake is the first byte of a TLS connection: the content
// type of the record carrying the ClientHello.
const tlsRecordHandshake = 0x16

// isTLSHello reports whether b, a connection's first three bytes, start a
// TLS handshake record (0x16, then version 3.0 to 3.4). As a frame length
// or an old header's name length, they would make a message of over 350
// MB, which no Thrift port accepts.
func isTLSHello(b []byte) bool {
	return len(b) >= 3 && b[0] == tlsRecordHandshake && b[1] == 3 && b[2] <= 4
}

// errTLSOnPlain ends a connection of a plain port whose client began a
// TLS handshake: a client configured for TLS, pointed at the wrong port.
var errTLSOnPlain = errors.New("the client began a TLS handshake on a port that speaks plain Thrift " +
	"(TLS is served on tls_listen's port, or on listen's when client_encryption_options is enabled without tls_listen)")

// ServeTLS is Serve for a port whose clients speak TLS. Each connection's
// handshake runs on its own goroutine, under t.HandshakeTimeout, and counts
// against MaxConnections like any connection; one that fails (a client
// speaking plain Thrift, a missing or untrusted client certificate, no
// common version or cipher suite) is closed and logged with the client's
// address, at most once a minute per client host.
func (s *Server) ServeTLS(l net.Listener, t TLS) error {
	if t.Config == nil {
		l.Close()
		return errors.New("server: ServeTLS without a TLS configuration")
	}
	if t.HandshakeTimeout <= 0 {
		t.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return s.serve(l, &t)
}

// handshake runs the TLS handshake of a connection accepted by ServeTLS and
// returns the connection to serve Thrift on: the TLS one, or with
// Optional, the plain one when the client did not start a handshake.
// Shutdown may close a connection still in its handshake, as an idle one.
//
// With Optional, the wait for the first byte is an idle connection's (a
// plain client's pool may open connections ahead of use): it ends at the
// idle timeout, and its errors are returned as errBeforeFirstByte, which
// the caller reports as an idle connection's end.
func (c *conn) handshake() (net.Conn, error) {
	if !c.srv.beginIdle(c) {
		return nil, errShutdown
	}
	var nc net.Conn = c.nc
	if c.tls.Optional {
		c.setReadDeadline(c.srv.opts.IdleTimeout)
		br := bufio.NewReaderSize(c.nc, 16)
		first, err := br.Peek(1)
		if err != nil {
			return nil, errBeforeFirstByte{err}
		}
		nc = &peekedConn{Conn: c.nc, r: br}
		if first[0] != tlsRecordHandshake {
			c.nc.SetReadDeadline(time.Time{})
			c.plain = true
			return nc, nil
		}
	}
	c.nc.SetDeadline(time.Now().Add(c.tls.HandshakeTimeout))
	tc := tls.Server(nc, c.tls.Config)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		return nil, err
	}
	c.nc.SetDeadline(time.Time{})
	return tc, nil
}

// errBeforeFirstByte is why an Optional connection ended before its first
// byte, when it could still have been a plain client's.
type errBeforeFirstByte struct{ err error }

func (e errBeforeFirstByte) Error() string { return e.err.Error() }
func (e errBeforeFirstByte) Unwrap() error { return e.err }

// peekedConn is a connection whose first bytes were read ahead into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// handshakeFailed reports a connection that ended in its TLS handshake.
// Ordinary ends (shutdown, a client that connected and left without a
// byte, such as a load balancer's health check) are logged at Debug; a
// refused handshake is logged at Warn once a minute per client host, with
// how many were not logged since, so that a client retrying in a loop
// costs one line a minute.
func (c *conn) handshakeFailed(err error) {
	s := c.srv
	level, reason := slog.LevelWarn, "tls handshake failed"
	switch {
	case errors.Is(err, errShutdown), errors.Is(err, net.ErrClosed) && s.isClosing():
		level, reason = slog.LevelDebug, "server shutting down"
	case errors.Is(err, io.EOF):
		// Nothing arrived (a truncated ClientHello is
		// io.ErrUnexpectedEOF): a port check, not a client.
		level, reason = slog.LevelDebug, "client closed"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		reason = "tls handshake timeout"
	}
	s.metrics.closed.WithLabelValues(closeLabel(reason)).Inc()
	if level == slog.LevelDebug {
		s.log.Debug("connection closed", "peer", c.peer, "reason", reason, "err", err)
		return
	}
	s.failed.Add(1)
	s.tlsFailures.Add(1)
	log, suppressed := s.handshakeLog.allow(hostOf(c.peer), time.Now())
	if !log {
		return
	}
	attrs := []slog.Attr{slog.String("peer", c.peer), slog.String("reason", reason), slog.String("err", err.Error())}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int("not_logged", suppressed))
	}
	s.log.LogAttrs(context.Background(), slog.LevelWarn, "connection refused: TLS handshake failed", attrs...)
}

func hostOf(peer string) string {
	if h, _, err := net.SplitHostPort(peer); err == nil {
		return h
	}
	return peer
}

// failureLog decides which handshake failures are logged: the first from a
// client host, then one a window per host.
type failureLog struct {
	mu     sync.Mutex
	window time.Duration
	hosts  map[string]*hostFailures
}

type hostFailures struct {
	logged     time.Time
	suppressed int
}

// maxFailureHosts bounds the hosts remembered; past it, hosts whose window
// has passed are forgotten, and if none has, all are.
const maxFailureHosts = 4096

// allow reports whether a failure from host at now is logged, and how many
// from it were not logged since its last line.
func (f *failureLog) allow(host string, now time.Time) (bool, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hosts == nil {
		f.hosts = map[string]*hostFailures{}
	}
	h := f.hosts[host]
	if h != nil && now.Sub(h.logged) < f.window {
		h.suppressed++
		return false, 0
	}
	if h == nil {
		if len(f.hosts) >= maxFailureHosts {
			for k, v := range f.hosts {
				if now.Sub(v.logged) >= f.window {
					delete(f.hosts, k)
				}
			}
			if len(f.hosts) >= maxFailureHosts {
				clear(f.hosts)
			}
		}
		h = &hostFailures{}
		f.hosts[host] = h
	}
	n := h.suppressed
	h.logged, h.suppressed = now, 0
	return true, n
}
