package handler19

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// KEYS secondary indexes: get_indexed_slices and KeyRange.row_filter, as
// 1.2's CassandraServer, ThriftValidation, KeysSearcher and ExtendedFilter
// answered them. Rows come in token order from the start of the range; a
// row is returned when every expression holds for its current live value
// (a missing, deleted or expired column fails every operator); count is
// the number of such rows. An index, when the store keeps one
// (engine.Indexer), only narrows the rows read: each candidate is read
// again and filtered, so a stale entry never shows.

// getIndexedSlices is CassandraServer.get_indexed_slices.
func (c *conn) getIndexedSlices(ctx context.Context, parent *cassandra19.ColumnParent, clause *cassandra19.IndexClause, pred *cassandra19.SlicePredicate, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return nil, err
	}
	sch := c.s.schema()
	f, err := c.s.validateColumnFamily(sch, ks, parent.ColumnFamily)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	if err := validateColumnParent(f, parent); err != nil {
		return nil, err
	}
	if err := validatePredicate(f, parent.SuperColumn, pred); err != nil {
		return nil, err
	}
	if err := c.s.validateIndexClauses(f, clause); err != nil {
		return nil, err
	}
	if err := validateConsistencyForRead(cl); err != nil {
		return nil, err
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	// From start_key, inclusive, to the end of the ring: 1.2 did not wrap.
	b := engine.TokenRange{StartInclusive: true}
	if len(clause.StartKey) > 0 {
		b.Start = sch.Partitioner.Token(string(clause.StartKey))
	}
	return c.searchIndexed(ctx, ks, sch.Partitioner, f, clause.Expressions, []engine.TokenRange{b}, sliceQuery(f, parent.SuperColumn, pred), int(clause.Count))
}

// validateIndexClauses is ThriftValidation.validateIndexClauses.
func (s *Service) validateIndexClauses(f *family, clause *cassandra19.IndexClause) error {
	if len(clause.Expressions) == 0 {
		return invalid("index clause list may not be empty")
	}
	indexed, err := s.validateFilterClauses(f, clause.Expressions)
	if err != nil {
		return err
	}
	if !indexed {
		return invalid("No indexed columns present in index clause with operator EQ")
	}
	return nil
}

// validateFilterClauses is ThriftValidation.validateFilterClauses: each
// expression's name must suit the comparator and its value the column's
// type; it reports whether an EQ expression names an indexed column, as
// a query that uses an index needs.
func (s *Service) validateFilterClauses(f *family, exprs []*cassandra19.IndexExpression) (bool, error) {
	indexed := false
	for _, e := range exprs {
		if e == nil {
			continue
		}
		if f.cmp != nil {
			if err := f.cmp.Validate(e.ColumnName); err != nil {
				return false, invalid("[%s]=[%s] failed name validation (%s)", hex.EncodeToString(e.ColumnName), hex.EncodeToString(e.Value), marshalMessage(err))
			}
		}
		if len(e.Value) > 0xFFFF {
			return false, invalid("Index expression values may not be larger than 64K")
		}
		if t := f.valueValidator(e.ColumnName); t != nil {
			if err := t.Validate(e.Value); err != nil {
				return false, invalid("[%s]=[%s] failed value validation (%s)", hex.EncodeToString(e.ColumnName), hex.EncodeToString(e.Value), marshalMessage(err))
			}
		}
		if e.Op == cassandra19.IndexOperator_EQ && indexOf(f, e.ColumnName) != nil {
			indexed = true
		}
	}
	return indexed, nil
}

func marshalMessage(err error) string {
	var me marshal.MarshalError
	if errors.As(err, &me) {
		return string(me)
	}
	return err.Error()
}

// refuseIndexType refuses the index types thriftd does not keep. 1.2.19
// failed with an internal error on both here (a COMPOSITES index on a
// family whose comparator is not composite, a CUSTOM index's class that
// its class path lacks), after it had checked what validateFamily checks
// before this.
func refuseIndexType(ix *schema.IndexDef) error {
	switch ix.Type {
	case schema.IndexKeys:
		return nil
	case schema.IndexCustom:
		return invalid("thriftd does not serve CUSTOM secondary indexes (class_name %s): only KEYS", ix.Options["class_name"])
	case schema.IndexComposites:
		return invalid("thriftd does not serve COMPOSITES secondary indexes: only KEYS")
	}
	return invalid("Unknown index type: %s", ix.Name)
}

// indexOf is the index on a declared column, nil when it has none.
func indexOf(f *family, name []byte) *schema.IndexDef {
	if d := f.Column(name); d != nil {
		return d.Index
	}
	return nil
}

// rowFilter is a validated list of expressions, ready to test rows.
type rowFilter struct {
	exprs []*cassandra19.IndexExpression
	types []marshal.Comparator // each expression's value type; nil is BytesType
	names [][]byte             // the distinct columns the expressions read
}

func (s *Service) newRowFilter(f *family, exprs []*cassandra19.IndexExpression) *rowFilter {
	x := &rowFilter{}
	seen := map[string]bool{}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		x.exprs = append(x.exprs, e)
		x.types = append(x.types, f.valueValidator(e.ColumnName))
		if !seen[string(e.ColumnName)] {
			seen[string(e.ColumnName)] = true
			x.names = append(x.names, e.ColumnName)
		}
	}
	return x
}

// satisfies is ExtendedFilter.satisfies.
func satisfies(cmp int, op cassandra19.IndexOperator) bool {
	switch op {
	case cassandra19.IndexOperator_EQ:
		return cmp == 0
	case cassandra19.IndexOperator_GTE:
		return cmp >= 0
	case cassandra19.IndexOperator_GT:
		return cmp > 0
	case cassandra19.IndexOperator_LTE:
		return cmp <= 0
	case cassandra19.IndexOperator_LT:
		return cmp < 0
	}
	return false
}

