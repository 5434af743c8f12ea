package handler19

import (
	"context"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The methods of cassandra19.Cassandra. Each runs its implementation and
// converts the outcome in one place (Service.reply); a panic becomes an
// internal error, logged with its stack.

func (c *conn) Login(ctx context.Context, req *cassandra19.AuthenticationRequest) (err error) {
	defer c.s.recoverPanic("login", &err)
	c.call = "login"
	return c.reply(ctx, "login", c.login(ctx, req))
}

func (c *conn) SetKeyspace(ctx context.Context, keyspace string) (err error) {
	defer c.s.recoverPanic("set_keyspace", &err)
	c.call = "set_keyspace"
	c.s.fresh(ctx)
	return c.reply(ctx, "set_keyspace", c.setKeyspace(keyspace))
}

func (c *conn) Get(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) (r *cassandra19.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("get", &err)
	c.call = "get"
	c.family = pathFamily(path)
	ctx = withConsistency(ctx, cl)
	r, err = c.get(ctx, key, path, cl)
	return r, c.reply(ctx, "get", err)
}

func (c *conn) GetSlice(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (r []*cassandra19.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("get_slice", &err)
	c.call = "get_slice"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	r, err = c.getSlice(ctx, key, parent, pred, cl)
	return r, c.reply(ctx, "get_slice", err)
}

func (c *conn) GetCount(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (r int32, err error) {
	defer c.s.recoverPanic("get_count", &err)
	c.call = "get_count"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	r, err = c.getCount(ctx, key, parent, pred, cl)
	return r, c.reply(ctx, "get_count", err)
}

func (c *conn) MultigetSlice(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (r map[string][]*cassandra19.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("multiget_slice", &err)
	c.call = "multiget_slice"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.multigetSlice(ctx, keys, parent, pred, cl)
	return r, c.reply(ctx, "multiget_slice", err)
}

func (c *conn) MultigetCount(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (r map[string]int32, err error) {
	defer c.s.recoverPanic("multiget_count", &err)
	c.call = "multiget_count"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.multigetCount(ctx, keys, parent, pred, cl)
	return r, c.reply(ctx, "multiget_count", err)
}

func (c *conn) GetRangeSlices(ctx context.Context, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, kr *cassandra19.KeyRange, cl cassandra19.ConsistencyLevel) (r []*cassandra19.KeySlice, err error) {
	defer c.s.recoverPanic("get_range_slices", &err)
	c.call = "get_range_slices"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.getRangeSlices(ctx, parent, pred, kr, cl)
	return r, c.reply(ctx, "get_range_slices", err)
}

func (c *conn) GetPagedSlice(ctx context.Context, cf string, kr *cassandra19.KeyRange, startColumn []byte, cl cassandra19.ConsistencyLevel) (r []*cassandra19.KeySlice, err error) {
	defer c.s.recoverPanic("get_paged_slice", &err)
	c.call = "get_paged_slice"
	c.family = cf
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.getPagedSlice(ctx, cf, kr, startColumn, cl)
	return r, c.reply(ctx, "get_paged_slice", err)
}

func (c *conn) GetIndexedSlices(ctx context.Context, parent *cassandra19.ColumnParent, clause *cassandra19.IndexClause, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (r []*cassandra19.KeySlice, err error) {
	defer c.s.recoverPanic("get_indexed_slices", &err)
	c.call = "get_indexed_slices"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.getIndexedSlices(ctx, parent, clause, pred, cl)
	return r, c.reply(ctx, "get_indexed_slices", err)
}

func (c *conn) Insert(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.Column, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("insert", &err)
	c.call = "insert"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "insert", c.insert(ctx, key, parent, col, cl))
}

func (c *conn) Add(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.CounterColumn, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("add", &err)
	c.call = "add"
	c.family = parentFamily(parent)
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "add", c.add(ctx, key, parent, col, cl))
}

func (c *conn) Cas(ctx context.Context, key []byte, cf string, expected, updates []*cassandra19.Column, serial, commit cassandra19.ConsistencyLevel) (r *cassandra19.CASResult_, err error) {
	defer c.s.recoverPanic("cas", &err)
	c.call = "cas"
	c.family = cf
	ctx = withConsistency(ctx, commit)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.cas(ctx, key, cf, expected, updates, serial, commit)
	return r, c.reply(ctx, "cas", err)
}

func (c *conn) Remove(ctx context.Context, key []byte, path *cassandra19.ColumnPath, timestamp int64, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("remove", &err)
	c.call = "remove"
	c.family = pathFamily(path)
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "remove", c.remove(ctx, key, path, timestamp, cl))
}

func (c *conn) RemoveCounter(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("remove_counter", &err)
	c.call = "remove_counter"
	c.family = pathFamily(path)
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "remove_counter", c.removeCounter(ctx, key, path, cl))
}

func (c *conn) BatchMutate(ctx context.Context, mutations map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("batch_mutate", &err)
	c.call = "batch_mutate"
	c.family = ""
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "batch_mutate", c.batchMutate(ctx, mutations, cl, false))
}

func (c *conn) AtomicBatchMutate(ctx context.Context, mutations map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("atomic_batch_mutate", &err)
	c.call = "atomic_batch_mutate"
	c.family = ""
	ctx = withConsistency(ctx, cl)
	return c.reply(ctx, "atomic_batch_mutate", c.batchMutate(ctx, mutations, cl, true))
}

func (c *conn) Truncate(ctx context.Context, cf string) (err error) {
	defer c.s.recoverPanic("truncate", &err)
	c.call = "truncate"
	c.family = cf
	return c.reply(ctx, "truncate", c.truncate(ctx, cf))
}

func (c *conn) GetMultiSlice(ctx context.Context, req *cassandra19.MultiSliceRequest) (r []*cassandra19.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("get_multi_slice", &err)
	c.call = "get_multi_slice"
	if req == nil {
		req = cassandra19.NewMultiSliceRequest()
	}
	c.family = parentFamily(req.ColumnParent)
	ctx = withConsistency(ctx, req.ConsistencyLevel)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	r, err = c.getMultiSlice(ctx, req)
	return r, c.reply(ctx, "get_multi_slice", err)
}

func (c *conn) DescribeSchemaVersions(ctx context.Context) (r map[string][]string, err error) {
	defer c.s.recoverPanic("describe_schema_versions", &err)
	c.call = "describe_schema_versions"
	r, err = c.s.describeSchemaVersions(ctx)
	return r, c.reply(ctx, "describe_schema_versions", err)
}

func (c *conn) DescribeKeyspaces(ctx context.Context) (r []*cassandra19.KsDef, err error) {
	defer c.s.recoverPanic("describe_keyspaces", &err)
	c.call = "describe_keyspaces"
	c.s.fresh(ctx)
	r, err = c.describeKeyspaces()
	return r, c.reply(ctx, "describe_keyspaces", err)
}

func (c *conn) DescribeClusterName(ctx context.Context) (string, error) {
	if c.s.clusterName != "" {
		return c.s.clusterName, nil
	}
	return c.s.schema().ClusterName, nil
}

func (c *conn) DescribeVersion(ctx context.Context) (string, error) {
	return cassandra19.VERSION, nil
}

func (c *conn) DescribeRing(ctx context.Context, keyspace string) (r []*cassandra19.TokenRange, err error) {
	defer c.s.recoverPanic("describe_ring", &err)
	c.call = "describe_ring"
	r, err = c.s.describeRing(keyspace)
	return r, c.reply(ctx, "describe_ring", err)
}

func (c *conn) DescribeLocalRing(ctx context.Context, keyspace string) (r []*cassandra19.TokenRange, err error) {
	defer c.s.recoverPanic("describe_local_ring", &err)
	c.call = "describe_local_ring"
	r, err = c.s.describeRing(keyspace)
	return r, c.reply(ctx, "describe_local_ring", err)
}

func (c *conn) DescribeTokenMap(ctx context.Context) (map[string]string, error) {
	return c.s.describeTokenMap(), nil
}

func (c *conn) DescribePartitioner(ctx context.Context) (string, error) {
	return c.s.schema().Partitioner.Name(), nil
}

func (c *conn) DescribeSnitch(ctx context.Context) (string, error) {
	return snitch, nil
}

func (c *conn) DescribeKeyspace(ctx context.Context, keyspace string) (r *cassandra19.KsDef, err error) {
	defer c.s.recoverPanic("describe_keyspace", &err)
	c.call = "describe_keyspace"
	c.s.fresh(ctx)
	r, err = c.describeKeyspace(keyspace)
	return r, c.reply(ctx, "describe_keyspace", err)
}

func (c *conn) DescribeSplits(ctx context.Context, cf, start, end string, keysPerSplit int32) (r []string, err error) {
	defer c.s.recoverPanic("describe_splits", &err)
	c.call = "describe_splits"
	c.family = cf
	r, err = c.describeSplits(ctx, cf, start, end, keysPerSplit)
	return r, c.reply(ctx, "describe_splits", err)
}

func (c *conn) TraceNextQuery(ctx context.Context) ([]byte, error) {
	return traceNextQuery(), nil
}

func (c *conn) DescribeSplitsEx(ctx context.Context, cf, start, end string, keysPerSplit int32) (r []*cassandra19.CfSplit, err error) {
	defer c.s.recoverPanic("describe_splits_ex", &err)
	c.call = "describe_splits_ex"
	c.family = cf
	r, err = c.describeSplitsEx(ctx, cf, start, end, keysPerSplit)
	return r, c.reply(ctx, "describe_splits_ex", err)
}

func (c *conn) SystemAddColumnFamily(ctx context.Context, def *cassandra19.CfDef) (r string, err error) {
	defer c.s.recoverPanic("system_add_column_family", &err)
	c.call = "system_add_column_family"
	r, err = c.systemAddColumnFamily(ctx, def)
	return r, c.s.schemaReply(ctx, "system_add_column_family", err)
}

func (c *conn) SystemDropColumnFamily(ctx context.Context, cf string) (r string, err error) {
	defer c.s.recoverPanic("system_drop_column_family", &err)
	c.call = "system_drop_column_family"
	c.family = cf
	r, err = c.systemDropColumnFamily(ctx, cf)
	return r, c.s.schemaReply(ctx, "system_drop_column_family", err)
}

func (c *conn) SystemAddKeyspace(ctx context.Context, def *cassandra19.KsDef) (r string, err error) {
	defer c.s.recoverPanic("system_add_keyspace", &err)
	c.call = "system_add_keyspace"
	r, err = c.systemAddKeyspace(ctx, def)
	return r, c.s.schemaReply(ctx, "system_add_keyspace", err)
}

func (c *conn) SystemDropKeyspace(ctx context.Context, keyspace string) (r string, err error) {
	defer c.s.recoverPanic("system_drop_keyspace", &err)
	c.call = "system_drop_keyspace"
	r, err = c.systemDropKeyspace(ctx, keyspace)
	return r, c.s.schemaReply(ctx, "system_drop_keyspace", err)
}

func (c *conn) SystemUpdateKeyspace(ctx context.Context, def *cassandra19.KsDef) (r string, err error) {
	defer c.s.recoverPanic("system_update_keyspace", &err)
	c.call = "system_update_keyspace"
	r, err = c.systemUpdateKeyspace(ctx, def)
	return r, c.s.schemaReply(ctx, "system_update_keyspace", err)
}

func (c *conn) SystemUpdateColumnFamily(ctx context.Context, def *cassandra19.CfDef) (r string, err error) {
	defer c.s.recoverPanic("system_update_column_family", &err)
	c.call = "system_update_column_family"
	r, err = c.systemUpdateColumnFamily(ctx, def)
	return r, c.s.schemaReply(ctx, "system_update_column_family", err)
}

func (c *conn) ExecuteCqlQuery(ctx context.Context, query []byte, compression cassandra19.Compression) (r *cassandra19.CqlResult_, err error) {
	defer c.s.recoverPanic("execute_cql_query", &err)
	c.call = "execute_cql_query"
	return nil, c.reply(ctx, "execute_cql_query", c.refuseCQL(2, query, compression))
}

func (c *conn) ExecuteCql3Query(ctx context.Context, query []byte, compression cassandra19.Compression, cl cassandra19.ConsistencyLevel) (r *cassandra19.CqlResult_, err error) {
	defer c.s.recoverPanic("execute_cql3_query", &err)
	c.call = "execute_cql3_query"
	r, err = c.executeCQL3(query, compression)
	return r, c.reply(ctx, "execute_cql3_query", err)
}

func (c *conn) PrepareCqlQuery(ctx context.Context, query []byte, compression cassandra19.Compression) (r *cassandra19.CqlPreparedResult_, err error) {
	defer c.s.recoverPanic("prepare_cql_query", &err)
	c.call = "prepare_cql_query"
	return nil, c.reply(ctx, "prepare_cql_query", c.refuseCQL(2, query, compression))
}

func (c *conn) PrepareCql3Query(ctx context.Context, query []byte, compression cassandra19.Compression) (r *cassandra19.CqlPreparedResult_, err error) {
	defer c.s.recoverPanic("prepare_cql3_query", &err)
	c.call = "prepare_cql3_query"
	return nil, c.reply(ctx, "prepare_cql3_query", c.refuseCQL(3, query, compression))
}

func (c *conn) ExecutePreparedCqlQuery(ctx context.Context, itemID int32, values [][]byte) (*cassandra19.CqlResult_, error) {
	return nil, c.reply(ctx, "execute_prepared_cql_query", c.refusePrepared(2))
}

func (c *conn) ExecutePreparedCql3Query(ctx context.Context, itemID int32, values [][]byte, cl cassandra19.ConsistencyLevel) (*cassandra19.CqlResult_, error) {
	return nil, c.reply(ctx, "execute_prepared_cql3_query", c.refusePrepared(3))
}

func (c *conn) SetCqlVersion(ctx context.Context, version string) (err error) {
	defer c.s.recoverPanic("set_cql_version", &err)
	c.call = "set_cql_version"
	return c.reply(ctx, "set_cql_version", c.setCQLVersion(version))
}

// withConsistency carries a data call's consistency level to the store.
// The 19.x levels ONE to ANY have 0.6's values; TWO, THREE, LOCAL_ONE and
// the serial levels are passed as they are, for a store that knows them.
func withConsistency(ctx context.Context, cl cassandra19.ConsistencyLevel) context.Context {
	return engine.WithConsistency(ctx, engine.ConsistencyLevel(cl))
}
