package cqlstore

import (
	"bytes"
	"context"

	"github.com/thriftd/thriftd/engine"
)

// tableLayout is how the rows of one table shape are read: each shape is a
// type of its own, chosen once when its family is built (layoutOf), so a
// read dispatches once on the family instead of testing its shape flags.
//
// The shapes with a type so far:
//
//	ownLayout       a table thriftd created (0.6 and 19.x layouts, layout.go, typed.go)
//	counterLayout   a counter family (counter.go)
//	staticLayout    an adopted table with static columns (adoptstatic.go)
//	compositeLayout a composite comparator's table, adopted or 19.x (adoptcomposite.go)
//	superLayout     an adopted table of the super shape (adoptsuper.go)
//
// Writes, ranges and index reads still test the shape flags.
type tableLayout interface {
	// readRow reads what q selects of one row of f; q selects something.
	// It limits its requests itself (withRequestTimeout).
	readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error)
	// count is Count of one row of f, under a ctx withRequestTimeout
	// limits.
	count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error)
}

// layoutOf is the layout of f, as its flags say once f is built.
func layoutOf(f *family) tableLayout {
	switch {
	case counterFamily(f.def):
		return counterLayout{}
	case f.superShape():
		return superLayout{}
	case f.adopt != nil && len(f.adopt.clustering) > 0:
		return compositeLayout{}
	case f.adopt != nil:
		return staticLayout{}
	}
	return ownLayout{}
}

// ownLayout is a table of thriftd's own layouts: one row of names per
// (super column and) column, names blob-encoded (0.6) or of their CQL
// type (19.x).
type ownLayout struct{}

func (ownLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	row := engine.Row{Key: key}
	var err error
	if f.def.Super && q.SuperColumn == nil {
		row.SuperColumns, err = st.readSupers(ctx, f, key, q.Predicate)
	} else {
		row.Columns, err = st.readColumns(ctx, f, key, q)
	}
	return row, err
}

func (ownLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	kb := st.keyOf(f, key)
	if f.def.Super && superColumn == nil {
		// Super columns with a live subcolumn: one per run of rows.
		iter := st.readQuery(ctx, f.cql.countSupers, kb).PageSize(pageSize).Iter()
		n := 0
		var sc raw
		var last []byte
		for iter.Scan(&sc) {
			if len(sc) > 0 && !bytes.Equal(sc, last) {
				n++
				last = append(last[:0], sc...)
			}
		}
		return n, clusterError(ctx, "count super columns of "+f.table, iter.Close())
	}
	if c := f.def.Comparator; !f.def.Super && spelled(f, c) || superColumn != nil && spelled(f, f.def.SubComparator) {
		// Each name's spellings count once.
		if superColumn != nil {
			c = f.def.SubComparator
		}
		cols, err := st.readSpelled(ctx, f, key, engine.Query{ColumnFamily: f.def.Name, SuperColumn: superColumn, Predicate: engine.Predicate{Count: -1}}, c)
		return len(cols), err
	}
	stmt, args := f.cql.countColumns, []any{kb}
	if superColumn != nil {
		stmt, args = f.cql.countSub, append(args, f.encode(f.def.Comparator, superColumn))
	}
	var n int64
	err := st.readQuery(ctx, stmt, args...).Scan(&n)
	return int(n), clusterError(ctx, "count columns of "+f.table, err)
}

// counterLayout is a counter family: counter cells, read without
// timestamps, in thriftd's layout or an adopted composite table.
type counterLayout struct{}

func (counterLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	return st.readCounterRow(ctx, f, key, q)
}

func (counterLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	if f.superShape() {
		return superLayout{}.count(ctx, st, f, key, superColumn)
	}
	if f.adopt != nil {
		return staticLayout{}.count(ctx, st, f, key, superColumn)
	}
	return ownLayout{}.count(ctx, st, f, key, superColumn)
}

// staticLayout is an adopted table whose static columns are served as
// declared columns beside its dynamic ones (adoptstatic.go).
type staticLayout struct{}

func (staticLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	cols, err := st.readWithStatics(ctx, f, key, q)
	return engine.Row{Key: key, Columns: cols}, err
}

func (staticLayout) count(ctx context.Context, st *Store, f *family, key string, _ []byte) (int, error) {
	return st.countWithStatics(ctx, f, key)
}

// compositeLayout is a table of a CompositeType comparator's components,
// a clustering column each (adoptcomposite.go).
type compositeLayout struct{}

func (compositeLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	cols, err := st.readComposite(ctx, f, key, q)
	return engine.Row{Key: key, Columns: cols}, err
}

func (compositeLayout) count(ctx context.Context, st *Store, f *family, key string, _ []byte) (int, error) {
	return st.countWithStatics(ctx, f, key)
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
