package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
)

// conn is one client connection and the goroutine serving it.
type conn struct {
	srv    *Server
	nc     net.Conn
	peer   string
	ctx    context.Context
	cancel context.CancelFunc

	// idle is guarded by srv.mu: the connection waits for a request and
	// Shutdown may close it.
	idle bool

	// tls is set on a connection of a TLS listener; plain is set when such
	// a listener's Optional let a client without TLS in.
	tls   *TLS
	plain bool

	t        *transport
	in       *checkedProtocol
	out      thrift.TProtocol
	proc     thrift.TProcessor
	framing  framing
	sniffed  bool
	requests uint64

	countedIn, countedOut int64 // bytes already added to the metrics
}

func newConn(s *Server, nc net.Conn) *conn {
	// The context has no deadline on purpose: Thrift 0.17's binary and
	// compact readers retry timed-out reads for as long as the context has a
	// deadline that has not passed, which would defeat our read deadlines.
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{srv: s, nc: nc, peer: peerOf(nc), ctx: ctx, cancel: cancel}
}

// forceClose ends the connection at once, whatever it is doing.
func (c *conn) forceClose() {
	// Close first, so a processor woken by the cancellation cannot get a
	// reply out.
	c.nc.Close()
	c.cancel()
}

// Phases of a connection, which decide how an error is reported.
type phase int

const (
	phaseIdle      phase = iota // waiting for the first byte of a request
	phaseRequest                // reading a request
	phaseProcess                // in the processor
	phaseReply                  // after the processor, finishing the request
	phaseHandshake              // in the TLS handshake, before any request
)

// closeReason is why a connection ended, reported in its closing log line.
type closeReason struct {
	phase  phase
	err    error
	method string // the request being served, if any
	stack  []byte // set after a panic
}

// errShutdown ends a connection because the server is shutting down.
var errShutdown = errors.New("server shutting down")

// errAbandoned ends a connection whose processor abandoned the request.
var errAbandoned = errors.New("processor abandoned the request")

// panicError is a recovered panic.
type panicError struct{ value any }

