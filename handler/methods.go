package handler

import (
	"context"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// The methods of cassandra.Cassandra. Each one normalizes its string
// arguments as Java decoded them, bounds data calls by RpcTimeoutInMillis,
// runs its implementation and converts the outcome in one place
// (Service.reply); a panic becomes an internal error, logged with its
// stack.

func (c *conn) Login(ctx context.Context, keyspace string, req *cassandra.AuthenticationRequest) (err error) {
	defer c.s.recoverPanic("login", &err)
	return c.s.reply(ctx, "login", c.login(ctx, javaString(keyspace), req))
}

func (c *conn) Get(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) (r *cassandra.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("get", &err)
	ctx = withConsistency(ctx, cl)
	if err = c.permit(ctx, "get", auth.Select, keyspace, pathFamily(path)); err == nil {
		r, err = c.get(ctx, javaString(keyspace), javaString(key), path, cl)
	}
	return r, c.s.replyOn(ctx, "get", keyspace, familyOfPath(path), err)
}

func (c *conn) GetSlice(ctx context.Context, keyspace, key string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) (r []*cassandra.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("get_slice", &err)
	ctx = withConsistency(ctx, cl)
	if err = c.permit(ctx, "get_slice", auth.Select, keyspace, parentFamily(parent)); err == nil {
		r, err = c.getSlice(ctx, javaString(keyspace), javaString(key), parent, pred, cl)
	}
	return r, c.s.replyOn(ctx, "get_slice", keyspace, familyOfParent(parent), err)
}

func (c *conn) Multiget(ctx context.Context, keyspace string, keys []string, path *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) (r map[string]*cassandra.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("multiget", &err)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	if err = c.permit(ctx, "multiget", auth.Select, keyspace, pathFamily(path)); err == nil {
		r, err = c.multiget(ctx, javaString(keyspace), javaStrings(keys), path, cl)
	}
	return r, c.s.replyOn(ctx, "multiget", keyspace, familyOfPath(path), err)
}

func (c *conn) MultigetSlice(ctx context.Context, keyspace string, keys []string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) (r map[string][]*cassandra.ColumnOrSuperColumn, err error) {
	defer c.s.recoverPanic("multiget_slice", &err)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	if err = c.permit(ctx, "multiget_slice", auth.Select, keyspace, parentFamily(parent)); err == nil {
		r, err = c.multigetSlice(ctx, javaString(keyspace), javaStrings(keys), parent, pred, cl)
	}
	return r, c.s.replyOn(ctx, "multiget_slice", keyspace, familyOfParent(parent), err)
}

func (c *conn) GetCount(ctx context.Context, keyspace, key string, parent *cassandra.ColumnParent, cl cassandra.ConsistencyLevel) (r int32, err error) {
	defer c.s.recoverPanic("get_count", &err)
	ctx = withConsistency(ctx, cl)
	if err = c.permit(ctx, "get_count", auth.Select, keyspace, parentFamily(parent)); err == nil {
		r, err = c.getCount(ctx, javaString(keyspace), javaString(key), parent, cl)
	}
	return r, c.s.replyOn(ctx, "get_count", keyspace, familyOfParent(parent), err)
}

func (c *conn) GetRangeSlice(ctx context.Context, keyspace string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, startKey, finishKey string, rowCount int32, cl cassandra.ConsistencyLevel) (r []*cassandra.KeySlice, err error) {
	defer c.s.recoverPanic("get_range_slice", &err)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	// 0.6 built a KeyRange from the deprecated call's arguments.
	kr := &cassandra.KeyRange{StartKey: &startKey, EndKey: &finishKey, Count: rowCount}
	if err = c.permit(ctx, "get_range_slice", auth.Select, keyspace, parentFamily(parent)); err == nil {
		r, err = c.getRangeSlices(ctx, javaString(keyspace), parent, pred, kr, cl)
	}
	return r, c.s.replyOn(ctx, "get_range_slice", keyspace, familyOfParent(parent), err)
}

func (c *conn) GetRangeSlices(ctx context.Context, keyspace string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, kr *cassandra.KeyRange, cl cassandra.ConsistencyLevel) (r []*cassandra.KeySlice, err error) {
	defer c.s.recoverPanic("get_range_slices", &err)
	ctx = withConsistency(ctx, cl)
	ctx, cancel := c.s.withTimeout(ctx)
	defer cancel()
	if err = c.permit(ctx, "get_range_slices", auth.Select, keyspace, parentFamily(parent)); err == nil {
		r, err = c.getRangeSlices(ctx, javaString(keyspace), parent, pred, kr, cl)
	}
	return r, c.s.replyOn(ctx, "get_range_slices", keyspace, familyOfParent(parent), err)
}

func (c *conn) Insert(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, value []byte, timestamp int64, cl cassandra.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("insert", &err)
	ctx = withConsistency(ctx, cl)
	err = c.permit(ctx, "insert", auth.Modify, keyspace, pathFamily(path))
	if err == nil {
		err = c.insert(ctx, javaString(keyspace), javaString(key), path, value, timestamp, cl)
	}
	return c.s.replyOn(ctx, "insert", keyspace, familyOfPath(path), err)
}

func (c *conn) BatchInsert(ctx context.Context, keyspace, key string, cfmap map[string][]*cassandra.ColumnOrSuperColumn, cl cassandra.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("batch_insert", &err)
	ctx = withConsistency(ctx, cl)
	err = c.permit(ctx, "batch_insert", auth.Modify, keyspace, mapFamilies(cfmap))
	if err == nil {
		err = c.batchInsert(ctx, javaString(keyspace), javaString(key), cfmap, cl)
	}
	return c.s.replyOn(ctx, "batch_insert", keyspace, "", err)
}

func (c *conn) Remove(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, timestamp int64, cl cassandra.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("remove", &err)
	ctx = withConsistency(ctx, cl)
	err = c.permit(ctx, "remove", auth.Modify, keyspace, pathFamily(path))
	if err == nil {
		err = c.remove(ctx, javaString(keyspace), javaString(key), path, timestamp, cl)
	}
	return c.s.replyOn(ctx, "remove", keyspace, familyOfPath(path), err)
}

func (c *conn) BatchMutate(ctx context.Context, keyspace string, mutations map[string]map[string][]*cassandra.Mutation, cl cassandra.ConsistencyLevel) (err error) {
	defer c.s.recoverPanic("batch_mutate", &err)
	ctx = withConsistency(ctx, cl)
	err = c.permit(ctx, "batch_mutate", auth.Modify, keyspace, mutationFamilies(mutations))
	if err == nil {
		err = c.batchMutate(ctx, javaString(keyspace), mutations, cl)
	}
	return c.s.replyOn(ctx, "batch_mutate", keyspace, "", err)
}

func (c *conn) GetStringProperty(ctx context.Context, property string) (string, error) {
	return c.s.stringProperty(javaString(property)), nil
}

func (c *conn) GetStringListProperty(ctx context.Context, property string) ([]string, error) {
	return c.s.stringListProperty(javaString(property)), nil
}

func (c *conn) DescribeKeyspaces(ctx context.Context) ([]string, error) {
	return c.s.sch().KeyspaceNames(), nil
}

func (c *conn) DescribeClusterName(ctx context.Context) (string, error) {
	return c.s.clusterName, nil
}

func (c *conn) DescribeVersion(ctx context.Context) (string, error) {
	return cassandra.VERSION, nil
}

func (c *conn) DescribeRing(ctx context.Context, keyspace string) (r []*cassandra.TokenRange, err error) {
	defer c.s.recoverPanic("describe_ring", &err)
	r, err = c.s.describeRing(javaString(keyspace))
	return r, c.s.reply(ctx, "describe_ring", err)
}

func (c *conn) DescribePartitioner(ctx context.Context) (string, error) {
	return c.s.sch().Partitioner.Name(), nil
}

func (c *conn) DescribeKeyspace(ctx context.Context, keyspace string) (r map[string]map[string]string, err error) {
	defer c.s.recoverPanic("describe_keyspace", &err)
	r, err = c.s.describeKeyspace(javaString(keyspace))
	return r, c.s.reply(ctx, "describe_keyspace", err)
}

func (c *conn) DescribeSplits(ctx context.Context, startToken, endToken string, keysPerSplit int32) (r []string, err error) {
	defer c.s.recoverPanic("describe_splits", &err)
	r, err = c.s.describeSplits(ctx, javaString(startToken), javaString(endToken), keysPerSplit)
	return r, c.s.undeclared(ctx, "describe_splits", err)
}

// withConsistency carries a data call's consistency level to the store,
// which maps it onto a replicated cluster's levels (a single-node store
// ignores it). It is the one place the level is handed down.
func withConsistency(ctx context.Context, cl cassandra.ConsistencyLevel) context.Context {
	return engine.WithConsistency(ctx, engine.ConsistencyLevel(cl))
}

// javaStrings applies javaString to every element, reusing keys when all
// are valid UTF-8 already.
func javaStrings(keys []string) []string {
	var out []string
	for i, k := range keys {
		if j := javaString(k); j != k {
			if out == nil {
				out = append([]string(nil), keys...)
			}
			out[i] = j
		}
	}
	if out == nil {
		return keys
	}
	return out
}
