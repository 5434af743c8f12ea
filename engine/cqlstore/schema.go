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

	"github.com/thriftd/thriftd/schema"
)

// localNode is what system.local says of the contacted node.
type localNode struct {
	partitioner string
	dataCenter  string
	tokens      []string
}

func readLocal(ctx context.Context, s *gocql.Session) (localNode, error) {
	var n localNode
	err := s.Query(`SELECT partitioner, data_center, tokens FROM system.local WHERE key = 'local'`).
		WithContext(ctx).Scan(&n.partitioner, &n.dataCenter, &n.tokens)
	if err != nil {
		return n, fmt.Errorf("read the cluster's partitioner from system.local: %w", err)
	}
	sort.Strings(n.tokens)
	return n, nil
}

// storedFamily is one row of thriftd_schema.
type storedFamily struct {
	name, partitioner, typ, comparator, subComparator string
}

func describe(p string, cf *schema.ColumnFamily) storedFamily {
	f := storedFamily{name: cf.Name, partitioner: p, typ: cf.Type(), comparator: cf.Comparator.Name()}
	if cf.SubComparator != nil {
		f.subComparator = cf.SubComparator.Name()
	}
	return f
}

// ensureSchema creates every keyspace and table s declares that is
// missing, records new column families in thriftd_schema, and refuses a
// column family whose recorded type or comparators differ, or a keyspace
// placed by another partitioner, with the LevelDB store's messages.
// Tables are created concurrently; every statement is IF NOT EXISTS and
// the recording is a lightweight transaction, so several thriftd
// processes may start against one cluster at once.
func (st *Store) ensureSchema(ctx context.Context, s *schema.Schema) error {
	// What exists already is read once, so that a restart on an existing
	// prefix sends no schema statement at all.
	existing, err := st.existingTables(ctx)
	if err != nil {
		return err
	}
	// Another process may have just created some of them: what is read
	// next must be on every node.
	if err := st.waitAgreement(ctx); err != nil {
		return err
	}
	var drift []string
	var tables []string
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		cqlKS := keyspaceName(st.opts.Prefix, name)
		if ks.System {
			continue
		}
		if existing[cqlKS] == nil {
			repl, err := st.replication(ks)
			if err != nil {
				return err
			}
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s`, quote(cqlKS), repl)); err != nil {
				return err
			}
		}
		if !existing[cqlKS][schemaTable] {
			if err := st.ddl(ctx, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.%s (column_family text PRIMARY KEY, partitioner text, column_type text, compare_with text, compare_subcolumns_with text)`,
				quote(cqlKS), schemaTable)); err != nil {
				return err
			}
			// Read it next, perhaps through another coordinator.
			if err := st.waitAgreement(ctx); err != nil {
				return err
			}
		}
		d, err := st.recordFamilies(ctx, s, ks, cqlKS)
		if err != nil {
			return err
		}
		drift = append(drift, d...)
		for n, def := range ks.ColumnFamilies {
			if !existing[cqlKS][n] {
				tables = append(tables, st.createTable(cqlKS, n, def))
			}
		}
	}
	if len(drift) > 0 {
		return fmt.Errorf("the Cassandra cluster holds these keyspaces with another schema; thriftd will not start because stored names would be misread: %s",
			strings.Join(drift, "; "))
	}
	sort.Strings(tables)
	if err := st.ddlAll(ctx, tables); err != nil {
		return err
	}
	if len(tables) > 0 {
		if err := st.waitAgreement(ctx); err != nil {
			return err
		}
	}
	// A table whose family's validators changed before blob_value was
	// added to such tables (typed.go) gets it now.
	if err := st.addBlobValues(ctx, s, existing); err != nil {
		return err
	}
	// An index whose creation a stopped process did not finish.
	if err := st.syncIndexes(ctx, s, false, nil); err != nil {
		return err
	}
	// Each family is served in the layout its table has: the 0.6 one for
	// tables created here, the 19.x one for those ChangeSchema created.
	return st.serve(ctx, s)
}

// existingTables returns the tables of every keyspace, by keyspace; a
// keyspace without tables is missing from it.
func (st *Store) existingTables(ctx context.Context) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	iter := st.schemaQuery(`SELECT keyspace_name, table_name FROM system_schema.tables`).WithContext(ctx).PageSize(pageSize).Iter()
	var ks, table string
	for iter.Scan(&ks, &table) {
		if out[ks] == nil {
			out[ks] = map[string]bool{}
		}
		out[ks][table] = true
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read the cluster's tables from system_schema.tables: %w", err)
	}
	return out, nil
}