func (e panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// serve runs the connection until it ends, then closes and forgets it.
func (c *conn) serve() {
	s := c.srv
	s.log.Debug("connection opened", "peer", c.peer, "tls", c.tls != nil)
	r := c.run()
	c.cancel()
	c.nc.Close()
	s.untrack(c)
	if r.phase == phaseHandshake {
		c.handshakeFailed(r.err)
		return
	}
	c.logClose(r)
}

// run serves requests one after another and returns why it stopped. A panic
// outside the processor is a bug of this package; it is recovered so that it
// costs one connection, not the server.
func (c *conn) run() (r closeReason) {
	defer func() {
		if v := recover(); v != nil {
			r = closeReason{phase: r.phase, err: panicError{v}, stack: debug.Stack()}
		}
	}()
	nc := c.nc
	if c.tls != nil {
		var err error
		if nc, err = c.handshake(); err != nil {
			if errors.As(err, new(errBeforeFirstByte)) {
				c.t = newTransport(c.nc, c.srv.maxMessage) // for logClose's counts
				return closeReason{phase: phaseIdle, err: err}
			}
			return closeReason{phase: phaseHandshake, err: err}
		}
	}
	// nc is the TLS connection over c.nc, which deadlines and Shutdown
	// still act on directly.
	c.t = newTransport(nc, c.srv.maxMessage)
	c.proc = c.srv.newProcessor(nc)
	for {
		if !c.srv.beginIdle(c) {
			return closeReason{phase: phaseIdle, err: errShutdown}
		}
		c.setReadDeadline(c.srv.opts.IdleTimeout)
		_, err := c.t.br.Peek(1)
		if !c.srv.beginRequest(c) {
			return closeReason{phase: phaseIdle, err: errShutdown}
		}
		if err != nil {
			return closeReason{phase: phaseIdle, err: err}
		}
		c.setReadDeadline(c.srv.opts.RequestTimeout)
		r := c.serveRequest()
		c.countBytes()
		if r.err != nil {
			return r
		}
	}
}

func (c *conn) setReadDeadline(d time.Duration) {
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	c.nc.SetReadDeadline(deadline)
}

// setup detects the framing from the first message and builds the
// connection's protocols.
func (c *conn) setup() error {
	if (c.tls == nil || c.plain) && c.srv.maxMessage < 0x16000000 {
		if b, err := c.t.br.Peek(3); err == nil && isTLSHello(b) {
			return errTLSOnPlain
		}
	}
	f, err := sniffFraming(c.t.br.Peek)
	if err != nil {
		return err
	}
	c.framing, c.sniffed = f, true
	c.t.framed = f.framed
	var in, out thrift.TProtocol
	if f.compact {
		in = thrift.NewTCompactProtocolConf(c.t, c.srv.tcfg)
		out = thrift.NewTCompactProtocolConf(c.t, c.srv.tcfg)
	} else {
		in = thrift.NewTBinaryProtocolConf(c.t, c.srv.tcfg)
		out = thrift.NewTBinaryProtocolConf(c.t, c.srv.tcfg)
	}
	c.in = &checkedProtocol{TProtocol: in, t: c.t, maxMessage: c.srv.maxMessage, compact: f.compact}
	c.out = out
	return nil
}

// serveRequest reads one request, runs it and writes its reply. A non-nil
// err in the result ends the connection.
func (c *conn) serveRequest() closeReason {
	if !c.sniffed {
		if b, err := c.t.br.Peek(4); err == nil && [4]byte(b) == [4]byte{} {
			// An empty frame before any request: a framed client
			// (Hector, Astyanax) saying goodbye on a connection it never
			// used. The framing is still unknown; the next request, if
			// any, shows it.
			c.t.br.Discard(4)
			return closeReason{}
		}
		if err := c.setup(); err != nil {
			return closeReason{phase: phaseRequest, err: err}
		}
	}
	if err := c.t.startRequest(); err != nil {
		return closeReason{phase: phaseRequest, err: err}
	}
	if c.t.framed && c.t.remaining == 0 {
		// An empty frame carries no request. Hector and Astyanax send one
		// just before they close a connection: a goodbye, not an error.
		return closeReason{}
	}
	c.in.err = nil
	name, _, seq, err := c.in.ReadMessageBegin(c.ctx)
	if err != nil {
		return closeReason{phase: phaseRequest, err: cmp.Or(c.readFailure(), err)}
	}
	c.requests++
	c.srv.requests.Add(1)

	fn, ok := c.proc.ProcessorMap()[name]
	if !ok {
		return c.unknownMethod(name, seq)
	}
	r := c.process(fn, name, seq)
	if r.err != nil {
		return r
	}
	if err := c.t.finishRequest(); err != nil {
		return closeReason{phase: phaseRequest, err: err, method: name}
	}
	return closeReason{}
}

// readFailure is the error that broke the input stream: the transport's
// (timeouts, end of file, size budget) when there is one, else the
// protocol's (bad data, length checks).
func (c *conn) readFailure() error {
	if c.t.readErr != nil {
		return c.t.readErr
	}
	return c.in.err
}

// unknownMethod skips the arguments of a call to a method the processor
// lacks and answers as Cassandra 0.6's generated Java processor did; the
// connection stays open.
func (c *conn) unknownMethod(name string, seq int32) closeReason {
	if c.in.Skip(c.ctx, thrift.STRUCT) != nil || c.in.ReadMessageEnd(c.ctx) != nil {
		return closeReason{phase: phaseRequest, err: c.readFailure(), method: name}
	}
	c.srv.log.Info("unknown method", "peer", c.peer, "method", name)
	x := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Invalid method name: '"+name+"'")
	if err := c.writeException(name, seq, x); err != nil {
		return closeReason{phase: phaseReply, err: err, method: name}
	}
	if err := c.t.finishRequest(); err != nil {
		return closeReason{phase: phaseRequest, err: err, method: name}
	}
	return closeReason{}
}

func (c *conn) writeException(name string, seq int32, x thrift.TApplicationException) error {
	c.out.WriteMessageBegin(c.ctx, name, thrift.EXCEPTION, seq)
	x.Write(c.ctx, c.out)
	c.out.WriteMessageEnd(c.ctx)
	c.out.Flush(c.ctx)
	return c.t.writeErr
}

// process runs one processor function. The generated function reads the
// arguments, calls the handler and writes the reply (a result, or an
// EXCEPTION message for undecodable arguments and for undeclared handler
// errors).
//
// The connection stays open after an error reply when the arguments were
// read to their end, as with a missing required field: the stream is still
// in step, and Cassandra 0.6 kept such connections too. It is closed when a
// read failed (the rest of the request cannot be located), when writing
// failed, when the processor abandoned the request, and after a panic.
func (c *conn) process(fn thrift.TProcessorFunction, name string, seq int32) (r closeReason) {
	defer func() {
		if v := recover(); v != nil {
			r = closeReason{phase: phaseProcess, err: panicError{v}, method: name, stack: debug.Stack()}
			// Tell the client, as 0.6 did for any unexpected throwable,
			// unless part of a reply has already left.
			if c.t.discardReply() {
				x := thrift.NewTApplicationException(thrift.INTERNAL_ERROR, "Internal error processing "+name)
				c.writeException(name, seq, x)
			}
		}
	}()
	_, err := fn.Process(c.ctx, seq, c.in, c.out)
	if !c.t.framed && len(c.in.open) > 0 && c.readFailure() == nil {
		// Decoding stopped inside the arguments of an unframed request
		// (drain.go). A framed one's rest is discarded with its frame.
		c.in.drainArgs(c.ctx)
	}
	switch {
	case c.readFailure() != nil:
		return closeReason{phase: phaseRequest, err: c.readFailure(), method: name}
	case c.t.writeErr != nil:
		return closeReason{phase: phaseReply, err: c.t.writeErr, method: name}
	case errors.Is(err, thrift.ErrAbandonRequest):
		return closeReason{phase: phaseProcess, err: errAbandoned, method: name}
	case err != nil:
		c.srv.log.Debug("request failed", "peer", c.peer, "method", name, "err", err)
	}
	return closeReason{}
}

// logClose writes the one line that reports a connection's end, at a level
// that matches who is at fault: Debug for ordinary ends, Info for a client
// that vanished mid-request, Warn for input the server refuses, Error for a
// panic.
func (c *conn) logClose(r closeReason) {
	level, reason := c.classify(r)
	c.countBytes()
	c.srv.metrics.closed.WithLabelValues(closeLabel(reason)).Inc()
	if level > slog.LevelDebug {
		c.srv.failed.Add(1)
	}
	attrs := []slog.Attr{
		slog.String("peer", c.peer),
		slog.String("reason", reason),
		slog.Uint64("requests", c.requests),
		slog.Int64("bytes_read", c.t.bytesRead),
		slog.Int64("bytes_written", c.t.bytesWritten),
	}
	if c.tls != nil {
		attrs = append(attrs, slog.Bool("tls", !c.plain))
	}
	if c.sniffed {
		attrs = append(attrs, slog.String("framing", c.framing.String()))
	}
	if r.method != "" {
		attrs = append(attrs, slog.String("method", r.method))
	}
	var le *limitError
	if errors.As(r.err, &le) {
		attrs = append(attrs, slog.String("what", le.what), slog.Int64("size", le.size), slog.Int64("limit", le.limit))
	}
	if r.err != nil {
		attrs = append(attrs, slog.String("err", r.err.Error()))
	}
	if r.stack != nil {
		attrs = append(attrs, slog.String("stack", string(r.stack)))
	}
	if errors.Is(r.err, errTLSOnPlain) {
		// A misconfigured client retrying in a loop costs one line a
		// minute per host, as a refused handshake does.
		log, suppressed := c.srv.tlsOnPlainLog.allow(hostOf(c.peer), time.Now())
		if !log {
			return
		}
		if suppressed > 0 {
			attrs = append(attrs, slog.Int("not_logged", suppressed))
		}
	}
	c.srv.log.LogAttrs(context.Background(), level, "connection closed", attrs...)
}

func (c *conn) classify(r closeReason) (slog.Level, string) {
	var le *limitError
	var pe panicError
	var te thrift.TProtocolException
	err := r.err
	switch {
	case err == nil, errors.Is(err, errShutdown):
		return slog.LevelDebug, "server shutting down"
	case errors.As(err, &pe):
		return slog.LevelError, "panic"
	case errors.As(err, &le),
		errors.As(err, &te) && (te.TypeId() == thrift.SIZE_LIMIT || te.TypeId() == thrift.NEGATIVE_SIZE):
		return slog.LevelWarn, "size limit exceeded"
	case errors.Is(err, errAbandoned):
		return slog.LevelDebug, "request abandoned"
	case errors.Is(err, errTLSOnPlain):
		return slog.LevelWarn, "tls client on a plain port"
	case r.phase == phaseReply:
		return slog.LevelDebug, "reply not delivered"
	case errors.Is(err, os.ErrDeadlineExceeded) && r.phase == phaseIdle:
		return slog.LevelDebug, "idle timeout"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return slog.LevelWarn, "request timeout"
	case errors.Is(err, net.ErrClosed):
		return slog.LevelDebug, "closed by server"
	case r.phase == phaseIdle:
		// End of file or a reset between requests: the client hung up.
		return slog.LevelDebug, "client closed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return slog.LevelInfo, "truncated request"
	case errors.Is(err, errFrameEnd), errors.As(err, &te):
		return slog.LevelWarn, "malformed request"
	default:
		return slog.LevelInfo, "read error"
	}
}
