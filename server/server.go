// Package server is thriftd's Thrift connection layer: it accepts TCP
// connections, plain or TLS (tls.go), detects each connection's framing and protocol, bounds what a
// client may send, enforces idle and request timeouts, and hands every decoded
// call to a thrift.TProcessor. It owns sockets and bytes only; what a call
// means is the processor's business.
//
// The split mirrors net/http's Server and Handler: Options holds the limits,
// NewProcessor builds the per-connection handler, Serve runs the accept loop
// and Shutdown drains it.
//
// Dispatch goes through the processor's ProcessorMap, so a processor must
// register every method there (generated processors and thrift.WrapProcessor
// do). The context passed to processor functions carries no deadline; it is
// cancelled only when the connection is forcibly closed.
//
// Programs using this package should set thrift.ServerConnectivityCheckInterval
// to 0: otherwise every generated processor function starts a goroutine and a
// ticker per request to poll the transport's IsOpen, which here always
// reports true; the server watches its connections itself.
package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxMessageSize is the message size limit used when
// Options.MaxMessageSize is not positive: 16 MiB, as Cassandra 0.7's
// thrift_max_message_length_in_mb.
const DefaultMaxMessageSize = 16 << 20

// ErrServerClosed is returned by Serve once Shutdown has been called.
var ErrServerClosed = errors.New("server: closed")

// Options are the limits of a Server. The zero value is usable: 16 MiB
// messages, unlimited connections, no timeouts, slog.Default().
type Options struct {
	// MaxMessageSize bounds every length read off the wire: a frame, a
	// string or binary, the element count of a list, set or map, and the total
	// bytes of one unframed request. Exceeding it closes the connection.
	// Values <= 0 mean DefaultMaxMessageSize; values above math.MaxInt32 are
	// treated as math.MaxInt32 (Thrift lengths are 32-bit).
	MaxMessageSize int64

	// MaxConnections caps the connections open at once; a connection
	// accepted beyond it is closed at once and logged. 0 means unlimited.
	MaxConnections int

	// IdleTimeout closes a connection on which no request starts for this
	// long. 0 means never.
	IdleTimeout time.Duration

	// RequestTimeout bounds how long a request may take to arrive, counted
	// from its first byte. It does not limit the processor or the writing of
	// the reply. 0 means no limit.
	RequestTimeout time.Duration

	// Logger receives connection events; nil means slog.Default().
	Logger *slog.Logger

	// Registerer receives the server's metrics (metrics.go); nil keeps
	// them unexported.
	Registerer prometheus.Registerer
}

// NewProcessor builds the processor for one accepted connection. It is called
// once per connection, on that connection's goroutine, and the processor it
// returns lives exactly as long as the connection, so per-connection state
// (such as a login) may live inside it.
type NewProcessor func(conn net.Conn) thrift.TProcessor

// Stats is a snapshot of a Server's counters.
type Stats struct {
	Open     int    // connections open now
	Accepted uint64 // connections accepted, refused ones included
	Refused  uint64 // connections closed at once because MaxConnections were open
	Requests uint64 // requests whose message header was read and dispatched
	Failed   uint64 // connections closed for bad or truncated input, a size limit, a request timeout, a failed TLS handshake or a panic
	// TLSFailures counts connections of a TLS listener whose handshake
	// failed or timed out (also counted in Failed).
	TLSFailures uint64
}

// Server serves Thrift connections. Create it with New; it is safe for
// concurrent use.
type Server struct {
	maxMessage   int64
	opts         Options
	newProcessor NewProcessor
	log          *slog.Logger
	tcfg         *thrift.TConfiguration
	metrics      *metrics

	accepted, refused, requests, failed atomic.Uint64
	tlsFailures                         atomic.Uint64
	handshakeLog                        failureLog
	tlsOnPlainLog                       failureLog // TLS clients on a plain port, logged as handshakeLog

	mu        sync.Mutex
	closing   bool
	listeners map[*net.Listener]struct{}
	conns     map[*conn]struct{}
	// active counts running accept loops and connection goroutines;
	// drained is closed once closing is set and active has dropped to 0.
	active        int
	drained       chan struct{}
	drainedClosed bool
	// stop wakes accept loops sleeping after a temporary error.
	stop chan struct{}
}

// New returns a Server with the given options that serves each connection
// with a processor from newProcessor.
func New(opts Options, newProcessor NewProcessor) *Server {
	maxMessage := opts.MaxMessageSize
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessageSize
	}
	maxMessage = min(maxMessage, math.MaxInt32)
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	reg := opts.Registerer
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	return &Server{
		metrics:      newMetrics(reg),
		maxMessage:   maxMessage,
		opts:         opts,
		newProcessor: newProcessor,
		log:          logger,
		// Cassandra 0.6 used TBinaryProtocol.Factory(): it reads the old
		// unversioned header and always writes the versioned one. The
		// library's own length checks use the same limit as ours.
		tcfg: &thrift.TConfiguration{
			MaxMessageSize:     int32(maxMessage),
			MaxFrameSize:       int32(maxMessage),
			TBinaryStrictRead:  thrift.BoolPtr(false),
			TBinaryStrictWrite: thrift.BoolPtr(true),
		},
		handshakeLog:  failureLog{window: time.Minute},
		tlsOnPlainLog: failureLog{window: time.Minute},
		listeners:     make(map[*net.Listener]struct{}),
		conns:         make(map[*conn]struct{}),
		drained:       make(chan struct{}),
		stop:          make(chan struct{}),
	}
}

