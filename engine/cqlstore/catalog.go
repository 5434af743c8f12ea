package cqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// Run-time schema on the cluster (engine.SchemaStore, engine.Truncater).
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

// agreementTimeout bounds the wait for the nodes' schema agreement after
// a change.
const agreementTimeout = 2 * time.Minute

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
	var q *gocql.Query
	if st.catalog.version == 0 {
		q = st.schemaQuery(`INSERT INTO `+st.catalogName(catalogTable)+` (id, version, encoded) VALUES (?, ?, ?) IF NOT EXISTS`,
			recordID, next, nonNil(encoded))
	} else {
		q = st.schemaQuery(`UPDATE `+st.catalogName(catalogTable)+` SET version = ?, encoded = ? WHERE id = ? IF version = ?`,
			next, nonNil(encoded), recordID, st.catalog.version)
	}
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
				return false, fmt.Errorf("cqlstore: %w (now version %d) since this one read it; read it again and retry", ErrSchemaChanged, st.catalog.version)
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
	return false, fmt.Errorf("cqlstore: %w (now version %d) since this one read it; read it again and retry", ErrSchemaChanged, st.catalog.version)
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

// applySchema makes the keyspaces and tables under the prefix those of
// next. Only the author of the change drops anything.
func (st *Store) applySchema(ctx context.Context, next *schema.Schema, author bool) error {
	existing, err := st.existingTables(ctx)
	if err != nil {
		return err
	}
	created, err := st.createdFamilies(ctx)
	if err != nil {
		return err
	}
	// What the previous schema had: this store's, and whatever thriftd
	// created under the prefix, by any process.
	prev := map[string]map[string]bool{}
	add := func(ks, cf string) {
		if prev[ks] == nil {
			prev[ks] = map[string]bool{}
		}
		if cf != "" {
			prev[ks][cf] = true
		}
	}
	if cur := st.current; cur != nil {
		for name, ks := range cur.Keyspaces {
			if ks.System {
				continue
			}
			add(name, "")
			for cf := range ks.ColumnFamilies {
				add(name, cf)
			}
		}
	}
	for ks, cfs := range created {
		add(ks, "")
		for cf := range cfs {
			add(ks, cf)
		}
	}
	var drops []string
	var unregister [][2]string
	if author {
		for ks, cfs := range prev {
			nks := next.Keyspaces[ks]
			if nks == nil || nks.System {
				drops = append(drops, `DROP KEYSPACE IF EXISTS `+quote(keyspaceName(st.opts.Prefix, ks)))
				unregister = append(unregister, [2]string{ks, ""})
				for cf := range cfs {
					unregister = append(unregister, [2]string{ks, cf})
				}
				continue
			}
			for cf := range cfs {
				if nks.ColumnFamilies[cf] == nil {
					cqlKS := keyspaceName(st.opts.Prefix, ks)
					drops = append(drops, `DROP TABLE IF EXISTS `+quote(cqlKS)+`.`+quote(cf),
						fmt.Sprintf(`DELETE FROM %s.%s WHERE column_family = %s`, quote(cqlKS), schemaTable, quoteString(cf)))
					unregister = append(unregister, [2]string{ks, cf})
				}
			}
		}
	}
	if author {
		// A table of a family new to the schema that exists already was
		// left by an earlier schema whose record is gone (a record
		// emptied by hand, as test harnesses do): it may have other
		// types, and the new family starts empty.
		for _, name := range next.KeyspaceNames() {
			ks := next.Keyspaces[name]
			if ks.System {
				continue
			}
			cqlKS := keyspaceName(st.opts.Prefix, name)
			for cf := range ks.ColumnFamilies {
				if existing[cqlKS][cf] && !prev[name][cf] {
					drops = append(drops, `DROP TABLE IF EXISTS `+quote(cqlKS)+`.`+quote(cf),
						fmt.Sprintf(`DELETE FROM %s.%s WHERE column_family = %s`, quote(cqlKS), schemaTable, quoteString(cf)))
				}
			}
		}
	}
	sort.Strings(drops)
	for _, stmt := range drops {
		if strings.HasPrefix(stmt, "DELETE") {
			if err := st.recordExec(ctx, stmt); err != nil {
				return clusterError(ctx, stmt, err)
			}
			continue
		}
		// A dropped table's name is free again at once for the table
		// created next (a later family of the same name starts empty).
		if err := st.ddl(ctx, stmt); err != nil {
			return err
		}
		st.logger().Info("schema change", "cql", stmt)
	}
	for _, u := range unregister {
		if err := st.schemaQuery(`DELETE FROM `+st.catalogName(familiesTable)+` WHERE keyspace_name = ? AND column_family = ?`, u[0], u[1]).
			WithContext(ctx).Consistency(gocql.Quorum).Exec(); err != nil {
			return clusterError(ctx, "unregister "+u[0]+"."+u[1], err)
		}
	}
	if len(drops) > 0 {
		if existing, err = st.existingTables(ctx); err != nil {
			return err
		}
	}
	replications, err := st.replications(ctx)
	if err != nil {
		return err
	}
	var tables []string
	fresh := map[cfName]bool{} // families whose tables this change creates
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		if ks.System {
			continue
		}
		cqlKS := keyspaceName(st.opts.Prefix, name)
		repl, err := st.replicationOf(ks)
		if err != nil {
			return err
		}
		if existing[cqlKS] == nil {
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s AND durable_writes = %t`,
				quote(cqlKS), repl.cql(), ks.Options.DurableWrites || ks.Options.StrategyClass == "")); err != nil {
				return err
			}
		} else if got, ok := replications[cqlKS]; ok && !maps.Equal(got, repl) {
			if err := st.ddl(ctx, fmt.Sprintf(`ALTER KEYSPACE %s WITH replication = %s`, quote(cqlKS), repl.cql())); err != nil {
				return err
			}
		}
		if !existing[cqlKS][schemaTable] {
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.%s (column_family text PRIMARY KEY, partitioner text, column_type text, compare_with text, compare_subcolumns_with text)`,
				quote(cqlKS), schemaTable)); err != nil {
				return err
			}
		}
		if err := st.register(ctx, name, ""); err != nil {
			return err
		}
		for _, cf := range sortedFamilies(ks) {
			def := ks.ColumnFamilies[cf]
			if existing[cqlKS][cf] {
				continue
			}
			fresh[cfName{name, cf}] = true
			if def.Super && counterFamily(def) {
				tables = append(tables, st.superCounterTable(cqlKS, def))
			} else if def.Super {
				tables = append(tables, st.createTable(cqlKS, cf, def))
			} else {
				tables = append(tables, st.typedTable(cqlKS, def))
			}
			if err := st.register(ctx, name, cf); err != nil {
				return err
			}
		}
	}
	if len(tables) > 0 {
		// The keyspaces' thriftd_schema tables are read next, perhaps
		// through other coordinators.
		if err := st.waitAgreement(ctx); err != nil {
			return err
		}
	}
	for _, stmt := range tables {
		if err := st.ddl(ctx, stmt); err != nil {
			return err
		}
		st.logger().Info("schema change", "cql", stmt)
	}
	if err := st.addBlobValues(ctx, next, existing); err != nil {
		return err
	}
	// Record each new family as the 0.6 path does, so that a start with
	// a configuration that drifted from it is refused.
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		if ks.System {
			continue
		}
		cqlKS := keyspaceName(st.opts.Prefix, name)
		for _, cf := range sortedFamilies(ks) {
			if existing[cqlKS][cf] {
				continue
			}
			d := describe(next.Partitioner.Name(), ks.ColumnFamilies[cf])
			err := st.recordExec(ctx, fmt.Sprintf(`INSERT INTO %s.%s (column_family, partitioner, column_type, compare_with, compare_subcolumns_with) VALUES (?, ?, ?, ?, ?)`, quote(cqlKS), schemaTable),
				d.name, d.partitioner, d.typ, d.comparator, d.subComparator)
			if err != nil {
				return clusterError(ctx, "record column family "+name+"."+cf, err)
			}
		}
	}
	return st.syncIndexes(ctx, next, author, fresh)
}

