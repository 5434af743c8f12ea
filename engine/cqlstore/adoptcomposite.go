package cqlstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// The composite shape of an adopted table: a 1.2 column family whose
// comparator was CompositeType(C1,...,CN) has, after DROP COMPACT STORAGE,
// the clustering columns column1 ... columnN. A Thrift name is the
// CompositeType encoding of one value per clustering column (each a
// 2-byte length, the value and an end-of-component byte); it is written
// as the row (key, column1..N, value). The cluster keeps the rows in the
// CompositeType order (a DESC column is a ReversedType component), so a
// read walks the partition in that order (or its reverse) and keeps the
// names the predicate selects, compared by the comparator: the bounds of
// a slice may be composites of fewer components with any end-of-component
// byte, as 1.2 allowed. A deletion of a name of fewer components deletes
// every row of that prefix.
//
// A 19.x family thriftd creates with such a comparator has the same table
// (clusteringOf, typed.go) and is served by the same code, with prefixes
// (adoptedLayout): there a name of fewer components is a row of its own,
// its missing components empty, as 1.2 held it as a column of its own.

// withComposite makes f serve the composite shape over clustering.
func withComposite(f *family, clustering []string, desc []bool) {
	plain := *f
	plain.layout = layoutOf(&plain)
	a := &adoptedLayout{statics: map[string]string{}, plain: &plain}
	for i, c := range clustering {
		a.clustering = append(a.clustering, quote(c))
		if desc[i] {
			a.reverseOrder = append(a.reverseOrder, "ASC")
		} else {
			a.reverseOrder = append(a.reverseOrder, "DESC")
		}
	}
	f.adopt = a
	f.layout = layoutOf(f)
}

// splitComposite returns the components of a CompositeType name.
func splitComposite(name []byte) ([][]byte, error) {
	var out [][]byte
	for len(name) > 0 {
		if len(name) < 3 {
			return nil, fmt.Errorf("a composite name ends inside a component")
		}
		n := int(binary.BigEndian.Uint16(name))
		if len(name) < 2+n+1 {
			return nil, fmt.Errorf("a composite component of %d bytes overruns the name", n)
		}
		out = append(out, name[2:2+n])
		name = name[2+n+1:]
	}
	return out, nil
}

// joinComposite is the CompositeType name of full components. With
// prefixes, trailing empty components are left out (at least one is
// kept): they stand for the components a shorter name does not have,
// unless written, the number of components the name was written with
// (name_components), says how many it had.
func joinComposite(comps []raw, prefixes bool, written *int32) []byte {
	if prefixes && written != nil && int(*written) >= 1 && int(*written) <= len(comps) {
		comps = comps[:*written]
	} else if prefixes {
		for len(comps) > 1 && len(comps[len(comps)-1]) == 0 {
			comps = comps[:len(comps)-1]
		}
	}
	var out []byte
	for _, c := range comps {
		out = binary.BigEndian.AppendUint16(out, uint16(len(c)))
		out = append(out, c...)
		out = append(out, 0)
	}
	return out
}

// lastEOC is the end-of-component byte of a composite name's last
// component, 0 when the name is not a well-formed composite.
func lastEOC(name []byte) byte {
	var eoc byte
	for len(name) >= 3 {
		n := int(binary.BigEndian.Uint16(name))
		if len(name) < 2+n+1 {
			return 0
		}
		eoc = name[2+n]
		name = name[2+n+1:]
	}
	return eoc
}

// compositeRowText is the SELECT of a row of the composite shape,
// before its bounds: its clustering columns and value, and, but for a
// counter (counter.go), which has no write time or TTL, what a cell
// needs besides.
func compositeRowText(f *family) string {
	counter := counterFamily(f.def)
	sel := `SELECT ` + strings.Join(f.adopt.clustering, ", ") + `, ` + f.col.value
	if !counter {
		sel += `, writetime(` + f.col.value + `), ttl(` + f.col.value + `)`
	}
	if f.writtenTTL && !counter {
		sel += `, written_ttl`
	}
	if f.nameComponents && !counter {
		sel += `, ` + nameComponentsColumn
	}
	cells := valueCells{on: f.valueType != "" && !counter}
	return sel + cells.selects() + ` FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?`
}

