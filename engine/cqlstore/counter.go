package cqlstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// Counters. A counter column family (default validator
// CounterColumnType) is a CQL counter table: a Standard one is the 19.x
// layout's table with value of type counter (typed.go), a Super one the
// 0.6 layout without its ghost marker, which a counter table cannot hold
// beside its counter:
//
//	key blob, super_column blob, column1 blob, value counter,
//	PRIMARY KEY (key, super_column, column1)
//
// An add is UPDATE ... SET value = value + ?; a removal is a DELETE. A
// counter update is not idempotent, so it is sent once, never retried by
// the driver or the store: a time-out is returned to the client as
// TimedOutException, as Cassandra returned it, and the add may or may not
// have been counted. A counter removed and then added again is Cassandra's
// own undefined case: the cluster may keep it removed.
//
// Counters are read as the totals (8-byte big-endian bigints) of their
// value column; a counter has no write time or TTL for CQL to report.
//
// An adopted counter table (adoptserve.go: key K, column1 C, value
// counter, or several clustering columns) is served by the same
// statements over its own columns, so a Thrift add and a CQL
// UPDATE ... SET value = value + n count into the same total.

// counterFamily reports a counter column family.
func counterFamily(def *schema.ColumnFamily) bool {
	return def.DefaultValidator != nil && strings.HasSuffix(def.DefaultValidator.Name(), ".CounterColumnType")
}

// superCounterTable is the CREATE TABLE of a Super counter family.
func (st *Store) superCounterTable(cqlKS string, def *schema.ColumnFamily) string {
	return `CREATE TABLE IF NOT EXISTS ` + quote(cqlKS) + `.` + quote(def.Name) +
		` (key blob, super_column blob, column1 blob, value counter, PRIMARY KEY (key, super_column, column1))` +
		` WITH gc_grace_seconds = ` + itoa(st.gcGrace(def)) +
		` AND comment = ` + quoteString("thriftd: 19.x Super counter column family "+def.Keyspace+"."+def.Name)
}

// noRetry sends a counter update once.
var noRetry = &gocql.SimpleRetryPolicy{NumRetries: 0}

// ApplyCounters implements engine.CounterStore. Each row is one
// statement, or one counter batch of its statements (one partition of one
// table: applied atomically); rows are applied concurrently.
func (st *Store) ApplyCounters(ctx context.Context, keyspace string, rows []engine.CounterRow) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	for _, r := range rows {
		for _, m := range r.Mutations {
			f, err := st.family(keyspace, m.ColumnFamily)
			if err != nil {
				return err
			}
			if f.system || !counterFamily(f.def) {
				return fmt.Errorf("cqlstore: %s.%s is not a counter column family", keyspace, m.ColumnFamily)
			}
		}
	}
	cl := writeConsistency(engine.Consistency(ctx))
	return st.each(ctx, len(rows), func(ctx context.Context, i int) error {
		return st.applyCounterRow(ctx, keyspace, rows[i], cl)
	})
}

func (st *Store) applyCounterRow(ctx context.Context, keyspace string, r engine.CounterRow, cl gocql.Consistency) error {
	// A row's mutations may span families: one batch per family.
	var order []string
	byCF := map[string][]statement{}
	for _, m := range r.Mutations {
		f, _ := st.family(keyspace, m.ColumnFamily)
		if _, ok := byCF[m.ColumnFamily]; !ok {
			order = append(order, m.ColumnFamily)
		}
		byCF[m.ColumnFamily] = append(byCF[m.ColumnFamily], counterStatement(f, st.keyOf(f, r.Key), m))
	}
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	for _, cf := range order {
		stmts := byCF[cf]
		var err error
		if len(stmts) == 1 {
			err = st.session.Query(stmts[0].cql, stmts[0].args...).WithContext(ctx).Consistency(cl).
				Idempotent(false).RetryPolicy(noRetry).Exec()
		} else {
			// Batch entries are not idempotent unless marked so.
			b := st.session.Batch(gocql.CounterBatch).WithContext(ctx).Consistency(cl).RetryPolicy(noRetry)
			for _, s := range stmts {
				b.Query(s.cql, s.args...)
			}
			err = b.Exec()
		}
		if err != nil {
			return clusterError(ctx, "counter write", err)
		}
	}
	return nil
}

