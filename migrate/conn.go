package migrate

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// conn is one client connection's proxied service: its origin
// connection, its target connection (handler19's), and its keyspace.
type conn struct {
	p      *Proxy
	target cassandra19.Cassandra
	// origin is the origin connection, dialed at first use (onOrigin).
	origin *originConn
	// keyspace is the client's set_keyspace; targetKeyspace is the one
	// the target connection has taken ("" until it does: the target may
	// lack the keyspace before the copy creates it).
	keyspace       string
	targetKeyspace string
}

var _ cassandra19.Cassandra = (*conn)(nil)

// originUsed reports whether the current settings still reach the origin.
func (c *conn) originUsed() bool {
	r, w := c.p.Modes()
	return w == WriteBoth || r != ReadTarget
}

// onOrigin makes a call on the origin connection, dialing it first when
// needed. A connection that fails is dropped and the client gets
// UnavailableException when the origin took no connection (nothing was
// done) or TimedOutException otherwise (the call may have been applied),
// as the real server answers when its replicas do not.
func (c *conn) onOrigin(ctx context.Context, method string, call func(*originConn) error) error {
	if c.origin == nil {
		oc, err := dialOrigin(ctx, c.p.o.Origin, c.keyspace)
		if err != nil {
			if isTransport(err) {
				c.p.m.originErrors.WithLabelValues(method).Inc()
				c.p.log.Warn("migration proxy: origin unreachable", "origin", c.p.o.Origin.Addr, "method", method, "err", err)
				return cassandra19.NewUnavailableException()
			}
			return err
		}
		c.origin = oc
		// The server tells a processor nothing when its client goes
		// away: the origin connection is closed once the client's
		// connection, and so c, is garbage.
		runtime.AddCleanup(c, func(t thrift.TTransport) { t.Close() }, oc.trans)
	}
	err := call(c.origin)
	if isTransport(err) {
		c.p.m.originErrors.WithLabelValues(method).Inc()
		c.p.log.Warn("migration proxy: origin connection failed; the call may or may not have been applied there",
			"origin", c.p.o.Origin.Addr, "method", method, "keyspace", c.keyspace, "err", err)
		c.origin.trans.Close()
		c.origin = nil
		return cassandra19.NewTimedOutException()
	}
	return err
}

// onTarget makes a call on the target in the client's keyspace.
func (c *conn) onTarget(ctx context.Context, call func() error) error {
	if c.keyspace != c.targetKeyspace {
		if err := c.target.SetKeyspace(ctx, c.keyspace); err != nil {
			return err
		}
		c.targetKeyspace = c.keyspace
	}
	return call()
}

// mayHaveApplied reports whether an origin error leaves the write
// possibly applied there: then it goes to the target too, so that the
// two hold the same whatever the origin did.
func mayHaveApplied(err error) bool {
	var to *cassandra19.TimedOutException
	return errors.As(err, &to)
}

// write is a data write: to the origin, answered as the origin answers,
// then to the target; with origin writes off, to the target alone.
func (c *conn) write(ctx context.Context, method string, args thrift.TStruct, keys func() string, origin func(*originConn) error, target func() error) error {
	if _, w := c.p.Modes(); w == WriteTarget {
		return c.onTarget(ctx, target)
	}
	err := c.onOrigin(ctx, method, origin)
	if err != nil && !mayHaveApplied(err) {
		return err
	}
	if terr := c.onTarget(ctx, target); terr != nil {
		if lerr := c.logFailed(method, args, keys, terr); lerr != nil && err == nil {
			// Neither on the target nor in the log: the client must
			// retry (a Thrift write is idempotent, counters aside).
			return cassandra19.NewTimedOutException()
		}
	}
	return err
}

// logFailed counts, logs and records a target write that failed.
func (c *conn) logFailed(method string, args thrift.TStruct, keys func() string, terr error) error {
	c.p.m.targetFailures.WithLabelValues(method).Inc()
	e, err := entryOf(method, c.keyspace, args)
	if err == nil {
		err = c.p.pending.Append(e)
	}
	if err != nil {
		c.p.log.Error("migration proxy: a target write failed and could not be logged for replay; the client is told to retry",
			"method", method, "keyspace", c.keyspace, "keys", keys(), "target_err", describe(terr), "err", err)
		return err
	}
	c.p.m.pending.Set(float64(c.p.pending.Len()))
	c.p.log.Warn("migration proxy: target write failed; logged for replay", "method", method, "keyspace", c.keyspace,
		"keys", keys(), "err", describe(terr), "pending_writes", c.p.pending.Len())
	return nil
}

