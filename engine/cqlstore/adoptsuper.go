package cqlstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// The super shape of an adopted table. DROP COMPACT STORAGE turns a
// Thrift super column family into
//
//	key K, column1 C, "" map<S, V>, PRIMARY KEY (key, column1)
//
// where column1 is the super column's name (of the comparator's type),
// and the map column named "" holds its subcolumns: an entry's key is a
// subcolumn's name (of the subcomparator's type), its value the
// subcolumn's value (of the default validator's type). Each entry is a
// cell of its own, with its own write time and TTL, so every Thrift write
// and deletion of a subcolumn is one of an entry:
//
//	insert subcolumn     UPDATE t USING TIMESTAMP ? [AND TTL ?] SET ""[?] = ? WHERE key = ? AND column1 = ?
//	delete subcolumn     DELETE ""[?] FROM t USING TIMESTAMP ? WHERE key = ? AND column1 = ?
//	delete super column  DELETE FROM t USING TIMESTAMP ? WHERE key = ? AND column1 = ?
//	delete super columns DELETE FROM t USING TIMESTAMP ? WHERE key = ? AND column1 >= ? AND column1 <= ?
//	delete row           DELETE FROM t USING TIMESTAMP ? WHERE key = ?
//
// so CQL applications, and 3.11's own tools, see what a Thrift client
// writes, and the reverse.
//
// Cassandra 4 and 5 cannot name the column "" in a selection (their
// grammar takes an empty quoted name only where a statement writes or
// deletes, for this very shape), so the rows are read with SELECT *, and
// the entries' write times and TTLs, which CQL reads only through
// WRITETIME and TTL of a named column (3.11 refuses them on a
// collection), are not readable at all: a subcolumn is answered with
// timestamp 0 and no TTL. An expiring subcolumn still expires when it
// should; the cluster drops it.
//
// A range deletion of some subcolumns of a super column has no CQL
// statement (map entries are deleted by key) and is refused.

// superMap is the name of the map column DROP COMPACT STORAGE leaves in
// a super column family, quoted as the statements that write it take it.
const superMap = `""`

// withSuper makes f serve the super shape.
func withSuper(f *family) {
	plain := *f
	plain.layout = layoutOf(&plain)
	f.adopt = &adoptedLayout{statics: map[string]string{}, plain: &plain, super: true}
	f.layout = layoutOf(f)
	// The table has no ghost column; column1 and key hold names and keys
	// as they are (adoptedFamily).
	f.ghost = false
}

// superShape reports whether f is an adopted table of the super shape.
func (f *family) superShape() bool { return f.adopt != nil && f.adopt.super }

// readAdoptedSuper reads what q selects of one row of the super shape:
// whole super columns (q.SuperColumn nil), or the subcolumns of one.
func (st *Store) readAdoptedSuper(ctx context.Context, f *family, key string, q engine.Query) (engine.Row, error) {
	row := engine.Row{Key: key}
	kb := st.keyOf(f, key)
	one := f.cql.superOne
	if q.SuperColumn != nil {
		scs, err := st.scanSupers(ctx, f, one, []any{kb, f.encode(f.def.Comparator, q.SuperColumn)}, nil, 1)
		if err != nil || len(scs) == 0 {
			return row, err
		}
		row.Columns = selectSubcolumns(f, scs[0].Columns, q.Predicate)
		return row, nil
	}
	if q.Names != nil {
		// One read per name: the cluster refuses IN on the clustering
		// column of a query that selects a collection.
		for _, name := range uniqueEncoded(f, f.def.Comparator, q.Names) {
			scs, err := st.scanSupers(ctx, f, one, []any{kb, name}, nil, 1)
			if err != nil {
				return engine.Row{}, err
			}
			row.SuperColumns = append(row.SuperColumns, scs...)
		}
		c := f.def.Comparator
		sort.Slice(row.SuperColumns, func(i, j int) bool { return c.Compare(row.SuperColumns[i].Name, row.SuperColumns[j].Name) < 0 })
		return row, nil
	}
	args, cl, filter := restrict(f, f.def.Comparator, q.Predicate)
	shape := supersShape(cl)
	if q.Reversed {
		shape |= supersReversed
	}
	stmt := f.texts.adoptedSupers.text(f, shape, adoptedSupersText)
	limit := q.Count
	if limit < 0 {
		limit = math.MaxInt
	}
	var err error
	row.SuperColumns, err = st.scanSupers(ctx, f, stmt, append([]any{kb}, args...), filter, limit)
	if q.Reversed {
		// Cassandra 2.0 to 3.11 walk a reversed slice of super columns
		// cell by cell, so each super column's subcolumns come in
		// descending order too (1.2 kept them ascending): the order 3.11
		// answered this family in before the drop.
		for _, sc := range row.SuperColumns {
			slices.Reverse(sc.Columns)
		}
	}
	return row, err
}

