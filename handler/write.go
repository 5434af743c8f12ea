package handler

import (
	"context"
	"maps"
	"slices"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Writes at every consistency level, ZERO included, are applied before the
// reply (spec 16.4): one node holds every replica.

// insert writes one column or subcolumn.
func (c *conn) insert(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, value []byte, timestamp int64, cl cassandra.ConsistencyLevel) error {
	if err := firstError(
		required("column_path", path == nil),
		rejectUnknownConsistencyLevel(cl),
		c.checkLoginDone(),
		validateKey(key),
	); err != nil {
		return err
	}
	cf, err := c.s.v.validateColumnPath(keyspace, path)
	if err != nil {
		return err
	}
	if cf.Super && path.Column == nil {
		// 0.6 failed an assertion here (spec 16.3).
		return invalid("column parameter is not optional for super CF %s", cf.Name)
	}
	if err := c.s.checkWritable(keyspace); err != nil {
		return err
	}
	m := engine.Mutation{ColumnFamily: cf.Name, SuperColumn: path.SuperColumn, Name: path.Column, Value: value, Timestamp: timestamp}
	return c.s.applyPlain(ctx, keyspace, []engine.RowMutation{{Key: key, Mutations: []engine.Mutation{m}}})
}

// batchInsert writes columns of several column families of one row, as one
// atomic RowMutation.
func (c *conn) batchInsert(ctx context.Context, keyspace, key string, cfmap map[string][]*cassandra.ColumnOrSuperColumn, cl cassandra.ConsistencyLevel) error {
	if err := firstError(
		rejectUnknownConsistencyLevel(cl),
		c.checkLoginDone(),
		validateKey(key),
	); err != nil {
		return err
	}
	cfmap = javaKeys(cfmap)
	names := slices.Sorted(maps.Keys(cfmap))
	for _, cf := range names {
		for _, item := range cfmap[cf] {
			if err := c.s.v.validateColumnOrSuperColumn(keyspace, cf, item); err != nil {
				return err
			}
		}
	}
	n := 0
	for _, cf := range names {
		n += len(cfmap[cf])
	}
	ms := make([]engine.Mutation, 0, n)
	for _, cf := range names {
		for _, item := range cfmap[cf] {
			if item.Column != nil && item.SuperColumn != nil {
				// 0.6 failed an assertion here (spec 16.3).
				return invalid("ColumnOrSuperColumn in batch_insert must have either a Column or a SuperColumn, not both (column family %s)", cf)
			}
			ms = appendWrites(ms, cf, item)
		}
	}
	if err := c.s.checkWritable(keyspace); err != nil {
		return err
	}
	if len(ms) == 0 {
		return nil
	}
	return c.s.applyPlain(ctx, keyspace, []engine.RowMutation{{Key: key, Mutations: ms}})
}

// remove deletes what path names: the row of a column family, a column, a
// super column or a subcolumn.
func (c *conn) remove(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, timestamp int64, cl cassandra.ConsistencyLevel) error {
	if err := firstError(
		required("column_path", path == nil),
		c.checkLoginDone(),
		validateKey(key),
	); err != nil {
		return err
	}
	cf, err := c.s.v.validateColumnPathOrParent(keyspace, path)
	if err != nil {
		return err
	}
	// remove's consistency_level is optional in the IDL, so 0.6 reached
	// this point with an unknown level and failed only when writing.
	if err := firstError(rejectUnknownConsistencyLevel(cl), c.s.checkWritable(keyspace)); err != nil {
		return err
	}
	m := engine.Mutation{ColumnFamily: cf.Name, SuperColumn: path.SuperColumn, Name: path.Column, Timestamp: timestamp, Delete: true}
	return c.s.applyPlain(ctx, keyspace, []engine.RowMutation{{Key: key, Mutations: []engine.Mutation{m}}})
}

// batchMutate validates every row and every mutation, and only then
// applies one RowMutation per row key. Rows and column families are
// visited in sorted order, so that of several invalid mutations the same
// one is reported every time (0.6 used HashMap order).
func (c *conn) batchMutate(ctx context.Context, keyspace string, mutationMap map[string]map[string][]*cassandra.Mutation, cl cassandra.ConsistencyLevel) error {
	if err := firstError(rejectUnknownConsistencyLevel(cl), c.checkLoginDone()); err != nil {
		return err
	}
	rows := javaRowKeys(mutationMap)
	keys := slices.Sorted(maps.Keys(rows))
	for _, key := range keys {
		if err := validateKey(key); err != nil {
			return err
		}
		byCF := rows[key]
		for _, cf := range slices.Sorted(maps.Keys(byCF)) {
			for _, m := range byCF[cf] {
				if err := c.s.v.validateMutation(keyspace, cf, m); err != nil {
					return err
				}
			}
		}
	}
	if err := c.s.checkWritable(keyspace); err != nil {
		return err
	}
	sch := c.s.sch()
	batch := make([]engine.RowMutation, 0, len(keys))
	for _, key := range keys {
		byCF := rows[key]
		n := 0
		for _, list := range byCF {
			n += len(list)
		}
		ms := make([]engine.Mutation, 0, n)
		for _, cfName := range slices.Sorted(maps.Keys(byCF)) {
			for _, m := range byCF[cfName] {
				if m.ColumnOrSupercolumn != nil {
					ms = appendWrites(ms, cfName, m.ColumnOrSupercolumn)
				} else {
					// validateDeletion has established that it exists,
					// unless the 19.x API dropped it since.
					cf := sch.ColumnFamily(keyspace, cfName)
					if cf == nil {
						return invalid("unconfigured columnfamily %s", cfName)
					}
					ms = appendDeletes(ms, cf, m.Deletion)
				}
			}
		}
		if len(ms) > 0 {
			batch = append(batch, engine.RowMutation{Key: key, Mutations: ms})
		}
	}
	if len(batch) == 0 {
		return nil
	}
	return c.s.applyPlain(ctx, keyspace, batch)
}

// javaKeys returns cfmap with its column family names as Java decoded
// them. Names that become equal are merged, in sorted order of the
// originals.
func javaKeys[V any](m map[string][]V) map[string][]V {
	clean := true
	for k := range m {
		if javaString(k) != k {
			clean = false
			break
		}
	}
	if clean {
		return m
	}
	out := make(map[string][]V, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		j := javaString(k)
		out[j] = append(out[j], m[k]...)
	}
	return out
}

// javaRowKeys is javaKeys for batch_mutate's two-level map.
func javaRowKeys(m map[string]map[string][]*cassandra.Mutation) map[string]map[string][]*cassandra.Mutation {
	out := make(map[string]map[string][]*cassandra.Mutation, len(m))
	for _, key := range slices.Sorted(maps.Keys(m)) {
		j := javaString(key)
		merged := out[j]
		if merged == nil {
			merged = make(map[string][]*cassandra.Mutation)
			out[j] = merged
		}
		for cf, ms := range javaKeys(m[key]) {
			merged[cf] = slices.Concat(merged[cf], ms)
		}
	}
	return out
}
