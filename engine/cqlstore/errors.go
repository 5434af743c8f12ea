package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
)

// readConsistency maps a call's 0.6 level onto the cluster's for a read.
// ZERO never reaches a read (the handler refuses it) and ANY is served
// like ONE, as 0.6 served range reads at ANY.
func readConsistency(l engine.ConsistencyLevel) gocql.Consistency {
	switch l {
	case engine.Quorum:
		return gocql.Quorum
	case engine.DCQuorum:
		return gocql.LocalQuorum
	case engine.DCQuorumSync:
		return gocql.EachQuorum
	case engine.All:
		return gocql.All
	case 9, 10: // SERIAL, LOCAL_SERIAL of the 19.x API (cas.go)
		return serialConsistency(l)
	}
	return gocql.One
}

// writeConsistency maps a call's 0.6 level onto the cluster's for a
// write: ZERO, which did not wait at all in 0.6, waits as little as the
// cluster allows (ANY).
func writeConsistency(l engine.ConsistencyLevel) gocql.Consistency {
	switch l {
	case engine.Zero, engine.Any:
		return gocql.Any
	}
	return readConsistency(l)
}

// errRequestTimeout is the cause of a context that Store.withRequestTimeout ended.
var errRequestTimeout = errors.New("cassandra request timeout")

// errHeartbeatFailed is the message the driver gives every request in
// flight on a connection whose node stopped answering its heartbeats; it
// is not a value the driver exports, so it is matched by its text.
const errHeartbeatFailed = "gocql: heartbeat failed"

// clusterError turns a driver error into the store's, as 0.6 reported
// the same outcome: what is known not to have been applied wraps
// engine.ErrUnavailable (0.6's UnavailableException), what may or may not
// have been applied wraps engine.ErrTimedOut (0.6's TimedOutException:
// "the outcome is in doubt"), and anything else keeps the cluster's
// message. A context the caller ended is returned as it is. what says
// what was being done.
func clusterError(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errRequestTimeout):
		return fmt.Errorf("cassandra: %s: %w", what, &engine.TimedOutError{Source: engine.TimeoutRequest,
			Detail: fmt.Sprintf("no answer within cassandra.timeout (%v)%s", requestTimeoutOf(ctx), coordinatorOf(ctx))})
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case valueTooLarge(err):
		return &engine.RefusedError{Why: "Cassandra refused the write: " + err.Error()}
	case unreached(err) && nodeListening(ctx):
		// Not sent, but a node accepts connections: it is alive and
		// slow (a pool reconnecting after heartbeats a busy node missed,
		// every stream in use), and a live Cassandra answers a slow
		// request with TimedOutException, which clients retry.
		return fmt.Errorf("cassandra: %s: %w", what, &engine.TimedOutError{Source: engine.TimeoutBusy,
			Detail: err.Error() + "; a node accepts connections but none could take the request in time"})
	case notApplied(err):
		return fmt.Errorf("cassandra: %s: %v: %w", what, err, engine.ErrUnavailable)
	case inDoubt(err):
		return fmt.Errorf("cassandra: %s: %w", what, timedOut(ctx, err))
	}
	if name, ok := tableGone(err); ok {
		return fmt.Errorf("cassandra: %s: %v: %w", what, err, &engine.UnknownColumnFamilyError{Name: name})
	}
	return fmt.Errorf("cassandra: %s: %w", what, err)
}

// timedOut says which bound an in-doubt outcome ran into: the
// coordinator's own (its read, range or write request timeout, a replica
// failing, or overload), with the consistency level and the replicas that
// answered, or the driver's (no response on the connection within its
// timeout, or the connection lost with the request on it).
func timedOut(ctx context.Context, err error) *engine.TimedOutError {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		re           gocql.RequestError
	)
	switch {
	case errors.As(err, &readTimeout):
		return &engine.TimedOutError{Source: engine.TimeoutNode, Detail: fmt.Sprintf("read: %s (consistency %v, %d of %d replicas answered, data present %v)%s",
			readTimeout.Message(), readTimeout.Consistency, readTimeout.Received, readTimeout.BlockFor, readTimeout.DataPresent != 0, coordinatorOf(ctx))}
	case errors.As(err, &writeTimeout):
		return &engine.TimedOutError{Source: engine.TimeoutNode, Detail: fmt.Sprintf("write %s: %s (consistency %v, %d of %d replicas answered)%s",
			writeTimeout.WriteType, writeTimeout.Message(), writeTimeout.Consistency, writeTimeout.Received, writeTimeout.BlockFor, coordinatorOf(ctx))}
	case errors.As(err, &re):
		return &engine.TimedOutError{Source: engine.TimeoutNode, Detail: fmt.Sprintf("%s (error code %#x)%s", re.Message(), re.Code(), coordinatorOf(ctx))}
	}
	return &engine.TimedOutError{Source: engine.TimeoutDriver, Detail: err.Error() + coordinatorOf(ctx)}
}

// request is the state one data request to the cluster carries in its
// context, under one key (withRequestTimeout puts it there): its time
// limit, the node it was last sent to (the store's query observer fills
// it in, for the log of its timeout) and the store, whose listening
// clusterError asks.
type request struct {
	timeout     time.Duration
	coordinator atomic.Pointer[gocql.HostInfo]
	store       *Store
}

type requestKey struct{}

// requestOf is the state of the request of ctx, or nil.
func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// noteCoordinator records host as the coordinator of the request of ctx:
// the driver's HostInfo, named only when a timeout is logged, not on
// every request.
func noteCoordinator(ctx context.Context, host *gocql.HostInfo) {
	if r := requestOf(ctx); r != nil && host != nil {
		r.coordinator.Store(host)
	}
}