// readComposite is readColumns of a family of the composite shape.
func (st *Store) readComposite(ctx context.Context, f *family, key string, q engine.Query) ([]engine.Column, error) {
	a := f.adopt
	c := f.def.Comparator
	// A counter (counter.go) has no write time or TTL.
	counter := counterFamily(f.def)
	cells := valueCells{on: f.valueType != "" && !counter}
	// 1.2's ReversedType sorts an empty component first, and a name of
	// fewer components (its missing ones empty) before every longer name
	// it prefixes, but Cassandra 5 sorts an empty value last in a DESC
	// column: with one, the cluster's order is not the comparator's, and
	// the partition is read whole and sorted.
	sorted := false
	for i := 0; i < len(a.reverseOrder) && a.prefixes; i++ {
		sorted = sorted || a.reverseOrder[i] == "ASC" // a DESC column
	}
	args := []any{st.keyOf(f, key)}
	var shape compositeShape
	if q.Names == nil && !sorted {
		var bounds []any
		shape, bounds = a.firstBounds(c, q.Predicate)
		args = append(args, bounds...)
	}
	if q.Names == nil && q.Reversed && !sorted {
		shape |= compositeReversed
	}
	stmt := f.texts.composite.text(f, shape)
	iter := st.readQuery(ctx, stmt, args...).PageSize(pageSize).Iter()
	comps := make([]raw, len(a.clustering))
	var value raw
	var ts int64
	var ttl, wrote, written *int32
	dest := make([]any, 0, len(comps)+8)
	for i := range comps {
		dest = append(dest, &comps[i])
	}
	dest = append(dest, &value)
	if !counter {
		dest = append(dest, &ts, &ttl)
		if f.writtenTTL {
			dest = append(dest, &wrote)
		}
		if f.nameComponents {
			dest = append(dest, &written)
		}
		dest = cells.dest(dest)
	}
	now := time.Now().Unix()
	limit := q.Count
	if q.Names != nil || limit < 0 {
		limit = math.MaxInt
	}
	var out, all []engine.Column
	for (sorted || len(out) < limit) && iter.Scan(dest...) {
		if comps[0] == nil {
			continue // a partition with only the ghost marker
		}
		var live bool
		if value, ts, ttl, live = cells.merge(value, ts, ttl); !live {
			continue
		}
		col := expiring(engine.Column{Name: joinComposite(comps, a.prefixes, written), Value: nonNil(value), Timestamp: ts}, ttl, now)
		col = asWritten(col, wrote)
		for i := range comps {
			comps[i] = nil
		}
		value, ttl, wrote, written = nil, nil, nil, nil
		if sorted {
			all = append(all, col)
			continue
		}
		keep, past := selects(c, q, col.Name)
		if past {
			break
		}
		if keep {
			out = append(out, col)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, clusterError(ctx, "read "+f.table, err)
	}
	if sorted {
		sort.SliceStable(all, func(i, j int) bool {
			return (c.Compare(all[i].Name, all[j].Name) < 0) != (q.Reversed && q.Names == nil)
		})
		for _, col := range all {
			keep, past := selects(c, q, col.Name)
			if past || len(out) == limit {
				break
			}
			if keep {
				out = append(out, col)
			}
		}
	}
	return out, nil
}

// firstBounds restricts the first clustering column to what the bounds
// of a slice allow, so that a slice starting deep in a row does not read
// the rows before it: every name from a bound on has a first component at
// or past the bound's first component (a ReversedType's at or before it,
// in the column's own order). The rows read are still compared by the
// comparator. A first component that is empty (the ends of a ReversedType
// column are not CQL's) or that the column's type refuses is left out.
// It returns which bounds it restricts (boundsText's clauses) and their
// values.
func (a *adoptedLayout) firstBounds(c marshal.Comparator, p engine.Predicate) (compositeShape, []any) {
	comps := marshal.Components(c)
	if len(comps) == 0 {
		return 0, nil
	}
	base, _ := marshal.Unreversed(comps[0])
	lo, hi := p.Start, p.Finish
	if p.Reversed {
		lo, hi = hi, lo
	}
	var shape compositeShape
	var args []any
	for i, b := range [][]byte{lo, hi} {
		parts, err := splitComposite(b)
		if err != nil || len(parts) == 0 || len(parts[0]) == 0 || !valid12(base, parts[0]) {
			continue
		}
		shape |= compositeLo << i
		args = append(args, raw(parts[0]))
	}
	return shape, args
}

// compositeShape tells apart the texts of readComposite: which bounds of
// the first clustering column it restricts (firstBounds), and whether it
// reads in the reverse of the clustering order.
type compositeShape uint8

const (
	compositeLo compositeShape = 1 << iota
	compositeHi
	compositeReversed
	compositeShapes
)

// compositeTexts are a family's readComposite texts, built on first use
// and kept, as the family's other texts (familyTexts).
type compositeTexts [compositeShapes]atomic.Pointer[string]

func (t *compositeTexts) text(f *family, shape compositeShape) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	a := f.adopt
	s := compositeRowText(f) + a.boundsText(f.def.Comparator, shape)
	if shape&compositeReversed != 0 {
		// The reverse of the clustering order, column by column.
		dirs := make([]string, len(a.clustering))
		for i, col := range a.clustering {
			dirs[i] = col + " " + a.reverseOrder[i]
		}
		s += ` ORDER BY ` + strings.Join(dirs, ", ")
	}
	t[shape].Store(&s)
	return s
}