// adoptedSupersText is readAdoptedSuper's text of a slice of super
// columns of shape.
func adoptedSupersText(f *family, shape supersShape) string {
	stmt := f.cql.superRow + whereText(f.col.column1, clauses(shape)&clauseMask)
	switch {
	case shape&supersReversed == 0:
	case f.desc:
		stmt += ` ORDER BY ` + f.col.column1 + ` ASC`
	default:
		stmt += ` ORDER BY ` + f.col.column1 + ` DESC`
	}
	return stmt
}

// scanSupers reads the super columns a SELECT * of the super shape's
// table returns, at most limit of them, leaving out those with no live
// subcolumn (a row CQL wrote with no map entry) and, with filter, those
// outside its bounds.
func (st *Store) scanSupers(ctx context.Context, f *family, stmt string, args []any, filter *boundFilter, limit int) ([]engine.SuperColumn, error) {
	iter := st.readQuery(ctx, stmt, args...).PageSize(pageSize).Iter()
	// SELECT * lists the partition key, then the clustering column, then
	// the regular ones: the map column is found by its name.
	var name, entries, discard raw
	dest := make([]any, len(iter.Columns()))
	for i, c := range iter.Columns() {
		switch {
		case i == 1:
			dest[i] = &name
		case c.Name == "":
			dest[i] = &entries
		default:
			dest[i] = &discard
		}
	}
	var out []engine.SuperColumn
	for len(out) < limit && iter.Scan(dest...) {
		sc, cols, err := f.superColumn(name, entries)
		name, entries = nil, nil
		if err != nil {
			iter.Close()
			return nil, err
		}
		if len(cols) == 0 || filter != nil && filter.outside(sc) {
			continue
		}
		out = append(out, engine.SuperColumn{Name: sc, Columns: cols})
	}
	return out, clusterError(ctx, "read "+f.table, iter.Close())
}

// superColumn is the super column of one row of the super shape: its
// name and its subcolumns in the subcomparator's order.
func (f *family) superColumn(name, entries raw) ([]byte, []engine.Column, error) {
	pairs, err := decodeMap(entries)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the subcolumns of super column %x: %w", f.table, []byte(name), err)
	}
	cols := make([]engine.Column, 0, len(pairs))
	for _, p := range pairs {
		// The write time of a map entry is not readable (above).
		cols = append(cols, engine.Column{Name: p[0], Value: nonNil(p[1])})
	}
	sub := f.def.SubComparator
	// The cluster keeps a map in its key type's order, which is the
	// subcomparator's; sorting keeps the contract whatever the type.
	sort.SliceStable(cols, func(i, j int) bool { return sub.Compare(cols[i].Name, cols[j].Name) < 0 })
	return nonNil(name), cols, nil
}

// selectSubcolumns is what predicate p selects of a super column's
// subcolumns cols (in the subcomparator's order): the names it lists, or
// the run of at most Count from Start to Finish, reversed when it is.
func selectSubcolumns(f *family, cols []engine.Column, p engine.Predicate) []engine.Column {
	c := f.def.SubComparator
	q := engine.Query{Predicate: p}
	if p.Reversed && p.Names == nil {
		rev := make([]engine.Column, len(cols))
		for i, col := range cols {
			rev[len(cols)-1-i] = col
		}
		cols = rev
	}
	limit := p.Count
	if p.Names != nil || limit < 0 {
		limit = math.MaxInt
	}
	var out []engine.Column
	for _, col := range cols {
		if len(out) == limit {
			break
		}
		keep, past := selects(c, q, col.Name)
		if past {
			break
		}
		if keep {
			out = append(out, col)
		}
	}
	return out
}

// countAdoptedSuper is Count of a row of the super shape: its super
// columns with a live subcolumn, or the subcolumns of superColumn.
func (st *Store) countAdoptedSuper(ctx context.Context, f *family, key string, superColumn []byte) (int, error) {
	row, err := st.readAdoptedSuper(ctx, f, key, engine.Query{ColumnFamily: f.def.Name, SuperColumn: superColumn, Predicate: engine.Predicate{Count: -1}})
	if superColumn != nil {
		return len(row.Columns), err
	}
	return len(row.SuperColumns), err
}