// addBlobValues gives blob_value (typed.go) to each existing table whose
// value column's type cannot hold what its family's validators now allow:
// a column declared, or a default validator set, by
// system_update_column_family after the table was created with a typed
// value. Its values stay where they are; ADD IF NOT EXISTS makes the
// statement safe to repeat, by this process or another.
func (st *Store) addBlobValues(ctx context.Context, next *schema.Schema, existing map[string]map[string]bool) error {
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		cqlKS := keyspaceName(st.opts.Prefix, name)
		if ks.System || len(existing[cqlKS]) == 0 {
			continue
		}
		var cols map[string]tableColumns
		for _, cf := range sortedFamilies(ks) {
			def := ks.ColumnFamilies[cf]
			if !existing[cqlKS][cf] || def.Super || counterFamily(def) {
				continue
			}
			if cols == nil {
				var err error
				if cols, err = st.columnsOf(ctx, cqlKS); err != nil {
					return err
				}
			}
			c := cols[cf]
			if _, has := c.types[blobValueColumn]; has || !needsBlobValue(def, c.types["value"]) {
				continue
			}
			stmt := `ALTER TABLE ` + quote(cqlKS) + `.` + quote(cf) + ` ADD IF NOT EXISTS ` + blobValueColumn + ` blob`
			if err := st.ddl(ctx, stmt); err != nil {
				return err
			}
			st.logger().Info("schema change", "cql", stmt)
		}
	}
	return nil
}