// boundsText is the clauses of the bounds of shape on the first
// clustering column, compared by c: in the column's own order, the
// reverse of a ReversedType component's.
func (a *adoptedLayout) boundsText(c marshal.Comparator, shape compositeShape) string {
	comps := marshal.Components(c)
	if len(comps) == 0 {
		return ""
	}
	_, rev := marshal.Unreversed(comps[0])
	var where strings.Builder
	for i, bound := range []compositeShape{compositeLo, compositeHi} {
		if shape&bound == 0 {
			continue
		}
		op := " >= ?"
		if (i == 1) != rev {
			op = " <= ?"
		}
		where.WriteString(` AND ` + a.clustering[0] + op)
	}
	return where.String()
}

// selects tells whether q selects name, compared by c, the names coming
// in q's order, and whether name is past q's run (so every later one is).
func selects(c marshal.Comparator, q engine.Query, name []byte) (keep, past bool) {
	switch {
	case q.Names != nil:
		for _, n := range q.Names {
			if c.Compare(n, name) == 0 {
				return true, false
			}
		}
		return false, false
	case !q.Reversed:
		if len(q.Start) > 0 && c.Compare(name, q.Start) < 0 {
			return false, false
		}
		past = len(q.Finish) > 0 && c.Compare(name, q.Finish) > 0
		return !past, past
	}
	if len(q.Start) > 0 && c.Compare(name, q.Start) > 0 {
		return false, false
	}
	past = len(q.Finish) > 0 && c.Compare(name, q.Finish) < 0
	return !past, past
}

// compositeStatement is the statement of a mutation of a family of the
// composite shape. A write needs one value per clustering column (the
// cluster refuses a missing one, unless the layout has prefixes); a
// deletion may name a prefix.
func (f *family) compositeStatement(key raw, m engine.Mutation) (statement, bool) {
	a := f.adopt
	if a == nil || len(a.clustering) == 0 || m.SuperColumn != nil || m.Name == nil {
		return statement{}, false
	}
	comps := a.components(m.Name, m.Delete)
	if m.Delete {
		var where strings.Builder
		args := []any{m.Timestamp, key}
		for i, comp := range comps {
			where.WriteString(` AND ` + a.clustering[i] + ` = ?`)
			args = append(args, raw(comp))
		}
		return statement{`DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?` + where.String(), args}, true
	}
	names := f.col.key
	marks := "?"
	args := []any{key}
	vals := make([]any, 0, len(a.clustering))
	for i := range a.clustering {
		names += ", " + a.clustering[i]
		marks += ", ?"
		var v raw
		if i < len(comps) {
			v = raw(comps[i])
		}
		args = append(args, v)
		vals = append(vals, v)
	}
	if f.valueType != "" {
		return f.valueInsert(key, true, vals, m), true
	}
	if n, ok := f.writtenComponents(m); ok {
		names += ", " + nameComponentsColumn
		marks += ", ?"
		args = append(args, n)
	}
	names += ", " + f.col.value
	marks += ", ?"
	args = append(args, raw(nonNil(m.Value)))
	if m.TTL > 0 && f.writtenTTL {
		names += ", written_ttl"
		marks += ", ?"
		args = append(args, m.TTL)
	}
	stmt := `INSERT INTO ` + f.table + ` (` + names + `) VALUES (` + marks + `) USING TIMESTAMP ?`
	args = append(args, m.Timestamp)
	if m.TTL > 0 {
		stmt += ` AND TTL ?`
		args = append(args, capTTL(int(m.TTL)))
	}
	return statement{stmt, args}, true
}