// check tests one expression against a row's live columns. A column the
// row does not hold fails when required, and passes otherwise (a re-check
// of a row whose returned slice does not include the column).
func (x *rowFilter) check(i int, cols []engine.Column, required bool) bool {
	e := x.exprs[i]
	for _, col := range cols {
		if !bytes.Equal(col.Name, e.ColumnName) {
			continue
		}
		var cmp int
		if t := x.types[i]; t != nil {
			cmp = t.Compare(col.Value, e.Value)
		} else {
			cmp = bytes.Compare(col.Value, e.Value)
		}
		return satisfies(cmp, e.Op)
	}
	return !required
}

// matches is ExtendedFilter.isSatisfiedBy over the filter's columns.
func (x *rowFilter) matches(cols []engine.Column) bool {
	for i := range x.exprs {
		if !x.check(i, cols, true) {
			return false
		}
	}
	return true
}

// stillMatches re-checks a returned row against the values it returns: a
// column the query names by name must be there, and every column there
// must match.
func (x *rowFilter) stillMatches(cols []engine.Column, q engine.Query) bool {
	for i := range x.exprs {
		required := false
		for _, n := range q.Names {
			if bytes.Equal(n, x.exprs[i].ColumnName) {
				required = true
				break
			}
		}
		if !x.check(i, cols, required) {
			return false
		}
	}
	return true
}

// primary is the first EQ expression on a KEYS-indexed column, the one the
// store's index is asked for; nil when there is none.
func (x *rowFilter) primary(f *family) *cassandra19.IndexExpression {
	for _, e := range x.exprs {
		if e.Op != cassandra19.IndexOperator_EQ {
			continue
		}
		if ix := indexOf(f, e.ColumnName); ix != nil && ix.Type == schema.IndexKeys {
			return e
		}
	}
	return nil
}

// searchIndexed answers up to want rows of pieces, in order, that satisfy
// every expression, each with what q selects.
func (c *conn) searchIndexed(ctx context.Context, ks string, p dht.Partitioner, f *family, exprs []*cassandra19.IndexExpression, pieces []engine.TokenRange, q engine.Query, want int) ([]*cassandra19.KeySlice, error) {
	if want <= 0 {
		return []*cassandra19.KeySlice{}, nil
	}
	x := c.s.newRowFilter(f, exprs)
	namesQ := engine.Query{ColumnFamily: f.Name, Predicate: engine.Predicate{Names: x.names, Count: len(x.names)}}
	ixr, _ := c.s.store.(engine.Indexer)
	ird, _ := c.s.store.(engine.IndexReader)
	primary := x.primary(f)
	out := make([]*cassandra19.KeySlice, 0, min(want, 1024))
	start := time.Now()
	for _, b := range pieces {
		for len(out) < want {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// A page of candidates, more than the rows still wanted since
			// some fail the filter.
			page := min(max(2*(want-len(out)), 32), 1024)
			if ird != nil && primary != nil {
				rows, ready, err := ird.IndexedRows(ctx, ks, f.Name, primary.ColumnName, primary.Value, b, page, x.names, q)
				if err != nil {
					return nil, err
				}
				if ready {
					var ks keySlices
					ks.reserve(rows)
					for i := range rows {
						// Both read from one view of the row: a row the
						// filter passes returns what it was judged by.
						if !x.matches(rows[i].Filter) || !x.stillMatches(rows[i].Columns, q) {
							continue
						}
						out = append(out, ks.slice(rows[i].Row, f))
						if len(out) >= want {
							break
						}
					}
					if len(rows) < page || len(out) >= want {
						break
					}
					b = engine.TokenRange{Start: p.Token(rows[len(rows)-1].Key), End: b.End}
					if len(b.End) > 0 && bytes.Compare(b.Start, b.End) >= 0 {
						break
					}
					continue
				}
			}
			var cands []engine.Row
			used := false
			if ixr != nil && primary != nil {
				keys, ready, err := ixr.IndexedKeys(ctx, ks, f.Name, primary.ColumnName, primary.Value, b, page)
				if err != nil {
					return nil, err
				}
				if ready {
					used = true
					if len(keys) > 0 {
						if cands, err = c.s.store.GetMany(ctx, ks, keys, namesQ); err != nil {
							return nil, err
						}
						for i := range cands {
							cands[i].Key = keys[i]
						}
					}
				}
			}
			if !used {
				var err error
				if cands, err = c.s.store.Range(ctx, ks, b, namesQ, page); err != nil {
					return nil, err
				}
			}
			var keys []string
			for _, row := range cands {
				if x.matches(row.Columns) {
					keys = append(keys, row.Key)
				}
			}
			if len(keys) > 0 {
				rows, err := c.s.store.GetMany(ctx, ks, keys, q)
				if err != nil {
					return nil, err
				}
				for i, row := range rows {
					// A row written between the two reads is judged again
					// by the values it returns.
					if !x.stillMatches(row.Columns, q) {
						continue
					}
					out = append(out, &cassandra19.KeySlice{Key: []byte(keys[i]), Columns: thriftifyRow(row, f)})
					if len(out) >= want {
						break
					}
				}
			}
			if len(cands) < page {
				break
			}
			b = engine.TokenRange{Start: p.Token(cands[len(cands)-1].Key), End: b.End}
			if len(b.End) > 0 && bytes.Compare(b.Start, b.End) >= 0 {
				break
			}
		}
		if len(out) >= want {
			break
		}
	}
	f.read(max(len(out), 1), start)
	return out, nil
}