// replication is the keyspace's replication map: SimpleStrategy for 0.6's
// RackUnaware and RackAware strategies, NetworkTopologyStrategy in the
// local data center for DatacenterShardStrategy.
func (st *Store) replication(ks *schema.Keyspace) (string, error) {
	rf := ks.ReplicationFactor
	if rf < 1 {
		rf = 1
	}
	if strings.HasSuffix(ks.ReplicaPlacementStrategy, "DatacenterShardStrategy") {
		dc := st.opts.Cluster.LocalDC
		if dc == "" {
			return "", fmt.Errorf("keyspace %s: DatacenterShardStrategy needs the local data center (-cassandra-dc)", ks.Name)
		}
		return fmt.Sprintf(`{'class': 'NetworkTopologyStrategy', '%s': %d}`, strings.ReplaceAll(dc, "'", "''"), rf), nil
	}
	return fmt.Sprintf(`{'class': 'SimpleStrategy', 'replication_factor': %d}`, rf), nil
}

func (st *Store) createTable(cqlKS, cf string, def *schema.ColumnFamily) string {
	// written_ttl: a 19.x client's expiring column answers the TTL it was
	// written with, as 1.2 answered it (CQL's ttl(value) is the seconds
	// left).
	cols := `key blob, column1 blob, value blob, ghost blob static, written_ttl int, PRIMARY KEY (key, column1)`
	if def.Super {
		cols = `key blob, super_column blob, column1 blob, value blob, ghost blob static, PRIMARY KEY (key, super_column, column1)`
	}
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.%s (%s) WITH gc_grace_seconds = %d AND comment = %s`,
		quote(cqlKS), quote(cf), cols, st.opts.GCGraceSeconds,
		quoteString(fmt.Sprintf("thriftd: 0.6 %s column family %s.%s", def.Type(), def.Keyspace, def.Name)))
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// recordFamilies compares ks's column families with what thriftd_schema
// records, recording new ones, and returns the drift found.
func (st *Store) recordFamilies(ctx context.Context, s *schema.Schema, ks *schema.Keyspace, cqlKS string) ([]string, error) {
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	recorded, err := st.recorded(ctx, cqlKS)
	if err != nil {
		return nil, err
	}
	var drift []string
	for _, n := range names {
		want := describe(s.Partitioner.Name(), ks.ColumnFamilies[n])
		if got, ok := recorded[n]; ok {
			drift = append(drift, compareFamily(cqlKS, ks.Name, got, want)...)
			continue
		}
		row := map[string]any{}
		insert := fmt.Sprintf(`INSERT INTO %s.%s (column_family, partitioner, column_type, compare_with, compare_subcolumns_with) VALUES (?, ?, ?, ?, ?)`, quote(cqlKS), schemaTable)
		args := []any{want.name, want.partitioner, want.typ, want.comparator, want.subComparator}
		var applied bool
		for attempt := 1; ; attempt++ {
			clear(row)
			applied, err = st.schemaQuery(insert+` IF NOT EXISTS`, args...).
				WithContext(ctx).Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).
				MapScanCAS(row)
			// Two processes recording the same family at once contend:
			// the outcome is unknown, and asking again tells it (the
			// insert is IF NOT EXISTS).
			if !casContended(err) || attempt == ddlAttempts {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		var unavailable *gocql.RequestErrUnavailable
		if errors.As(err, &unavailable) {
			// A lightweight transaction needs a quorum of the keyspace's
			// replicas (ReplicationFactor above the number of nodes, as in
			// a test cluster): read, then write plainly if missing.
			st.logger().Warn("cannot record the schema with a lightweight transaction; recording it plainly, so thriftd processes started at the same moment with different schemas could both start",
				"keyspace", cqlKS, "err", err)
			applied, err = st.recordPlainly(ctx, cqlKS, insert, args, row)
		}
		if err != nil {
			return nil, fmt.Errorf("record column family %s.%s in %s.%s: %w", ks.Name, n, cqlKS, schemaTable, err)
		}
		if applied {
			st.logger().Info("new column family", "keyspace", ks.Name, "column_family", n, "table", cqlKS+"."+n)
			continue
		}
		str := func(k string) string { v, _ := row[k].(string); return v }
		got := storedFamily{name: n, partitioner: str("partitioner"), typ: str("column_type"), comparator: str("compare_with"), subComparator: str("compare_subcolumns_with")}
		drift = append(drift, compareFamily(cqlKS, ks.Name, got, want)...)
	}
	return drift, nil
}

// recordPlainly reads a column family's record at ONE and writes it when
// missing; applied reports whether it wrote.
func (st *Store) recordPlainly(ctx context.Context, cqlKS, insert string, args []any, row map[string]any) (bool, error) {
	err := st.schemaQuery(fmt.Sprintf(`SELECT partitioner, column_type, compare_with, compare_subcolumns_with FROM %s.%s WHERE column_family = ?`, quote(cqlKS), schemaTable), args[0]).
		WithContext(ctx).Consistency(gocql.One).MapScan(row)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, gocql.ErrNotFound):
		return false, err
	}
	return true, st.schemaQuery(insert, args...).WithContext(ctx).Consistency(gocql.One).Exec()
}

// recorded reads every record of a keyspace's thriftd_schema.
func (st *Store) recorded(ctx context.Context, cqlKS string) (map[string]storedFamily, error) {
	out := map[string]storedFamily{}
	iter := st.schemaQuery(fmt.Sprintf(`SELECT column_family, partitioner, column_type, compare_with, compare_subcolumns_with FROM %s.%s`, quote(cqlKS), schemaTable)).
		WithContext(ctx).Consistency(gocql.One).PageSize(pageSize).Iter()
	var f storedFamily
	for iter.Scan(&f.name, &f.partitioner, &f.typ, &f.comparator, &f.subComparator) {
		out[f.name] = f
		f = storedFamily{}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", cqlKS, schemaTable, err)
	}
	return out, nil
}

func compareFamily(cqlKS, ks string, stored, want storedFamily) []string {
	where := ks + "." + stored.name
	if stored.partitioner != want.partitioner {
		return []string{fmt.Sprintf("column family %s (keyspace %s) holds data placed by %s, but the configuration's Partitioner is %s; rows cannot be found under another partitioner",
			where, cqlKS, stored.partitioner, want.partitioner)}
	}
	if stored.typ != want.typ {
		return []string{fmt.Sprintf("column family %s was ColumnType %s and is now %s", where, stored.typ, want.typ)}
	}
	var out []string
	if stored.comparator != want.comparator {
		out = append(out, fmt.Sprintf("column family %s was CompareWith %s and is now %s", where, stored.comparator, want.comparator))
	}
	if stored.subComparator != want.subComparator {
		out = append(out, fmt.Sprintf("column family %s was CompareSubcolumnsWith %s and is now %s", where, stored.subComparator, want.subComparator))
	}
	return out
}

// ddlConcurrency is how many schema statements run at once. A node
// applies schema changes one at a time; a few in flight keep it busy
// without waiting on the round trips.
const ddlConcurrency = 8

// ddlAll runs the statements concurrently and returns the first error.
func (st *Store) ddlAll(ctx context.Context, stmts []string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(stmts))
	sem := make(chan struct{}, ddlConcurrency)
	for i, stmt := range stmts {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if errs[i] = st.ddl(ctx, stmt); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The first error that is not the cancellation it caused.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	return first
}

// DropPrefix drops every keyspace of the cluster whose name starts with
// prefix and that holds thriftd's schema table: what thriftd created with
// that -cassandra-prefix. Test harnesses call it to clean up after a
// fresh prefix. An empty prefix is refused.
func DropPrefix(ctx context.Context, c Cluster, prefix string) ([]string, error) {
	if prefix == "" {
		return nil, fmt.Errorf("refusing to drop the keyspaces of an empty prefix")
	}
	s, err := c.Connect()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	iter := s.Query(`SELECT keyspace_name, table_name FROM system_schema.tables`).WithContext(ctx).Iter()
	var ks, table string
	var drop []string
	for iter.Scan(&ks, &table) {
		if (table == schemaTable && strings.HasPrefix(ks, prefix)) || (ks == prefix+catalogKeyspace && table == catalogTable) {
			drop = append(drop, ks)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("list keyspaces: %w", err)
	}
	sort.Strings(drop)
	stmts := make([]string, len(drop))
	for i, k := range drop {
		stmts[i] = `DROP KEYSPACE IF EXISTS ` + quote(k)
	}
	st := &Store{session: s}
	if err := st.ddlAll(ctx, stmts); err != nil {
		return nil, err
	}
	return drop, st.waitAgreement(ctx)
}

// casContended reports whether a lightweight transaction's outcome is
// unknown because it contended with another (a timeout or an unknown
// result of the Paxos round).
func casContended(err error) bool {
	var unknown *gocql.RequestErrCASWriteUnknown
	var timeout *gocql.RequestErrWriteTimeout
	return errors.As(err, &unknown) || (errors.As(err, &timeout) && (timeout.WriteType == "CAS" || timeout.WriteType == "CAS_WRITE_UNKNOWN"))
}