// Serve accepts connections on l and serves each on its own goroutine until
// Shutdown is called or l fails. Temporary accept errors (such as running
// out of file descriptors) are retried with a growing pause. Serve closes l
// before returning; after Shutdown it returns ErrServerClosed. A Server
// may serve several listeners at once, plain (Serve) and TLS (ServeTLS),
// under one connection limit.
func (s *Server) Serve(l net.Listener) error { return s.serve(l, nil) }

// serve is the accept loop of Serve and ServeTLS (t non-nil).
func (s *Server) serve(l net.Listener, t *TLS) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[&l] = struct{}{}
	s.active++
	s.mu.Unlock()
	defer func() {
		l.Close()
		s.mu.Lock()
		delete(s.listeners, &l)
		s.exitedLocked()
		s.mu.Unlock()
	}()

	var pause time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			// Temporary is deprecated, but it is still how accept reports
			// EMFILE, ENFILE and ECONNABORTED, which pass.
			if errors.As(err, &ne) && ne.Temporary() {
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed, retrying", "addr", l.Addr().String(), "err", err, "retry_in", pause)
				select {
				case <-time.After(pause):
				case <-s.stop:
				}
				continue
			}
			return err
		}
		pause = 0
		s.accepted.Add(1)
		s.metrics.accepted.Inc()
		c, err := s.track(nc, t)
		if err != nil {
			nc.Close()
			if errors.Is(err, errTooManyConns) {
				s.refused.Add(1)
				s.metrics.refused.WithLabelValues("limit").Inc()
				s.log.Warn("connection refused: too many open connections", "peer", peerOf(nc), "limit", s.opts.MaxConnections)
			}
			continue
		}
		go c.serve()
	}
}

var errTooManyConns = errors.New("too many open connections")

// track registers a freshly accepted connection. It fails when the server
// is shutting down or MaxConnections are already open.
func (s *Server) track(nc net.Conn, t *TLS) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, ErrServerClosed
	}
	if limit := s.opts.MaxConnections; limit > 0 && len(s.conns) >= limit {
		return nil, errTooManyConns
	}
	c := newConn(s, nc)
	c.tls = t
	s.conns[c] = struct{}{}
	s.metrics.open.Inc()
	s.active++
	return c, nil
}

// untrack forgets a connection whose goroutine is about to end.
func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.metrics.open.Dec()
	s.exitedLocked()
	s.mu.Unlock()
}

func (s *Server) exitedLocked() {
	s.active--
	s.checkDrainedLocked()
}

func (s *Server) checkDrainedLocked() {
	if s.closing && s.active == 0 && !s.drainedClosed {
		s.drainedClosed = true
		close(s.drained)
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// beginIdle marks c as waiting for a request, which Shutdown may interrupt.
// It reports false when the server is shutting down and c should end.
func (s *Server) beginIdle(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	c.idle = true
	return true
}

// beginRequest marks c as busy with a request, which Shutdown lets finish.
// It reports false when the server is shutting down and c should end instead
// of starting a request.
func (s *Server) beginRequest(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.idle = false
	return !s.closing
}

// Shutdown stops the server gracefully: it closes the listeners and the idle
// connections, lets requests in progress finish and write their replies,
// then closes their connections, and waits until every accept loop and
// connection goroutine has ended. If ctx ends first, Shutdown closes the
// remaining connections forcibly, cancels their processors' context, and
// returns ctx.Err() without waiting further; a processor that ignores its
// context keeps its goroutine until it returns. Calling Shutdown more than
// once is allowed.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.stop)
	}
	for l := range s.listeners {
		(*l).Close()
	}
	for c := range s.conns {
		if c.idle {
			c.nc.Close()
		}
	}
	s.checkDrainedLocked()
	s.mu.Unlock()

	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for c := range s.conns {
		c.forceClose()
	}
	s.mu.Unlock()
	return ctx.Err()
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	open := len(s.conns)
	s.mu.Unlock()
	return Stats{
		Open:     open,
		Accepted: s.accepted.Load(),
		Refused:  s.refused.Load(),
		Requests: s.requests.Load(),
		Failed:   s.failed.Load(),

		TLSFailures: s.tlsFailures.Load(),
	}
}

func peerOf(nc net.Conn) string {
	if a := nc.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