// counterStatement is the CQL of one counter mutation.
func counterStatement(f *family, key raw, m engine.CounterMutation) statement {
	args := []any{key}
	c := f.def.Comparator
	var shape counterWrite
	if m.Delete {
		shape |= counterDelete
	}
	if f.def.Super && m.SuperColumn != nil {
		shape |= counterInSuper
		args = append(args, f.encode(f.def.Comparator, m.SuperColumn))
		c = f.def.SubComparator
	}
	switch {
	case m.Name == nil:
	case f.adopt != nil && len(f.adopt.clustering) > 0:
		// An adopted counter table of several clustering columns
		// (adoptcomposite.go): one value per component; a deletion may
		// name a prefix.
		comps := f.adopt.components(m.Name, m.Delete)
		for _, comp := range comps {
			args = append(args, raw(comp))
		}
		shape |= counterWrite(2+len(comps)) << 2
	default:
		shape |= counterColumn
		args = append(args, f.encode(c, m.Name))
	}
	if !m.Delete {
		args = append([]any{m.Delta}, args...)
	}
	return statement{cql: f.texts.counterWrites.text(f, shape), args: args}
}

// counterWrite tells apart the texts of counterStatement: a deletion or
// an increment, of a column of a super column or not, and, from bit 2,
// what names the column: 0 nothing (the row or super column), 1 column1,
// 2+n n components of the composite shape's clustering columns.
type counterWrite uint16

const (
	counterDelete counterWrite = 1 << iota
	counterInSuper
	counterColumn
)

// counterWriteTexts are a counter family's counterStatement texts of
// names of at most 13 components, each built on first use and kept for
// the family's life; those of more are built per call.
type counterWriteTexts [1 << 6]atomic.Pointer[string]

func (t *counterWriteTexts) text(f *family, shape counterWrite) string {
	cached := int(shape) < len(t)
	if cached {
		if p := t[shape].Load(); p != nil {
			return *p
		}
	}
	var where strings.Builder
	where.WriteString(` WHERE ` + f.col.key + ` = ?`)
	if shape&counterInSuper != 0 {
		where.WriteString(` AND super_column = ?`)
	}
	switch n := int(shape >> 2); {
	case n == 1:
		where.WriteString(` AND ` + f.col.column1 + ` = ?`)
	case n > 1:
		for _, col := range f.adopt.clustering[:n-2] {
			where.WriteString(` AND ` + col + ` = ?`)
		}
	}
	stmt := `UPDATE ` + f.table + ` SET ` + f.col.value + ` = ` + f.col.value + ` + ?` + where.String()
	if shape&counterDelete != 0 {
		stmt = `DELETE FROM ` + f.table + where.String()
	}
	if cached {
		t[shape].Store(&stmt)
	}
	return stmt
}

// counterShape tells apart the texts of readCounterRow: the clauses of
// restrict in its low bits, then the rest of the statement.
type counterShape uint8

const (
	counterSupers counterShape = 1 << (iota + 3) // whole super columns
	counterSub                                   // the subcolumns of one super column
	counterReversed
	counterLimit
	counterShapes = 1 << (iota + 3)
)

// counterTexts are a counter family's readCounterRow texts, each built
// on first use and kept for the family's life (as selectTexts).
type counterTexts [counterShapes]atomic.Pointer[string]

func (t *counterTexts) text(f *family, shape counterShape) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	col := f.col.column1
	stmt := `SELECT ` + f.col.column1 + `, ` + f.col.value + ` FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?`
	if shape&counterSupers != 0 {
		col = "super_column"
		stmt = `SELECT super_column, ` + f.col.column1 + `, ` + f.col.value + ` FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?`
	}
	if shape&counterSub != 0 {
		stmt += ` AND super_column = ?`
	}
	stmt += whereText(col, clauses(shape)&clauseMask)
	if shape&counterReversed != 0 {
		switch {
		case f.def.Super:
			stmt += ` ORDER BY super_column DESC, ` + f.col.column1 + ` DESC`
		case f.desc:
			stmt += ` ORDER BY ` + f.col.column1 + ` ASC`
		default:
			stmt += ` ORDER BY ` + f.col.column1 + ` DESC`
		}
	}
	if shape&counterLimit != 0 {
		stmt += ` LIMIT ?`
	}
	t[shape].Store(&stmt)
	return stmt
}

