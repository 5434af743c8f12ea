package handler19

import (
	"context"
	"errors"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// insert is CassandraServer.internal_insert.
func (c *conn) insert(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.Column, cl cassandra19.ConsistencyLevel) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	if err := c.checkAccess(ks); err != nil {
		return err
	}
	f, err := c.s.validateColumnFamilyFor(c.s.schema(), ks, parent.ColumnFamily, false)
	if err != nil {
		return err
	}
	if err := validateKey(f, key); err != nil {
		return err
	}
	if err := validateColumnParent(f, parent); err != nil {
		return err
	}
	if f.Super && parent.SuperColumn == nil {
		return invalid("missing mandatory super column name for super CF %s", parent.ColumnFamily)
	}
	if err := validateColumnNames(f, parent.SuperColumn, [][]byte{col.Name}); err != nil {
		return err
	}
	if err := c.s.validateColumnData(f, col, parent.SuperColumn != nil); err != nil {
		return err
	}
	m := write(f, parent.SuperColumn, col)
	if err := validateForWrite(cl); err != nil {
		return err
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return err
	}
	return c.s.store.Apply(ctx, ks, []engine.RowMutation{{Key: string(key), Mutations: []engine.Mutation{m}}})
}

// write is the engine mutation of a validated column.
func write(f *family, superColumn []byte, col *cassandra19.Column) engine.Mutation {
	m := engine.Mutation{ColumnFamily: f.Name, Name: col.Name, Value: col.Value, Timestamp: *col.Timestamp, TTL: f.DefaultTTL}
	if f.Super {
		m.SuperColumn = superColumn
	}
	if col.TTL != nil {
		m.TTL = *col.TTL
	}
	return m
}

// remove is CassandraServer.internal_remove of a non-counter path: a
// column, a super column or a whole row.
func (c *conn) remove(ctx context.Context, key []byte, path *cassandra19.ColumnPath, timestamp int64, cl cassandra19.ConsistencyLevel) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	if err := c.checkAccess(ks); err != nil {
		return err
	}
	f, err := c.s.validateColumnFamilyFor(c.s.schema(), ks, path.ColumnFamily, false)
	if err != nil {
		return err
	}
	if err := validateKey(f, key); err != nil {
		return err
	}
	if err := validateColumnPathOrParent(f, path); err != nil {
		return err
	}
	m := engine.Mutation{ColumnFamily: f.Name, Timestamp: timestamp, Delete: true, SuperColumn: path.SuperColumn, Name: path.Column}
	if err := validateForWrite(cl); err != nil {
		return err
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return err
	}
	return c.s.store.Apply(ctx, ks, []engine.RowMutation{{Key: string(key), Mutations: []engine.Mutation{m}}})
}

// batchMutate is CassandraServer.createMutationList then doInsert. atomic
// is atomic_batch_mutate, which refuses counter mutations.
func (c *conn) batchMutate(ctx context.Context, mutations map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel, atomic bool) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	sch := c.s.schema()
	rows := make([]engine.RowMutation, 0, len(mutations))
	var counterRows []engine.CounterRow
	for key, byFamily := range mutations {
		// One mutation per column, mostly: sized once rather than grown.
		n := 0
		for _, muts := range byFamily {
			n += len(muts)
		}
		row := engine.RowMutation{Key: key, Mutations: make([]engine.Mutation, 0, n)}
		counterRow := engine.CounterRow{Key: key}
		for cfName, muts := range byFamily {
			if err := c.checkAccess(ks); err != nil {
				return err
			}
			f, err := c.s.validateColumnFamily(sch, ks, cfName)
			if err != nil {
				return err
			}
			if err := validateKey(f, []byte(key)); err != nil {
				return err
			}
			if f.commutative() {
				if err := validateCounterForWrite(f, cl); err != nil {
					return err
				}
			}
			for _, m := range muts {
				if m == nil {
					return invalid("mutation must have one and only one of column_or_supercolumn or deletion")
				}
				if err := c.s.validateMutation(f, m); err != nil {
					return err
				}
				if f.commutative() {
					counterRow.Mutations = appendCounterMutation(counterRow.Mutations, f, m)
				} else {
					row.Mutations = appendMutation(row.Mutations, f, m)
				}
			}
		}
		if len(row.Mutations) > 0 {
			rows = append(rows, row)
		}
		if len(counterRow.Mutations) > 0 {
			if atomic {
				return invalid("Counter mutations are not allowed in atomic batches")
			}
			counterRows = append(counterRows, counterRow)
		}
	}
	if err := validateForWrite(cl); err != nil {
		return err
	}
	if len(rows) == 0 && len(counterRows) == 0 {
		return nil
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return err
	}
	if len(rows) > 0 {
		if err := c.s.store.Apply(ctx, ks, rows); err != nil {
			return err
		}
	}
	return c.applyCounters(ctx, ks, cl, counterRows)
}

// appendMutation adds the engine mutations of one validated Mutation.
func appendMutation(dst []engine.Mutation, f *family, m *cassandra19.Mutation) []engine.Mutation {
	if cosc := m.ColumnOrSupercolumn; cosc != nil {
		if cosc.Column != nil {
			return append(dst, write(f, nil, cosc.Column))
		}
		if sc := cosc.SuperColumn; sc != nil {
			for _, col := range sc.Columns {
				dst = append(dst, write(f, sc.Name, col))
			}
		}
		return dst
	}
	d := m.Deletion
	del := engine.Mutation{ColumnFamily: f.Name, Timestamp: d.GetTimestamp(), Delete: true}
	if f.Super {
		del.SuperColumn = d.SuperColumn
	}
	if d.Predicate == nil || d.Predicate.ColumnNames == nil {
		// The whole row, or the whole super column.
		return append(dst, del)
	}
	for _, name := range d.Predicate.ColumnNames {
		one := del
		if f.Super && d.SuperColumn == nil {
			// The names are super columns' names.
			one.SuperColumn = name
		} else {
			one.Name = name
		}
		dst = append(dst, one)
	}
	return dst
}

// truncater is implemented by a store that can empty a column family.
type truncater interface {
	Truncate(ctx context.Context, keyspace, columnFamily string) error
}

// truncate is CassandraServer.truncate: every column of the family, as of
// now, is gone.
func (c *conn) truncate(ctx context.Context, cfName string) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	if err := c.checkAccess(ks); err != nil {
		return err
	}
	if _, err := c.s.validateColumnFamily(c.s.schema(), ks, cfName); err != nil {
		return err
	}
	t, ok := c.s.store.(truncater)
	if !ok {
		return errors.New("the store cannot truncate")
	}
	return t.Truncate(ctx, ks, cfName)
}