// superStatement is the statement of a mutation of a family of the super
// shape (above), or an error for one the shape cannot store.
func (f *family) superStatement(key raw, m engine.Mutation) (statement, error) {
	sc := raw(f.encode(f.def.Comparator, m.SuperColumn))
	switch {
	case m.Delete && m.Range != nil && m.Name == nil:
		return f.superRange(key, m)
	case m.Delete && m.SuperColumn == nil && m.Name == nil:
		return statement{f.cql.deleteRow, []any{m.Timestamp, key}}, nil
	case m.SuperColumn == nil:
		return statement{}, &engine.RefusedError{Why: fmt.Sprintf("column family %s.%s is a super column family: a column needs its super column", f.def.Keyspace, f.def.Name)}
	case m.Delete && m.Name == nil:
		return statement{f.cql.deleteColumn, []any{m.Timestamp, key, sc}}, nil
	case m.Delete:
		return statement{f.cql.superDelete,
			[]any{raw(m.Name), m.Timestamp, key, sc}}, nil
	case m.TTL > 0:
		return statement{f.cql.superSetTTL,
			[]any{m.Timestamp, capTTL(int(m.TTL)), raw(m.Name), raw(nonNil(m.Value)), key, sc}}, nil
	}
	return statement{f.cql.superSet,
		[]any{m.Timestamp, raw(m.Name), raw(nonNil(m.Value)), key, sc}}, nil
}

// superRange is the statement of a range deletion in a family of the
// super shape: of super columns, a CQL range deletion of the clustering
// rows of the names a forward slice of the range reads (as for a
// Standard family's columns, rangedel.go). A run of subcolumns has no
// statement: CQL deletes a map's entries by key, or the whole map.
func (f *family) superRange(key raw, m engine.Mutation) (statement, error) {
	if m.SuperColumn != nil {
		return statement{}, &engine.RefusedError{Why: fmt.Sprintf("column family %s.%s: a range deletion of subcolumns cannot be stored on the Cassandra store, where a super column's subcolumns are the entries of a CQL map, deleted by name only", f.def.Keyspace, f.def.Name)}
	}
	w, args, _ := where(f, f.col.column1, f.def.Comparator, engine.Predicate{Start: m.Range.Start, Finish: m.Range.Finish})
	return statement{`DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?` + w, append([]any{m.Timestamp, key}, args...)}, nil
}

// decodeMap splits a CQL map's value (native protocol 3 and later: a
// 4-byte count, then each key and value as a 4-byte length and its
// bytes) into its entries. A null map has none.
func decodeMap(b []byte) ([][2][]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	next := func() ([]byte, error) {
		if len(b) < 4 {
			return nil, fmt.Errorf("a map value ends inside a length")
		}
		n := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if n < 0 {
			return nil, nil
		}
		if int(n) > len(b) {
			return nil, fmt.Errorf("a map element of %d bytes overruns the value", n)
		}
		v := append(make([]byte, 0, n), b[:n]...)
		b = b[n:]
		return v, nil
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("a map value of %d bytes has no count", len(b))
	}
	count := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if count < 0 || count > len(b)/8 {
		return nil, fmt.Errorf("a map value claims %d entries in %d bytes", count, len(b))
	}
	out := make([][2][]byte, 0, count)
	for i := 0; i < count; i++ {
		k, err := next()
		if err != nil {
			return nil, err
		}
		v, err := next()
		if err != nil {
			return nil, err
		}
		out = append(out, [2][]byte{k, v})
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after a map's %d entries", len(b), count)
	}
	return out, nil
}

// superLayout is an adopted table of the super shape: a super column per
// clustering row, its subcolumns in a map (adoptsuper.go).
type superLayout struct{}

func (superLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	return st.readAdoptedSuper(ctx, f, key, q)
}

func (superLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	return st.countAdoptedSuper(ctx, f, key, superColumn)
}

func (superLayout) check(f *family, m engine.Mutation) error {
	_, err := f.superStatement(nil, m)
	return err
}

func (superLayout) mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	s, _ := f.superStatement(w.key, m)
	return append(out, s), w
}

func (superLayout) readsMany(*family) bool { return false }

func (superLayout) casFenced(*family) bool { return false }

func (superLayout) row(f *family, c marshal.Comparator, name []byte) ([]string, []any) {
	return []string{f.col.column1}, []any{f.encode(c, name)}
}
