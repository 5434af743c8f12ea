package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
)

// Schema statements on the cluster: the one node they go to (ddlHost),
// their retries (ddl, settled), the nodes' agreement (waitAgreement,
// SchemaVersions), and TRUNCATE.

// agreementTimeout bounds the wait for the nodes' schema agreement after
// a change.
const agreementTimeout = 2 * time.Minute

// unreachable is the key of SchemaVersions under which nodes that did not
// answer are listed, as describe_schema_versions lists them.
const unreachable = "UNREACHABLE"

// SchemaVersions implements engine.SchemaStore by asking every node the
// driver knows for its own schema version (system.local, each node
// directly), at once; a node that does not answer within 5 seconds is
// UNREACHABLE. Nodes are named by their address, as the real server's
// describe_schema_versions names them. The nodes that hold the same
// cluster schema as the node schema statements go to (ddlHost, which
// applied the last change first) are listed under the version of the
// schema this store serves; a node that has not caught up is listed under
// its own cluster schema version, so that more than one entry (besides
// UNREACHABLE) means disagreement, as in Cassandra.
func (st *Store) SchemaVersions(ctx context.Context) (map[string][]string, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	byNode, err := st.nodeSchemas(ctx)
	if err != nil {
		return nil, err
	}
	st.schemaMu.Lock()
	served := ""
	if st.current != nil {
		served = st.current.Version
	}
	st.schemaMu.Unlock()
	ref := byNode[st.ddlHost()].version
	out := map[string][]string{}
	for _, n := range byNode {
		v := n.version
		if v == ref && v != unreachable && served != "" {
			v = served
		}
		out[v] = append(out[v], n.addr)
	}
	for _, nodes := range out {
		sort.Strings(nodes)
	}
	return out, nil
}

// nodeSchema is one node's cluster schema version.
type nodeSchema struct{ addr, version string }

