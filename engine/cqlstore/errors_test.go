package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
)

// TestClusterErrorMapping holds every driver error a dying node, a lost
// connection or an overloaded cluster produces to the 0.6 exception it
// means: known not applied is UnavailableException, in doubt is
// TimedOutException, and anything else keeps its message.
func TestClusterErrorMapping(t *testing.T) {
	sysErr := func(op string, errno syscall.Errno) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}
	}
	const (
		unavailable = "unavailable"
		timedOut    = "timed out"
		other       = "other"
	)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"replicas unavailable", &gocql.RequestErrUnavailable{}, unavailable},
		{"coordinator bootstrapping", &gocql.RequestErrBootstrapping{}, unavailable},
		{"no connection to any node", gocql.ErrNoConnections, unavailable},
		{"no stream free on the connection", gocql.ErrNoStreams, unavailable},
		{"connection refused", sysErr("dial", syscall.ECONNREFUSED), unavailable},
		{"dial timeout", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, unavailable},

		{"write timeout", &gocql.RequestErrWriteTimeout{}, timedOut},
		{"read timeout", &gocql.RequestErrReadTimeout{}, timedOut},
		{"write failure", &gocql.RequestErrWriteFailure{}, timedOut},
		{"read failure", &gocql.RequestErrReadFailure{}, timedOut},
		{"CDC write failure", &gocql.RequestErrCDCWriteFailure{}, timedOut},
		{"CAS write unknown", &gocql.RequestErrCASWriteUnknown{}, timedOut},
		{"coordinator overloaded", &gocql.RequestErrOverloaded{}, timedOut},
		{"no response within the driver timeout", gocql.ErrTimeoutNoResponse, timedOut},
		{"connection closed waiting for the response", gocql.ErrConnectionClosed, timedOut},
		{"too many timeouts on the connection", gocql.ErrTooManyTimeouts, timedOut},
		{"heartbeat failed", fmt.Errorf("gocql: heartbeat failed"), timedOut},
		{"node closed the connection", fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", io.EOF), timedOut},
		{"frame cut short", fmt.Errorf("gocql: failed to read uncompressed frame payload, err: %w", io.ErrUnexpectedEOF), timedOut},
		{"connection reset", fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", sysErr("read", syscall.ECONNRESET)), timedOut},
		{"broken pipe", sysErr("write", syscall.EPIPE), timedOut},
		{"read deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, timedOut},
		{"use of closed connection", fmt.Errorf("read: %w", net.ErrClosed), timedOut},

		{"invalid query", &gocql.RequestErrInvalid{}, other},
		{"syntax error", &gocql.RequestErrSyntax{}, other},
		{"unauthorized", &gocql.RequestErrUnauthorized{}, other},
		{"argument count", gocql.ErrQueryArgLength, other},
		{"session closed", gocql.ErrSessionClosed, other},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := clusterError(context.Background(), "write", c.err)
			kind := other
			switch {
			case errors.Is(got, engine.ErrUnavailable) && errors.Is(got, engine.ErrTimedOut):
				t.Fatalf("%v is both unavailable and timed out", got)
			case errors.Is(got, engine.ErrUnavailable):
				kind = unavailable
			case errors.Is(got, engine.ErrTimedOut):
				kind = timedOut
			}
			if kind != c.want {
				t.Fatalf("clusterError(%T %v) = %v: %s, want %s", c.err, c.err, got, kind, c.want)
			}
			if kind == other && !errors.Is(got, c.err) {
				t.Fatalf("clusterError(%v) = %v: the driver's error is lost", c.err, got)
			}
		})
	}
}

func TestClusterErrorContexts(t *testing.T) {
	if err := clusterError(context.Background(), "read", nil); err != nil {
		t.Fatalf("clusterError(nil) = %v", err)
	}
	st := &Store{opts: Options{Cluster: Cluster{Timeout: 1}}}
	bounded, cancel := st.withRequestTimeout(context.Background())
	defer cancel()
	<-bounded.Done()
	if err := clusterError(bounded, "read", bounded.Err()); !errors.Is(err, engine.ErrTimedOut) {
		t.Errorf("the request timeout gave %v, want TimedOut", err)
	}
	// The caller's own deadline or cancellation is the caller's: returned as it is.
	caller, cancelCaller := context.WithCancel(context.Background())
	cancelCaller()
	if err := clusterError(caller, "read", caller.Err()); err != context.Canceled {
		t.Errorf("a cancelled call gave %v, want context.Canceled", err)
	}
}

