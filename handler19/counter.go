package handler19

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Counters: add, remove_counter and the counter mutations of
// batch_mutate, as CassandraServer and CounterMutation of 1.2 served them,
// on a store that implements engine.CounterStore. Counters are read
// through the ordinary reads and answered as CounterColumn and
// CounterSuperColumn (thriftifyCounters).

// errNoCounterStore refuses counter writes on a store without counters.
var errNoCounterStore = invalid("the store thriftd serves from does not serve counter column families")

// validateCounterForWrite is ConsistencyLevel.validateCounterForWrite.
func validateCounterForWrite(f *family, cl cassandra19.ConsistencyLevel) error {
	if cl == cassandra19.ConsistencyLevel_ANY {
		return invalid("Consistency level ANY is not yet supported for counter columnfamily %s", f.Name)
	}
	if f.Options.ReplicateOnWrite != nil && !*f.Options.ReplicateOnWrite && cl != cassandra19.ConsistencyLevel_ONE && cl != cassandra19.ConsistencyLevel_LOCAL_ONE {
		return invalid("cannot achieve CL > CL.ONE without replicate_on_write on columnfamily %s", f.Name)
	}
	return nil
}

// applyCounters is doInsert of CounterMutations.
func (c *conn) applyCounters(ctx context.Context, ks string, cl cassandra19.ConsistencyLevel, rows []engine.CounterRow) error {
	if err := c.assureReplicas(ks, cl); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	cs, ok := c.s.store.(engine.CounterStore)
	if !ok {
		return errNoCounterStore
	}
	err := cs.ApplyCounters(ctx, ks, rows)
	if errors.Is(err, engine.ErrNoCounters) {
		return errNoCounterStore
	}
	return err
}

// add is CassandraServer.add.
func (c *conn) add(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.CounterColumn, cl cassandra19.ConsistencyLevel) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, parent.ColumnFamily)
	if err != nil {
		return err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
		return err
	}
	if err := validateCommutative(f, true); err != nil {
		return err
	}
	if err := validateKey(f, key); err != nil {
		return err
	}
	if err := validateCounterForWrite(f, cl); err != nil {
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
	m := engine.CounterMutation{ColumnFamily: f.Name, Name: col.Name, Delta: col.Value}
	if f.Super {
		m.SuperColumn = parent.SuperColumn
	}
	start := time.Now()
	if err := c.applyCounters(ctx, ks, cl, []engine.CounterRow{{Key: string(key), Mutations: []engine.CounterMutation{m}}}); err != nil {
		return err
	}
	f.wrote(1, time.Since(start))
	return nil
}

// removeCounter is CassandraServer.internal_remove of a counter path.
func (c *conn) removeCounter(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, path.ColumnFamily)
	if err != nil {
		return err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
		return err
	}
	if err := validateCommutative(f, true); err != nil {
		return err
	}
	if err := validateKey(f, key); err != nil {
		return err
	}
	if err := validateColumnPathOrParent(f, path); err != nil {
		return err
	}
	if err := validateCounterForWrite(f, cl); err != nil {
		return err
	}
	m := engine.CounterMutation{ColumnFamily: f.Name, SuperColumn: path.SuperColumn, Name: path.Column, Delete: true}
	start := time.Now()
	if err := c.applyCounters(ctx, ks, cl, []engine.CounterRow{{Key: string(key), Mutations: []engine.CounterMutation{m}}}); err != nil {
		return err
	}
	f.wrote(1, time.Since(start))
	return nil
}

// appendCounterMutation adds the counter mutations of one validated
// Mutation of a counter family. A Deletion's timestamp is ignored: 1.2
// forced the server's clock on it, and the store orders counter
// removals by its own.
func appendCounterMutation(dst []engine.CounterMutation, f *family, m *cassandra19.Mutation) []engine.CounterMutation {
	if cosc := m.ColumnOrSupercolumn; cosc != nil {
		if col := cosc.CounterColumn; col != nil {
			return append(dst, engine.CounterMutation{ColumnFamily: f.Name, Name: col.Name, Delta: col.Value})
		}
		if sc := cosc.CounterSuperColumn; sc != nil {
			for _, col := range sc.Columns {
				dst = append(dst, engine.CounterMutation{ColumnFamily: f.Name, SuperColumn: sc.Name, Name: col.Name, Delta: col.Value})
			}
		}
		return dst
	}
	d := m.Deletion
	del := engine.CounterMutation{ColumnFamily: f.Name, Delete: true}
	if f.Super {
		del.SuperColumn = d.SuperColumn
	}
	if d.Predicate == nil || d.Predicate.ColumnNames == nil {
		return append(dst, del)
	}
	for _, name := range d.Predicate.ColumnNames {
		one := del
		if f.Super && d.SuperColumn == nil {
			one.SuperColumn = name
		} else {
			one.Name = name
		}
		dst = append(dst, one)
	}
	return dst
}

// thriftifyCounters is thriftifyRow for a counter family: totals as
// CounterColumn and CounterSuperColumn.
func thriftifyCounters(row engine.Row) ([]*cassandra19.ColumnOrSuperColumn, error) {
	if row.SuperColumns != nil {
		out := make([]*cassandra19.ColumnOrSuperColumn, 0, len(row.SuperColumns))
		for _, sc := range row.SuperColumns {
			if len(sc.Columns) == 0 {
				continue
			}
			cols, err := counterColumns(sc.Columns)
			if err != nil {
				return nil, err
			}
			out = append(out, &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: sc.Name, Columns: cols}})
		}
		return out, nil
	}
	cols, err := counterColumns(row.Columns)
	if err != nil {
		return nil, err
	}
	out := make([]*cassandra19.ColumnOrSuperColumn, len(cols))
	for i, col := range cols {
		out[i] = &cassandra19.ColumnOrSuperColumn{CounterColumn: col}
	}
	return out, nil
}

// mustThriftifyCounters is thriftifyCounters for thriftifyRow: a stored
// total that is not 8 bytes is a damaged store, answered as an internal
// error (the method's recoverPanic logs it).
func mustThriftifyCounters(row engine.Row) []*cassandra19.ColumnOrSuperColumn {
	out, err := thriftifyCounters(row)
	if err != nil {
		panic(fmt.Sprintf("row %q: %v", row.Key, err))
	}
	return out
}

func counterColumns(cols []engine.Column) ([]*cassandra19.CounterColumn, error) {
	out := make([]*cassandra19.CounterColumn, len(cols))
	for i, col := range cols {
		v, err := engine.DecodeCounter(col.Value)
		if err != nil {
			return nil, fmt.Errorf("stored counter %x: %w", col.Name, err)
		}
		out[i] = &cassandra19.CounterColumn{Name: col.Name, Value: v}
	}
	return out, nil
}
