package cqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// The schema record: the run-time schema on the cluster
// (engine.SchemaStore), read and recorded here, planned in plan.go,
// applied in apply.go, with its statements sent and agreed on in ddl.go.
//
// The catalog's encoded schema is one row of catalogTable in the keyspace
// Prefix+catalogKeyspace, with a version that grows by one per change:
//
//	CREATE TABLE schema_record (id text PRIMARY KEY, version bigint, encoded blob)
//	CREATE TABLE families (keyspace_name text, column_family text, PRIMARY KEY (keyspace_name, column_family))
//
// ChangeSchema records with a lightweight transaction on the version this
// store last read, so that of two thriftd processes changing the schema
// at once one wins and the other is told to read it again; families lists
// every keyspace and column family thriftd created under the prefix, so a
// change drops exactly what the previous schema had and the next lacks,
// whichever process created it.
//
// Every schema statement is sent to one node, the live node with the
// lowest host id (ddlHost), so that statements from several processes are
// applied one after the other by one node and a table is never created
// twice with two ids (which is what makes a node refuse a later statement
// with "Unknown CF <id>"); a statement refused by a node that has not
// caught up is retried after the cluster agrees again (ddl).

// catalogKeyspace follows the prefix in the name of the keyspace that
// holds the recorded schema; no 19.x keyspace may take that name.
const catalogKeyspace = "thriftd_catalog"

const (
	catalogTable  = "schema_record"
	familiesTable = "families"
	recordID      = "schema"
)

// catalogState is what the store knows of the recorded schema. It is
// guarded by Store.schemaMu.
type catalogState struct {
	ready   bool   // the catalog keyspace and tables exist
	read    bool   // version and encoded were read or written by this store
	version int64  // 0: nothing recorded
	encoded []byte // the bytes of version
}

var (
	_ engine.SchemaStore = (*Store)(nil)
	_ engine.Truncater   = (*Store)(nil)
)

func (st *Store) catalogKS() string { return st.opts.Prefix + catalogKeyspace }

func (st *Store) catalogName(table string) string { return quote(st.catalogKS()) + "." + table }

