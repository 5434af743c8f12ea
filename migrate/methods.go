package migrate

import (
	"context"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The 19.x API's calls, proxied. Logins are thriftd's (the target's
// guard); the origin connection logs in with the origin's credentials.
// Ring, version and partitioner calls describe thriftd, so that clients
// that discover nodes keep talking to thriftd; the schema is described
// by the cluster that answers reads. CQL goes to the target, which
// serves the CQL over Thrift that thriftd serves.

func (c *conn) Login(ctx context.Context, req *cassandra19.AuthenticationRequest) error {
	return c.target.Login(ctx, req)
}

func (c *conn) SetKeyspace(ctx context.Context, keyspace string) error {
	if c.originUsed() {
		err := c.onOrigin(ctx, "set_keyspace", func(oc *originConn) error { return oc.SetKeyspace(ctx, keyspace) })
		if err != nil {
			return err
		}
		c.keyspace = keyspace
		// The target may not have the keyspace yet (the copy creates
		// it): its writes go to the durable log until it does.
		if c.target.SetKeyspace(ctx, keyspace) == nil {
			c.targetKeyspace = keyspace
		}
		return nil
	}
	if err := c.target.SetKeyspace(ctx, keyspace); err != nil {
		return err
	}
	c.keyspace, c.targetKeyspace = keyspace, keyspace
	return nil
}

// Reads.

func (c *conn) Get(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) (*cassandra19.ColumnOrSuperColumn, error) {
	return read(c, ctx, "get", hexKey(key),
		func(oc *originConn) (*cassandra19.ColumnOrSuperColumn, error) { return oc.Get(ctx, key, path, cl) },
		func() (*cassandra19.ColumnOrSuperColumn, error) { return c.target.Get(ctx, key, path, cl) })
}

func (c *conn) GetSlice(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) ([]*cassandra19.ColumnOrSuperColumn, error) {
	return read(c, ctx, "get_slice", hexKey(key),
		func(oc *originConn) ([]*cassandra19.ColumnOrSuperColumn, error) {
			return oc.GetSlice(ctx, key, parent, pred, cl)
		},
		func() ([]*cassandra19.ColumnOrSuperColumn, error) {
			return c.target.GetSlice(ctx, key, parent, pred, cl)
		})
}

func (c *conn) GetCount(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (int32, error) {
	return read(c, ctx, "get_count", hexKey(key),
		func(oc *originConn) (int32, error) { return oc.GetCount(ctx, key, parent, pred, cl) },
		func() (int32, error) { return c.target.GetCount(ctx, key, parent, pred, cl) })
}

func (c *conn) MultigetSlice(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (map[string][]*cassandra19.ColumnOrSuperColumn, error) {
	return read(c, ctx, "multiget_slice", hexKeys(keys),
		func(oc *originConn) (map[string][]*cassandra19.ColumnOrSuperColumn, error) {
			return oc.MultigetSlice(ctx, keys, parent, pred, cl)
		},
		func() (map[string][]*cassandra19.ColumnOrSuperColumn, error) {
			return c.target.MultigetSlice(ctx, keys, parent, pred, cl)
		})
}

func (c *conn) MultigetCount(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (map[string]int32, error) {
	return read(c, ctx, "multiget_count", hexKeys(keys),
		func(oc *originConn) (map[string]int32, error) { return oc.MultigetCount(ctx, keys, parent, pred, cl) },
		func() (map[string]int32, error) { return c.target.MultigetCount(ctx, keys, parent, pred, cl) })
}

func (c *conn) GetRangeSlices(ctx context.Context, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, kr *cassandra19.KeyRange, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	return read(c, ctx, "get_range_slices", rangeKeys(kr),
		func(oc *originConn) ([]*cassandra19.KeySlice, error) {
			return oc.GetRangeSlices(ctx, parent, pred, kr, cl)
		},
		func() ([]*cassandra19.KeySlice, error) { return c.target.GetRangeSlices(ctx, parent, pred, kr, cl) })
}

func (c *conn) GetPagedSlice(ctx context.Context, cf string, kr *cassandra19.KeyRange, start []byte, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	return read(c, ctx, "get_paged_slice", rangeKeys(kr),
		func(oc *originConn) ([]*cassandra19.KeySlice, error) { return oc.GetPagedSlice(ctx, cf, kr, start, cl) },
		func() ([]*cassandra19.KeySlice, error) { return c.target.GetPagedSlice(ctx, cf, kr, start, cl) })
}

func (c *conn) GetIndexedSlices(ctx context.Context, parent *cassandra19.ColumnParent, clause *cassandra19.IndexClause, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	var start []byte
	if clause != nil {
		start = clause.StartKey
	}
	return read(c, ctx, "get_indexed_slices", hexKey(start),
		func(oc *originConn) ([]*cassandra19.KeySlice, error) {
			return oc.GetIndexedSlices(ctx, parent, clause, pred, cl)
		},
		func() ([]*cassandra19.KeySlice, error) {
			return c.target.GetIndexedSlices(ctx, parent, clause, pred, cl)
		})
}

func (c *conn) GetMultiSlice(ctx context.Context, req *cassandra19.MultiSliceRequest) ([]*cassandra19.ColumnOrSuperColumn, error) {
	var key []byte
	if req != nil {
		key = req.Key
	}
	return read(c, ctx, "get_multi_slice", hexKey(key),
		func(oc *originConn) ([]*cassandra19.ColumnOrSuperColumn, error) { return oc.GetMultiSlice(ctx, req) },
		func() ([]*cassandra19.ColumnOrSuperColumn, error) { return c.target.GetMultiSlice(ctx, req) })
}

// Writes.

func (c *conn) Insert(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.Column, cl cassandra19.ConsistencyLevel) error {
	args := &cassandra19.CassandraInsertArgs{Key: key, ColumnParent: parent, Column: col, ConsistencyLevel: cl}
	return c.write(ctx, "insert", args, hexKey(key),
		func(oc *originConn) error { return oc.Insert(ctx, key, parent, col, cl) },
		func() error { return c.target.Insert(ctx, key, parent, col, cl) })
}

// Add sends a counter increment to both. An increment is not idempotent:
// one replayed from the durable log after a target timeout that had in
// fact applied it is counted twice (docs/migration.md).
func (c *conn) Add(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.CounterColumn, cl cassandra19.ConsistencyLevel) error {
	args := &cassandra19.CassandraAddArgs{Key: key, ColumnParent: parent, Column: col, ConsistencyLevel: cl}
	return c.write(ctx, "add", args, hexKey(key),
		func(oc *originConn) error { return oc.Add(ctx, key, parent, col, cl) },
		func() error { return c.target.Add(ctx, key, parent, col, cl) })
}

func (c *conn) Remove(ctx context.Context, key []byte, path *cassandra19.ColumnPath, ts int64, cl cassandra19.ConsistencyLevel) error {
	args := &cassandra19.CassandraRemoveArgs{Key: key, ColumnPath: path, Timestamp: ts, ConsistencyLevel: cl}
	return c.write(ctx, "remove", args, hexKey(key),
		func(oc *originConn) error { return oc.Remove(ctx, key, path, ts, cl) },
		func() error { return c.target.Remove(ctx, key, path, ts, cl) })
}

func (c *conn) RemoveCounter(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) error {
	args := &cassandra19.CassandraRemoveCounterArgs{Key: key, Path: path, ConsistencyLevel: cl}
	return c.write(ctx, "remove_counter", args, hexKey(key),
		func(oc *originConn) error { return oc.RemoveCounter(ctx, key, path, cl) },
		func() error { return c.target.RemoveCounter(ctx, key, path, cl) })
}

func (c *conn) BatchMutate(ctx context.Context, m map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel) error {
	c.withTimestamps(m)
	args := &cassandra19.CassandraBatchMutateArgs{MutationMap: m, ConsistencyLevel: cl}
	return c.write(ctx, "batch_mutate", args, mutationKeys(m),
		func(oc *originConn) error { return oc.BatchMutate(ctx, m, cl) },
		func() error { return c.target.BatchMutate(ctx, m, cl) })
}

func (c *conn) AtomicBatchMutate(ctx context.Context, m map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel) error {
	c.withTimestamps(m)
	args := &cassandra19.CassandraAtomicBatchMutateArgs{MutationMap: m, ConsistencyLevel: cl}
	return c.write(ctx, "atomic_batch_mutate", args, mutationKeys(m),
		func(oc *originConn) error { return oc.AtomicBatchMutate(ctx, m, cl) },
		func() error { return c.target.AtomicBatchMutate(ctx, m, cl) })
}

func (c *conn) Truncate(ctx context.Context, cf string) error {
	args := &cassandra19.CassandraTruncateArgs{Cfname: cf}
	return c.write(ctx, "truncate", args, func() string { return cf },
		func(oc *originConn) error { return oc.Truncate(ctx, cf) },
		func() error { return c.target.Truncate(ctx, cf) })
}

// Cas is decided by the origin; an update it applied is written to the
// target with its timestamps.
func (c *conn) Cas(ctx context.Context, key []byte, cf string, expected, updates []*cassandra19.Column, serial, commit cassandra19.ConsistencyLevel) (*cassandra19.CASResult_, error) {
	if _, w := c.p.Modes(); w == WriteTarget {
		var r *cassandra19.CASResult_
		err := c.onTarget(ctx, func() (err error) {
			r, err = c.target.Cas(ctx, key, cf, expected, updates, serial, commit)
			return err
		})
		return r, err
	}
	var r *cassandra19.CASResult_
	err := c.onOrigin(ctx, "cas", func(oc *originConn) (err error) {
		r, err = oc.Cas(ctx, key, cf, expected, updates, serial, commit)
		return err
	})
	if err != nil || r == nil || !r.Success || len(updates) == 0 {
		return r, err
	}
	ms := make([]*cassandra19.Mutation, 0, len(updates))
	for _, u := range updates {
		ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: u}})
	}
	m := map[string]map[string][]*cassandra19.Mutation{string(key): {cf: ms}}
	args := &cassandra19.CassandraBatchMutateArgs{MutationMap: m, ConsistencyLevel: commit}
	if terr := c.onTarget(ctx, func() error { return c.target.BatchMutate(ctx, m, commit) }); terr != nil {
		if c.logFailed("batch_mutate", args, hexKey(key), terr) != nil {
			return nil, cassandra19.NewTimedOutException()
		}
	}
	return r, nil
}

// Schema changes.

func (c *conn) SystemAddColumnFamily(ctx context.Context, d *cassandra19.CfDef) (string, error) {
	return c.schemaChange(ctx, "system_add_column_family",
		func(oc *originConn) (string, error) { return oc.SystemAddColumnFamily(ctx, d) },
		func() (string, error) { return c.target.SystemAddColumnFamily(ctx, d) })
}

func (c *conn) SystemDropColumnFamily(ctx context.Context, cf string) (string, error) {
	return c.schemaChange(ctx, "system_drop_column_family",
		func(oc *originConn) (string, error) { return oc.SystemDropColumnFamily(ctx, cf) },
		func() (string, error) { return c.target.SystemDropColumnFamily(ctx, cf) })
}

func (c *conn) SystemAddKeyspace(ctx context.Context, d *cassandra19.KsDef) (string, error) {
	return c.schemaChange(ctx, "system_add_keyspace",
		func(oc *originConn) (string, error) { return oc.SystemAddKeyspace(ctx, d) },
		func() (string, error) { return c.target.SystemAddKeyspace(ctx, d) })
}

func (c *conn) SystemDropKeyspace(ctx context.Context, ks string) (string, error) {
	return c.schemaChange(ctx, "system_drop_keyspace",
		func(oc *originConn) (string, error) { return oc.SystemDropKeyspace(ctx, ks) },
		func() (string, error) { return c.target.SystemDropKeyspace(ctx, ks) })
}

func (c *conn) SystemUpdateKeyspace(ctx context.Context, d *cassandra19.KsDef) (string, error) {
	return c.schemaChange(ctx, "system_update_keyspace",
		func(oc *originConn) (string, error) { return oc.SystemUpdateKeyspace(ctx, d) },
		func() (string, error) { return c.target.SystemUpdateKeyspace(ctx, d) })
}

func (c *conn) SystemUpdateColumnFamily(ctx context.Context, d *cassandra19.CfDef) (string, error) {
	return c.schemaChange(ctx, "system_update_column_family",
		func(oc *originConn) (string, error) { return oc.SystemUpdateColumnFamily(ctx, d) },
		func() (string, error) { return c.target.SystemUpdateColumnFamily(ctx, d) })
}

// The schema, from the cluster that answers reads.

func (c *conn) describeFromOrigin() bool {
	r, _ := c.p.Modes()
	return r != ReadTarget
}

func (c *conn) DescribeKeyspaces(ctx context.Context) ([]*cassandra19.KsDef, error) {
	if !c.describeFromOrigin() {
		return c.target.DescribeKeyspaces(ctx)
	}
	var r []*cassandra19.KsDef
	err := c.onOrigin(ctx, "describe_keyspaces", func(oc *originConn) (err error) { r, err = oc.DescribeKeyspaces(ctx); return err })
	return r, err
}

func (c *conn) DescribeKeyspace(ctx context.Context, ks string) (*cassandra19.KsDef, error) {
	if !c.describeFromOrigin() {
		return c.target.DescribeKeyspace(ctx, ks)
	}
	var r *cassandra19.KsDef
	err := c.onOrigin(ctx, "describe_keyspace", func(oc *originConn) (err error) { r, err = oc.DescribeKeyspace(ctx, ks); return err })
	return r, err
}

func (c *conn) DescribeSchemaVersions(ctx context.Context) (map[string][]string, error) {
	if !c.describeFromOrigin() {
		return c.target.DescribeSchemaVersions(ctx)
	}
	var r map[string][]string
	err := c.onOrigin(ctx, "describe_schema_versions", func(oc *originConn) (err error) { r, err = oc.DescribeSchemaVersions(ctx); return err })
	return r, err
}

// thriftd itself.

func (c *conn) DescribeClusterName(ctx context.Context) (string, error) {
	return c.target.DescribeClusterName(ctx)
}
func (c *conn) DescribeVersion(ctx context.Context) (string, error) {
	return c.target.DescribeVersion(ctx)
}
func (c *conn) DescribeRing(ctx context.Context, ks string) ([]*cassandra19.TokenRange, error) {
	return c.target.DescribeRing(ctx, ks)
}
func (c *conn) DescribeLocalRing(ctx context.Context, ks string) ([]*cassandra19.TokenRange, error) {
	return c.target.DescribeLocalRing(ctx, ks)
}
func (c *conn) DescribeTokenMap(ctx context.Context) (map[string]string, error) {
	return c.target.DescribeTokenMap(ctx)
}
func (c *conn) DescribePartitioner(ctx context.Context) (string, error) {
	return c.target.DescribePartitioner(ctx)
}
func (c *conn) DescribeSnitch(ctx context.Context) (string, error) {
	return c.target.DescribeSnitch(ctx)
}
func (c *conn) DescribeSplits(ctx context.Context, cf, start, end string, n int32) ([]string, error) {
	return c.target.DescribeSplits(ctx, cf, start, end, n)
}
func (c *conn) DescribeSplitsEx(ctx context.Context, cf, start, end string, n int32) ([]*cassandra19.CfSplit, error) {
	return c.target.DescribeSplitsEx(ctx, cf, start, end, n)
}
func (c *conn) TraceNextQuery(ctx context.Context) ([]byte, error) {
	return c.target.TraceNextQuery(ctx)
}

// CQL over Thrift: thriftd's.

func (c *conn) ExecuteCqlQuery(ctx context.Context, q []byte, comp cassandra19.Compression) (*cassandra19.CqlResult_, error) {
	return c.target.ExecuteCqlQuery(ctx, q, comp)
}
func (c *conn) ExecuteCql3Query(ctx context.Context, q []byte, comp cassandra19.Compression, cl cassandra19.ConsistencyLevel) (*cassandra19.CqlResult_, error) {
	return c.target.ExecuteCql3Query(ctx, q, comp, cl)
}
func (c *conn) PrepareCqlQuery(ctx context.Context, q []byte, comp cassandra19.Compression) (*cassandra19.CqlPreparedResult_, error) {
	return c.target.PrepareCqlQuery(ctx, q, comp)
}
func (c *conn) PrepareCql3Query(ctx context.Context, q []byte, comp cassandra19.Compression) (*cassandra19.CqlPreparedResult_, error) {
	return c.target.PrepareCql3Query(ctx, q, comp)
}
func (c *conn) ExecutePreparedCqlQuery(ctx context.Context, id int32, values [][]byte) (*cassandra19.CqlResult_, error) {
	return c.target.ExecutePreparedCqlQuery(ctx, id, values)
}
func (c *conn) ExecutePreparedCql3Query(ctx context.Context, id int32, values [][]byte, cl cassandra19.ConsistencyLevel) (*cassandra19.CqlResult_, error) {
	return c.target.ExecutePreparedCql3Query(ctx, id, values, cl)
}
func (c *conn) SetCqlVersion(ctx context.Context, v string) error {
	return c.target.SetCqlVersion(ctx, v)
}