// nameComponentsColumn is the column of a 19.x composite table that
// keeps how many components each name was written with, so that a name
// whose last components are empty reads back as written: its row is the
// one of the shorter name (prefixes), whose missing components are empty
// too.
const nameComponentsColumn = "name_components"

// writtenComponents is what a write of m records in name_components,
// where the table has it: the number of components of m's name.
func (f *family) writtenComponents(m engine.Mutation) (int, bool) {
	if !f.nameComponents || f.adopt == nil || !f.adopt.prefixes {
		return 0, false
	}
	comps, err := splitComposite(m.Name)
	if err != nil || len(comps) == 0 || len(comps) > len(f.adopt.clustering) {
		return 0, false
	}
	return len(comps), true
}

// components are the clustering values of name's row: one per clustering
// column, the missing ones empty where the layout has prefixes; fewer, a
// prefix of rows, for a deletion of an adopted table's. A name that is no
// such composite is one value bound as it is, which makes the cluster
// refuse the statement with its own message.
func (a *adoptedLayout) components(name []byte, del bool) [][]byte {
	comps, err := splitComposite(name)
	switch {
	case err == nil && a.prefixes && len(comps) <= len(a.clustering):
		for len(comps) < len(a.clustering) {
			comps = append(comps, []byte{})
		}
	case err != nil || len(comps) > len(a.clustering) || (!del && len(comps) < len(a.clustering)):
		comps = [][]byte{name}
	}
	return comps
}

func (compositeLayout) row(f *family, _ marshal.Comparator, name []byte) ([]string, []any) {
	a := f.adopt
	comps := a.components(name, false)
	vals := make([]any, len(comps))
	for i, comp := range comps {
		vals[i] = raw(comp)
	}
	return a.clustering[:len(comps)], vals
}

// checkComposite refuses a name the composite layout with prefixes cannot
// hold: one whose last component carries a non-zero end-of-component
// byte, which 1.2 accepted as a column name (only a slice bound needs
// one) but which no row of clustering values can stand for. The client
// gets an InvalidRequestException saying so.
func (f *family) checkComposite(m engine.Mutation) error {
	if f.adopt == nil || !f.adopt.prefixes || m.Delete || m.SuperColumn != nil || m.Name == nil {
		return nil
	}
	if lastEOC(m.Name) != 0 {
		return &engine.RefusedError{Why: fmt.Sprintf("column family %s.%s: a column name whose last component has a non-zero end-of-component byte cannot be stored on the Cassandra store, where a name is a row of clustering values", f.def.Keyspace, f.def.Name)}
	}
	return nil
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

func (compositeLayout) check(f *family, m engine.Mutation) error {
	if err := f.checkComposite(m); err != nil {
		return err
	}
	if rangeDeletion(m) {
		_, err := f.compositeRange(nil, m)
		return err
	}
	return nil
}

func (compositeLayout) mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	if rangeDeletion(m) {
		s, _ := f.compositeRange(w.key, m)
		return append(out, s), w
	}
	if s, ok := f.compositeStatement(w.key, m); ok {
		return append(out, s), w
	}
	return f.ownStatements(out, w, m)
}

func (compositeLayout) readsMany(*family) bool { return false }

func (compositeLayout) casFenced(*family) bool { return false }
