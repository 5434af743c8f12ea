package handler19

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
)

// insert is CassandraServer.internal_insert.
func (c *conn) insert(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, col *cassandra19.Column, cl cassandra19.ConsistencyLevel) error {
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
	if err := validateCommutative(f, false); err != nil {
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
	start := time.Now()
	if err := c.s.store.Apply(ctx, ks, []engine.RowMutation{{Key: string(key), Mutations: []engine.Mutation{m}}}); err != nil {
		return err
	}
	f.wrote(1, time.Since(start))
	return nil
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
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, path.ColumnFamily)
	if err != nil {
		return err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
		return err
	}
	if err := validateCommutative(f, false); err != nil {
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
	start := time.Now()
	if err := c.s.store.Apply(ctx, ks, []engine.RowMutation{{Key: string(key), Mutations: []engine.Mutation{m}}}); err != nil {
		return err
	}
	f.wrote(1, time.Since(start))
	return nil
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
	var counted [4]familyRows
	written := counted[:0]
	for key, byFamily := range mutations {
		// One mutation per column, mostly: sized once rather than grown.
		n := 0
		for _, muts := range byFamily {
			n += len(muts)
		}
		row := engine.RowMutation{Key: key, Mutations: make([]engine.Mutation, 0, n)}
		counterRow := engine.CounterRow{Key: key}
		// A counter range deletion is a counter mutation even when it
		// finds no counter to remove.
		counterRange := false
		for cfName, muts := range byFamily {
			f, err := c.s.validateColumnFamily(sch, ks, cfName)
			if err != nil {
				return err
			}
			if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
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
			before := len(row.Mutations) + len(counterRow.Mutations)
			for _, m := range muts {
				if m == nil {
					return invalid("mutation must have one and only one of column_or_supercolumn or deletion")
				}
				if err := c.s.validateMutation(f, m); err != nil {
					return err
				}
				if f.commutative() && isRangeDeletion(m) {
					counterRange = true
					if counterRow.Mutations, err = c.appendCounterRange(ctx, ks, key, f, counterRow.Mutations, m.Deletion); err != nil {
						return err
					}
				} else if f.commutative() {
					counterRow.Mutations = appendCounterMutation(counterRow.Mutations, f, m)
				} else {
					row.Mutations = appendMutation(row.Mutations, f, m)
				}
			}
			if len(row.Mutations)+len(counterRow.Mutations) > before {
				written = countRow(written, f)
			}
		}
		if len(row.Mutations) > 0 {
			rows = append(rows, row)
		}
		if len(counterRow.Mutations) > 0 || counterRange {
			if atomic {
				return invalid("Counter mutations are not allowed in atomic batches")
			}
			if len(counterRow.Mutations) > 0 {
				counterRows = append(counterRows, counterRow)
			}
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
	start := time.Now()
	if len(rows) > 0 {
		if err := c.s.store.Apply(ctx, ks, rows); err != nil {
			return err
		}
	}
	if err := c.applyCounters(ctx, ks, cl, counterRows); err != nil {
		return err
	}
	recordWrites(written, time.Since(start))
	return nil
}

// familyRows counts the rows a batch writes of one family.
type familyRows struct {
	f    *family
	rows int
}

// countRow counts one more row of f.
func countRow(counts []familyRows, f *family) []familyRows {
	for i := range counts {
		if counts[i].f == f {
			counts[i].rows++
			return counts
		}
	}
	return append(counts, familyRows{f: f, rows: 1})
}

// recordWrites records a batch's writes, each family with its share of
// the batch's time in the store, d.
func recordWrites(counts []familyRows, d time.Duration) {
	total := 0
	for _, c := range counts {
		total += c.rows
	}
	for _, c := range counts {
		c.f.wrote(c.rows, d*time.Duration(c.rows)/time.Duration(total))
	}
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
	if d.Predicate != nil && d.Predicate.ColumnNames == nil && d.Predicate.SliceRange != nil {
		return appendRangeDeletion(dst, f, del, d)
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

// errNoTruncate refuses truncate on a store that cannot empty a column
// family.
var errNoTruncate = invalid("the store thriftd serves from cannot truncate")

// truncate is CassandraServer.truncate: every column of the family, as of
// now, is gone.
func (c *conn) truncate(ctx context.Context, cfName string) error {
	ks, err := c.keyspaceOf()
	if err != nil {
		return err
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, cfName)
	if err != nil {
		return err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Modify); err != nil {
		return err
	}
	t, ok := c.s.store.(engine.Truncater)
	if !ok {
		return errNoTruncate
	}
	return t.Truncate(ctx, ks, cfName)
}

// appendRangeDeletion adds what a Deletion by SliceRange deletes, as 2.1.21
// deletes it (CassandraServer.deleteColumnOrSuperColumn), to the deletion
// del (family, timestamp, super column) and returns dst. The range runs
// from slice_range.start to slice_range.finish in the comparator's order
// whatever reversed says (which only decided their validation), and count
// is ignored. 2.1 made a range tombstone of the two bounds as names: an
// empty bound is the empty name, which sorts first (last for a
// ReversedType comparator, in 2.1's order), and a name equal to the
// tombstone's start is deleted even when the finish sorts before it. Of a
// Super column family's super columns (no super_column) the bounds are
// prefixes: those of start and after it, up to those of finish. So, as
// measured on 2.1.21:
//
//   - start at or before finish: every name from start to finish;
//   - an empty start (not ReversedType): from the first name; an empty
//     finish (ReversedType): to the last;
//   - otherwise the range is empty but for its start: the column or
//     subcolumn named start is deleted, no super column is.
//
// The empty name itself is no column (1.2 refuses it as a name).
func appendRangeDeletion(dst []engine.Mutation, f *family, del engine.Mutation, d *cassandra19.Deletion) []engine.Mutation {
	r := d.Predicate.SliceRange
	supers := f.Super && d.SuperColumn == nil
	c := f.comparatorFor(d.SuperColumn)
	reversed := strings.HasPrefix(c.Name(), "org.apache.cassandra.db.marshal.ReversedType(")
	start, finish := r.Start, r.Finish
	switch {
	case len(start) == 0 && len(finish) == 0:
		// From the empty name to itself.
		return dst
	case len(start) == 0 && !reversed, len(finish) == 0 && reversed:
		// Open at the empty name's end of the order.
	case len(start) > 0 && len(finish) > 0 && c.Compare(start, finish) <= 0:
	default:
		// The range ends before its start. A composite start whose last
		// end-of-component byte is not zero is a bound, which no name
		// equals.
		if supers || len(start) == 0 || (composite(c) && lastEOC(start) != 0) {
			return dst
		}
		del.Name = start
		return append(dst, del)
	}
	del.Range = &engine.NameRange{Start: start, Finish: finish}
	return append(dst, del)
}

// isRangeDeletion reports whether m deletes by SliceRange.
func isRangeDeletion(m *cassandra19.Mutation) bool {
	d := m.Deletion
	return d != nil && d.Predicate != nil && d.Predicate.ColumnNames == nil && d.Predicate.SliceRange != nil
}

// appendCounterRange adds the deletions of the counters a range deletion
// in a counter family deletes, as they are when it is read: counters have
// no timestamps to shadow by, and 2.1 deleted them with the server's clock,
// so an add after the deletion counting again from zero, or not at all, is
// as undefined as after any other removal of a counter.
func (c *conn) appendCounterRange(ctx context.Context, ks, key string, f *family, dst []engine.CounterMutation, d *cassandra19.Deletion) ([]engine.CounterMutation, error) {
	del := engine.CounterMutation{ColumnFamily: f.Name, Delete: true}
	if f.Super {
		del.SuperColumn = d.SuperColumn
	}
	for _, m := range appendRangeDeletion(nil, f, engine.Mutation{ColumnFamily: f.Name, SuperColumn: del.SuperColumn}, d) {
		if m.Range == nil {
			one := del
			one.Name = m.Name
			dst = append(dst, one)
			continue
		}
		q := engine.Query{ColumnFamily: f.Name, SuperColumn: del.SuperColumn,
			Predicate: engine.Predicate{Start: m.Range.Start, Finish: m.Range.Finish, Count: math.MaxInt32}}
		row, err := c.s.store.Get(ctx, ks, key, q)
		if err != nil {
			return nil, err
		}
		for _, col := range row.Columns {
			one := del
			one.Name = col.Name
			dst = append(dst, one)
		}
		for _, sc := range row.SuperColumns {
			one := del
			one.SuperColumn = sc.Name
			dst = append(dst, one)
		}
	}
	return dst, nil
}

// composite reports whether c is a CompositeType, whose names end with an
// end-of-component byte.
func composite(c marshal.Comparator) bool {
	return strings.HasPrefix(c.Name(), "org.apache.cassandra.db.marshal.CompositeType(")
}

// lastEOC is the end-of-component byte of a composite name's last
// component (0 when it has none).
func lastEOC(name []byte) byte {
	var eoc byte
	for len(name) >= 3 {
		n := int(name[0])<<8 | int(name[1])
		if len(name) < 2+n+1 {
			return 0
		}
		eoc = name[2+n]
		name = name[2+n+1:]
	}
	return eoc
}
