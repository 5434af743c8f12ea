package engine

import "context"

// Indexer is implemented by a Store that keeps the KEYS secondary indexes
// its schema declares (schema.ColumnDef.Index of type schema.IndexKeys),
// for the 19.x API's get_indexed_slices and KeyRange.row_filter. A Store
// without it is queried by scanning the range and filtering each row, which
// answers the same rows, only more slowly.
//
// The contract is loose on purpose, so that an index never has to be
// updated in the same atomic step as the row it points at: the caller reads
// every candidate row again and keeps only those whose current values match
// the query. An index may therefore return rows that no longer match (stale
// entries: a value overwritten, deleted, expired or truncated), but never
// miss a row whose current live value of the column equals the value asked.
type Indexer interface {
	// IndexedKeys returns, in token order, up to max keys of rows of
	// columnFamily whose tokens lie in b and whose column holds, or held,
	// value. ready is false, and keys nil, while the index is not usable:
	// not declared, or still being built over the rows the family held
	// when it was declared. The caller then scans instead.
	IndexedKeys(ctx context.Context, keyspace, columnFamily string, column, value []byte, b TokenRange, max int) (keys []string, ready bool, err error)
}

// IndexReader is implemented by an Indexer that can also read the rows its
// index finds, in the same pass: what a caller of IndexedKeys would do next
// with two reads of each row, one of the columns its filter tests and one
// of what it returns, at the cost of one.
type IndexReader interface {
	Indexer
	// IndexedRows is IndexedKeys, except that it answers only rows whose
	// column's current live value is value (stale entries are skipped and
	// do not count toward max), each read from one view of the row: Filter
	// holds the live columns of filter (names of columns, in comparator
	// order, repeats removed), Row what q selects, as Get answers it.
	IndexedRows(ctx context.Context, keyspace, columnFamily string, column, value []byte, b TokenRange, max int, filter [][]byte, q Query) (rows []IndexedRow, ready bool, err error)
}

// IndexedRow is one row IndexedRows answers.
type IndexedRow struct {
	Row
	// Filter is the row's live columns among those the filter names.
	Filter []Column
}