// TestReadRetry holds which failed reads are sent again to another node.
func TestReadRetry(t *testing.T) {
	cases := []struct {
		err  error
		want gocql.RetryType
	}{
		{gocql.ErrConnectionClosed, gocql.RetryNextHost},
		{fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", io.EOF), gocql.RetryNextHost},
		{gocql.ErrTimeoutNoResponse, gocql.RetryNextHost},
		{gocql.ErrNoStreams, gocql.RetryNextHost},
		{&gocql.RequestErrOverloaded{}, gocql.RetryNextHost},
		{&gocql.RequestErrBootstrapping{}, gocql.RetryNextHost},
		{&gocql.RequestErrReadTimeout{}, gocql.Rethrow},
		{&gocql.RequestErrWriteTimeout{}, gocql.Rethrow},
		{&gocql.RequestErrReadFailure{}, gocql.Rethrow},
		{&gocql.RequestErrUnavailable{}, gocql.Rethrow},
		{&gocql.RequestErrInvalid{}, gocql.Rethrow},
		{gocql.ErrQueryArgLength, gocql.Rethrow},
	}
	for _, c := range cases {
		if got := (readRetry{}).GetRetryType(c.err); got != c.want {
			t.Errorf("GetRetryType(%T %v) = %v, want %v", c.err, c.err, got, c.want)
		}
		// A write of one statement (client timestamp) the same.
		if got := (writeRetry{}).GetRetryType(c.err); got != c.want {
			t.Errorf("writeRetry: GetRetryType(%T %v) = %v, want %v", c.err, c.err, got, c.want)
		}
	}
	for attempts, want := range []bool{true, true, false, false} {
		if got := (writeRetry{}).Attempt(attemptsQuery(attempts)); got != want {
			t.Errorf("writeRetry: Attempt after %d attempts = %v, want %v", attempts, got, want)
		}
		if got := (readRetry{}).Attempt(attemptsQuery(attempts)); got != want {
			t.Errorf("Attempt after %d attempts = %v, want %v", attempts, got, want)
		}
	}
}

// attemptsQuery is a gocql.RetryableQuery that has been tried n times.
type attemptsQuery int

func (n attemptsQuery) Attempts() int                   { return int(n) }
func (attemptsQuery) SetConsistency(gocql.Consistency)  {}
func (attemptsQuery) GetConsistency() gocql.Consistency { return gocql.One }
func (attemptsQuery) Context() context.Context          { return context.Background() }

// TestTimeoutNamesItsBound holds what a timeout says of the bound that
// ran out: the node's own read or write timeout with its consistency
// level and answers, the driver's, or the store's request bound.
func TestTimeoutNamesItsBound(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		bound string
		says  string
	}{
		{"node's read timeout", &gocql.RequestErrReadTimeout{Consistency: gocql.Quorum, Received: 1, BlockFor: 2}, engine.TimeoutNode, "read:  (consistency QUORUM, 1 of 2 replicas answered, data present false)"},
		{"node's write timeout", &gocql.RequestErrWriteTimeout{Consistency: gocql.One, BlockFor: 1, WriteType: "BATCH"}, engine.TimeoutNode, "write BATCH:  (consistency ONE, 0 of 1 replicas answered)"},
		{"coordinator overloaded", &gocql.RequestErrOverloaded{}, engine.TimeoutNode, "error code"},
		{"driver's timeout", gocql.ErrTimeoutNoResponse, engine.TimeoutDriver, "no response received from cassandra within timeout period"},
		{"connection lost", fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", io.EOF), engine.TimeoutDriver, "EOF"},
	}
	for _, c := range cases {
		err := clusterError(context.Background(), "read t", c.err)
		var to *engine.TimedOutError
		if !errors.As(err, &to) || !errors.Is(err, engine.ErrTimedOut) {
			t.Errorf("%s: %v, want an engine.TimedOutError", c.name, err)
			continue
		}
		if to.Source != c.bound || !strings.Contains(to.Detail, c.says) {
			t.Errorf("%s: bound %q, detail %q; want bound %q saying %q", c.name, to.Source, to.Detail, c.bound, c.says)
		}
	}

	st := &Store{opts: Options{Cluster: Cluster{Timeout: time.Millisecond}}}
	bctx, cancel := st.withRequestTimeout(context.Background())
	defer cancel()
	<-bctx.Done()
	err := clusterError(bctx, "read t", bctx.Err())
	var to *engine.TimedOutError
	if !errors.As(err, &to) || to.Source != engine.TimeoutRequest || !strings.Contains(to.Detail, "cassandra.timeout (1ms)") {
		t.Errorf("the store's request bound: %v, want an engine.TimedOutError of bound %q naming cassandra.timeout (1ms)", err, engine.TimeoutRequest)
	}
}