// readCounterRow is readRow for a counter family.
func (st *Store) readCounterRow(ctx context.Context, f *family, key string, q engine.Query) (engine.Row, error) {
	row := engine.Row{Key: key}
	if f.adopt != nil {
		ctx, cancel := st.withRequestTimeout(ctx)
		defer cancel()
		var err error
		row.Columns, err = st.readComposite(ctx, f, key, q)
		return row, err
	}
	c := f.def.Comparator
	sup := f.def.Super && q.SuperColumn == nil
	var shape counterShape
	if sup {
		shape |= counterSupers
	}
	args := []any{st.keyOf(f, key)}
	if q.SuperColumn != nil {
		shape |= counterSub
		args = append(args, f.encode(f.def.Comparator, q.SuperColumn))
		c = f.def.SubComparator
	}
	wargs, cl, filter := restrict(f, c, q.Predicate)
	shape |= counterShape(cl)
	args = append(args, wargs...)
	if q.Names == nil && q.Reversed {
		shape |= counterReversed
	}
	if !sup && q.Names == nil && q.Count > 0 && filter == nil {
		shape |= counterLimit
		args = append(args, min(q.Count, math.MaxInt32))
	}
	stmt := f.texts.counters.text(f, shape)
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	iter := st.readQuery(ctx, stmt, args...).PageSize(pageSize).Iter()
	var scEnc, enc, value raw
	dest := []any{&enc, &value}
	if sup {
		dest = []any{&scEnc, &enc, &value}
	}
	limit := q.Count
	if q.Names != nil || limit < 0 {
		limit = math.MaxInt
	}
	var last []byte
	for iter.Scan(dest...) {
		if sup && !bytes.Equal(scEnc, last) {
			if len(row.SuperColumns) == limit {
				break
			}
			name, err := f.decode(f.def.Comparator, scEnc)
			if err != nil {
				iter.Close()
				return row, fmt.Errorf("%s: stored super column name: %w", f.table, err)
			}
			row.SuperColumns = append(row.SuperColumns, engine.SuperColumn{Name: name})
			last = append(last[:0], scEnc...)
		}
		sub := c
		if sup {
			sub = f.def.SubComparator
		}
		name, err := f.decode(sub, enc)
		if err != nil {
			iter.Close()
			return row, fmt.Errorf("%s: stored counter name: %w", f.table, err)
		}
		if filter != nil && filter.outside(name) {
			scEnc, enc, value = nil, nil, nil
			continue
		}
		if filter != nil && q.Names == nil && len(row.Columns) == limit {
			break
		}
		cell := engine.Column{Name: name, Value: nonNil(value)}
		if sup {
			sc := &row.SuperColumns[len(row.SuperColumns)-1]
			sc.Columns = append(sc.Columns, cell)
		} else {
			row.Columns = append(row.Columns, cell)
		}
		scEnc, enc, value = nil, nil, nil
	}
	if sup && q.Reversed {
		// Subcolumns are always ascending.
		for _, sc := range row.SuperColumns {
			for i, j := 0, len(sc.Columns)-1; i < j; i, j = i+1, j-1 {
				sc.Columns[i], sc.Columns[j] = sc.Columns[j], sc.Columns[i]
			}
		}
	}
	return row, clusterError(ctx, "read "+f.table, iter.Close())
}

var _ engine.CounterStore = (*Store)(nil)

// counterLayout is a counter family: counter cells, read without
// timestamps, in thriftd's layout or an adopted composite table. cells is
// the layout of its table's shape (shapeLayout), which counts, checks and
// writes as if the cells were not counters.
type counterLayout struct{ cells tableLayout }

func (counterLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	return st.readCounterRow(ctx, f, key, q)
}

func (l counterLayout) count(ctx context.Context, st *Store, f *family, key string, superColumn []byte) (int, error) {
	return l.cells.count(ctx, st, f, key, superColumn)
}

func (l counterLayout) check(f *family, m engine.Mutation) error { return l.cells.check(f, m) }

func (l counterLayout) mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	return l.cells.mutation(out, f, w, m)
}

func (counterLayout) readsMany(*family) bool { return false }

func (l counterLayout) casFenced(f *family) bool { return l.cells.casFenced(f) }

func (l counterLayout) row(f *family, c marshal.Comparator, name []byte) ([]string, []any) {
	return l.cells.row(f, c, name)
}