// ensureCatalog creates the catalog keyspace and tables when missing. Its
// replication factor is the number of nodes, at most 3, so that the
// lightweight transactions recording a change find a quorum.
func (st *Store) ensureCatalog(ctx context.Context) error {
	if st.catalog.ready {
		return nil
	}
	existing, err := st.existingTables(ctx)
	if err != nil {
		return err
	}
	have := existing[st.catalogKS()]
	if !have[catalogTable] || !have[familiesTable] {
		rf := min(len(st.session.GetHosts()), 3)
		if rf < 1 {
			rf = 1
		}
		if have == nil {
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}`,
				quote(st.catalogKS()), rf)); err != nil {
				return err
			}
		}
		if err := st.ddl(ctx, `CREATE TABLE IF NOT EXISTS `+st.catalogName(catalogTable)+
			` (id text PRIMARY KEY, version bigint, encoded blob) WITH comment = 'thriftd: the recorded schema'`); err != nil {
			return err
		}
		if err := st.ddl(ctx, `CREATE TABLE IF NOT EXISTS `+st.catalogName(familiesTable)+
			` (keyspace_name text, column_family text, PRIMARY KEY (keyspace_name, column_family)) WITH comment = 'thriftd: what the 19.x schema created'`); err != nil {
			return err
		}
		if err := st.waitAgreement(ctx); err != nil {
			return err
		}
	}
	st.catalog.ready = true
	return nil
}

// StoredSchema implements engine.SchemaStore. It reads the recorded
// version at QUORUM, and the encoded schema only when the version is not
// the one it read last: the catalog polls it every few seconds.
func (st *Store) StoredSchema(ctx context.Context) ([]byte, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	st.schemaMu.Lock()
	defer st.schemaMu.Unlock()
	if err := st.readRecord(ctx); err != nil {
		return nil, err
	}
	return bytes.Clone(st.catalog.encoded), nil
}

// readRecord brings st.catalog up to the recorded schema.
func (st *Store) readRecord(ctx context.Context) error {
	return st.settled(ctx, func() error { return st.readRecordOnce(ctx) })
}

func (st *Store) readRecordOnce(ctx context.Context) error {
	return st.readRecordOnceAt(ctx, gocql.Quorum)
}

// readRecordAt is readRecord at consistency c: gocql.Serial completes a
// schema change whose transaction's outcome is unknown before reading.
func (st *Store) readRecordAt(ctx context.Context, c gocql.Consistency) error {
	return st.settled(ctx, func() error { return st.readRecordOnceAt(ctx, c) })
}

func (st *Store) readRecordOnceAt(ctx context.Context, c gocql.Consistency) error {
	if err := st.ensureCatalog(ctx); err != nil {
		return err
	}
	var version int64
	err := st.schemaQuery(`SELECT version FROM `+st.catalogName(catalogTable)+` WHERE id = ?`, recordID).
		WithContext(ctx).Consistency(c).Idempotent(true).RetryPolicy(readRetry{}).Scan(&version)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		st.catalog.read, st.catalog.version, st.catalog.encoded = true, 0, nil
		return nil
	case err != nil:
		return clusterError(ctx, "read the recorded schema's version", err)
	case st.catalog.read && version == st.catalog.version:
		return nil
	}
	var encoded []byte
	err = st.schemaQuery(`SELECT version, encoded FROM `+st.catalogName(catalogTable)+` WHERE id = ?`, recordID).
		WithContext(ctx).Consistency(c).Idempotent(true).RetryPolicy(readRetry{}).Scan(&version, &encoded)
	if err != nil {
		return clusterError(ctx, "read the recorded schema", err)
	}
	st.catalog.read, st.catalog.version, st.catalog.encoded = true, version, nonNil(encoded)
	return nil
}

// ChangeSchema implements engine.SchemaStore: it records encoded (a
// lightweight transaction on the version last read: another process's
// change in between fails the call), then creates, alters and drops the
// keyspaces and tables, waits until every reachable node holds the same
// schema version, and serves next.
//
// Called with the schema already recorded (another thriftd made the
// change and this process's catalog read it), it records nothing and
// drops nothing: it creates what is missing, in case the first process
// has not finished, and serves next.
func (st *Store) ChangeSchema(ctx context.Context, next *schema.Schema, encoded []byte) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	st.schemaMu.Lock()
	defer st.schemaMu.Unlock()
	if err := st.checkNext(next); err != nil {
		return err
	}
	if !st.catalog.read {
		if err := st.readRecord(ctx); err != nil {
			return err
		}
	}
	author := false
	if st.catalog.encoded == nil || !bytes.Equal(st.catalog.encoded, encoded) {
		var err error
		if author, err = st.record(ctx, encoded); err != nil {
			return err
		}
	}
	if err := st.settled(ctx, func() error { return st.applySchema(ctx, next, author) }); err != nil {
		return err
	}
	if err := st.waitAgreement(ctx); err != nil {
		return err
	}
	return st.serve(ctx, next)
}

// FollowSchema serves next, a schema another thriftd recorded and this
// process's catalog read (schema/catalog's Follower): it waits until the
// nodes agree, creates nothing and drops nothing, and serves each family
// in the layout its table has (or, for a table the other process has not
// created yet, the layout it will have).
func (st *Store) FollowSchema(ctx context.Context, next *schema.Schema) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	st.schemaMu.Lock()
	defer st.schemaMu.Unlock()
	if err := st.waitAgreement(ctx); err != nil {
		return err
	}
	return st.serve(ctx, next)
}

// checkNext refuses a schema the cluster cannot hold. A name the cluster
// cannot take (too long once prefixed, thriftd's own) is the client's
// change refused: an engine.RefusedError, which the client gets as an
// InvalidRequestException naming the limit.
func (st *Store) checkNext(next *schema.Schema) error {
	if next.Partitioner.Name() != st.part.Name() {
		return fmt.Errorf("cqlstore: the schema's partitioner %s is not the store's %s", next.Partitioner.Name(), st.part.Name())
	}
	if err := checkNames(next, st.opts.Prefix); err != nil {
		return &engine.RefusedError{Why: err.Error()}
	}
	for name, ks := range next.Keyspaces {
		if !ks.System && strings.EqualFold(st.opts.Prefix+name, st.catalogKS()) {
			return &engine.RefusedError{Why: fmt.Sprintf("the schema cannot be stored in Cassandra: keyspace %s: its CQL name %s is thriftd's own catalog keyspace", name, st.catalogKS())}
		}
	}
	return nil
}

// record writes encoded as the next version, if the recorded version is
// still the one this store read; author reports whether it wrote (false:
// another process had recorded these very bytes).
//
// A transaction whose outcome is unknown (the coordinator timed out, or a
// proposal reached fewer replicas than a quorum: "CAS operation result is
// unknown") is settled by a serial read, which completes or supersedes any
// proposal in flight: the record then holds these bytes at the next
// version (applied), still the version this store read (not applied: sent
// again), or another process's change.
func (st *Store) record(ctx context.Context, encoded []byte) (author bool, err error) {
	next := st.catalog.version + 1
	q := st.recordQuery(st.catalog.version, encoded)
	var applied bool
	for attempt := 1; ; attempt++ {
		applied, err = st.recordOnce(ctx, q, attempt)
		if err == nil || !(unreached(err) || inDoubt(err)) || attempt == ddlAttempts || ctx.Err() != nil {
			break
		}
		st.logger().Warn("recording the schema failed; reading the record serially and trying again", "attempt", attempt, "err", err)
		if rerr := st.readRecordAt(ctx, gocql.Serial); rerr != nil {
			st.logger().Warn("reading the schema record failed", "attempt", attempt, "err", rerr)
		} else {
			if st.catalog.version == next && bytes.Equal(st.catalog.encoded, encoded) {
				return true, nil
			}
			if st.catalog.version != next-1 {
				// Another process recorded its change first: this one
				// was not applied, and the caller reads that record.
				return false, st.schemaChanged()
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * 250 * time.Millisecond):
		}
	}
	if err != nil {
		return false, clusterError(ctx, "record the schema", err)
	}
	if applied {
		st.catalog.version, st.catalog.encoded = next, bytes.Clone(encoded)
		return true, nil
	}
	if err := st.readRecord(ctx); err != nil {
		return false, err
	}
	if bytes.Equal(st.catalog.encoded, encoded) {
		return false, nil
	}
	return false, st.schemaChanged()
}

// recordQuery is the lightweight transaction that records encoded as the
// version after read, the version a store read last (0: nothing was
// recorded): it applies only if the record still holds read.
func (st *Store) recordQuery(read int64, encoded []byte) *gocql.Query {
	if read == 0 {
		return st.schemaQuery(`INSERT INTO `+st.catalogName(catalogTable)+` (id, version, encoded) VALUES (?, ?, ?) IF NOT EXISTS`,
			recordID, read+1, nonNil(encoded))
	}
	return st.schemaQuery(`UPDATE `+st.catalogName(catalogTable)+` SET version = ?, encoded = ? WHERE id = ? IF version = ?`,
		read+1, nonNil(encoded), recordID, read)
}

// schemaChanged is record's error when another process recorded its
// change first, the version now read.
func (st *Store) schemaChanged() error {
	return fmt.Errorf("cqlstore: %w (now version %d) since this one read it; read it again and retry", ErrSchemaChanged, st.catalog.version)
}

// recordOnce sends the schema record's transaction; st.recordHook, set
// by tests, may answer in its place.
func (st *Store) recordOnce(ctx context.Context, q *gocql.Query, attempt int) (bool, error) {
	if st.recordHook != nil {
		if applied, done, err := st.recordHook(ctx, q, attempt); done {
			return applied, err
		}
	}
	return q.WithContext(ctx).Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{})
}

// ErrSchemaChanged is wrapped by ChangeSchema's error when another
// process recorded a schema since this store last read it: the change was
// not made, and the caller should read the recorded schema again.
var ErrSchemaChanged = errors.New("the schema was changed by another thriftd")

// register notes in the catalog that thriftd created keyspace ks (cf
// empty) or its column family cf.
func (st *Store) register(ctx context.Context, ks, cf string) error {
	err := st.schemaQuery(`INSERT INTO `+st.catalogName(familiesTable)+` (keyspace_name, column_family) VALUES (?, ?)`, ks, cf).
		WithContext(ctx).Consistency(gocql.Quorum).Exec()
	return clusterError(ctx, "register "+ks+"."+cf, err)
}

// createdFamilies reads what the catalog says thriftd created.
func (st *Store) createdFamilies(ctx context.Context) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	iter := st.schemaQuery(`SELECT keyspace_name, column_family FROM ` + st.catalogName(familiesTable)).
		WithContext(ctx).Consistency(gocql.Quorum).PageSize(pageSize).Iter()
	var ks, cf string
	for iter.Scan(&ks, &cf) {
		if out[ks] == nil {
			out[ks] = map[string]bool{}
		}
		if cf != "" {
			out[ks][cf] = true
		}
	}
	return out, clusterError(ctx, "read "+st.catalogName(familiesTable), iter.Close())
}
