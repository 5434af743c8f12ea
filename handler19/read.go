package handler19

import (
	"context"
	"math"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// get is CassandraServer.internal_get: one column, or one super column
// whole, or NotFoundException.
func (c *conn) get(ctx context.Context, key []byte, path *cassandra19.ColumnPath, cl cassandra19.ConsistencyLevel) (*cassandra19.ColumnOrSuperColumn, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return nil, err
	}
	sch := c.s.schema()
	f, err := c.s.validateColumnFamily(sch, ks, path.ColumnFamily)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	if err := validateColumnPath(f, path); err != nil {
		return nil, err
	}
	if err := validateConsistencyForRead(cl); err != nil {
		return nil, err
	}
	if err := validateKey(f, key); err != nil {
		return nil, err
	}
	q := engine.Query{ColumnFamily: f.Name}
	if path.Column != nil {
		q.SuperColumn = path.SuperColumn
		q.Names = [][]byte{path.Column}
	} else {
		q.Names = [][]byte{path.SuperColumn}
	}
	q.Count = 1
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	start := time.Now()
	row, err := c.s.store.Get(ctx, ks, string(key), q)
	if err != nil {
		return nil, err
	}
	f.read(1, start)
	out := thriftifyRow(row, f)
	if len(out) == 0 {
		return nil, errNotFound
	}
	return out[0], nil
}

// validateSliceRequest is the validation of multigetSliceInternal, up to
// the keys, which are checked one by one as the reads are built.
func (c *conn) validateSliceRequest(ctx context.Context, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (string, *family, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return "", nil, err
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, parent.ColumnFamily)
	if err != nil {
		return "", nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return "", nil, err
	}
	if err := validateColumnParent(f, parent); err != nil {
		return "", nil, err
	}
	if err := validatePredicate(f, parent.SuperColumn, pred); err != nil {
		return "", nil, err
	}
	if err := validateConsistencyForRead(cl); err != nil {
		return "", nil, err
	}
	return ks, f, nil
}

// multigetSlice is CassandraServer.multigetSliceInternal: the same slice
// of several rows, keyed by row key (a key asked twice is answered once).
func (c *conn) multigetSlice(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (map[string][]*cassandra19.ColumnOrSuperColumn, error) {
	ks, f, err := c.validateSliceRequest(ctx, parent, pred, cl)
	if err != nil {
		return nil, err
	}
	strs := make([]string, len(keys))
	for i, k := range keys {
		if err := validateKey(f, k); err != nil {
			return nil, err
		}
		strs[i] = string(k)
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	if err := serialOneRow(cl, len(keys)); err != nil {
		return nil, err
	}
	start := time.Now()
	rows, err := c.s.store.GetMany(ctx, ks, strs, sliceQuery(f, parent.SuperColumn, pred))
	if err != nil {
		return nil, err
	}
	f.read(len(strs), start)
	out := make(map[string][]*cassandra19.ColumnOrSuperColumn, len(rows))
	for i, row := range rows {
		out[strs[i]] = thriftifyRow(row, f)
	}
	return out, nil
}

// getSlice is get_slice: multiget_slice of one key, read as one row.
func (c *conn) getSlice(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) ([]*cassandra19.ColumnOrSuperColumn, error) {
	ks, f, err := c.validateSliceRequest(ctx, parent, pred, cl)
	if err != nil {
		return nil, err
	}
	if err := validateKey(f, key); err != nil {
		return nil, err
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	start := time.Now()
	row, err := c.s.store.Get(ctx, ks, string(key), sliceQuery(f, parent.SuperColumn, pred))
	if err != nil {
		return nil, err
	}
	f.read(1, start)
	return thriftifyRow(row, f), nil
}

// getCount is CassandraServer.get_count of 1.2: with column names, the
// size of get_slice; otherwise the row is counted over the slice range
// (the whole row when the predicate has neither names nor range), and the
// range's count caps a non-zero answer. The real server paged through the
// row with get_slice calls of at least two columns, so the range's count
// is never checked there (a negative one is answered when the row has
// any column), and an empty row counts 0 whatever the count.
func (c *conn) getCount(ctx context.Context, key []byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (int32, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return 0, err
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, parent.ColumnFamily)
	if err != nil {
		return 0, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return 0, err
	}
	if pred.ColumnNames != nil {
		r, err := c.getSlice(ctx, key, parent, pred, cl)
		return int32(len(r)), err
	}
	// Only as many columns are read as the answer needs: up to the
	// range's count, one to tell an empty row when the count is not
	// positive, the whole row when there is no range.
	whole := &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: math.MaxInt32}
	if r := pred.SliceRange; r != nil {
		whole.Start, whole.Finish, whole.Reversed, whole.Count = r.Start, r.Finish, r.Reversed, max(r.Count, 1)
	}
	r, err := c.getSlice(ctx, key, parent, &cassandra19.SlicePredicate{SliceRange: whole}, cl)
	if err != nil {
		return 0, err
	}
	n := int32(len(r))
	if pred.SliceRange != nil && n > 0 && n > pred.SliceRange.Count {
		return pred.SliceRange.Count, nil
	}
	return n, nil
}

// multigetCount is multiget_count: multiget_slice, counted.
func (c *conn) multigetCount(ctx context.Context, keys [][]byte, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) (map[string]int32, error) {
	m, err := c.multigetSlice(ctx, keys, parent, pred, cl)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int32, len(m))
	for k, v := range m {
		out[k] = int32(len(v))
	}
	return out, nil
}

// sliceQuery is the engine query of a validated predicate.
func sliceQuery(f *family, superColumn []byte, p *cassandra19.SlicePredicate) engine.Query {
	q := engine.Query{ColumnFamily: f.Name}
	if f.Super {
		q.SuperColumn = superColumn
	}
	if p.ColumnNames != nil {
		q.Names = p.ColumnNames
		q.Count = len(p.ColumnNames)
		return q
	}
	r := p.SliceRange
	q.Start, q.Finish, q.Reversed, q.Count = r.Start, r.Finish, r.Reversed, int(r.Count)
	return q
}

// thriftifyRow is CassandraServer.thriftifyColumnFamily: a row's live
// items as the IDL's structs, in the order the query returned them.
func thriftifyRow(row engine.Row, f *family) []*cassandra19.ColumnOrSuperColumn {
	if f.commutative() {
		return mustThriftifyCounters(row)
	}
	if row.SuperColumns != nil {
		out := make([]*cassandra19.ColumnOrSuperColumn, 0, len(row.SuperColumns))
		for _, sc := range row.SuperColumns {
			if len(sc.Columns) == 0 {
				continue
			}
			cols := make([]*cassandra19.Column, len(sc.Columns))
			for i, col := range sc.Columns {
				cols[i] = thriftColumn(col)
			}
			out = append(out, &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: sc.Name, Columns: cols}})
		}
		return out
	}
	// A row's structs in three allocations rather than three per column:
	// a range read of 100 rows × 5 columns made 1,500 of them.
	n := len(row.Columns)
	out := make([]*cassandra19.ColumnOrSuperColumn, n)
	coscs := make([]cassandra19.ColumnOrSuperColumn, n)
	cols := make([]cassandra19.Column, n)
	stamps := make([]int64, n)
	for i, col := range row.Columns {
		stamps[i] = col.Timestamp
		cols[i] = cassandra19.Column{Name: col.Name, Value: col.Value, Timestamp: &stamps[i]}
		if col.TTL > 0 {
			ttl := col.TTL
			cols[i].TTL = &ttl
		}
		coscs[i].Column = &cols[i]
		out[i] = &coscs[i]
	}
	return out
}