// schemaChange applies a system_* call to the origin, then the target.
func (c *conn) schemaChange(ctx context.Context, method string, origin func(*originConn) (string, error), target func() (string, error)) (string, error) {
	if _, w := c.p.Modes(); w == WriteTarget {
		return target()
	}
	var v string
	err := c.onOrigin(ctx, method, func(oc *originConn) (err error) {
		v, err = origin(oc)
		return err
	})
	if err != nil {
		return "", err
	}
	if c.keyspace != "" && c.keyspace != c.targetKeyspace {
		if c.target.SetKeyspace(ctx, c.keyspace) == nil {
			c.targetKeyspace = c.keyspace
		}
	}
	if _, terr := target(); terr != nil {
		c.p.log.Error("migration proxy: a schema change the origin applied was refused by the target", "method", method,
			"keyspace", c.keyspace, "origin", c.p.o.Origin.Addr, "err", describe(terr))
		return "", &cassandra19.InvalidRequestException{Why: fmt.Sprintf(
			"%s was applied to the origin %s but the target refused it (%v): make the target's schema match before writing under it",
			method, c.p.o.Origin.Addr, describe(terr))}
	}
	return v, nil
}

// read answers a read from the cluster the settings name; under both,
// the origin answers and the target's answer is compared.
func read[T any](c *conn, ctx context.Context, method string, keys func() string, origin func(*originConn) (T, error), target func() (T, error)) (T, error) {
	r, _ := c.p.Modes()
	var tv T
	var terr error
	if r != ReadOrigin {
		terr = c.onTarget(ctx, func() (err error) {
			tv, err = target()
			return err
		})
		if r == ReadTarget {
			return tv, terr
		}
	}
	var ov T
	oerr := c.onOrigin(ctx, method, func(oc *originConn) (err error) {
		ov, err = origin(oc)
		return err
	})
	if r == ReadBoth {
		c.compare(method, keys, ov, oerr, tv, terr)
	}
	return ov, oerr
}

func (c *conn) compare(method string, keys func() string, ov any, oerr error, tv any, terr error) {
	c.p.m.compared.WithLabelValues(method).Inc()
	if ok, what := same(ov, oerr, tv, terr); !ok {
		c.p.m.differences.WithLabelValues(method).Inc()
		c.p.log.Warn("migration proxy: the target's answer differs from the origin's", "method", method,
			"keyspace", c.keyspace, "keys", keys(), "difference", what)
	}
}

// Key formats for the logs.
func hexKey(k []byte) func() string { return func() string { return hex.EncodeToString(k) } }

func hexKeys(ks [][]byte) func() string {
	return func() string {
		var out []string
		for i, k := range ks {
			if i == 10 {
				out = append(out, fmt.Sprintf("... (%d keys)", len(ks)))
				break
			}
			out = append(out, hex.EncodeToString(k))
		}
		return strings.Join(out, ",")
	}
}

func mutationKeys(m map[string]map[string][]*cassandra19.Mutation) func() string {
	return func() string {
		ks := make([][]byte, 0, len(m))
		for k := range m {
			ks = append(ks, []byte(k))
		}
		sort.Slice(ks, func(i, j int) bool { return string(ks[i]) < string(ks[j]) })
		return hexKeys(ks)()
	}
}

func rangeKeys(r *cassandra19.KeyRange) func() string {
	return func() string {
		if r == nil {
			return ""
		}
		if r.StartToken != nil {
			return "token " + r.GetStartToken() + ".." + r.GetEndToken()
		}
		return "from " + hex.EncodeToString(r.StartKey) + " to " + hex.EncodeToString(r.EndKey)
	}
}

// withTimestamps gives each deletion sent without a timestamp the
// proxy's, in microseconds as clients write them, so that the origin and
// the target delete the same cells.
func (c *conn) withTimestamps(m map[string]map[string][]*cassandra19.Mutation) {
	now := c.p.o.Now().UnixMicro()
	for _, byCF := range m {
		for _, ms := range byCF {
			for _, mu := range ms {
				if d := mu.Deletion; d != nil && d.Timestamp == nil {
					d.Timestamp = thrift.Int64Ptr(now)
				}
			}
		}
	}
}
