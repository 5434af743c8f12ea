package cqlstore

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/thriftd/thriftd/engine"
)

// rangeStatements are the statements of a range deletion (m.Range): a CQL
// range delete of the clustering rows whose names lie in the range,
// USING TIMESTAMP m's, which Cassandra keeps as a range tombstone that
// shadows the rows written at or before it, later writes too, as 2.1's
// range tombstones did.
//
//   - one column1 (Standard), or column1 of super_column (subcolumns): the
//     bounds a forward slice of the range puts on column1 (where), so a
//     range deletes what a slice of the same bounds reads, DESC included;
//   - super columns: the same bounds on super_column;
//   - an adopted table's declared columns, held in static columns: each
//     one in the range is deleted too.
//
// The composite shape's is compositeRange (compositeLayout), the super
// shape's superRange (superLayout).
func (f *family) rangeStatements(out []statement, key raw, m engine.Mutation) []statement {
	p := engine.Predicate{Start: m.Range.Start, Finish: m.Range.Finish}
	switch {
	case f.def.Super && m.SuperColumn == nil:
		args, cl, _ := restrict(f, f.def.Comparator, p)
		return append(out, statement{f.texts.rangeDeletes.text(f, rangeDeleteSupers, "super_column", cl),
			append([]any{m.Timestamp, key}, args...)})
	case f.def.Super:
		args, cl, _ := restrict(f, f.def.SubComparator, p)
		return append(out, statement{f.texts.rangeDeletes.text(f, rangeDeleteSub, f.col.column1, cl),
			append([]any{m.Timestamp, key, f.encode(f.def.Comparator, m.SuperColumn)}, args...)})
	}
	a := f.adopt
	plain := f
	if a != nil {
		plain = a.plain
		c := f.def.Comparator
		for _, n := range a.names {
			if (len(p.Start) == 0 || c.Compare(n, p.Start) >= 0) && (len(p.Finish) == 0 || c.Compare(n, p.Finish) <= 0) {
				out = append(out, statement{a.staticCQL[string(n)].delete, []any{m.Timestamp, key}})
			}
		}
	}
	args, cl, _ := restrict(plain, f.def.Comparator, p)
	return append(out, statement{f.texts.rangeDeletes.text(f, rangeDeleteColumns, plain.col.column1, cl),
		append([]any{m.Timestamp, key}, args...)})
}

// rangeDeleteShape tells apart the range deletions of rangeStatements:
// of super columns, of a super column's subcolumns, of columns.
type rangeDeleteShape uint8

const (
	rangeDeleteSupers rangeDeleteShape = iota
	rangeDeleteSub
	rangeDeleteColumns
	rangeDeleteShapes
)

// rangeDeleteTexts are a family's rangeStatements texts, by shape and
// the clauses restrict chose, built on first use and kept, as
// selectTexts are.
type rangeDeleteTexts [rangeDeleteShapes][clauseMask + 1]atomic.Pointer[string]

// text is the deletion of shape over col, restricted by cl.
func (t *rangeDeleteTexts) text(f *family, shape rangeDeleteShape, col string, cl clauses) string {
	p := &t[shape][cl&clauseMask]
	if s := p.Load(); s != nil {
		return *s
	}
	s := `DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?`
	if shape == rangeDeleteSub {
		s += ` AND super_column = ?`
	}
	s += whereText(col, cl&clauseMask)
	p.Store(&s)
	return s
}

// compositeRange is the range deletion of a family of the composite
// shape: the bounds as multi-column slices of the clustering columns,
// which CQL compares column by column in each type's order, as
// CompositeType compares components; a bound's last end-of-component
// byte says whether the names it prefixes are in the range (positive:
// all of them; negative: none; zero: the prefix itself only, the row
// whose missing components are empty). CQL's tuple order is each type's
// ascending order, so a family with a ReversedType component (a DESC
// column) cannot be served this way, and its range deletions are refused.
func (f *family) compositeRange(key raw, m engine.Mutation) (statement, error) {
	a := f.adopt
	refuse := func(why string) (statement, error) {
		return statement{}, &engine.RefusedError{Why: fmt.Sprintf("column family %s.%s: %s cannot be stored on the Cassandra store", f.def.Keyspace, f.def.Name, why)}
	}
	for _, o := range a.reverseOrder {
		if o == "ASC" { // the reverse of a DESC column
			return refuse("a range deletion in a family with a ReversedType component")
		}
	}
	var where strings.Builder
	args := []any{m.Timestamp, key}
	tuple := func(comps [][]byte, op string) {
		where.WriteString(` AND (` + strings.Join(a.clustering[:len(comps)], ", ") + `) ` + op + ` (` + strings.TrimSuffix(strings.Repeat("?, ", len(comps)), ", ") + `)`)
		for _, c := range comps {
			args = append(args, raw(c))
		}
	}
	bound := func(b []byte) ([][]byte, int8, bool) {
		comps, err := splitComposite(b)
		if err != nil || len(comps) == 0 || len(comps) > len(a.clustering) {
			return nil, 0, false
		}
		return comps, int8(lastEOC(b)), true
	}
	if s := m.Range.Start; len(s) > 0 {
		comps, eoc, ok := bound(s)
		if !ok {
			return refuse("a range deletion from a name that is not a composite of the family's components")
		}
		op := ">="
		if eoc > 0 {
			op = ">"
		}
		tuple(comps, op)
	}
	if fin := m.Range.Finish; len(fin) > 0 {
		comps, eoc, ok := bound(fin)
		if !ok {
			return refuse("a range deletion to a name that is not a composite of the family's components")
		}
		op := "<="
		switch {
		case eoc > 0, len(comps) == len(a.clustering):
		case eoc < 0 || !a.prefixes:
			op = "<"
		default:
			// The prefix itself is the row of empty further components.
			comps = append(comps, []byte{})
		}
		tuple(comps, op)
	}
	return statement{`DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?` + where.String(), args}, nil
}