// recordExec writes or deletes a family's record in its keyspace's
// thriftd_schema table, at QUORUM, or at ONE when the keyspace has too few
// live replicas for a quorum (its replication factor raised above the
// cluster's nodes, which 1.2 allowed): a schema change in 1.2 did not
// depend on the keyspace's replicas, so neither does one here. The
// record only lets a later start refuse a storage-conf.xml that drifted
// from the family; the catalog (at QUORUM) stays the schema's record.
func (st *Store) recordExec(ctx context.Context, stmt string, args ...any) error {
	err := st.schemaQuery(stmt, args...).WithContext(ctx).Consistency(gocql.Quorum).Exec()
	var unavailable *gocql.RequestErrUnavailable
	if errors.As(err, &unavailable) {
		err = st.schemaQuery(stmt, args...).WithContext(ctx).Consistency(gocql.One).Exec()
	}
	return err
}

func sortedFamilies(ks *schema.Keyspace) []string {
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

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

// replication is a keyspace's replication map as system_schema.keyspaces
// holds it.
type replication map[string]string

func (r replication) cql() string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteString(k) + ": " + quoteString(r[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// replicationOf maps a keyspace's 19.x strategy onto Cassandra 5's:
// SimpleStrategy and NetworkTopologyStrategy as they are,
// OldNetworkTopologyStrategy (which Cassandra 5 no longer has) as
// SimpleStrategy with its replication factor, and 0.6's strategies as at
// start (replication).
func (st *Store) replicationOf(ks *schema.Keyspace) (replication, error) {
	class := ks.Options.StrategyClass
	opts := ks.Options.StrategyOptions
	const locator = "org.apache.cassandra.locator."
	switch strings.TrimPrefix(class, locator) {
	case "NetworkTopologyStrategy":
		r := replication{"class": locator + "NetworkTopologyStrategy"}
		for dc, rf := range opts {
			if dc != "replication_factor" {
				r[dc] = rf
			}
		}
		return r, nil
	case "SimpleStrategy", "OldNetworkTopologyStrategy":
		rf := opts["replication_factor"]
		if rf == "" {
			rf = "1"
		}
		return replication{"class": locator + "SimpleStrategy", "replication_factor": rf}, nil
	}
	rf := max(ks.ReplicationFactor, 1)
	if strings.HasSuffix(ks.ReplicaPlacementStrategy, "DatacenterShardStrategy") || strings.HasSuffix(class, "DatacenterShardStrategy") {
		dc := st.opts.Cluster.LocalDC
		if dc == "" {
			return nil, fmt.Errorf("keyspace %s: DatacenterShardStrategy needs the local data center (-cassandra-dc)", ks.Name)
		}
		return replication{"class": locator + "NetworkTopologyStrategy", dc: itoa(rf)}, nil
	}
	return replication{"class": locator + "SimpleStrategy", "replication_factor": itoa(rf)}, nil
}

// replications reads every keyspace's replication map.
func (st *Store) replications(ctx context.Context) (map[string]replication, error) {
	out := map[string]replication{}
	iter := st.schemaQuery(`SELECT keyspace_name, replication FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var ks string
	var r map[string]string
	for iter.Scan(&ks, &r) {
		out[ks] = r
		r = nil
	}
	return out, clusterError(ctx, "read system_schema.keyspaces", iter.Close())
}

// serve makes next the schema the store serves, each family in the
// layout its table has.
func (st *Store) serve(ctx context.Context, next *schema.Schema) error {
	fams := map[cfName]*family{}
	for _, name := range next.KeyspaceNames() {
		ks := next.Keyspaces[name]
		cqlKS := keyspaceName(st.opts.Prefix, name)
		var cols map[string]tableColumns
		if !ks.System && len(ks.ColumnFamilies) > 0 {
			var err error
			if cols, err = st.columnsOf(ctx, cqlKS); err != nil {
				return err
			}
		}
		for cf, def := range ks.ColumnFamilies {
			table := quote(cqlKS) + "." + quote(cf)
			if ks.System {
				fams[cfName{name, cf}] = newFamily(def, table, true)
				continue
			}
			c, ok := cols[cf]
			if !ok {
				// Not created yet (by another process): the layout
				// ChangeSchema creates.
				c = st.typedColumns(def)
			}
			f := familyOf(def, table, c)
			if f.valueType == "" && ok && needsBlobValue(def, c.types["value"]) {
				// The process that changed the validators adds
				// blob_value (addBlobValues); a process following the
				// change may read the table before it does, and serves
				// the column it will have.
				f.valueType = c.types["value"]
			}
			if f.adopt == nil && wantsIndex(def, c) {
				f.index = newFamilyIndex(cqlKS, def)
			}
			fams[cfName{name, cf}] = f
		}
	}
	st.addAdopted(fams)
	st.cfs.Store(&fams)
	st.current = next
	st.indexes.reset()
	return nil
}

// columnsOf reads the columns of every table of a keyspace.
func (st *Store) columnsOf(ctx context.Context, cqlKS string) (map[string]tableColumns, error) {
	out := map[string]tableColumns{}
	type clustered struct {
		name     string
		position int
		desc     bool
	}
	clustering := map[string][]clustered{}
	iter := st.schemaQuery(`SELECT table_name, column_name, type, kind, position, clustering_order FROM system_schema.columns WHERE keyspace_name = ?`, cqlKS).
		WithContext(ctx).PageSize(pageSize).Iter()
	var table, col, typ, kind, order string
	var position int
	for iter.Scan(&table, &col, &typ, &kind, &position, &order) {
		c := out[table]
		if c.types == nil {
			c.types = map[string]string{}
		}
		c.types[col] = typ
		out[table] = c
		if kind == "clustering" {
			clustering[table] = append(clustering[table], clustered{col, position, order == "desc"})
		}
	}
	if err := iter.Close(); err != nil {
		return nil, clusterError(ctx, "read the columns of "+cqlKS, err)
	}
	for table, cs := range clustering {
		sort.Slice(cs, func(i, j int) bool { return cs[i].position < cs[j].position })
		c := out[table]
		for _, cc := range cs {
			c.clustering = append(c.clustering, cc.name)
			c.desc = append(c.desc, cc.desc)
		}
		out[table] = c
	}
	return out, nil
}

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