// nodeSchemas asks every node for its schema version, by host id.
func (st *Store) nodeSchemas(ctx context.Context) (map[string]nodeSchema, error) {
	hosts := st.session.GetHosts()
	if len(hosts) == 0 {
		return nil, fmt.Errorf("cassandra: the driver knows no node of the cluster")
	}
	versions := make([]string, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			var v gocql.UUID
			err := st.session.Query(`SELECT schema_version FROM system.local WHERE key = 'local'`).
				WithContext(qctx).SetHostID(h.HostID()).Consistency(gocql.One).Scan(&v)
			if err == nil {
				versions[i] = v.String()
			} else {
				versions[i] = unreachable
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := map[string]nodeSchema{}
	for i, h := range hosts {
		out[h.HostID()] = nodeSchema{addr: h.ConnectAddress().String(), version: versions[i]}
	}
	return out, nil
}

// schemaVersions groups the nodes by their cluster schema version.
func (st *Store) schemaVersions(ctx context.Context) (map[string][]string, error) {
	byNode, err := st.nodeSchemas(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, n := range byNode {
		out[n.version] = append(out[n.version], n.addr)
	}
	return out, nil
}

// waitAgreement waits until every node that answers holds one schema
// version (nodes down pull the schema when they return, as Cassandra's
// own agreement ignores them), for at most agreementTimeout, and fails
// naming the versions and their nodes.
func (st *Store) waitAgreement(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, agreementTimeout)
	defer cancel()
	var last map[string][]string
	for {
		v, err := st.schemaVersions(ctx)
		if err == nil {
			last = v
			live := 0
			for k := range v {
				if k != unreachable {
					live++
				}
			}
			if live <= 1 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cassandra: the nodes have not agreed on the schema within %v; schema versions: %s", agreementTimeout, formatVersions(last))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func formatVersions(v map[string][]string) string {
	if v == nil {
		return "unknown (no node answered)"
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + strings.Join(v[k], ",")
	}
	return strings.Join(parts, "; ")
}

// awaitHosts waits, for at most 20 seconds, until the driver knows every
// node the cluster lists (system.local and system.peers) and holds them
// up, so that ddlHost picks the same node in every process from the start
// (the driver discovers the ring after connecting).
func (st *Store) awaitHosts(ctx context.Context) error {
	var ids []string
	var id gocql.UUID
	if err := st.session.Query(`SELECT host_id FROM system.local WHERE key = 'local'`).WithContext(ctx).Scan(&id); err != nil {
		return clusterError(ctx, "read system.local", err)
	}
	ids = append(ids, id.String())
	iter := st.session.Query(`SELECT host_id FROM system.peers`).WithContext(ctx).Iter()
	for iter.Scan(&id) {
		ids = append(ids, id.String())
	}
	if err := iter.Close(); err != nil {
		return clusterError(ctx, "read system.peers", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		up := map[string]bool{}
		for _, h := range st.session.GetHosts() {
			if h.IsUp() {
				up[h.HostID()] = true
			}
		}
		missing := 0
		for _, id := range ids {
			if !up[id] {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			if missing > 0 {
				st.logger().Warn("the driver does not hold every node of the cluster up; schema statements go to the lowest host id it holds up", "nodes", len(ids), "missing", missing)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ddlHost is the host id every schema statement is sent to: the live
// node with the lowest host id, the same in every thriftd process.
func (st *Store) ddlHost() string {
	var best string
	for _, h := range st.session.GetHosts() {
		if id := h.HostID(); h.IsUp() && id != "" && (best == "" || id < best) {
			best = id
		}
	}
	return best
}

// schemaQuery is a query of the schema or of thriftd's own tables, sent
// to ddlHost: the node that applied every schema change first, so that a
// table just created by this or another process is known there.
func (st *Store) schemaQuery(stmt string, args ...any) *gocql.Query {
	q := st.session.Query(stmt, args...)
	if id := st.ddlHost(); id != "" {
		q = q.SetHostID(id)
	}
	return q
}

// ddlAttempts is how many times a schema statement is sent before its
// error is returned.
const ddlAttempts = 8

// ddl runs one idempotent schema statement on ddlHost. A statement the
// node refuses for a reason other than the statement itself (a node that
// has not caught up with the schema answers "Unknown CF <id>"; a timeout;
// a lost connection) is sent again once the nodes agree, up to
// ddlAttempts times.
func (st *Store) ddl(ctx context.Context, stmt string) error {
	var err error
	for attempt := 1; ; attempt++ {
		q := st.session.Query(stmt).WithContext(ctx).Consistency(gocql.One)
		if id := st.ddlHost(); id != "" {
			q = q.SetHostID(id)
		}
		if err = q.Exec(); err == nil {
			return nil
		}
		if !retryableDDL(err) || attempt == ddlAttempts || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		st.logger().Warn("schema statement refused; retrying once the nodes agree", "cql", stmt, "attempt", attempt, "err", err)
		_ = st.waitAgreement(ctx)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", stmt, err)
		case <-time.After(time.Duration(attempt) * 250 * time.Millisecond):
		}
	}
}

// schemaSettling reports whether err is a node's refusal of a request
// about a table or keyspace whose creation it is still applying: Cassandra
// 5 can answer a concurrent CREATE ... IF NOT EXISTS before the table it
// found is usable, so a read right after it may be refused for a moment.
func schemaSettling(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "does not exist") || strings.Contains(msg, "unconfigured table") ||
		strings.Contains(msg, "Unknown CF") || strings.Contains(msg, "Keyspace") && strings.Contains(msg, "doesn't exist")
}

// settled runs fn, an idempotent sequence of schema steps, again while it
// fails because the schema is still settling (schemaSettling), up to
// ddlAttempts times, or because a request of it timed out or found no
// node to take it (a busy cluster), for up to agreementTimeout, each time
// once the nodes agree: a schema call answers an error only when the
// cluster keeps refusing it.
func (st *Store) settled(ctx context.Context, fn func() error) error {
	start := time.Now()
	for attempt := 1; ; attempt++ {
		err := fn()
		transient := err != nil && (errors.Is(err, engine.ErrTimedOut) || errors.Is(err, engine.ErrUnavailable) || unreached(err) || inDoubt(err))
		switch {
		case ctx.Err() != nil:
			return err
		case transient && time.Since(start) < agreementTimeout:
			st.logger().Warn("a schema change's request failed on a busy or unreachable cluster; trying again", "attempt", attempt, "err", err)
		case schemaSettling(err) && attempt < ddlAttempts:
			st.logger().Warn("the cluster is still applying a schema change; trying again", "attempt", attempt, "err", err)
		default:
			return err
		}
		_ = st.waitAgreement(ctx)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(time.Duration(attempt)*250*time.Millisecond, 2*time.Second)):
		}
	}
}

// retryableDDL reports whether a schema statement's error is not about
// the statement: the CQL error codes of a bad statement (syntax,
// unauthorized, invalid, configuration, already exists) are final.
func retryableDDL(err error) bool {
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case 0x2000, 0x2100, 0x2200, 0x2300, 0x2400:
			return false
		}
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Truncate implements engine.Truncater with CQL's TRUNCATE, which is the
// operation 1.2's truncate was: every replica must be up (else
// engine.ErrUnavailable), and every column written before the call is
// gone whatever its timestamp, while writes after it are kept whatever
// theirs (a truncation is not a tombstone). A truncation the nodes did
// not confirm in time wraps engine.ErrTimedOut.
func (st *Store) Truncate(ctx context.Context, keyspace, columnFamily string) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	f, err := st.family(keyspace, columnFamily)
	if err != nil {
		return err
	}
	if f.system {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, schemaTimeout)
	defer cancel()
	err = st.session.Query(`TRUNCATE ` + f.table).WithContext(ctx).Consistency(gocql.All).Exec()
	var te *gocql.RequestErrTruncate
	if errors.As(err, &te) {
		return fmt.Errorf("cassandra: truncate %s: %v: %w", f.table, err, engine.ErrTimedOut)
	}
	return clusterError(ctx, "truncate "+f.table, err)
}
