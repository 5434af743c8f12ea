package handler

import (
	"context"
	"math"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/schema"
)

// get returns the column, subcolumn or whole super column at path, or
// errNotFound when nothing live is there (the only call that raises
// NotFoundException).
func (c *conn) get(ctx context.Context, keyspace, key string, path *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) (*cassandra.ColumnOrSuperColumn, error) {
	cf, err := c.validatePathRequest(keyspace, []string{key}, path, cl)
	if err != nil {
		return nil, err
	}
	r, err := c.s.lookup(ctx, keyspace, key, cf, path)
	if err != nil {
		return nil, err
	}
	if r.Column == nil && r.SuperColumn == nil {
		return nil, errNotFound
	}
	return r, nil
}

// validatePathRequest is the shared head of get and multiget:
// checkLoginDone, validateColumnPath, then each key, then the consistency
// level.
func (c *conn) validatePathRequest(keyspace string, keys []string, path *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) (*schema.ColumnFamily, error) {
	if err := firstError(
		required("column_path", path == nil),
		rejectUnknownConsistencyLevel(cl),
		c.checkLoginDone(),
	); err != nil {
		return nil, err
	}
	cf, err := c.s.v.validateColumnPath(keyspace, path)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		if err := validateKey(key); err != nil {
			return nil, err
		}
	}
	if err := checkReadConsistency(cl); err != nil {
		return nil, err
	}
	return cf, nil
}

// multiget is get for several keys; a key with nothing live maps to an
// empty ColumnOrSuperColumn.
func (c *conn) multiget(ctx context.Context, keyspace string, keys []string, path *cassandra.ColumnPath, cl cassandra.ConsistencyLevel) (map[string]*cassandra.ColumnOrSuperColumn, error) {
	cf, err := c.validatePathRequest(keyspace, keys, path, cl)
	if err != nil {
		return nil, err
	}
	uniq := distinct(keys)
	start := time.Now()
	rows, err := c.s.store.GetMany(ctx, keyspace, uniq, lookupQuery(cf, path))
	if err != nil {
		return nil, err
	}
	c.s.read(keyspace, cf, len(uniq), start)
	out := make(map[string]*cassandra.ColumnOrSuperColumn, len(uniq))
	for i, key := range uniq {
		out[key] = lookupResult(rows[i])
	}
	return out, nil
}

// distinct returns keys without repeats, in first-seen order.
func distinct(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// lookup reads what a validated ColumnPath names, as 0.6's multigetInternal
// did: the named column or subcolumn, or the named super column with all
// its live subcolumns. Nothing live gives an empty ColumnOrSuperColumn.
func (s *Service) lookup(ctx context.Context, keyspace, key string, cf *schema.ColumnFamily, path *cassandra.ColumnPath) (*cassandra.ColumnOrSuperColumn, error) {
	start := time.Now()
	row, err := s.store.Get(ctx, keyspace, key, lookupQuery(cf, path))
	if err != nil {
		return nil, err
	}
	s.read(keyspace, cf, 1, start)
	return lookupResult(row), nil
}

// lookupQuery selects what a validated ColumnPath names.
func lookupQuery(cf *schema.ColumnFamily, path *cassandra.ColumnPath) engine.Query {
	q := engine.Query{ColumnFamily: cf.Name}
	if path.Column != nil {
		q.SuperColumn = path.SuperColumn
		q.Names = [][]byte{path.Column}
	} else {
		q.Names = [][]byte{path.SuperColumn}
	}
	return q
}

// lookupResult is the one item a lookupQuery found, or an empty
// ColumnOrSuperColumn.
func lookupResult(row engine.Row) *cassandra.ColumnOrSuperColumn {
	if items := thriftifyRow(row); len(items) > 0 {
		return items[0]
	}
	return &cassandra.ColumnOrSuperColumn{}
}

// validateSliceRequest is the shared head of get_slice and multiget_slice:
// checkLoginDone, validateColumnParent, validatePredicate, then each key,
// then the consistency level.
func (c *conn) validateSliceRequest(keyspace string, keys []string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) (*schema.ColumnFamily, error) {
	if err := firstError(
		required("column_parent", parent == nil),
		required("predicate", pred == nil),
		rejectUnknownConsistencyLevel(cl),
		c.checkLoginDone(),
	); err != nil {
		return nil, err
	}
	cf, err := c.s.v.validateColumnParent(keyspace, parent)
	if err != nil {
		return nil, err
	}
	if err := validatePredicate(cf, parent, pred); err != nil {
		return nil, err
	}
	for _, key := range keys {
		if err := validateKey(key); err != nil {
			return nil, err
		}
	}
	if err := checkReadConsistency(cl); err != nil {
		return nil, err
	}
	return cf, nil
}

// getSlice returns the live items of one row that the predicate selects;
// a missing row gives an empty list.
func (c *conn) getSlice(ctx context.Context, keyspace, key string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) ([]*cassandra.ColumnOrSuperColumn, error) {
	cf, err := c.validateSliceRequest(keyspace, []string{key}, parent, pred, cl)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	row, err := c.s.store.Get(ctx, keyspace, key, sliceQuery(cf, parent.SuperColumn, pred))
	if err != nil {
		return nil, err
	}
	c.s.read(keyspace, cf, 1, start)
	return thriftifyRow(row), nil
}

// multigetSlice is getSlice for several keys, each present in the result.
func (c *conn) multigetSlice(ctx context.Context, keyspace string, keys []string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, cl cassandra.ConsistencyLevel) (map[string][]*cassandra.ColumnOrSuperColumn, error) {
	cf, err := c.validateSliceRequest(keyspace, keys, parent, pred, cl)
	if err != nil {
		return nil, err
	}
	uniq := distinct(keys)
	start := time.Now()
	rows, err := c.s.store.GetMany(ctx, keyspace, uniq, sliceQuery(cf, parent.SuperColumn, pred))
	if err != nil {
		return nil, err
	}
	c.s.read(keyspace, cf, len(uniq), start)
	out := make(map[string][]*cassandra.ColumnOrSuperColumn, len(uniq))
	for i, key := range uniq {
		out[key] = thriftifyRow(rows[i])
	}
	return out, nil
}

// countAll is the predicate 0.6's get_count validated:
// SliceRange("", "", false, Integer.MAX_VALUE), which always passes.
var countAll = &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{
	Start: []byte{}, Finish: []byte{}, Count: math.MaxInt32,
}}

// getCount counts what get_slice would return for the whole row: live
// columns, live subcolumns of a super column, or super columns with at
// least one live subcolumn.
func (c *conn) getCount(ctx context.Context, keyspace, key string, parent *cassandra.ColumnParent, cl cassandra.ConsistencyLevel) (int32, error) {
	cf, err := c.validateSliceRequest(keyspace, []string{key}, parent, countAll, cl)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	n, err := c.s.store.Count(ctx, keyspace, key, cf.Name, parent.SuperColumn)
	if err != nil {
		return 0, err
	}
	c.s.read(keyspace, cf, 1, start)
	return int32(min(n, math.MaxInt32)), nil
}

// firstError returns the first non-nil error. The checks it is given are
// evaluated eagerly, so it only fits checks without side effects whose
// order of reporting is the order of the arguments.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