func thriftColumn(c engine.Column) *cassandra19.Column {
	ts := c.Timestamp
	col := &cassandra19.Column{Name: c.Name, Value: c.Value, Timestamp: &ts}
	if c.TTL > 0 {
		ttl := c.TTL
		col.TTL = &ttl
	}
	return col
}

// keySlices builds the KeySlices of a page of rows in a few allocations
// for the whole page rather than six per row: a get_indexed_slices of
// 1,000 rows made 6,000 of them. Rows of counters or super columns are
// built by thriftifyRow.
type keySlices struct {
	slices []cassandra19.KeySlice
	ptrs   []*cassandra19.ColumnOrSuperColumn
	coscs  []cassandra19.ColumnOrSuperColumn
	cols   []cassandra19.Column
	stamps []int64
	keys   []byte
}

// reserve makes room for rows, whose standard columns the page will
// build.
func (s *keySlices) reserve(rows []engine.IndexedRow) {
	n, k := 0, 0
	for i := range rows {
		n += len(rows[i].Columns)
		k += len(rows[i].Key)
	}
	s.slices = make([]cassandra19.KeySlice, 0, len(rows))
	s.ptrs = make([]*cassandra19.ColumnOrSuperColumn, 0, n)
	s.coscs = make([]cassandra19.ColumnOrSuperColumn, 0, n)
	s.cols = make([]cassandra19.Column, 0, n)
	s.stamps = make([]int64, 0, n)
	s.keys = make([]byte, 0, k)
}

// slice is the KeySlice of row, from the room reserve made when there is
// enough.
func (s *keySlices) slice(row engine.Row, f *family) *cassandra19.KeySlice {
	n := len(row.Columns)
	if f.commutative() || row.SuperColumns != nil || len(s.slices) == cap(s.slices) ||
		cap(s.cols)-len(s.cols) < n || cap(s.keys)-len(s.keys) < len(row.Key) {
		return &cassandra19.KeySlice{Key: []byte(row.Key), Columns: thriftifyRow(row, f)}
	}
	k := len(s.keys)
	s.keys = append(s.keys, row.Key...)
	c := len(s.cols)
	s.ptrs = s.ptrs[:c+n]
	s.coscs = s.coscs[:c+n]
	s.cols = s.cols[:c+n]
	s.stamps = s.stamps[:c+n]
	for i, col := range row.Columns {
		j := c + i
		s.stamps[j] = col.Timestamp
		s.cols[j] = cassandra19.Column{Name: col.Name, Value: col.Value, Timestamp: &s.stamps[j]}
		if col.TTL > 0 {
			ttl := col.TTL
			s.cols[j].TTL = &ttl
		}
		s.coscs[j].Column = &s.cols[j]
		s.ptrs[j] = &s.coscs[j]
	}
	s.slices = append(s.slices, cassandra19.KeySlice{Key: s.keys[k:len(s.keys):len(s.keys)], Columns: s.ptrs[c : c+n : c+n]})
	return &s.slices[len(s.slices)-1]
}
