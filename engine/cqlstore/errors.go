package cqlstore

import (
	"context"
	"errors"
	"fmt"

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

// errRequestTimeout is the cause of a context that Store.bound ended.
var errRequestTimeout = errors.New("cassandra request timeout")

// clusterError turns a driver error into the store's: unavailable
// replicas wrap engine.ErrUnavailable, timeouts engine.ErrTimedOut, and
// anything else keeps the cluster's message. what says what was being
// done.
func clusterError(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	var (
		unavailable  *gocql.RequestErrUnavailable
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errRequestTimeout):
		return fmt.Errorf("cassandra: %s: no answer within the request timeout: %w", what, engine.ErrTimedOut)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &unavailable), errors.Is(err, gocql.ErrNoConnections):
		return fmt.Errorf("cassandra: %s: %v: %w", what, err, engine.ErrUnavailable)
	case errors.As(err, &writeTimeout), errors.As(err, &readTimeout), errors.Is(err, gocql.ErrTimeoutNoResponse):
		return fmt.Errorf("cassandra: %s: %v: %w", what, err, engine.ErrTimedOut)
	}
	return fmt.Errorf("cassandra: %s: %w", what, err)
}