// coordinatorOf is ", coordinator HOST:PORT" for a request of ctx whose
// coordinator is known.
func coordinatorOf(ctx context.Context) string {
	if r := requestOf(ctx); r != nil {
		if h := r.coordinator.Load(); h != nil {
			return ", coordinator " + h.HostnameAndPort()
		}
	}
	return ""
}

// requestTimeoutOf is the limit withRequestTimeout gave the request of ctx.
func requestTimeoutOf(ctx context.Context) time.Duration {
	if r := requestOf(ctx); r != nil {
		return r.timeout
	}
	return 0
}

// tableGone reports whether err is the cluster's refusal of a statement
// on a table that does not exist (dropped under the store: with CQL, in an
// adopted keyspace), and the table's name. Cassandra 4 and 5 say "table
// NAME does not exist"; 3.x said "unconfigured table NAME".
func tableGone(err error) (string, bool) {
	var inv *gocql.RequestErrInvalid
	if !errors.As(err, &inv) {
		return "", false
	}
	m := inv.Message()
	if name, ok := strings.CutPrefix(m, "unconfigured table "); ok && name != "" && !strings.Contains(name, " ") {
		return name, true
	}
	if rest, ok := strings.CutPrefix(m, "table "); ok {
		if name, ok := strings.CutSuffix(rest, " does not exist"); ok && name != "" && !strings.Contains(name, " ") {
			return name, true
		}
	}
	return "", false
}

// valueTooLarge reports the cluster's refusal of a value an index of
// Cassandra's cannot hold (65,535 bytes or more): an adopted table's own
// index, or one an earlier thriftd kept until it is dropped (index.go).
func valueTooLarge(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == 0x2200 && strings.HasPrefix(re.Message(), "Cannot index value of size")
}

// notApplied reports whether err says that the request was refused
// before any replica applied it: too few live replicas, no connection to
// any node, a coordinator that is overloaded or still starting, or a
// node that refused the connection.
func notApplied(err error) bool {
	var (
		unavailable   *gocql.RequestErrUnavailable
		bootstrapping *gocql.RequestErrBootstrapping
		op            *net.OpError
	)
	return errors.As(err, &unavailable) || errors.As(err, &bootstrapping) ||
		errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrNoStreams) ||
		errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && op.Op == "dial")
}

// unreached reports whether err says that the request was not sent
// because the driver had no connection, or no free stream on one, to
// send it on: known not applied, but said of a busy node as of a dead
// one (clusterError tells them apart with nodeListening).
func unreached(err error) bool {
	var op *net.OpError
	return errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrNoStreams) ||
		(errors.As(err, &op) && op.Op == "dial" && !errors.Is(err, syscall.ECONNREFUSED))
}

// nodeListening reports whether a node of the cluster of the request of
// ctx accepts a TCP connection (Store.listening); without a request, no
// node is.
func nodeListening(ctx context.Context) bool {
	r := requestOf(ctx)
	return r != nil && r.store != nil && r.store.listening()
}

// inDoubt reports whether err leaves the outcome unknown: the
// coordinator timed out or a replica failed while applying, the
// coordinator was overloaded (Cassandra also says so once a write was
// sent to some replicas and too many hints are in flight), or the
// connection was lost, reset or silent after the request may have been
// sent (the driver cannot tell whether a node killed mid-request had
// applied it).
func inDoubt(err error) bool {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		writeFailure *gocql.RequestErrWriteFailure
		readFailure  *gocql.RequestErrReadFailure
		cdcFailure   *gocql.RequestErrCDCWriteFailure
		casUnknown   *gocql.RequestErrCASWriteUnknown
		overloaded   *gocql.RequestErrOverloaded
		netErr       net.Error
	)
	switch {
	case errors.As(err, &writeTimeout), errors.As(err, &readTimeout),
		errors.As(err, &writeFailure), errors.As(err, &readFailure),
		errors.As(err, &cdcFailure), errors.As(err, &casUnknown), errors.As(err, &overloaded):
		return true
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrTooManyTimeouts), err.Error() == errHeartbeatFailed:
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.ETIMEDOUT):
		return true
	}
	// Any other socket error (a read or write deadline passed).
	return errors.As(err, &netErr)
}

// readRetry is the retry policy of reads: a read whose connection was
// lost, or whose coordinator was overloaded or starting, is sent once
// more, to the next node the host policy offers (a read changes nothing,
// so sending it twice is harmless). Timeouts and unavailable replicas
// reported by a coordinator are not retried: the coordinator already
// waited for the replicas the consistency level needs. Writes of more
// than one statement and counter writes are never retried: their
// failures reach the client as 0.6 reported them (writeRetry).
type readRetry struct{}

// readRetries is how many times a read is sent again.
const readRetries = 1

func (readRetry) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= readRetries }

func (readRetry) GetRetryType(err error) gocql.RetryType {
	var (
		overloaded    *gocql.RequestErrOverloaded
		bootstrapping *gocql.RequestErrBootstrapping
		answered      gocql.RequestError
	)
	switch {
	case errors.As(err, &overloaded), errors.As(err, &bootstrapping):
		return gocql.RetryNextHost
	case errors.As(err, &answered):
		// The coordinator answered: its answer is the outcome.
		return gocql.Rethrow
	case notApplied(err), inDoubt(err):
		return gocql.RetryNextHost
	}
	return gocql.Rethrow
}

// writeRetry is the retry policy of a write of one statement: the same
// as reads'. Such a write names the client's timestamp, so sending it
// twice writes the same cells (a TTL counts from the second arrival),
// and a write whose connection was lost before its coordinator answered
// (a node draining or stopping in a rolling upgrade) is sent once more,
// to the next node, instead of failing the client's call. A
// coordinator's answer (timeout, unavailable replicas) is the outcome.
type writeRetry struct{ readRetry }
