package cqlstore

import (
	"context"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// tableLayout is how the rows of one table shape are read and written:
// each shape is a type of its own, its methods in the shape's file, chosen
// once when its family is built (layoutOf), so that a read, a count, a
// write, the choice of a range's statement and a compare-and-set dispatch
// once on the family instead of testing its shape flags. Every statement
// a layout sends names the table's own columns (columnNames), built once
// per family where its text depends on the family alone (familyCQL,
// selectTexts, rangeTexts).
//
// The shapes:
//
//	blobLayout      a table of thriftd's 0.6 layout, names encoded in blobs (layout.go)
//	typedLayout     a table of thriftd's 19.x layout, names of their CQL type (layout.go; typed.go)
//	counterLayout   a counter family, of thriftd's layout or adopted (counter.go)
//	staticLayout    an adopted table with static columns (adoptstatic.go)
//	compositeLayout a composite comparator's table, adopted or 19.x (adoptcomposite.go)
//	superLayout     an adopted table of the super shape (adoptsuper.go)
//
// Which of blobLayout and typedLayout a table has is decided by how its
// names are stored (rawNames); its other encoding flags (keys of their CQL
// type, written_ttl, blob_value, DESC clustering) are still read by the
// helpers every shape uses (family.encode, keyOf, valueColumn, valueCells).
type tableLayout interface {
	// readRow reads what q selects of one row of f; q selects something.
	// It limits its requests itself (withRequestTimeout).
	readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error)
	// count is Count of one row of f, under a ctx withRequestTimeout
	// limits.
	count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error)
	// check refuses m, a mutation of f, when the shape cannot store it:
	// Apply checks every mutation before it writes any.
	check(f *family, m engine.Mutation) error
	// mutation appends the statements of m, a mutation of the row
	// w.key of f that check accepted (familyStatements adds the row's
	// ghost).
	mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite)
	// readsMany reports whether readMany may read rows of f in one
	// statement (readsAsMany says for which queries).
	readsMany(f *family) bool
	// casFenced reports whether a compare-and-set of f with an empty
	// condition is fenced by its row's ghost (ghostFence).
	casFenced(f *family) bool
	// row is the clustering columns of the row that holds name, compared
	// by c, and their values: what a compare-and-set's statements name.
	row(f *family, c marshal.Comparator, name []byte) ([]string, []any)
}

// rangeDeletion reports whether m deletes a range of names (m.Range).
func rangeDeletion(m engine.Mutation) bool { return m.Delete && m.Range != nil && m.Name == nil }

// layoutOf is the layout of f, as its flags say once f is built: a
// counter family's counterLayout wraps the layout of its table's shape.
func layoutOf(f *family) tableLayout {
	if counterFamily(f.def) {
		return counterLayout{cells: shapeLayout(f)}
	}
	return shapeLayout(f)
}

// shapeLayout is the layout of f's table shape, whatever its cells hold.
func shapeLayout(f *family) tableLayout {
	switch {
	case f.superShape():
		return superLayout{}
	case f.adopt != nil && len(f.adopt.clustering) > 0:
		return compositeLayout{}
	case f.adopt != nil:
		return staticLayout{}
	}
	return ownLayoutOf(f)
}

// ownLayoutOf is the layout of a table thriftd created (or an adopted
// compact one): how its names are stored decides.
func ownLayoutOf(f *family) tableLayout {
	if f.rawNames {
		return typedLayout{}
	}
	return blobLayout{}
}
